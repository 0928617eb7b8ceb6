"""Parameter shapes come from the operators' shape rules (mxgrad/symbol/_infer.py, the
one home): a trace's example values first, else partial shape inference over the graph,
as MXNet's ``infer_shape_partial``; for Gluon layers, custom HybridBlocks and
SymbolBlocks alike. (The MXNet 1.9.1 results quoted were checked with it.)"""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import gluon, nd
from mxgrad.gluon.parameter import DeferredInitializationError
from mxgrad.symbol._infer import var_shapes


def test_var_shapes_through_an_op_without_a_rule():
    # sort has no shape rule: partial inference runs it on zeros
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(mx.sym.sort(x), num_hidden=3, name="fc")
    assert var_shapes(y, {"data": (2, 5)}, {"fc_weight", "fc_bias"}) == {
        "fc_weight": (3, 5), "fc_bias": (3,)}
    # a variable nothing sizes is left out; one not wanted is not reported
    z = mx.sym.broadcast_add(x, mx.sym.var("w"))
    assert var_shapes(z, {"data": (2, 5)}, {"w"}) == {}
    assert var_shapes(y, {"data": (2, 5)}, {"fc_bias"}) == {"fc_bias": (3,)}


def test_var_shapes_contradiction_is_the_operators_error():
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    with pytest.raises(mx.base.ShapeError, match="fc"):
        var_shapes(y, {"data": (2, 5), "fc_weight": (3, 4)}, {"fc_bias"})


def test_symbolblock_parameter_sized_by_partial_inference():
    # elemwise_add makes w the shape of the data: MXNet 1.9.1 infers w (2, 3) too
    x, w = mx.sym.var("data"), mx.sym.var("w")
    blk = gluon.SymbolBlock(mx.sym.elemwise_add(x, w), x)
    blk.initialize(mx.init.Constant(0.5))
    out = blk(nd.ones((2, 3)))
    assert blk.params["w"].shape == (2, 3)
    assert out.asnumpy().tolist() == [[1.5] * 3] * 2


def test_symbolblock_parameter_nothing_sizes():
    # MXNet 1.9.1: "Deferred initialization failed because shape cannot be inferred ... w"
    x, w = mx.sym.var("data"), mx.sym.var("w")
    blk = gluon.SymbolBlock(mx.sym.broadcast_add(x, w), x)
    blk.initialize()
    with pytest.raises(DeferredInitializationError,
                       match=r"shape cannot be inferred.*\['w'\].*\(2, 3\)"):
        blk(nd.ones((2, 3)))


class _Scale(gluon.HybridBlock):
    """A custom block whose parameter only an elementwise op sizes (no layer rule)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        self.w = self.params.get("w", shape=(0, 0), init="ones", allow_deferred_init=True)

    def hybrid_forward(self, F, x, w):
        return F.elemwise_mul(F.relu(x), w)


@pytest.mark.parametrize("hybridize", [False, True])
def test_custom_block_parameter_sized_by_the_graph(hybridize):
    # MXNet 1.9.1 gives w (2, 3) and the same values, imperative and hybridized
    m = _Scale()
    m.initialize()
    if hybridize:
        m.hybridize()
    x = nd.array([[-1.0, 2.0, 3.0], [4.0, -5.0, 6.0]])
    out = m(x)
    assert m.w.shape == (2, 3)
    np.testing.assert_array_equal(out.asnumpy(), [[0.0, 2.0, 3.0], [4.0, 0.0, 6.0]])


def test_infer_shape_sizes_every_layer_of_a_network():
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Conv2D(4, 3), gluon.nn.BatchNorm(), gluon.nn.Dense(5),
            gluon.nn.LayerNorm(), gluon.nn.Dense(2, flatten=False))
    net.infer_shape(nd.ones((2, 3, 6, 6)))
    shapes = [v.shape for v in net.collect_params().values()]
    assert shapes == [(4, 3, 3, 3), (4,),                 # conv weight, bias
                      (4,), (4,), (4,), (4,),              # batchnorm gamma, beta, stats
                      (5, 64), (5,),                       # dense (flattens 4x4x4)
                      (5,), (5,),                          # layernorm
                      (2, 5), (2,)]                        # dense, flatten=False


@pytest.mark.parametrize("np_mode", [False, True])
@pytest.mark.parametrize("make, shapes", [
    (lambda: gluon.rnn.RNN(6), {"l0_i2h_weight": (6, 5)}),
    (lambda: gluon.rnn.GRU(6), {"l0_i2h_weight": (18, 5)}),
    (lambda: gluon.rnn.LSTM(4, num_layers=2, bidirectional=True),
     {"l0_i2h_weight": (16, 5), "r0_i2h_weight": (16, 5), "l1_i2h_weight": (16, 8)}),
    (lambda: gluon.rnn.LSTM(4, projection_size=3), {"l0_i2h_weight": (16, 5),
                                                    "l0_h2r_weight": (3, 4)})])
def test_fused_rnn_layers_size_their_first_weights_through_the_graph(make, shapes, np_mode):
    # the first layer's input weights reach the RNN op flattened and concatenated (MXNet's
    # _rnn_param_concat): their shape comes back through the concat and the reshape, in
    # both faces (d2l-en's RNN chapters run in NumPy mode)
    from mxgrad import npx
    if np_mode:
        npx.set_np()
    try:
        layer = make()
        layer.initialize()
        x = (mx.np.ones((3, 2, 5)) if np_mode else nd.ones((3, 2, 5)))
        out = layer(x)
        assert out.shape[:2] == (3, 2)
        params = {k[len(layer.prefix):]: p.shape for k, p in layer.collect_params().items()}
        for name, shape in shapes.items():
            assert params[name] == shape
    finally:
        if np_mode:
            npx.reset_np()
