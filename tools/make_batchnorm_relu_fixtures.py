"""Write tests/data/mxnet/batchnorm_relu.npz and batchnorm_relu-symbol.json: MXNet 1.9.1's
``gluon.nn.BatchNormReLU`` on a seeded input (deferred initialization: no ``in_channels``)
in training mode (output, the input's gradient for a seeded head, the running statistics
after the step) and in predict mode, and the graph its hybridized export writes.
tests/test_batchnorm_relu.py runs mxgrad's layer on the same input and compares.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_batchnorm_relu_fixtures.py
"""
import json
import os
import tempfile

import mxnet as mx
import numpy as np

DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                    "mxnet")


def main():
    rs = np.random.RandomState(0)
    x = rs.normal(size=(4, 3, 2, 2)).astype("float32")
    head = rs.normal(size=x.shape).astype("float32")
    net = mx.gluon.nn.BatchNormReLU(momentum=0.8, prefix="bnr_")
    net.initialize()
    xs = mx.nd.array(x)
    xs.attach_grad()
    with mx.autograd.record():
        y = net(xs)
    y.backward(mx.nd.array(head))
    out = {"x": x, "head": head, "train_out": y.asnumpy(), "x_grad": xs.grad.asnumpy(),
           "running_mean": net.running_mean.data().asnumpy(),
           "running_var": net.running_var.data().asnumpy(),
           "predict_out": net(xs).asnumpy()}
    np.savez(os.path.join(DATA, "batchnorm_relu.npz"), **out)
    net.hybridize()
    net(xs)
    with tempfile.TemporaryDirectory() as tmp:
        net.export(os.path.join(tmp, "bnr"))
        graph = json.load(open(os.path.join(tmp, "bnr-symbol.json")))
    with open(os.path.join(DATA, "batchnorm_relu-symbol.json"), "w") as f:
        json.dump(graph, f, indent=1)


if __name__ == "__main__":
    main()
