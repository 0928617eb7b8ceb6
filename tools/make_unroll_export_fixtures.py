"""Write tests/data/mxnet/rnn/unroll-*: MXNet 1.9.1 hybridizes blocks whose ``hybrid_forward``
unrolls recurrent cells (a stacked LSTM/GRU cell, and a bidirectional cell with
``valid_length``), runs them on seeded data and exports them. Written per block NAME:

- ``unroll-NAME-symbol.json`` / ``unroll-NAME-0000.params``: MXNet's export;
- ``unroll-NAME-io.npz``: the inputs and MXNet's output.

tests/test_rnn_unroll_export.py builds the same blocks (same classes, same prefixes), loads
MXNet's parameters, and checks the hybridized output, its own export, and MXNet's export.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_unroll_export_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "rnn")


class Stacked(mx.gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.cell = mx.gluon.rnn.HybridSequentialRNNCell()
            self.cell.add(mx.gluon.rnn.LSTMCell(4, input_size=3))
            self.cell.add(mx.gluon.rnn.GRUCell(5, input_size=4))

    def hybrid_forward(self, F, x):
        out, _ = self.cell.unroll(6, x, layout="NTC", merge_outputs=True)
        return out


class BiMasked(mx.gluon.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.cell = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.LSTMCell(3, input_size=3),
                                                       mx.gluon.rnn.RNNCell(2, input_size=3))

    def hybrid_forward(self, F, x, valid_length):
        out, states = self.cell.unroll(5, x, layout="TNC", merge_outputs=True,
                                       valid_length=valid_length)
        return out, states[0]


def main():
    rs = np.random.RandomState(0)
    for name, net, args in [
            ("stacked", Stacked(prefix="stacked_"), [rs.randn(2, 6, 3)]),
            ("bimasked", BiMasked(prefix="bimasked_"), [rs.randn(5, 3, 3),
                                                         np.array([5, 2, 3])])]:
        net.initialize(mx.init.Uniform(0.5))
        net.hybridize()
        xs = [mx.nd.array(a) for a in args]
        out = net(*xs)
        out = out if isinstance(out, (list, tuple)) else [out]
        net.export(os.path.join(OUT, f"unroll-{name}"))
        np.savez(os.path.join(OUT, f"unroll-{name}-io.npz"),
                 **{f"in{i}": a.astype("float32") for i, a in enumerate(args)},
                 **{f"out{i}": o.asnumpy() for i, o in enumerate(out)})
        print("wrote", name, [o.shape for o in out])


if __name__ == "__main__":
    main()
