"""``mx.np`` / ``mx.npx``: MXNet's NumPy interface on the one engine.

Values, shapes and dtypes are checked against real MXNet 1.9.1's
(``tests/data/mxnet/numpy_fixtures.npz``, made by ``tools/make_numpy_fixtures.py`` from
the expressions in ``tests/numpy_cases.py``); gradients against MXNet's and against
central differences; the faces against each other.
"""
import os
import threading

import numpy as onp
import pytest
from hypothesis import given, settings, strategies as st

import mxgrad as mx
from mxgrad import autograd, gluon, np, npx
from mxgrad.base import MXNetError, ShapeError
from mxgrad.test_utils import check_numeric_gradient, check_second_order

from numpy_cases import GRAD_CASES, GRAD_CASES_MXNET_WRONG, GRAD_X, VALUE_CASES

FIXTURES = onp.load(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                 "numpy_fixtures.npz"))
ENV = {"np": np, "npx": npx, "onp": onp}


def _check_like_mxnet(got, want, name):
    assert type(got) is np.ndarray, f"{name}: got {type(got).__name__}"
    assert got.shape == want.shape, f"{name}: shape {got.shape} != MXNet's {want.shape}"
    assert got.dtype == want.dtype, f"{name}: dtype {got.dtype} != MXNet's {want.dtype}"
    if want.dtype.kind == "f":
        onp.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-5)
    else:
        onp.testing.assert_array_equal(got.asnumpy(), want)


@pytest.mark.parametrize("name", sorted(VALUE_CASES))
def test_values_equal_mxnet(name):
    _check_like_mxnet(eval(VALUE_CASES[name], ENV), FIXTURES[name], name)


@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradients_equal_mxnet(name):
    x = np.array(GRAD_X)
    x.attach_grad()
    with autograd.record():
        y = eval(GRAD_CASES[name], dict(ENV, x=x))
    y.backward()
    _check_like_mxnet(x.grad, FIXTURES[name], name)


_ALL_GRAD = {**GRAD_CASES, **GRAD_CASES_MXNET_WRONG}


@pytest.mark.parametrize("name", sorted(_ALL_GRAD))
def test_gradients_central_differences_float64(name):
    """First and second order, float64, through the NumPy face."""
    expr = _ALL_GRAD[name]

    def f(x):
        return eval(expr, dict(ENV, x=x.as_np_ndarray()))
    x0 = mx.nd.array(onp.array(GRAD_X) + 0.01, dtype="float64")
    assert check_numeric_gradient(f, [x0], rtol=1e-4, atol=1e-6)
    if name not in ("g_max", "g_maximum", "g_where", "g_bool_index"):   # kinks
        assert check_second_order(f, [x0], rtol=1e-3, atol=1e-5)


# --------------------------------------------------------------------- one engine
def test_faces_share_graph_data_and_version():
    a = mx.nd.array([1.0, 2.0])
    a.attach_grad()
    with autograd.record():
        b = a.as_np_ndarray()           # a free view, recorded through
        y = (b * b).sum()
    assert type(b) is np.ndarray and type(y) is np.ndarray and y.shape == ()
    y.backward()
    onp.testing.assert_array_equal(a.grad.asnumpy(), [2.0, 4.0])
    assert type(a.grad) is mx.nd.NDArray
    b[0] = 5.0                          # one buffer, one version box
    assert a.asnumpy()[0] == 5.0 and a._ver[0] == b._ver[0] >= 1
    c = b.as_nd_ndarray()
    assert type(c) is mx.nd.NDArray and c._data is a._data


def test_saved_value_changed_through_the_other_face_is_caught():
    x = np.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = np.sin(x)                   # saves x for its gradient
    x.as_nd_ndarray()[:] = 0.0          # an in-place write through the other face
    with pytest.raises(MXNetError):
        y.backward()


def test_mixed_faces_give_the_numpy_face():
    r = mx.nd.ones((2,)) + np.ones(2)
    assert type(r) is np.ndarray
    r = np.ones(2) * mx.nd.ones((2,))
    assert type(r) is np.ndarray


def test_create_graph_on_the_numpy_face():
    x = np.array([0.5, 1.5])
    x.attach_grad()
    with autograd.record():
        y = (x ** 3).sum()
        (g,) = autograd.grad(y, [x], create_graph=True)
        assert type(g) is np.ndarray
        z = g.sum()
    z.backward()
    onp.testing.assert_allclose(x.grad.asnumpy(), 6 * onp.array([0.5, 1.5]), rtol=1e-6)
    assert type(x.grad) is np.ndarray


