"""gluon Parameter, ParameterDict, Block, HybridBlock: naming, registration, deferred
initialization, errors, save/load, cast, hooks, repr and summary."""
import re
import threading

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import DTypeError, MXNetError, ShapeError, StateError
from mxgrad.gluon import nn


# ------------------------------------------------------------------- Parameter
def test_parameter_basics():
    p = gluon.Parameter("w", shape=(2, 3), init="ones", lr_mult=2.0, wd_mult=0.5)
    assert p.name == "w" and p.shape == (2, 3) and p.grad_req == "write"
    assert p.lr_mult == 2.0 and p.wd_mult == 0.5
    with pytest.raises(StateError, match="has not been initialized.*initialize"):
        p.data()
    p.initialize()
    np.testing.assert_array_equal(p.data().asnumpy(), np.ones((2, 3)))
    assert p.data().dtype == np.float32
    assert p.grad().shape == (2, 3) and p.list_grad()[0] is p.grad()
    assert p.list_data()[0] is p.data()
    assert p.list_ctx() == [mx.cpu()]
    with autograd.record():
        y = (p.data() * p.data()).sum()
    y.backward()
    np.testing.assert_array_equal(p.grad().asnumpy(), 2 * np.ones((2, 3)))
    p.zero_grad()
    assert (p.grad().asnumpy() == 0).all()
    assert p.shape == (2, 3)
    p2 = gluon.Parameter("v", shape=5)
    assert p2.shape == (5,)


def test_parameter_repr():
    p = gluon.Parameter("dense9_weight", shape=(3, 4), dtype="float32")
    assert repr(p) == "Parameter dense9_weight (shape=(3, 4), dtype=float32)"


def test_parameter_second_initialize_warns_and_force_reinit():
    p = gluon.Parameter("w", shape=(2,), init="zeros")
    p.initialize()
    with pytest.warns(UserWarning, match="already initialized"):
        p.initialize(init="ones")
    assert (p.data().asnumpy() == 0).all()
    p.initialize(init="ones", force_reinit=True)
    assert (p.data().asnumpy() == 1).all()


def test_parameter_set_data_in_place():
    p = gluon.Parameter("w", shape=(2,))
    p.initialize()
    ref = p.data()
    p.set_data(nd.array([5.0, 6.0]))
    assert p.data() is ref
    assert ref.asnumpy().tolist() == [5.0, 6.0]
    with pytest.raises(ShapeError):
        p.set_data(nd.array([1.0, 2.0, 3.0]))


def test_grad_req_null_and_switch():
    p = gluon.Parameter("w", shape=(2,), grad_req="null")
    p.initialize()
    with pytest.raises(StateError, match="grad_req='null'"):
        p.grad()
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = (p.data() * x).sum()
    y.backward()                 # only x gets a gradient
    p.grad_req = "add"
    assert p.grad_req == "add" and p.data().grad_req == "add"
    for _ in range(2):
        with autograd.record():
            y = (p.data() * 3).sum()
        y.backward()
    assert p.grad().asnumpy().tolist() == [6.0, 6.0]
    p.grad_req = "null"
    assert p.data().grad_req == "null"
    with pytest.raises(StateError, match="grad_req must be one of"):
        p.grad_req = "bogus"
    nd_p = gluon.Parameter("nd", shape=(1,), differentiable=False)
    assert nd_p.grad_req == "null"


def test_invalid_shape_initialize():
    p = gluon.Parameter("w", shape=(0, 3))
    with pytest.raises(ShapeError, match="invalid shape"):
        p.initialize()
    q = gluon.Parameter("w", shape=(0, 3), allow_deferred_init=True)
    q.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="deferred"):
        q.data()
    q.shape = (4, 3)
    q._finish_deferred_init()
    assert q.data().shape == (4, 3)
    with pytest.raises(ShapeError, match="incompatible"):
        q.shape = (5, 3)


def test_parameter_cast():
    p = gluon.Parameter("w", shape=(2,), init="ones")
    p.initialize()
    p.cast("float64")
    assert p.data().dtype == np.float64 and p.grad().dtype == np.float64
    assert p.dtype == "float64"


