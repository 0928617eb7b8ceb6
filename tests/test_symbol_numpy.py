"""mx.sym.np / mx.sym.npx: NumPy-interface Symbols, checked against MXNet 1.9.1
(tests/data/mxnet/symbol_numpy*, written by tools/make_symbol_numpy_fixtures.py), and
NumPy-mode blocks hybridized to planned graphs, checked against the imperative block."""
import io
import json
import os
from contextlib import redirect_stdout

import numpy as onp
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, np, npx
from mxgrad.base import MXNetError
from mxgrad.gluon import nn

from sym_numpy_cases import A, B, CASES, np_model

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
with open(os.path.join(DATA, "symbol_numpy.json")) as _f:
    MX = json.load(_f)


def _inputs(names):
    vals = {"a": np.array(A), "b": np.array(B)}
    return [vals[n] for n in names]


def _check_value(y, ref):
    assert type(y) is np.ndarray
    assert list(y.shape) == ref["shape"]
    assert str(y.dtype) == ref["dtype"]
    onp.testing.assert_allclose(y.asnumpy(), onp.array(ref["value"], dtype=ref["dtype"]),
                                rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_case_writes_mxnets_operators_and_computes_its_values(np_mode, name):
    ref = MX[name]
    a = mx.sym.var("a").as_np_ndarray()
    b = mx.sym.var("b").as_np_ndarray()
    s = eval(CASES[name], {"np": mx.sym.np, "npx": mx.sym.npx, "a": a, "b": b})
    assert type(s) is mx.sym.np._Symbol
    ops = [n["op"] for n in json.loads(s.tojson())["nodes"] if n["op"] != "null"]
    assert ops == ref["ops"]
    inputs = [v for v in ("a", "b") if v in s.list_arguments()]
    assert inputs == ref["inputs"]
    blk = gluon.SymbolBlock(s, [a if v == "a" else b for v in inputs])
    _check_value(blk(*_inputs(inputs)), ref)


@pytest.mark.parametrize("name", sorted(CASES))
def test_mxnets_graph_loads_and_computes_its_values(np_mode, name):
    ref = MX[name]
    s = mx.sym.load_json(ref["json"])
    blk = gluon.SymbolBlock(s, [mx.sym.var(v) for v in ref["inputs"]])
    _check_value(blk(*_inputs(ref["inputs"])), ref)


def test_mxnets_numpy_mode_export_imports(np_mode):
    folder = os.path.join(DATA, "symbol_numpy")
    io_ = onp.load(os.path.join(folder, "npmodel_io.npz"))
    blk = gluon.SymbolBlock.imports(os.path.join(folder, "npmodel-symbol.json"), ["data"],
                                    os.path.join(folder, "npmodel-0000.params"))
    y = blk(np.array(io_["x"]))
    assert type(y) is np.ndarray
    onp.testing.assert_allclose(y.asnumpy(), io_["y"], rtol=1e-5, atol=1e-6)


def test_same_block_hybridized_equals_mxnet_and_exports_its_graph(np_mode, tmp_path):
    folder = os.path.join(DATA, "symbol_numpy")
    io_ = onp.load(os.path.join(folder, "npmodel_io.npz"))
    net = np_model(gluon, prefix="npmodel_")
    net.initialize()
    x = np.array(io_["x"])
    net(x)
    loaded = mx.npx.load(os.path.join(folder, "npmodel-0000.params"))
    params = net.collect_params()
    for k, v in loaded.items():
        params[k.split(":", 1)[1]].set_data(v)
    net.hybridize()
    y = net(x)
    assert type(y) is np.ndarray
    onp.testing.assert_allclose(y.asnumpy(), io_["y"], rtol=1e-5, atol=1e-6)
    plan = next(iter(net.__dict__["_plans"].values())).plan
    assert sum(s[0] == 0 for s in plan.steps) >= 5       # op steps, not only node steps
    net.export(str(tmp_path / "mine"))
    with open(tmp_path / "mine-symbol.json") as f:
        mine = json.load(f)
    with open(os.path.join(folder, "npmodel-symbol.json")) as f:
        theirs = json.load(f)
    assert [n["op"] for n in mine["nodes"]] == [n["op"] for n in theirs["nodes"]]
    assert [n["name"] for n in mine["nodes"]] == [n["name"] for n in theirs["nodes"]]
    assert mine["attrs"]["is_np_shape"] == ["int", 1]


def _mlp():
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"), nn.Dropout(0.3), nn.BatchNorm(),
                nn.Dense(3))
    return net


class _Custom(nn.HybridBlock):
    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.d = nn.Dense(6)

    def hybrid_forward(self, F, x, y):
        h = self.d(x)
        s = F.np.concatenate([h, y], axis=1)
        return F.np.sum(s ** 2, axis=1) + F.npx.sigmoid(s).mean(), s[:, 1:4].max(axis=0)