def test_zero_d_arrays_and_python_conversion():
    s = np.arange(4).sum()
    assert s.shape == () and s.ndim == 0 and s.size == 1
    assert float(s) == 6.0 and s.item() == 6.0 and int(s) == 6
    assert repr(s) == "array(6.)" and f"{s:.2f}" == "6.00" and f"{s}" == "6.0"
    assert np.array(2.0) * np.array(3.0) == 6.0
    with pytest.raises(MXNetError):
        len(s)
    rows = list(np.arange(3))
    assert all(r.shape == () for r in rows) and [r.item() for r in rows] == [0, 1, 2]


def test_numpy_interop():
    x = np.arange(3)
    assert onp.mean(x) == 1.0
    assert onp.asarray(x).dtype == onp.float32
    assert type(x.asnumpy()) is onp.ndarray


def test_setitem_and_inplace_keep_the_face():
    x = np.zeros((2, 3))
    x[0, 1] = 5
    x[:, 2] = np.array([1, 2])
    x += 1
    assert type(x) is np.ndarray
    onp.testing.assert_array_equal(x.asnumpy(), [[1, 6, 2], [1, 1, 3]])
    m = x > 1
    x[m] = 0
    onp.testing.assert_array_equal(x.asnumpy(), [[1, 0, 0], [1, 1, 0]])


def _mx_promote(da, db):
    if da == db:
        return da
    fa, fb = da.kind == "f", db.kind == "f"
    if fa != fb:
        return da if fa else db
    return onp.result_type(da, db)


_DTYPES = ["float16", "float32", "float64", "int32", "int64", "uint8"]
_shape = st.lists(st.integers(1, 3), min_size=0, max_size=3)


@settings(max_examples=60, deadline=None)
@given(_shape, _shape, st.sampled_from(_DTYPES), st.sampled_from(_DTYPES),
       st.sampled_from(["__add__", "__sub__", "__mul__"]))
def test_broadcasting_and_promotion_property(sa, sb, da, db, op):
    """NumPy's broadcasting with MXNet's promotion (an integer array meeting a float
    array takes the float's dtype), for any shapes and dtypes."""
    rng = onp.random.default_rng(len(sa) * 7 + len(sb))
    a = rng.integers(0, 5, size=sa).astype(da)
    b = rng.integers(0, 5, size=sb).astype(db)
    try:
        want_shape = onp.broadcast_shapes(a.shape, b.shape)
    except ValueError:
        with pytest.raises(MXNetError):
            getattr(np.array(a), op)(np.array(b))
        return
    r = getattr(np.array(a), op)(np.array(b))
    dt = _mx_promote(onp.dtype(da), onp.dtype(db))
    assert r.shape == want_shape and r.dtype == dt
    want = getattr(a.astype(dt), op)(b.astype(dt))
    onp.testing.assert_allclose(r.asnumpy().astype(onp.float64),
                                onp.asarray(want).astype(onp.float64), rtol=1e-3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.data())
def test_reduction_shapes_property(shape, data):
    x = onp.arange(int(onp.prod(shape)), dtype=onp.float32).reshape(shape)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1)))
    keep = data.draw(st.booleans())
    r = np.array(x).sum(axis=axis, keepdims=keep)
    want = x.sum(axis=axis, keepdims=keep)
    assert r.shape == onp.shape(want)
    onp.testing.assert_allclose(r.asnumpy(), want)


# ----------------------------------------------------------------- bad input
@pytest.mark.parametrize("call, err", [
    (lambda: np.array([object()]), TypeError),
    (lambda: np.arange(6).reshape(4, -1), ValueError),
    (lambda: np.arange(6).reshape(-1, -1), ValueError),
    (lambda: np.zeros((-1, 2)), ValueError),
    (lambda: np.ones(2) + np.ones(3), ValueError),
    (lambda: np.split(np.arange(5), 2), ValueError),
    (lambda: npx.reshape(np.ones((2, 3)), (-3, -1)), ValueError),
    (lambda: np.random.randint(5, 2), ValueError),
    (lambda: np.linalg.norm(np.ones(2), ord="nuc"), TypeError),
    (lambda: np.arange(3)[5], IndexError),
    (lambda: mx.util.set_np(dtype=True), Exception),
])
def test_bad_input_raises_mxnet_errors(call, err):
    with pytest.raises(MXNetError) as info:
        call()
    assert isinstance(info.value, err)


