"""Write tests/data/mxnet/refusals.json: which calls MXNet 1.9.1 refuses and, for those it
accepts, the result's shape (``nd.zeros(shape=())``, ``nd.diag`` offsets and axes), and the
``get_prob`` output of ``nd.random.multinomial`` on a deterministic case.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_refusal_fixtures.py

tests/test_refusals.py holds the same calls under the same names.
"""
import json
import os

import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "refusals.json")

CALLS = {
    "zeros_shape_kw_0d": lambda: mx.nd.zeros(shape=()),
    "zeros_0d": lambda: mx.nd.zeros(()),
    "ones_0d": lambda: mx.nd.ones(()),
    "full_0d": lambda: mx.nd.full((), 2.0),
    "zeros_1": lambda: mx.nd.zeros((1,)),
    "diag_2x3": lambda: mx.nd.diag(mx.nd.ones((2, 3))),
    "diag_1d_k2": lambda: mx.nd.diag(mx.nd.ones((3,)), k=2),
    "diag_1d_k-4": lambda: mx.nd.diag(mx.nd.ones((3,)), k=-4),
    "diag_2x3_k3": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=3),
    "diag_2x3_k4": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=4),
    "diag_2x3_k5": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=5),
    "diag_2x3_k-2": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=-2),
    "diag_2x3_k-3": lambda: mx.nd.diag(mx.nd.ones((2, 3)), k=-3),
    "diag_3d": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4))),
    "diag_3d_axes_1_2": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=1, axis2=2),
    "diag_3d_axes_-1_0": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=-1, axis2=0),
    "diag_3d_axes_-1_0_k-5": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), k=-5, axis1=-1,
                                                axis2=0),
    "diag_3d_same_axes": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=1, axis2=1),
    "diag_3d_axis_3": lambda: mx.nd.diag(mx.nd.ones((2, 3, 4)), axis1=3, axis2=1),
    "seed_negative": lambda: mx.random.seed(-5),
}


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
