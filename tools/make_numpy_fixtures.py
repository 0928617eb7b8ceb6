"""Write ``tests/data/mxnet/numpy_fixtures.npz``: the results of ``tests/numpy_cases.py``'s
expressions on real MXNet 1.9.1's NumPy interface (values, and gradients for the
``GRAD_CASES``). Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_numpy_fixtures.py

It also writes ``tests/data/mxnet/np_arrays.params`` (``npx.save`` of a 0-d, a zero-size
and an int32 array). Each case ``name`` is stored as ``name`` (the values as a NumPy array of MXNet's dtype and
shape, 0-d arrays included).
"""
from __future__ import annotations

import os
import sys

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from numpy_cases import GRAD_CASES, GRAD_X, VALUE_CASES  # noqa: E402


def main() -> None:
    import mxnet as mx
    from mxnet import autograd, np, npx
    npx.set_np()
    out = {}
    env = {"np": np, "npx": npx, "onp": onp}
    failed = []
    for name, expr in VALUE_CASES.items():
        try:
            r = eval(expr, env)
        except Exception as err:  # a case MXNet 1.9.1 refuses does not belong in the list
            failed.append(f"{name}: {type(err).__name__}: {str(err)[:80]}")
            continue
        out[name] = r.asnumpy()
    for name, expr in GRAD_CASES.items():
        x = np.array(GRAD_X)
        x.attach_grad()
        with autograd.record():
            y = eval(expr, dict(env, x=x))
        y.backward()
        out[name] = x.grad.asnumpy()
    if failed:
        sys.exit("MXNet refuses these cases; remove them from tests/numpy_cases.py:\n"
                 + "\n".join(failed))
    dest = os.path.join(HERE, "..", "tests", "data", "mxnet", "numpy_fixtures.npz")
    onp.savez_compressed(dest, **out)
    print(f"wrote {len(out)} cases to {dest} (MXNet {mx.__version__})")
    # MXNet's file format in NumPy shape mode (V3 records: a 0-d and a zero-size array)
    params = os.path.join(HERE, "..", "tests", "data", "mxnet", "np_arrays.params")
    npx.save(params, {"s": np.array(2.5), "z": np.zeros((0, 2)),
                      "w": np.arange(3, dtype="int32")})
    print(f"wrote {params}")


if __name__ == "__main__":
    main()