def _copy_params(src, dst):
    for p, q in zip(src.collect_params().values(), dst.collect_params().values()):
        q.set_data(p.data().copy())


@pytest.mark.parametrize("make,shapes", [(_mlp, [(4, 5)]), (_Custom, [(4, 5), (4, 2)])])
def test_numpy_mode_hybridized_training_equals_imperative(np_mode, make, shapes):
    mx.random.seed(3)
    onp.random.seed(3)
    xs = [np.array(onp.random.uniform(-1, 1, s).astype("float32")) for s in shapes]
    nets = []
    for hyb in (False, True):
        net = make()
        net.initialize(mx.init.Xavier())
        net(*xs)
        nets.append(net)
    _copy_params(nets[0], nets[1])
    nets[1].hybridize()
    trainers = [gluon.Trainer(n.collect_params(), "adam", {"learning_rate": 0.01})
                for n in nets]
    results = []
    for net, tr in zip(nets, trainers):
        mx.random.seed(11)
        got = []
        for step in range(3):
            ins = [x.copy() for x in xs]
            for x in ins:
                x.attach_grad()
            with autograd.record():
                out = net(*ins)
                outs = out if isinstance(out, (list, tuple)) else [out]
                loss = sum((o * o).sum() for o in outs)
            loss.backward()
            tr.step(shapes[0][0])
            got.append([o.asnumpy() for o in outs] + [x.grad.asnumpy() for x in ins])
            assert all(type(o) is np.ndarray for o in outs)
        got.append([p.data().asnumpy() for p in net.collect_params().values()])
        results.append(got)
    for imp, hyb in zip(*results):
        for u, v in zip(imp, hyb):
            onp.testing.assert_allclose(u, v, rtol=1e-5, atol=1e-6)
    assert nets[1].__dict__.get("_plans")         # it ran planned, not imperatively


