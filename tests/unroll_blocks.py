"""The blocks whose hybridized unroll must match MXNet 1.9.1's: built by
``tests/test_rnn_unroll_export.py`` on mxgrad and by ``tools/make_unroll_export_fixtures.py``
on real MXNet, from this one definition."""


def blocks(mx):
    """(Stacked, BiMasked) for ``mx`` = mxgrad or real MXNet."""

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

    return Stacked, BiMasked
