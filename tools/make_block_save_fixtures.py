"""Write tests/data/mxnet/block_save/: what MXNet 1.9.1's ``Block.save(prefix)`` writes for a
small nested, hybridized network (``net-model.json``, ``net-model.params``), a second,
never-hybridized save of it (``plain-model.json``), and its input and output
(``io.npz``). tests/test_block_save.py builds the same network (``build`` below, same
layers and order) and loads them.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_block_save_fixtures.py
"""
import os
import sys

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "block_save")


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "tests"))
from block_save_net import build  # noqa: E402


def main():
    os.makedirs(OUT, exist_ok=True)
    mx.random.seed(0)
    net = build(mx.gluon.nn)
    net.initialize(mx.init.Uniform(0.5))
    net.save(os.path.join(OUT, "plain"))
    os.remove(os.path.join(OUT, "plain-model.params"))
    net.hybridize()
    x = np.random.RandomState(0).randn(5, 3).astype("float32")
    y = net(mx.nd.array(x)).asnumpy()
    net.save(os.path.join(OUT, "net"))
    np.savez(os.path.join(OUT, "io.npz"), x=x, y=y)
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