def test_hybrid_forward_sees_symbols_once(np_mode):
    class Show(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            print("x:", x)
            return F.npx.relu(x) * 2

    net = Show()
    net.hybridize()
    buf = io.StringIO()
    with redirect_stdout(buf):
        y1 = net(np.array([-1.0, 2.0]))
        y2 = net(np.array([3.0, -4.0]))
    assert buf.getvalue() == "x: <_Symbol data>\n"
    assert y1.tolist() == [0.0, 4.0] and y2.tolist() == [6.0, 0.0]


def test_symbol_faces_and_refusals():
    a = mx.sym.var("a")
    n = a.as_np_ndarray()
    assert type(n) is mx.sym.np._Symbol and n.as_nd_ndarray().list_arguments() == ["a"]
    assert type(a.as_nd_ndarray()) is mx.sym.Symbol
    with pytest.raises(TypeError):
        len(n)
    with pytest.raises(IndexError):
        n[None]
    with pytest.raises(AttributeError, match="no function 'frobnicate'"):
        mx.sym.np.frobnicate
    with pytest.raises(TypeError, match="argument 'x' must be a Symbol"):
        mx.sym.np.exp([1.0])
    with pytest.raises(MXNetError, match="cannot be a Symbol"):
        mx.sym.np.reshape(n, newshape=n)
    parts = mx.sym.np.split(n, 2)
    assert isinstance(parts, list) and len(parts) == 2
    g = mx.sym.Group(parts)
    assert type(g) is mx.sym.np._Symbol and len(g) == 2
    assert type(g[1]) is mx.sym.np._Symbol


def test_mixed_face_outputs_are_refused_in_numpy_mode(np_mode):
    class Mixed(nn.HybridBlock):
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() + 1, F.np.multiply(x, x)

    net = Mixed()
    with pytest.raises(TypeError, match="must be mx.np.ndarray"):
        net(np.ones((2, 3)))
    net.hybridize()
    with pytest.raises(TypeError, match="must be mx.np.ndarray"):
        net(np.ones((2, 3)))


def test_legacy_outputs_of_np_inputs_stay_legacy_when_hybridized():
    class Classic(nn.HybridBlock):          # not in NumPy mode: as_nd_ndarray() outputs
        def hybrid_forward(self, F, x):
            return x.as_nd_ndarray() * 2, x.as_nd_ndarray() + 1

    net = Classic()
    x = np.ones((2, 3))
    for hyb in (False, True):
        if hyb:
            net.hybridize()
        a, b = net(x)
        assert type(a) is mx.nd.NDArray and type(b) is mx.nd.NDArray
        assert a.asnumpy().tolist() == [[2.0] * 3] * 2


def test_deferred_weight_inferred_through_np_dot(np_mode):
    class Regression(nn.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.w = self.params.get("w", shape=(-1, 4), allow_deferred_init=True)

        def hybrid_forward(self, F, x, w):
            return F.npx.relu(x.dot(w))

    net = Regression()
    net.initialize(mx.init.Constant(0.5))
    net.hybridize()
    y = net(np.ones((3, 7)))
    assert net.w.shape == (7, 4)
    onp.testing.assert_allclose(y.asnumpy(), onp.full((3, 4), 3.5, "float32"))


def test_check_gluon_hybridize_consistency_with_deferred_parameters(np_mode):
    class Net(nn.HybridBlock):
        def __init__(self, prefix=None, params=None):
            super().__init__(prefix=prefix, params=params)
            with self.name_scope():
                self.layer = nn.Dense(5, flatten=False)

        def hybrid_forward(self, F, x):
            return self.layer(F.np.split(x, 2, axis=1)[1]) * 2

    x = np.array(onp.random.RandomState(0).uniform(size=(3, 4, 6)).astype("float32"))
    mx.test_utils.check_gluon_hybridize_consistency(Net, [x])


@pytest.mark.parametrize("numpy_mode", [False, True])
def test_export_writes_the_graph_of_the_first_call_without_tracing_again(numpy_mode, tmp_path):
    calls = []

    class Net(nn.HybridBlock):
        def __init__(self, **kw):
            super().__init__(**kw)
            with self.name_scope():
                self.d = nn.Dense(3)

        def hybrid_forward(self, F, x):
            calls.append(type(x).__name__)
            return F.relu(self.d(x)) * 2

    if numpy_mode:
        npx.set_np()
    try:
        net = Net(prefix="n_")
        net.initialize()
        x = np.ones((2, 4)) if numpy_mode else mx.nd.ones((2, 4))
        net(x)                      # deferred initialization: imperative
        net.hybridize()
        y = net(x)
        net(x)
        net.export(str(tmp_path / "n"))
        assert calls == [type(x).__name__, "_Symbol" if numpy_mode else "Symbol"]
        blk = gluon.SymbolBlock.imports(str(tmp_path / "n-symbol.json"), ["data"],
                                        str(tmp_path / "n-0000.params"))
        onp.testing.assert_allclose(blk(x).asnumpy(), y.asnumpy(), rtol=1e-6)
    finally:
        if numpy_mode:
            npx.reset_np()


def test_every_table_entry_names_its_functions_arguments():
    """The Symbol functions bind their arrays by the mx.np function's own argument names:
    a renamed argument there must be renamed in the table too."""
    import inspect
    from mxgrad.symbol._np_ops import FUNCTIONS, LINALG
    for name, (op, inputs, ns, _) in FUNCTIONS.items():
        fn = getattr(mx.npx if ns == "npx" else mx.np, name.split(".")[-1])
        params = inspect.signature(fn).parameters
        if any(p.kind is p.VAR_POSITIONAL for p in params.values()):
            continue
        assert set(inputs) <= set(params), (name, inputs, list(params))
    for name, (op, inputs) in LINALG.items():
        params = inspect.signature(getattr(mx.np.linalg, name)).parameters
        assert set(inputs) <= set(params), (name, inputs, list(params))


def test_nan_to_num_without_copy_hybridized_keeps_its_input_and_gradient(np_mode):
    class Clean(nn.HybridBlock):
        def hybrid_forward(self, F, a):
            return F.np.nan_to_num(a, copy=False)

    net = Clean()
    net.hybridize()
    x = np.array([1.0, onp.nan, onp.inf])
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward()
    assert y.asnumpy()[1] == 0.0 and onp.isnan(x.asnumpy()[1])   # a graph makes a new value
    assert x.grad.asnumpy().tolist() == [1.0, 0.0, 0.0]


def test_pinv_with_an_array_rcond_is_mxnets_npi_pinv():
    """``mx.sym.np.linalg.pinv(a, rcond)`` with a Symbol ``rcond``: MXNet's ``_npi_pinv``
    node (two inputs, as MXNet 1.9.1 writes it), a number: ``_npi_pinv_scalar_rcond``."""
    a = mx.sym.var("a").as_np_ndarray()
    r = mx.sym.var("r").as_np_ndarray()
    s = mx.sym.np.linalg.pinv(a, r)
    nodes = json.loads(s.tojson())["nodes"]
    assert [n["op"] for n in nodes] == ["null", "null", "_npi_pinv"]
    assert nodes[2]["inputs"] == [[0, 0, 0], [1, 0, 0]]
    A = onp.random.default_rng(0).uniform(size=(2, 3, 3))
    R = onp.array([1e-3, 0.5])
    got = s.eval(a=mx.np.array(A, dtype="float64"), r=mx.np.array(R, dtype="float64"))[0]
    onp.testing.assert_allclose(got.asnumpy(), onp.linalg.pinv(A, R), rtol=1e-10)
    ops = [n["op"] for n in json.loads(mx.sym.np.linalg.pinv(a, 1e-3).tojson())["nodes"]]
    assert ops == ["null", "_npi_pinv_scalar_rcond"]