def test_constant():
    c = gluon.Constant("c", nd.array([[1.0, 2.0]]))
    c.initialize()
    assert c.grad_req == "null"
    assert c.data().asnumpy().tolist() == [[1.0, 2.0]]
    with pytest.warns(UserWarning):
        c.grad_req = "write"
    assert c.grad_req == "null"


# --------------------------------------------------------------- ParameterDict
def test_parameter_dict():
    pd = gluon.ParameterDict("blk_")
    w = pd.get("weight", shape=(2, 0), allow_deferred_init=True)
    assert pd.get("weight", shape=(2, 5)) is w and w.shape == (2, 5)
    with pytest.raises(StateError, match="does not match"):
        pd.get("weight", shape=(3, 5))
    b = pd.get("bias", shape=(2,), init="zeros")
    assert list(pd.keys()) == ["blk_weight", "blk_bias"]
    assert pd["blk_bias"] is b and "blk_bias" in pd and len(pd) == 2
    assert [k for k in pd] == ["blk_weight", "blk_bias"]
    assert list(pd.values()) == [w, b]
    with pytest.raises(KeyError, match="blk_weight"):
        pd["nope"]
    pd.initialize()
    assert (b.data().asnumpy() == 0).all()
    pd.setattr("grad_req", "add")
    assert w.grad_req == b.grad_req == "add"
    pd.setattr("lr_mult", 0.1)
    assert w.lr_mult == 0.1
    r = repr(pd)
    assert r.startswith("blk_ (\n") and "Parameter blk_bias (shape=(2,)" in r


def test_parameter_dict_update_conflict():
    a = gluon.ParameterDict()
    a.get("x", shape=(1,))
    b = gluon.ParameterDict()
    b.get("x", shape=(1,))
    with pytest.raises(StateError, match="same name 'x'"):
        a.update(b)


