"""Write tests/data/mxnet/softmax_output.json: MXNet 1.9.1's nd.SoftmaxOutput outputs and data
gradients (head of ones) for multi_output/ignore/normalization combinations on seeded
inputs (MXNet's test_softmax_output_normalization cases).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_softmax_output_fixtures.py
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "softmax_output.json")


def main():
    rs = np.random.RandomState(0)
    cases = []
    for multi in (False, True):
        for ignore in (False, True):
            for norm in ("null", "batch", "valid"):
                shape = (4, 3, 2, 3) if multi else (4, 3)
                lshape = (4, 2, 3) if multi else (4,)
                data = rs.uniform(-1, 1, size=shape).astype("float32")
                label = rs.randint(0, 3, size=lshape).astype("float32")
                kw = dict(grad_scale=0.7, normalization=norm, multi_output=multi)
                if ignore:
                    kw.update(use_ignore=True, ignore_label=1.0)
                x = mx.nd.array(data)
                x.attach_grad()
                with mx.autograd.record():
                    out = mx.nd.SoftmaxOutput(data=x, label=mx.nd.array(label), **kw)
                out.backward(mx.nd.ones_like(x))
                cases.append(dict(kwargs=kw, data=data.tolist(), label=label.tolist(),
                                  out=out.asnumpy().tolist(), grad=x.grad.asnumpy().tolist()))
    with open(OUT, "w") as f:
        json.dump(cases, f)
    print("wrote", OUT, len(cases))


if __name__ == "__main__":
    main()
