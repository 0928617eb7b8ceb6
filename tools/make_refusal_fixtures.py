"""Write tests/data/mxnet/refusals.json: which calls MXNet 1.9.1 refuses and, for those it
accepts, the result's shape (``nd.zeros(shape=())``, ``nd.diag`` offsets and axes), and the
``get_prob`` output of ``nd.random.multinomial`` on a deterministic case.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_refusal_fixtures.py

tests/test_refusals.py holds the same calls under the same names.
"""
import json
import os
import sys

import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "refusals.json")

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "tests"))
import refusal_cases  # noqa: E402

CALLS = refusal_cases.calls(mx)


def main():
    out = {}
    for name, f in CALLS.items():
        try:
            r = f()
            out[name] = {"ok": True, "shape": list(r.shape) if r is not None else None}
        except mx.MXNetError:
            out[name] = {"ok": False}
    x = mx.nd.array([[2.0, 0.0], [0.0, 1.0]])   # rows >= 1: MXNet always draws the first non-zero
    x.attach_grad()
    with mx.autograd.record():
        res = mx.nd.random.multinomial(x, shape=3, get_prob=True)
    res[1].backward(mx.nd.array([[1, 2, 3], [1, 1, 1]]))
    out["multinomial_get_prob"] = {"type": type(res).__name__, "idx": res[0].asnumpy().tolist(),
                                   "logp": res[1].asnumpy().tolist(),
                                   "grad": x.grad.asnumpy().tolist()}
    with open(OUT, "w") as f:
        json.dump(out, f, indent=1)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
