"""nd.RNN and gluon.rnn: numerical gradients (float64 central differences) of every fused mode
and every cell, second order, dropout, the fused layers against their unfused cells, errors."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError
from mxgrad.test_utils import check_numeric_gradient, check_second_order

MODES = ["rnn_relu", "rnn_tanh", "lstm", "gru"]


def _inputs(mode, T, N, I, H, L, bi, seed=0, scale=0.4):
    rng = np.random.default_rng(seed)
    D = 2 if bi else 1
    n = nd.rnn_param_size(mode, I, H, L, bi)
    xs = [rng.standard_normal((T, N, I)), rng.uniform(-scale, scale, n),
          rng.standard_normal((L * D, N, H)) * 0.5]
    if mode == "lstm":
        xs.append(rng.standard_normal((L * D, N, H)) * 0.5)
    return xs


def _fused(mode, H, L, bi, p=0.0):
    def fn(x, w, h, c=None):
        return nd.RNN(x, w, h, c, state_size=H, num_layers=L, bidirectional=bi, mode=mode,
                      state_outputs=True, p=p)
    return fn


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("L,bi", [(1, False), (1, True), (2, False), (2, True)])
def test_fused_numeric_gradient(mode, L, bi):
    xs = _inputs(mode, 4, 2, 3, 3, L, bi, seed=L + 2 * bi)
    if mode == "rnn_relu":   # keep pre-activations away from the kink
        xs[0] = xs[0] + 0.05
    assert check_numeric_gradient(_fused(mode, 3, L, bi), xs, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("mode", ["rnn_tanh", "lstm", "gru"])
def test_fused_second_order(mode):
    xs = _inputs(mode, 2, 2, 2, 2, 2, True, seed=5)
    assert check_second_order(lambda *a: _fused(mode, 2, 2, True)(*a)[0], xs)


@pytest.mark.parametrize("mode", MODES)
def test_fused_matches_composed_recurrence(mode):
    """The fused NumPy forward/BPTT and the same recurrence written in mxgrad ops agree."""
    from mxgrad.ops.rnn import _rnn_composed
    xs = [nd.array(a, dtype="float64") for a in _inputs(mode, 5, 3, 4, 3, 2, True, seed=7)]
    heads = None
    res = []
    for fused in (True, False):
        for v in xs:
            v.attach_grad()
        with autograd.record():
            if fused:
                outs = _fused(mode, 3, 2, True)(*xs)
            else:
                outs = [o for o in _rnn_composed(*xs, *([None] * (4 - len(xs))), None, mode,
                                                 3, 2, 2) if o is not None]
        if heads is None:
            rng = np.random.default_rng(0)
            heads = [nd.array(rng.standard_normal(o.shape), dtype="float64") for o in outs]
        autograd.backward(outs, heads)
        res.append(([o.asnumpy() for o in outs], [v.grad.asnumpy().copy() for v in xs]))
    for a, b in zip(res[0][0] + res[0][1], res[1][0] + res[1][1]):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_grad_of_a_subset_and_retain_graph():
    """autograd.grad for some inputs only, and a second backward with retain_graph."""
    x, w, h, c = [nd.array(a, dtype="float64") for a in _inputs("lstm", 3, 2, 2, 3, 2, False)]
    for v in (x, w, h):
        v.attach_grad()
    with autograd.record():
        out = _fused("lstm", 3, 2, False)(x, w, h, c)[0]
    gw, = autograd.grad(out, [w], retain_graph=True)
    out.backward(retain_graph=True)
    np.testing.assert_allclose(gw.asnumpy(), w.grad.asnumpy(), rtol=1e-12)
    first = x.grad.asnumpy().copy()
    out.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), first, rtol=1e-12)


def test_dropout_between_layers():
    xs = [nd.array(a, dtype="float64") for a in _inputs("gru", 4, 3, 3, 5, 3, True, seed=3)]
    fn = _fused("gru", 5, 3, True, p=0.5)
    ref = _fused("gru", 5, 3, True)(*xs)[0].asnumpy()
    np.testing.assert_array_equal(fn(*xs)[0].asnumpy(), ref)   # predict mode: no dropout
    for v in xs:
        v.attach_grad()
    mx.random.seed(0)
    with autograd.record():
        out = fn(*xs)[0]
    assert not np.allclose(out.asnumpy(), ref)
    # the fused backward and the create_graph rules (same masks) agree
    with autograd.record():
        g2 = autograd.grad(out, xs[:2], create_graph=True)
    out.backward()
    for v, g in zip(xs, g2):
        np.testing.assert_allclose(v.grad.asnumpy(), g.asnumpy(), rtol=1e-10, atol=1e-12)


def test_float32_and_outputs():
    x, w, h, c = [nd.array(a) for a in _inputs("lstm", 3, 2, 4, 5, 1, False)]
    out = nd.RNN(x, w, h, c, state_size=5, num_layers=1, mode="lstm")
    assert out.dtype == np.float32 and out.shape == (3, 2, 5)
    out, hy = nd.RNN(x, nd.ones((nd.rnn_param_size("gru", 4, 5),)) * 0.1, h, state_size=5,
                     num_layers=1, mode="gru", state_outputs=True)
    np.testing.assert_allclose(out.asnumpy()[-1], hy.asnumpy()[0])


def test_rnn_op_errors():
    x, w, h, c = [nd.array(a) for a in _inputs("lstm", 3, 2, 4, 5, 1, False)]
    with pytest.raises(MXNetError, match="parameters"):
        nd.RNN(x, w[:10], h, c, state_size=5, num_layers=1, mode="lstm")
    with pytest.raises(MXNetError, match="state must have shape"):
        nd.RNN(x, w, h[:, :1], c, state_size=5, num_layers=1, mode="lstm")
    with pytest.raises(MXNetError, match="state_cell"):
        nd.RNN(x, w, h, state_size=5, num_layers=1, mode="lstm")
    with pytest.raises(MXNetError, match="mode"):
        nd.RNN(x, w, h, c, state_size=5, num_layers=1, mode="lstmp")
    with pytest.raises(ValueError):
        nd.RNN(x[0], w, h, c, state_size=5, num_layers=1, mode="lstm")


# ------------------------------------------------------------------------- cells
def _cell_fn(cell, nstates, steps):
    names = ["i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias"]

    def fn(x, *rest):
        states = list(rest[:nstates])
        params = dict(zip(names, rest[nstates:]))
        outs = []
        for t in range(steps):
            o, states = cell.hybrid_forward(nd, x[t], states, **params)
            outs.append(o)
        return [nd.stack(*outs, axis=0)] + list(states)
    return fn


@pytest.mark.parametrize("cell_cls,kw,G,ns", [
    (gluon.rnn.RNNCell, {"activation": "tanh"}, 1, 1),
    (gluon.rnn.RNNCell, {"activation": "softsign"}, 1, 1),
    (gluon.rnn.LSTMCell, {}, 4, 2),
    (gluon.rnn.GRUCell, {}, 3, 1)])
def test_cell_numeric_gradient(cell_cls, kw, G, ns):
    I, H, N, T = 3, 2, 2, 3
    cell = cell_cls(H, input_size=I, **kw)
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal((T, N, I))] + [rng.standard_normal((N, H)) for _ in range(ns)]
    xs += [rng.uniform(-0.5, 0.5, s) for s in [(G * H, I), (G * H, H), (G * H,), (G * H,)]]
    assert check_numeric_gradient(_cell_fn(cell, ns, T), xs, rtol=1e-5, atol=1e-7)


def test_cell_second_order():
    cell = gluon.rnn.GRUCell(2, input_size=2)
    rng = np.random.default_rng(2)
    xs = [rng.standard_normal((2, 1, 2)), rng.standard_normal((1, 2))]
    xs += [rng.uniform(-0.5, 0.5, s) for s in [(6, 2), (6, 2), (6,), (6,)]]
    assert check_second_order(lambda *a: _cell_fn(cell, 1, 2)(*a)[0], xs)


@pytest.mark.parametrize("mode,cls,kw", [("lstm", gluon.rnn.LSTM, {}),
                                         ("gru", gluon.rnn.GRU, {}),
                                         ("rnn_relu", gluon.rnn.RNN, {"activation": "relu"}),
                                         ("rnn_tanh", gluon.rnn.RNN, {"activation": "tanh"})])
@pytest.mark.parametrize("layout", ["TNC", "NTC"])
def test_layer_equals_unfused_cells(mode, cls, kw, layout):
    layer = cls(4, num_layers=2, bidirectional=True, layout=layout, dtype="float64", **kw)
    layer.initialize(mx.init.Uniform(0.4))
    x = nd.array(np.random.default_rng(0).standard_normal((5, 3, 2)), dtype="float64")
    x.attach_grad()
    with autograd.record():
        out = layer(x)
    out.backward()
    gx = x.grad.asnumpy().copy()
    gw = {k: p.grad().asnumpy().copy() for k, p in layer.collect_params().items()}
    stack = layer._unfuse()
    assert set(stack.collect_params().keys()) == set(gw)
    T = x.shape[layout.find("T")]
    with autograd.record():
        out2, _ = stack.unroll(T, x, layout=layout, merge_outputs=True)
    out2.backward()
    np.testing.assert_allclose(out2.asnumpy(), out.asnumpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(x.grad.asnumpy(), gx, rtol=1e-9, atol=1e-12)
    for k, p in layer.collect_params().items():
        np.testing.assert_allclose(p.grad().asnumpy(), gw[k], rtol=1e-9, atol=1e-12)


def test_layer_api():
    layer = gluon.rnn.LSTM(6, num_layers=2, layout="NTC", prefix="lstm_")
    assert layer.l0_i2h_weight.shape == (24, 0)
    layer.initialize()
    x = nd.ones((3, 5, 7))
    out = layer(x)                                      # no states: only the output
    assert out.shape == (3, 5, 6) and layer.l0_i2h_weight.shape == (24, 7)
    assert layer.l1_i2h_weight.shape == (24, 6)
    states = layer.begin_state(batch_size=3)
    assert [s.shape for s in states] == [(2, 3, 6), (2, 3, 6)]
    out, new = layer(x, states)
    np.testing.assert_allclose(new[0].asnumpy()[-1], out.asnumpy()[:, -1])
    with pytest.raises(MXNetError, match="state shape"):
        layer(x, [nd.zeros((2, 4, 6)), nd.zeros((2, 4, 6))])
    with pytest.raises(MXNetError, match="layout"):
        gluon.rnn.GRU(3, layout="CTN")
    assert repr(layer) == "LSTM(7 -> 6, NTC, num_layers=2)"
    assert [k for k in layer.collect_params()][:2] == ["lstm_l0_i2h_weight", "lstm_l0_h2h_weight"]
    s = layer.state_info(2)[0]
    assert s["shape"] == (2, 2, 6) and s["__layout__"] == "LNC"


def test_layer_trains():
    mx.random.seed(0)
    layer = gluon.rnn.GRU(8, num_layers=2, dropout=0.2)
    dense = gluon.nn.Dense(1, flatten=False)
    layer.initialize(mx.init.Xavier())
    dense.initialize()
    params = layer.collect_params()
    params.update(dense.collect_params())
    trainer = gluon.Trainer(params, "adam", {"learning_rate": 0.02})
    rng = np.random.default_rng(0)
    x = nd.array(rng.standard_normal((6, 16, 2)))
    y = nd.array(np.cumsum(x.asnumpy()[:, :, :1], axis=0) * 0.3)
    losses = []
    for _ in range(40):
        with autograd.record():
            loss = gluon.loss.L2Loss()(dense(layer(x)), y)
        loss.backward()
        trainer.step(16)
        losses.append(float(loss.mean().asscalar()))
    assert losses[-1] < 0.5 * losses[0]


def test_cell_api_and_modifiers():
    cell = gluon.rnn.LSTMCell(3, input_size=2)
    cell.initialize()
    assert [i["shape"] for i in cell.state_info(4)] == [(4, 3), (4, 3)]
    outs, states = cell.unroll(3, [nd.ones((4, 2))] * 3)          # list in, list out
    assert isinstance(outs, list) and len(outs) == 3
    merged, _ = cell.unroll(3, nd.ones((3, 4, 2)), layout="TNC", merge_outputs=True)
    np.testing.assert_allclose(merged.asnumpy()[2], outs[2].asnumpy(), rtol=1e-6)
    zone = gluon.rnn.ZoneoutCell(gluon.rnn.RNNCell(3, input_size=2), 0.5, 0.5)
    zone.initialize()
    with pytest.raises(MXNetError):
        zone.base_cell.begin_state(batch_size=1)
    x = nd.array(np.random.default_rng(0).standard_normal((2, 6, 2)))
    base_out, _ = zone.unroll(6, x, merge_outputs=True)           # predict mode: base cell
    zone.base_cell._modified = False
    ref, _ = zone.base_cell.unroll(6, x, merge_outputs=True)
    zone.base_cell._modified = True
    np.testing.assert_allclose(base_out.asnumpy(), ref.asnumpy(), rtol=1e-6)
    mx.random.seed(1)
    with autograd.train_mode():
        zout, _ = zone.unroll(6, x, merge_outputs=True)
    z = zout.asnumpy()
    # zoned-out elements repeat the previous step's output exactly (never in the base cell)
    assert (z[:, 1:] == z[:, :-1]).any() and not (ref.asnumpy()[:, 1:] == ref.asnumpy()[:, :-1]).any()
    assert not np.allclose(z, ref.asnumpy())
    with pytest.raises(MXNetError, match="unroll"):
        gluon.rnn.BidirectionalCell(gluon.rnn.GRUCell(2), gluon.rnn.GRUCell(2))(x, [])
    res = gluon.rnn.ResidualCell(gluon.rnn.GRUCell(2, input_size=2))
    res.initialize()
    r_out, _ = res.unroll(6, x, merge_outputs=True)
    res.base_cell._modified = False
    b_out, _ = res.base_cell.unroll(6, x, merge_outputs=True)
    np.testing.assert_allclose(r_out.asnumpy(), b_out.asnumpy() + x.asnumpy(), rtol=1e-6)
    drop = gluon.rnn.DropoutCell(0.5)
    with autograd.train_mode():
        d, _ = drop.unroll(6, x, merge_outputs=True)
    assert set(np.unique(np.round(d.asnumpy() / np.where(x.asnumpy() == 0, 1, x.asnumpy()),
                                  5))) <= {0.0, 2.0}


def test_unroll_valid_length_masks_and_picks_last_state():
    cell = gluon.rnn.GRUCell(3, input_size=2)
    cell.initialize()
    x = nd.array(np.random.default_rng(0).standard_normal((2, 5, 2)))
    out, [h] = cell.unroll(5, x, merge_outputs=True, valid_length=nd.array([5, 2]))
    full, _ = cell.unroll(5, x, merge_outputs=True)
    np.testing.assert_allclose(out.asnumpy()[0], full.asnumpy()[0], rtol=1e-6)
    np.testing.assert_allclose(out.asnumpy()[1, :2], full.asnumpy()[1, :2], rtol=1e-6)
    assert not out.asnumpy()[1, 2:].any()
    np.testing.assert_allclose(h.asnumpy()[1], full.asnumpy()[1, 1], rtol=1e-6)


@pytest.mark.parametrize("mode", ["rnn_relu", "lstm", "gru"])
def test_fused_forward_mode_matches_central_differences(mode):
    from mxgrad.autograd import forward_ad as fad
    T, N, I, H, L = 3, 2, 2, 3, 2
    xs = _inputs(mode, T, N, I, H, L, True, seed=11)
    if mode == "rnn_relu":
        xs[0] = xs[0] + 0.05
    rng = np.random.default_rng(12)
    ts = [rng.standard_normal(x.shape) for x in xs]
    fn = _fused(mode, H, L, True)
    with fad.dual_level():
        duals = [fad.make_dual(nd.array(x, dtype="float64"), nd.array(t, dtype="float64"))
                 for x, t in zip(xs, ts)]
        tans = [fad.unpack_dual(o).tangent.asnumpy() for o in fn(*duals)]
    eps = 1e-6
    plus = fn(*[nd.array(x + eps * t, dtype="float64") for x, t in zip(xs, ts)])
    minus = fn(*[nd.array(x - eps * t, dtype="float64") for x, t in zip(xs, ts)])
    for tan, p, m in zip(tans, plus, minus):
        np.testing.assert_allclose(tan, (p.asnumpy() - m.asnumpy()) / (2 * eps), rtol=1e-6,
                                   atol=1e-8)


@pytest.mark.parametrize("valid_length", [None, [4, 2]])
def test_composite_cells_numeric_gradient(valid_length):
    """BidirectionalCell of a Sequential(LSTM, Residual(GRU)) and an RNN cell, unrolled
    (optionally with valid_length): gradients of the input and every begin state."""
    rnn = gluon.rnn
    fwd = rnn.SequentialRNNCell()
    fwd.add(rnn.LSTMCell(3, input_size=2))
    fwd.add(rnn.ResidualCell(rnn.GRUCell(3, input_size=3)))
    bi = rnn.BidirectionalCell(fwd, rnn.RNNCell(2, input_size=2))
    bi.initialize(mx.init.Uniform(0.5))
    bi.cast("float64")
    rng = np.random.default_rng(3)
    xs = [rng.standard_normal((2, 4, 2))] + [rng.standard_normal(i["shape"]) * 0.5
                                             for i in bi.state_info(2)]
    kw = {} if valid_length is None else {"valid_length": nd.array(valid_length)}

    def fn(x, *states):
        out, new = bi.unroll(4, x, list(states), layout="NTC", merge_outputs=True, **kw)
        return [out] + list(new)
    assert check_numeric_gradient(fn, xs, rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("L,bi", [(1, False), (2, True)])
def test_lstm_projection_gradients(L, bi):
    """LSTMP (projection_size): first and second order (MXNet's CPU op has no backward)."""
    T, N, I, H, P = 3, 2, 3, 4, 2
    D = 2 if bi else 1
    rng = np.random.default_rng(L)
    xs = [rng.standard_normal((T, N, I)),
          rng.uniform(-0.5, 0.5, nd.rnn_param_size("lstm", I, H, L, bi, P)),
          rng.standard_normal((L * D, N, P)), rng.standard_normal((L * D, N, H))]

    def fn(x, w, h, c):
        return nd.RNN(x, w, h, c, state_size=H, num_layers=L, bidirectional=bi, mode="lstm",
                      projection_size=P, state_outputs=True)
    outs = fn(*[nd.array(a) for a in xs])
    assert [o.shape for o in outs] == [(T, N, D * P), (L * D, N, P), (L * D, N, H)]
    assert check_numeric_gradient(fn, xs, rtol=1e-5, atol=1e-7)
    assert check_second_order(lambda *a: fn(*a)[0], xs)


def test_lstmp_layer():
    layer = gluon.rnn.LSTM(5, num_layers=2, projection_size=3, bidirectional=True,
                           prefix="p_")
    layer.initialize()
    names = list(layer.collect_params().keys())
    assert names[:5] == ["p_l0_i2h_weight", "p_l0_h2h_weight", "p_l0_i2h_bias",
                         "p_l0_h2h_bias", "p_l0_h2r_weight"]
    x = nd.ones((4, 2, 6))
    out, (h, c) = layer(x, layer.begin_state(batch_size=2))
    assert out.shape == (4, 2, 6) and h.shape == (4, 2, 3) and c.shape == (4, 2, 5)
    assert layer.l1_i2h_weight.shape == (20, 6) and layer.l0_h2r_weight.shape == (3, 5)
    with pytest.raises(MXNetError, match="projection"):
        layer._unfuse()
    with pytest.raises(MXNetError, match="projection_size"):
        gluon.rnn.LSTM(5, projection_size=7)


@pytest.mark.parametrize("layer", ["RNN", "LSTM", "GRU"])
@pytest.mark.parametrize("layout", ["TNC", "NTC"])
def test_rnn_layers_export_and_import_with_any_batch(layer, layout, tmp_path):
    # begin states are exported as _zeros with an unknown (0) batch, as MXNet does, so
    # the imported graph runs on another batch size
    net = mx.gluon.nn.HybridSequential()
    net.add(getattr(mx.gluon.rnn, layer)(6, num_layers=2, layout=layout),
            mx.gluon.nn.Dense(3, flatten=False))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    rng = np.random.RandomState(0)
    shape = (2, 5, 4) if layout == "NTC" else (5, 2, 4)
    net(mx.nd.array(rng.randn(*shape)))
    net.export(str(tmp_path / "m"))
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / "m-symbol.json"), ["data"],
                                        str(tmp_path / "m-0000.params"))
    x = mx.nd.array(rng.randn(*((3, 5, 4) if layout == "NTC" else (5, 3, 4))))
    np.testing.assert_allclose(back(x).asnumpy(), net(x).asnumpy(), rtol=1e-6, atol=1e-7)