# -------------------------------------------------------------------- NumPy mode
def test_set_np_switches_and_scopes():
    assert not mx.util.is_np_array() and not mx.util.is_np_shape()
    npx.set_np()
    try:
        assert mx.util.is_np_array() and mx.util.is_np_shape()
        seen = []
        t = threading.Thread(target=lambda: seen.append(mx.util.is_np_array()))
        t.start(); t.join()
        assert seen == [True]      # set_np is for the process
    finally:
        npx.reset_np()
    assert not mx.util.is_np_array()
    with mx.util.np_array(True), mx.np_shape(True):
        assert mx.util.is_np_array() and mx.is_np_shape()
    assert not mx.util.is_np_array() and not mx.is_np_shape()

    @mx.util.use_np
    def inside():
        return mx.util.is_np_array()
    assert inside() and not mx.util.is_np_array()


def test_gluon_trains_on_numpy_arrays(np_mode):
    mx.random.seed(0)
    true_w = np.array([2.0, -3.4])
    X = np.random.normal(0, 1, (200, 2))
    y = (np.dot(X, true_w) + 4.2).reshape(-1, 1)
    loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), 20, shuffle=True)
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(1))
    net.initialize(mx.init.Normal(sigma=0.01))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss = gluon.loss.L2Loss()
    for _ in range(5):
        for xb, yb in loader:
            assert type(xb) is np.ndarray and type(yb) is np.ndarray
            with autograd.record():
                out = net(xb)
                l = loss(out, yb)
            assert type(out) is np.ndarray and type(l) is np.ndarray
            l.backward()
            trainer.step(20)
    w = net[0].weight.data()
    assert type(w) is np.ndarray and type(net[0].weight.grad()) is np.ndarray
    onp.testing.assert_allclose(w.asnumpy().ravel(), [2.0, -3.4], atol=0.05)
    onp.testing.assert_allclose(net[0].bias.data().asnumpy(), [4.2], atol=0.05)


def test_hybrid_forward_reaches_np_and_npx(np_mode):
    class Net(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.npx.relu(F.np.sum(x, axis=1))
    r = Net()(np.array([[1.0, -3.0], [2.0, 2.0]]))
    assert type(r) is np.ndarray
    onp.testing.assert_array_equal(r.asnumpy(), [0.0, 4.0])


def test_outside_numpy_mode_gluon_is_unchanged():
    net = gluon.nn.Dense(2)
    net.initialize()
    assert type(net(mx.nd.ones((1, 3)))) is mx.nd.NDArray
    assert type(net.weight.data()) is mx.nd.NDArray


def test_npx_files_equal_mxnet(tmp_path):
    """MXNet's V3 records (NumPy shape mode): 0-d and zero-size arrays, both ways."""
    mxfile = os.path.join(os.path.dirname(__file__), "data", "mxnet", "np_arrays.params")
    got = npx.load(mxfile)
    assert got["s"].shape == () and got["s"].item() == 2.5
    assert got["z"].shape == (0, 2) and got["z"].dtype == onp.float32
    assert got["w"].dtype == onp.int32 and got["w"].tolist() == [0, 1, 2]
    mine = str(tmp_path / "mine.params")
    npx.save(mine, {"s": np.array(2.5), "z": np.zeros((0, 2)),
                    "w": np.arange(3, dtype="int32")})
    with open(mine, "rb") as a, open(mxfile, "rb") as b:
        assert a.read() == b.read()
    assert mx.nd.load(mxfile)["s"].shape == (1,)   # outside NumPy mode: MXNet 1.x shapes


def test_npx_save_load_roundtrip(tmp_path):
    f = str(tmp_path / "a.npx")
    npx.save(f, {"w": np.arange(3), "s": np.array(2.0)})
    got = npx.load(f)
    assert type(got["w"]) is np.ndarray
    onp.testing.assert_array_equal(got["w"].asnumpy(), [0, 1, 2])


def test_export_and_import_in_numpy_mode(np_mode, tmp_path):
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, activation="relu"), gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    x = np.random.uniform(size=(3, 5))
    y = net(x)
    prefix = str(tmp_path / "npnet")
    net.export(prefix)
    blk = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"], prefix + "-0000.params")
    y2 = blk(x)
    assert type(y2) is np.ndarray
    onp.testing.assert_array_equal(y2.asnumpy(), y.asnumpy())