# ----------------------------------------------------------------------- Block
class Model(gluon.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense0 = nn.Dense(5, activation="relu")
            self.dense1 = nn.Dense(2)

    def forward(self, x):
        return self.dense1(self.dense0(x))


def test_names_and_prefixes():
    net = Model(prefix="model_")
    assert net.prefix == "model_" and net.name == "model"
    assert net.dense0.prefix == "model_dense0_" and net.dense1.name == "model_dense1"
    assert sorted(net.collect_params().keys()) == [
        "model_dense0_bias", "model_dense0_weight", "model_dense1_bias",
        "model_dense1_weight"]
    # top-level blocks share a per-class counter
    a, b = nn.Dense(1), nn.Dense(1)
    na, nb = int(a.name[5:]), int(b.name[5:])
    assert nb == na + 1 and a.weight.name == a.name + "_weight"
    # activation child inside Dense gets the dense's prefix
    assert net.dense0.act.prefix == "model_dense0_relu_"
    # child params not in the parent's own .params
    assert len(net.params) == 0
    assert list(net.dense0.params.keys()) == ["model_dense0_weight", "model_dense0_bias"]


def test_name_counter_is_per_thread():
    names = []

    def make():
        names.append(nn.Dense(1).name)

    t = threading.Thread(target=make)
    t.start()
    t.join()
    assert names == ["dense0"]


def test_collect_params_select():
    net = Model(prefix="m_")
    sel = net.collect_params(".*weight")
    assert sorted(sel.keys()) == ["m_dense0_weight", "m_dense1_weight"]
    sel = net.collect_params("m_dense0_weight|m_dense1_bias")
    assert sorted(sel.keys()) == ["m_dense0_weight", "m_dense1_bias"]
    net.collect_params().setattr("grad_req", "add")
    assert all(p.grad_req == "add" for p in net.collect_params().values())


def test_forward_before_initialize_names_parameter():
    net = Model(prefix="u_")
    with pytest.raises(StateError, match="Parameter 'u_dense0_weight' has not been "
                                         "initialized.*initialize"):
        net(nd.ones((2, 3)))


def test_deferred_initialization():
    net = Model()
    net.initialize()
    with pytest.raises(gluon.DeferredInitializationError):
        net.dense0.weight.data()
    out = net(nd.ones((4, 7)))
    assert out.shape == (4, 2)
    assert net.dense0.weight.shape == (5, 7) and net.dense1.weight.shape == (2, 5)


def test_layer_shape_mismatch_error():
    d = nn.Dense(3, in_units=4, prefix="fc_")
    d.initialize()
    # the operator's error (both shapes and what the weight must be), prefixed with the layer
    with pytest.raises(ShapeError, match=r"fc \(Dense\): FullyConnected: weight of shape "
                                         r"\(3, 4\) does not fit data of shape \(2, 6\)"):
        d(nd.ones((2, 6)))


def test_second_initialize_warns():
    net = Model()
    net.initialize()
    net(nd.ones((1, 3)))
    with pytest.warns(UserWarning, match="already initialized"):
        net.initialize()
    w = net.dense0.weight.data().asnumpy().copy()
    net.initialize(mx.init.One(), force_reinit=True)
    assert (net.dense0.weight.data().asnumpy() == 1).all()
    assert (net.dense0.bias.data().asnumpy() == 0).all()   # bias keeps 'zeros'
    assert not (w == 1).all()


def test_default_initializer_is_uniform_007():
    d = nn.Dense(200, in_units=300)
    d.initialize()
    w = d.weight.data().asnumpy()
    assert np.abs(w).max() <= 0.07 and np.abs(w).max() > 0.069
    assert (d.bias.data().asnumpy() == 0).all()


def test_block_setattr_registration():
    class B(gluon.Block):
        def __init__(self):
            super().__init__()
            self.p = gluon.Parameter("free", shape=(2,))
            self.child = nn.Dense(1)

    b = B()
    assert b._reg_params["p"] is b.p
    assert list(b._children) == ["child"]
    with pytest.raises(TypeError, match="Changing attribute type"):
        b.child = 3


def test_unregistered_container_warns():
    class B(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [nn.Dense(1)]

    with pytest.warns(UserWarning, match="unregistered container"):
        B().collect_params()


def test_hybrid_block_params_as_kwargs_and_hybridize(tmp_path):
    class Affine(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.w = self.params.get("w", shape=(3,), init=mx.init.Constant(2.0))
                self.b = self.params.get("b", shape=(3,), init="ones")

        def hybrid_forward(self, F, x, w, b):
            assert F is mx.nd or F is mx.sym    # mx.sym while export traces it
            return F.broadcast_add(F.broadcast_mul(x, w), b)

    blk = Affine()
    blk.initialize()
    x = nd.array([[1.0, 2.0, 3.0]])
    y1 = blk(x).asnumpy()
    blk.hybridize()
    y2 = blk(x).asnumpy()
    np.testing.assert_array_equal(y1, [[3.0, 5.0, 7.0]])
    np.testing.assert_array_equal(y1, y2)
    blk.export(str(tmp_path / "affine"))
    back = gluon.SymbolBlock.imports(str(tmp_path / "affine-symbol.json"), ["data"],
                                     str(tmp_path / "affine-0000.params"))
    np.testing.assert_array_equal(back(x).asnumpy(), y1)


def test_custom_hybrid_deferred_infers_through_the_graph():
    # as MXNet: elemwise_mul makes its operands one shape, so w's comes from x's
    class Scale(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(0,), allow_deferred_init=True,
                                     init=mx.init.Constant(3.0))

        def hybrid_forward(self, F, x, w):
            return x * w

    b = Scale()
    b.initialize()
    assert b(nd.array([1.0, 2.0])).asnumpy().tolist() == [3.0, 6.0]
    assert b.w.shape == (2,)


def test_custom_hybrid_deferred_without_rule_is_clear():
    class NoRule(gluon.HybridBlock):
        def __init__(self):
            super().__init__()
            self.w = self.params.get("w", shape=(0,), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.broadcast_mul(x, w)      # a broadcast does not fix w's size

    b = NoRule()
    b.initialize()
    with pytest.raises(gluon.DeferredInitializationError, match="cannot be inferred"):
        b(nd.ones((2,)))


def test_sequential_containers():
    net = nn.Sequential()
    with net.name_scope():
        net.add(nn.Dense(4), nn.Dense(3))
        net.add(nn.Dense(2))
    assert len(net) == 3
    assert isinstance(net[0], nn.Dense) and net[-1] is list(net._children.values())[-1]
    sub = net[1:]
    assert isinstance(sub, nn.Sequential) and len(sub) == 2
    net.initialize()
    assert net(nd.ones((5, 6))).shape == (5, 2)
    hs = nn.HybridSequential()
    hs.add(nn.Dense(3), nn.Activation("tanh"))
    hs.initialize()
    hs.hybridize()
    assert hs(nd.ones((2, 2))).shape == (2, 3)
    with pytest.warns(UserWarning, match="HybridSequential"):
        net.hybridize()


def test_lambda_blocks():
    assert nn.Lambda("exp")(nd.zeros((2,))).asnumpy().tolist() == [1.0, 1.0]
    assert nn.Lambda(lambda x: x + 1)(nd.zeros((1,))).asscalar() == 1.0
    assert nn.HybridLambda("relu")(nd.array([-1.0, 1.0])).asnumpy().tolist() == [0, 1]
    hl = nn.HybridLambda(lambda F, x, y: F.broadcast_add(x, y))
    assert hl(nd.ones((2,)), nd.ones((2,))).asnumpy().tolist() == [2.0, 2.0]
    with pytest.raises(StateError, match="not found"):
        nn.Lambda("no_such_fn")
    assert repr(nn.Lambda("exp")) == "Lambda(exp)"


def test_hooks():
    calls = []
    d = nn.Dense(2, in_units=3)
    d.initialize()
    h1 = d.register_forward_pre_hook(lambda blk, inp: calls.append(("pre", inp[0].shape)))
    h2 = d.register_forward_hook(lambda blk, inp, out: calls.append(("post", out.shape)))
    d(nd.ones((4, 3)))
    assert calls == [("pre", (4, 3)), ("post", (4, 2))]
    h1.detach()
    h2.detach()
    d(nd.ones((4, 3)))
    assert len(calls) == 2
    with d.register_forward_hook(lambda *a: calls.append("x")):
        d(nd.ones((1, 3)))
    d(nd.ones((1, 3)))
    assert calls.count("x") == 1


def test_apply_and_cast():
    net = Model()
    net.initialize()
    net(nd.ones((1, 3)))
    seen = []
    net.apply(lambda b: seen.append(type(b).__name__))
    assert seen[-1] == "Model" and seen.count("Dense") == 2
    net.cast("float64")
    assert all(p.data().dtype == np.float64 for p in net.collect_params().values())
    out = net(nd.ones((1, 3), dtype="float64"))
    assert out.dtype == np.float64


def test_repr_like_mxnet():
    net = nn.Sequential()
    net.add(nn.Dense(4, in_units=3, activation="relu"), nn.Dropout(0.5), nn.BatchNorm(),
            nn.Conv2D(8, 3, in_channels=2, padding=1))
    expect = ("Sequential(\n"
              "  (0): Dense(3 -> 4, Activation(relu))\n"
              "  (1): Dropout(p = 0.5, axes=())\n"
              "  (2): BatchNorm(axis=1, eps=1e-05, momentum=0.9, fix_gamma=False, "
              "use_global_stats=False, in_channels=None)\n"
              "  (3): Conv2D(2 -> 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))\n"
              ")")
    assert repr(net) == expect
    m = Model()
    assert repr(m) == ("Model(\n  (dense0): Dense(None -> 5, Activation(relu))\n"
                       "  (dense1): Dense(None -> 2, linear)\n)")


def test_summary(capsys):
    net = nn.HybridSequential()
    net.add(nn.Dense(4, in_units=3), nn.BatchNorm(in_channels=4), nn.Dense(2))
    net.initialize()
    net.summary(nd.ones((5, 3)))
    out = capsys.readouterr().out
    assert re.search(r"Dense-1\s+\(5, 4\)\s+16", out)
    assert re.search(r"BatchNorm-2\s+\(5, 4\)\s+16", out)
    assert "Total params: 42" in out
    assert "Trainable params: 34" in out and "Non-trainable params: 8" in out


# --------------------------------------------------------------- save and load
def make_net(prefix=None):
    net = nn.HybridSequential(prefix=prefix)
    with net.name_scope():
        net.add(nn.Dense(4, in_units=3), nn.BatchNorm(in_channels=4),
                nn.Dense(2, in_units=4))
    return net


def test_save_load_roundtrip(tmp_path):
    f = str(tmp_path / "net.params")
    net = make_net()
    net.initialize(mx.init.Xavier())
    net.save_parameters(f)
    keys = list(mx.nd.load(f))
    assert "0.weight" in keys and "1.running_mean" in keys
    net2 = make_net()
    net2.load_parameters(f)          # no initialize needed
    for a, b in zip(net.collect_params().values(), net2.collect_params().values()):
        np.testing.assert_array_equal(a.data().asnumpy(), b.data().asnumpy())
    x = nd.ones((2, 3))
    np.testing.assert_array_equal(net(x).asnumpy(), net2(x).asnumpy())
    # loading into an initialized network writes in place
    net3 = make_net()
    net3.initialize()
    ref = net3[0].weight.data()
    net3.load_parameters(f)
    assert net3[0].weight.data() is ref
    np.testing.assert_array_equal(ref.asnumpy(), net[0].weight.data().asnumpy())


def test_load_errors_leave_nothing_loaded(tmp_path):
    f = str(tmp_path / "net.params")
    net = make_net()
    net.initialize()
    net.save_parameters(f)

    small = nn.HybridSequential()
    small.add(nn.Dense(4, in_units=3))
    small.initialize()
    before = small[0].weight.data().asnumpy().copy()
    with pytest.raises(MXNetError, match=r"Parameter '1\.gamma'.*not present.*ignore_extra"):
        small.load_parameters(f)
    np.testing.assert_array_equal(small[0].weight.data().asnumpy(), before)
    small.load_parameters(f, ignore_extra=True)
    np.testing.assert_array_equal(small[0].weight.data().asnumpy(),
                                  net[0].weight.data().asnumpy())

    big = make_net()
    big.add(nn.Dense(7))
    big.initialize()
    before = big[0].weight.data().asnumpy().copy()
    with pytest.raises(AssertionError, match=r"Parameter '3\.weight' is missing.*"
                                             r"allow_missing"):
        big.load_parameters(f)
    np.testing.assert_array_equal(big[0].weight.data().asnumpy(), before)
    big.load_parameters(f, allow_missing=True)

    wrong = nn.HybridSequential()
    wrong.add(nn.Dense(4, in_units=3), nn.BatchNorm(in_channels=5), nn.Dense(2))
    wrong.initialize()
    before = wrong[0].weight.data().asnumpy().copy()
    with pytest.raises(ShapeError, match=r"'1\.gamma'.*expected \(5,\) vs saved \(4,\)"):
        wrong.load_parameters(f)
    np.testing.assert_array_equal(wrong[0].weight.data().asnumpy(), before)


def test_load_dtype_mismatch(tmp_path):
    f = str(tmp_path / "a.params")
    net = make_net()
    net.initialize()
    net.save_parameters(f)
    net64 = make_net()
    net64.initialize()
    net64.cast("float64")
    with pytest.raises(DTypeError, match="cast_dtype"):
        net64.load_parameters(f)
    net64.load_parameters(f, cast_dtype=True)
    assert net64[0].weight.data().dtype == np.float64


def test_load_deferred_shapes(tmp_path):
    f = str(tmp_path / "d.params")
    net = nn.HybridSequential()
    net.add(nn.Dense(4), nn.Dense(2))
    net.initialize()
    net(nd.ones((1, 6)))
    net.save_parameters(f)
    net2 = nn.HybridSequential()
    net2.add(nn.Dense(4), nn.Dense(2))
    net2.load_parameters(f)
    assert net2[0].weight.shape == (4, 6)
    np.testing.assert_array_equal(net2(nd.ones((1, 6))).asnumpy(),
                                  net(nd.ones((1, 6))).asnumpy())


def test_parameter_dict_save_load(tmp_path):
    f = str(tmp_path / "pd.params")
    net = make_net(prefix="net_")
    net.initialize()
    net.collect_params().save(f, strip_prefix="net_")
    assert "dense0_weight" in mx.nd.load(f)
    net2 = make_net(prefix="net_")
    net2.collect_params().load(f, restore_prefix="net_")
    np.testing.assert_array_equal(net2[2].weight.data().asnumpy(),
                                  net[2].weight.data().asnumpy())
    # load_parameters falls back to full names
    net3 = make_net(prefix="net_")
    net3.load_parameters(f)
    np.testing.assert_array_equal(net3[2].bias.data().asnumpy(),
                                  net[2].bias.data().asnumpy())
    other = make_net(prefix="other_")
    with pytest.raises(AssertionError, match="other_dense0_weight' is missing"):
        other.collect_params().load(f)


def test_shared_params():
    shared = nn.Dense(3, in_units=2)
    other = nn.Dense(3, in_units=2, params=shared.collect_params())
    shared.initialize()
    assert other.weight is shared.weight
    x = nd.ones((1, 2))
    np.testing.assert_array_equal(shared(x).asnumpy(), other(x).asnumpy())


def test_attribute_parameter_is_collected_and_initialized():
    class B(gluon.Block):
        def __init__(self):
            super().__init__()
            self.w = gluon.Parameter("free_w", shape=(2,), init="ones")

        def forward(self, x):
            return x * self.w.data()

    b = B()
    assert list(b.collect_params().keys()) == ["free_w"]
    b.initialize()
    assert b(nd.array([2.0, 3.0])).asnumpy().tolist() == [2.0, 3.0]
    b.cast("float64")
    assert b.w.data().dtype == np.float64


def test_hybrid_block_needs_ndarray_input():
    d = nn.Dense(2, in_units=3)
    d.initialize()
    with pytest.raises(StateError, match="must be one NDArray"):
        d(np.ones((1, 3)))


class _AddMaybe(gluon.HybridBlock):
    def hybrid_forward(self, F, a, b=None):
        if a is None:
            return b
        return a if b is None else a + b


def test_hybridized_block_refuses_what_mxnet_refuses():
    """MXNet 1.9.1 (test_gluon.py: hybrid_block_none_args, hybrid_block_hybrid_no_hybrid):
    a hybridized block keeps the argument structure of its first call, takes no Python
    scalars, and no HybridBlock takes NDArrays and Symbols in one call."""
    one = nd.ones((3,))
    f = _AddMaybe()
    f.hybridize()
    assert f(None, one).asnumpy().tolist() == [1, 1, 1]
    with pytest.raises(ValueError, match="argument structure"):
        f(one, one)
    with pytest.raises(ValueError, match="argument structure"):
        f(one, None)
    assert f(None, one * 2).asnumpy().tolist() == [2, 2, 2]   # the same structure: fine
    f.hybridize()                                             # traced anew
    assert f(one, one).asnumpy().tolist() == [2, 2, 2]
    g = _AddMaybe()
    g.hybridize()
    g(one)
    assert g(one, None).asnumpy().tolist() == [1, 1, 1]       # trailing None: omitted
    h = _AddMaybe()
    h.hybridize()
    with pytest.raises(ValueError, match="scalar"):
        h(one, 1)
    with pytest.raises(ValueError, match="scalar"):
        h([one, 2.5])
    plain = _AddMaybe()                                       # not hybridized: like a Block
    assert plain(one, 1).asnumpy().tolist() == [2, 2, 2]
    assert plain(one).asnumpy().tolist() == [1, 1, 1] and plain(one, one) is not None
    with pytest.raises(ValueError, match="NDArrays and Symbols"):
        plain(one, mx.sym.var("a"))
    with pytest.raises(ValueError, match="NDArrays and Symbols"):
        plain(mx.sym.var("a"), one)
    assert isinstance(plain(mx.sym.var("a"), mx.sym.var("b")), mx.sym.Symbol)


def test_custom_layer_parameter_shape_inferred_through_its_ops():
    """MXNet infers a custom layer's (n, 0) weight through F.FullyConnected (issue 26):
    mxgrad traces hybrid_forward on Symbols whose example value is the input."""
    class Layer(gluon.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            self.weight = self.params.get("weight", shape=(4, 0), allow_deferred_init=True)
            self.bias = self.params.get("bias", shape=(4,))

        def hybrid_forward(self, F, x, weight, bias):
            return F.FullyConnected(x, weight, bias, num_hidden=4)

    for hybridize, width in ((False, 3), (True, 5)):
        layer = Layer()
        layer.initialize(mx.init.One())
        if hybridize:
            layer.hybridize()
        out = layer(mx.nd.ones((2, width)))
        assert layer.weight.shape == (4, width)
        np.testing.assert_allclose(out.asnumpy(), np.full((2, 4), width + 1.0))
