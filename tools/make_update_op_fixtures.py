"""Write tests/data/mxnet/update_ops.json: for each ``nd.*_update`` op of MXNet 1.9.1, seeded
inputs, arguments, the returned weight and every state after the call.

Needs real MXNet (``pip install mxnet==1.9.1 numpy==1.23.5`` in its own venv); not run in CI::

    /path/to/mxnet-venv/bin/python tools/make_update_op_fixtures.py
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "mxnet", "update_ops.json")

# op name, number of array inputs (weight, grad, states...), keyword arguments
CASES = [
    ("sgd_update", 2, dict(lr=0.1, wd=0.01, rescale_grad=0.5, clip_gradient=0.3)),
    ("sgd_mom_update", 3, dict(lr=0.1, momentum=0.9, wd=0.01, rescale_grad=0.5)),
    ("nag_mom_update", 3, dict(lr=0.1, momentum=0.9, wd=0.01, clip_gradient=0.4)),
    ("signsgd_update", 2, dict(lr=0.1, wd=0.01)),
    ("signum_update", 3, dict(lr=0.1, momentum=0.9, wd=0.01, wd_lh=0.02, clip_gradient=0.3)),
    ("adam_update", 4, dict(lr=0.1, beta1=0.8, beta2=0.9, epsilon=1e-6, wd=0.01,
                            rescale_grad=0.7, clip_gradient=0.5)),
    ("rmsprop_update", 3, dict(lr=0.1, gamma1=0.9, epsilon=1e-6, wd=0.01, clip_weights=0.9)),
    ("rmspropalex_update", 5, dict(lr=0.1, gamma1=0.9, gamma2=0.8, epsilon=1e-6, wd=0.01)),
    ("ftrl_update", 4, dict(lr=0.1, lamda1=0.01, beta=1.0, wd=0.01, rescale_grad=0.5)),
    ("ftml_update", 5, dict(lr=0.1, t=3, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.01,
                            clip_grad=0.4)),
]


def main():
    rng = np.random.RandomState(0)
    cases = []
    for name, n, kwargs in CASES:
        arrays = [rng.uniform(-1, 1, size=(3, 4)).astype("float32") for _ in range(n)]
        # second-moment-like states are >= 0 (rmspropalex: n >= g**2)
        for op, idx in (("rmsprop_update", 2), ("rmspropalex_update", 2), ("adam_update", 3),
                        ("ftrl_update", 3), ("ftml_update", 3), ("ftml_update", 2)):
            if name == op:
                arrays[idx] = np.abs(arrays[idx]) + (1.0 if op == "rmspropalex_update" else 0)
        nds = [mx.nd.array(a) for a in arrays]
        ret = getattr(mx.nd, name)(*nds, **kwargs)
        cases.append(dict(op=name, kwargs=kwargs, inputs=[a.tolist() for a in arrays],
                          result=ret.asnumpy().tolist(),
                          after=[x.asnumpy().tolist() for x in nds]))
    with open(OUT, "w") as f:
        json.dump(cases, f)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