def test_reshape_gives_a_copy_as_mxnet():
    """MXNet's NumPy interface: writing into x.reshape(...) leaves x alone (d2l's ndarray
    section prints x after X = x.reshape(3, 4); X[:2, :] = 12)."""
    x = np.arange(12)
    for view in (x.reshape(3, 4), np.reshape(x, (4, 3)), x.flatten(), np.ravel(x),
                 np.squeeze(x.reshape(1, 12))):
        view[...] = 12
    onp.testing.assert_array_equal(x.asnumpy(), onp.arange(12))
    assert repr(np.arange(12)).endswith("11.])")        # float32 bare also when wrapped


def test_numpy_mode_shows_unknown_dims_as_minus_one(np_mode):
    net = gluon.nn.Dense(256)
    net.initialize()
    assert repr(net.weight) == f"Parameter {net.weight.name} (shape=(256, -1), dtype=float32)"
    assert repr(net).startswith("Dense(-1 -> 256")
    net(np.ones((2, 20)))
    assert net.weight.data().shape == (256, 20)


def test_transforms_give_the_modes_face(np_mode):
    from mxgrad.gluon.data.vision import transforms
    out = transforms.ToTensor()(mx.nd.zeros((4, 4, 1), dtype="uint8"))
    assert type(out) is np.ndarray and out.dtype == onp.float32 and out.shape == (1, 4, 4)


def test_dir_lists_public_names():
    assert [n for n in dir(np.random) if not n.startswith("_")] == sorted(np.random.__all__)
    assert "Any" not in dir(np) and "dot" in dir(np)


_UNARY_F = ["exp", "expm1", "log1p", "sin", "cos", "tanh", "arctan", "sinh", "abs", "sign",
            "square", "floor", "ceil", "trunc", "rint", "negative", "cbrt", "sqrt"]
_shapes = st.lists(st.integers(0, 3), min_size=0, max_size=3).map(tuple)


@settings(max_examples=40, deadline=None)
@given(_shapes, st.sampled_from(_UNARY_F))
def test_unary_functions_match_numpy_on_any_shape(shape, name):
    """Every shape, 0-d and zero-size included: mx.np's function equals NumPy's (float32)."""
    x = onp.random.default_rng(len(shape)).uniform(0.1, 2.0, size=shape).astype(onp.float32)
    r = getattr(np, name)(np.array(x))
    want = getattr(onp, name)(x)
    assert type(r) is np.ndarray and r.shape == onp.shape(want) and r.dtype == onp.float32
    onp.testing.assert_allclose(r.asnumpy(), want, rtol=1e-5, atol=1e-6)


@settings(max_examples=40, deadline=None)
@given(_shapes.filter(lambda s: 0 not in s), st.sampled_from(["sum", "mean", "max", "min",
                                                                "prod", "std", "var"]),
       st.data())
def test_reductions_match_numpy_on_any_shape(shape, name, data):
    x = onp.random.default_rng(len(shape)).uniform(0.5, 1.5, size=shape).astype(onp.float32)
    axis = data.draw(st.one_of(st.none(), st.integers(-len(shape), len(shape) - 1))
                     if shape else st.none())
    keep = data.draw(st.booleans())
    r = getattr(np, name)(np.array(x), axis=axis, keepdims=keep)
    want = getattr(onp, name)(x, axis=axis, keepdims=keep)
    assert r.shape == onp.shape(want)
    onp.testing.assert_allclose(r.asnumpy(), want, rtol=1e-4, atol=1e-6)


@settings(max_examples=30, deadline=None)
@given(_shapes)
def test_zero_size_and_0d_arrays_flow_through_gradients(shape):
    x = np.ones(shape)
    x.attach_grad()
    with autograd.record():
        y = (np.tanh(x) * 2 + x ** 2).sum()
    y.backward()
    assert y.shape == () and x.grad.shape == tuple(shape)
    want = 2 * (1 - onp.tanh(1.0) ** 2) + 2.0
    onp.testing.assert_allclose(x.grad.asnumpy(), onp.full(shape, want, onp.float32), rtol=1e-5)


