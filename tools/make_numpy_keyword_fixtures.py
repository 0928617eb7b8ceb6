"""Write ``tests/data/mxnet/numpy_keyword_fixtures.npz``: the results of
``tests/numpy_keyword_cases.py`` on real MXNet 1.9.1 (values, gradients, and for each
refused call the built-in class of MXNet's error). Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_numpy_keyword_fixtures.py
"""
from __future__ import annotations

import os
import sys

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from numpy_keyword_cases import GRAD_CASES, REFUSED_CASES, SETUP, VALUE_CASES  # noqa: E402


def _kind(err: BaseException) -> str:
    """The built-in class a caller would catch MXNet's error as."""
    for cls in (NotImplementedError, TypeError, ValueError, IndexError):
        if isinstance(err, cls):
            return cls.__name__
    return "MXNetError" if type(err).__name__ == "MXNetError" else type(err).__name__


def main() -> None:
    import mxnet as mx
    from mxnet import autograd, nd, np, npx
    npx.set_np()
    env = {"np": np, "npx": npx, "nd": nd, "onp": onp}
    exec(SETUP, env)
    out, failed = {}, []
    for name, expr in VALUE_CASES.items():
        try:
            out[name] = eval(expr, env).asnumpy()
        except Exception as err:  # a case MXNet 1.9.1 refuses does not belong in the list
            failed.append(f"{name}: {type(err).__name__}: {str(err)[:80]}")
    for name, expr in GRAD_CASES.items():
        x = env["X"].copy()
        x.attach_grad()
        with autograd.record():
            y = eval(expr, dict(env, X=x))
        y.backward()
        out[name] = x.grad.asnumpy()
    for name, (expr, _word) in REFUSED_CASES.items():
        try:
            r = eval(expr, env)
            if hasattr(r, "wait_to_read"):
                r.wait_to_read()
        except Exception as err:
            out["refused_" + name] = onp.array(_kind(err))
        else:
            failed.append(f"{name}: MXNet accepts it")
    if failed:
        sys.exit("fix these cases in tests/numpy_keyword_cases.py:\n" + "\n".join(failed))
    dest = os.path.join(HERE, "..", "tests", "data", "mxnet", "numpy_keyword_fixtures.npz")
    onp.savez_compressed(dest, **out)
    print(f"wrote {len(out)} entries to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