def test_cell_unrolled_on_symbols_shares_its_weights_and_binds_in_a_module():
    # MXNet 1.9.1's test_rnn_unroll_variant_length (symbolic part): Parameter.var() is one
    # variable, so the 10 steps share 4 arguments; SequenceLast's shape is inferred
    data = mx.sym.var('data', shape=(4, 10, 2))
    cell = gluon.rnn.RNNCell(100, prefix='rnn0_')
    valid_length = mx.sym.var('valid_length', shape=(4,))
    _, states = cell.unroll(length=10, inputs=data, valid_length=valid_length,
                            merge_outputs=True, layout='NTC')
    assert states[0].list_arguments() == ['data', 'rnn0_i2h_weight', 'rnn0_i2h_bias',
                                          'rnn0_h2h_weight', 'rnn0_h2h_bias', 'valid_length']
    mod = mx.mod.Module(states[0], data_names=('data', 'valid_length'), label_names=None)
    mod.bind(data_shapes=[('data', (4, 10, 2)), ('valid_length', (4,))], label_shapes=None)
    mod.init_params()
    x = nd.random.normal(0, 1, (4, 10, 2))
    mod.forward(mx.io.DataBatch([x, nd.array([3, 6, 10, 2])]))
    out = mod.get_outputs()[0]
    # the state after each sequence's own length, computed imperatively with the weights
    args = dict(mod.get_params()[0])
    h = nd.zeros((4, 100))
    want = [None] * 4
    for t in range(10):
        h = nd.tanh(nd.FullyConnected(x[:, t], args['rnn0_i2h_weight'], args['rnn0_i2h_bias'],
                                      num_hidden=100)
                    + nd.FullyConnected(h, args['rnn0_h2h_weight'], args['rnn0_h2h_bias'],
                                        num_hidden=100))
        for i, n in enumerate((3, 6, 10, 2)):
            if t == n - 1:
                want[i] = h[i].asnumpy()
    np.testing.assert_allclose(out.asnumpy(), np.stack(want), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("op,axis,shape,out", [
    ("SequenceLast", 0, (5, 3, 2), (3, 2)), ("SequenceLast", 1, (3, 5, 2), (3, 2)),
    ("SequenceMask", 1, (3, 5, 2), (3, 5, 2)), ("SequenceReverse", 0, (5, 3), (5, 3))])
def test_sequence_ops_infer_shapes(op, axis, shape, out):
    y = getattr(mx.sym, op)(mx.sym.var('d'), mx.sym.var('l'), use_sequence_length=True,
                            axis=axis)
    args, outs, _ = y.infer_shape(d=shape)
    assert args == [shape, (shape[1 - axis],)] and outs == [out]