def test_npx_random_and_constraint_check():
    mx.random.seed(3)
    assert npx.random.bernoulli(prob=np.ones((2, 3)), dtype="bool").dtype == onp.bool_
    assert npx.random.bernoulli(logit=np.zeros(4)).shape == (4,)
    with pytest.raises(MXNetError):
        npx.random.bernoulli(prob=np.array([1.5]))
    with pytest.raises(MXNetError):
        npx.random.bernoulli(prob=0.5, logit=0.0)
    assert npx.random.normal_n(np.zeros(2), np.ones(2), batch_shape=3).shape == (3, 2)
    assert npx.random.uniform_n(0.0, 1.0, batch_shape=(2, 2)).shape == (2, 2)
    assert npx.constraint_check(np.ones(3, dtype=bool)).item() is True
    with pytest.raises(ValueError, match="bad"):
        npx.constraint_check(np.zeros(3, dtype=bool), "bad")


@pytest.mark.parametrize("src, target, want", [
    ((5,), (3, 4, -2), (3, 4, 5)), ((1, 0), (2, -2, -2), (2, 1, 0)),
    ((3, 4), (1, 0, -2, 4), (1, 0, 3, 4))])
def test_broadcast_to_minus_two_keeps_the_input_axis(src, target, want):
    """MXNet's ``np.broadcast_to``: a -2 keeps the input's size there (axes aligned to the
    end), imperative and hybridized, with the summed-back gradient."""
    class Net(mx.gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.np.broadcast_to(x, target)

    for hybridize in (False, True):
        net = Net()
        if hybridize:
            net.hybridize()
        a = onp.random.default_rng(0).uniform(size=src).astype("float32")
        x = mx.np.array(a)
        x.attach_grad()
        with mx.autograd.record():
            y = net(x)
        y.backward()
        onp.testing.assert_array_equal(y.asnumpy(), onp.broadcast_to(a, want))
        lead = len(want) - len(src)
        g = onp.ones(want).sum(axis=tuple(range(lead)))
        g = g.sum(axis=tuple(i for i, s in enumerate(src) if s == 1 and g.shape[i] != 1),
                  keepdims=True)
        onp.testing.assert_array_equal(x.grad.asnumpy(), g)
    with pytest.raises(ShapeError, match="-2"):
        mx.np.broadcast_to(mx.np.ones((5,)), (-2, 3, 5))


def test_internal_boolean_mask_assign_as_numpy_setitem():
    """``mx.np._internal.boolean_mask_assign_scalar/_tensor`` (MXNet's operators behind
    ``a[mask] = v``): NumPy's assignment with the mask over the axes from ``start_axis``,
    ``out=`` written, gradients to data outside the mask and to the value."""
    rng = onp.random.default_rng(1)
    d = rng.uniform(size=(2, 3, 4))
    m = rng.uniform(size=(3, 4)) > 0.4
    want = d.copy()
    want[:, m] = 42.0
    out = mx.np.zeros((2, 3, 4), dtype="float64")
    r = mx.np._internal.boolean_mask_assign_scalar(mx.np.array(d, dtype="float64"),
                                                   mx.np.array(m, dtype=bool), 42.0,
                                                   start_axis=1, out=out)
    assert r is out
    onp.testing.assert_array_equal(out.asnumpy(), want)
    x = mx.np.array(d, dtype="float64")
    v = mx.np.array(rng.uniform(size=(2, int(m.sum()))), dtype="float64")
    x.attach_grad()
    v.attach_grad()
    with mx.autograd.record():
        y = mx.np._internal.boolean_mask_assign_tensor(x, mx.np.array(m, dtype=bool), v,
                                                       start_axis=1)
    y.backward()
    want = d.copy()
    want[:, m] = v.asnumpy()
    onp.testing.assert_array_equal(y.asnumpy(), want)
    onp.testing.assert_array_equal(x.grad.asnumpy(), onp.broadcast_to(~m, d.shape))
    onp.testing.assert_array_equal(v.grad.asnumpy(), onp.ones(v.shape))
    with pytest.raises(ShapeError, match="start_axis=2"):
        mx.np._internal.boolean_mask_assign_scalar(x, mx.np.array(m, dtype=bool), 1.0,
                                                   start_axis=2)
