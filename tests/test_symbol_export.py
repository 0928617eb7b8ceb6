"""HybridBlock.export and calling blocks on Symbols (F = mx.sym tracing).

Real MXNet 1.9.1 importing these exports is checked by hand with
tools/check_export_with_mxnet.py; here: the exported JSON has the structure MXNet
writes for the same architecture (its JSON is the fixture), and the files re-import in
mxgrad with the same outputs.
"""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd, sym
from mxgrad.base import MXNetError
from mxgrad.gluon import nn

from symbol_models import BUILDERS, set_running_stats

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "symbol")


def _exported(name, tmp_path):
    mx.random.seed(0)
    net, x = BUILDERS[name](mx)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(nd.array(x))
    set_running_stats(net, mx)
    path = str(tmp_path / name)
    net.export(path)
    return net, x, path


def _shape_compatible(ours: str, theirs: str) -> bool:
    a = [int(d) for d in ours.strip("()").split(",") if d.strip()]
    b = [int(d) for d in theirs.strip("()").split(",") if d.strip()]
    return len(a) == len(b) and all(j in (0, i) for i, j in zip(a, b))


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_export_json_matches_mxnet_structure(name, tmp_path):
    _, _, path = _exported(name, tmp_path)
    ours = json.load(open(path + "-symbol.json"))
    theirs = json.load(open(os.path.join(DATA, name + "-symbol.json")))
    assert ours.keys() == theirs.keys()
    for key in ("arg_nodes", "node_row_ptr", "heads", "attrs"):
        assert ours[key] == theirs[key], key
    assert len(ours["nodes"]) == len(theirs["nodes"])
    for a, b in zip(ours["nodes"], theirs["nodes"]):
        assert (a["op"], a["name"], a["inputs"]) == (b["op"], b["name"], b["inputs"])
        aa, ba = dict(a.get("attrs", {})), dict(b.get("attrs", {}))
        # MXNet records the shape known when the variable was made (0 = unknown yet);
        # mxgrad the full shape
        if "__shape__" in ba:
            assert _shape_compatible(aa.pop("__shape__"), ba.pop("__shape__")), a["name"]
        assert aa == ba, a["name"]


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_export_reimports_with_same_outputs(name, tmp_path):
    net, x, path = _exported(name, tmp_path)
    blk = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    np.testing.assert_allclose(blk(nd.array(x)).asnumpy(), net(nd.array(x)).asnumpy(),
                               rtol=0, atol=1e-6)
    if name == "cnn":
        with autograd.train_mode():
            a, b = blk(nd.array(x)), net(nd.array(x))
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=0, atol=1e-6)


def test_export_params_file_has_arg_and_aux_names(tmp_path):
    net, _, path = _exported("cnn", tmp_path)
    loaded = nd.load(path + "-0000.params")
    assert sorted(k for k in loaded if k.startswith("aux:")) == [
        "aux:cnn_batchnorm0_running_mean", "aux:cnn_batchnorm0_running_var"]
    params = net.collect_params()
    assert len(loaded) == len(params)
    for k, v in loaded.items():
        np.testing.assert_array_equal(v.asnumpy(), params[k[4:]].data().asnumpy())
    # the same bytes MXNet writes for the same arrays and names: the fixture's key set
    theirs = nd.load(os.path.join(DATA, "cnn-0000.params"))
    assert sorted(theirs) == sorted(loaded)


def test_export_epoch_in_file_name(tmp_path):
    net = nn.Dense(2, in_units=3, prefix="d_")
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 3)))
    net.export(str(tmp_path / "m"), epoch=7)
    assert sorted(os.listdir(tmp_path)) == ["m-0007.params", "m-symbol.json"]


def test_export_before_forward_is_an_error(tmp_path):
    net = nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    with pytest.raises(MXNetError, match="run forward"):
        net.export(str(tmp_path / "m"))
    assert os.listdir(tmp_path) == []


def test_d2l_hybridize_section(tmp_path):
    """d2l 'Hybrid programming': sym.var, net(x) gives a Symbol, export."""
    def get_net():
        net = nn.HybridSequential()
        net.add(nn.Dense(256, activation="relu"), nn.Dense(128, activation="relu"),
                nn.Dense(2))
        net.initialize()
        return net

    x = nd.random.normal(shape=(1, 512))
    net = get_net()
    y_imperative = net(x)
    net.hybridize()
    np.testing.assert_allclose(net(x).asnumpy(), y_imperative.asnumpy(), rtol=1e-6)
    s = sym.var("data")
    y = net(s)
    assert isinstance(y, sym.Symbol)
    assert y.list_arguments() == ["data"] + list(net.collect_params().keys())
    assert y.list_outputs() == [net._children["2"].name + "_fwd_output"]
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        net.export("my_mlp")
    finally:
        os.chdir(cwd)
    assert sorted(os.listdir(tmp_path)) == ["my_mlp-0000.params", "my_mlp-symbol.json"]
    blk = gluon.SymbolBlock.imports(str(tmp_path / "my_mlp-symbol.json"), ["data"],
                                    str(tmp_path / "my_mlp-0000.params"))
    np.testing.assert_allclose(blk(x).asnumpy(), y_imperative.asnumpy(), rtol=1e-6)


def test_symbolic_call_before_initialization():
    """Tracing needs no parameter values: shapes unknown so far are written as 0."""
    net = nn.HybridSequential(prefix="n_")
    with net.name_scope():
        net.add(nn.Dense(3), nn.Dropout(0.5))
    y = net(sym.var("data"))
    graph = json.loads(y.tojson())
    w = [n for n in graph["nodes"] if n["name"] == "n_dense0_weight"][0]
    assert w["attrs"]["__shape__"] == "(3, 0)"
    assert [n["op"] for n in graph["nodes"]][-1] == "Dropout"


class _TwoInTwoOut(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.fc = nn.Dense(3)

    def hybrid_forward(self, F, a, b):
        h = self.fc(a)
        return F.broadcast_add(h, b), F.relu(h) * 2


def test_export_several_inputs_and_outputs(tmp_path):
    net = _TwoInTwoOut(prefix="two_")
    net.initialize()
    net.hybridize()
    a, b = nd.random.normal(shape=(2, 4)), nd.random.normal(shape=(2, 3))
    ya, yb = net(a, b)
    net.export(str(tmp_path / "two"))
    s = sym.load(str(tmp_path / "two-symbol.json"))
    assert s.list_arguments() == ["data0", "two_dense0_weight", "two_dense0_bias", "data1"]
    assert s.list_outputs() == ["two_broadcast_add0_output", "two__mulscalar0_output"]
    blk = gluon.SymbolBlock.imports(str(tmp_path / "two-symbol.json"), ["data0", "data1"],
                                    str(tmp_path / "two-0000.params"))
    za, zb = blk(a, b)
    np.testing.assert_allclose(za.asnumpy(), ya.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(zb.asnumpy(), yb.asnumpy(), rtol=1e-6)


class _UsesShape(gluon.HybridBlock):
    """A hybrid_forward that reads the input's shape (known while tracing on data)."""

    def hybrid_forward(self, F, x):
        return F.reshape(x, shape=(x.shape[0], -1)) * x.ndim


def test_trace_knows_shapes_from_the_recorded_input(tmp_path):
    net = _UsesShape(prefix="u_")
    net.hybridize()
    x = nd.ones((2, 3, 4))
    net(x)
    net.export(str(tmp_path / "u"))
    s = sym.load(str(tmp_path / "u-symbol.json"))
    assert json.loads(s.tojson())["nodes"][1]["attrs"]["shape"] == "(2, -1)"
    with pytest.raises(MXNetError, match="shape of Symbol"):
        net(sym.var("data"))
    assert net(sym.var("data", shape=(5, 2, 2))).infer_shape()[1] == [(5, 4)]


def test_shared_parameter_is_one_variable(tmp_path):
    net = nn.HybridSequential(prefix="s_")
    with net.name_scope():
        d = nn.Dense(4, in_units=4)
        net.add(d, nn.Dense(4, in_units=4, params=d.params))
    net.initialize()
    y = net(sym.var("data"))
    assert y.list_arguments() == ["data", "s_dense0_weight", "s_dense0_bias"]


def test_export_is_atomic_on_failure(tmp_path):
    """A trace that fails leaves no half-written files."""
    class Bad(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.FancyOp(x)

    net = Bad()
    net.hybridize()
    with pytest.raises(AttributeError):
        net(nd.ones((1,)))
    with pytest.raises(AttributeError, match="FancyOp"):
        net.export(str(tmp_path / "bad"))
    assert os.listdir(tmp_path) == []


def test_imported_model_inside_a_new_network_exports(tmp_path):
    """Transfer learning: MXNet's exported features + a new Dense head, trained one step,
    exported again and re-imported."""
    feats = gluon.SymbolBlock.imports(os.path.join(DATA, "cnn-symbol.json"), ["data"],
                                      os.path.join(DATA, "cnn-0000.params"))
    net = nn.HybridSequential(prefix="tl_")
    with net.name_scope():
        net.add(feats, nn.Dense(2))
    net[1].initialize()
    net.hybridize()
    x = nd.array(np.load(os.path.join(DATA, "cnn-io.npz"))["x"])
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    with autograd.record():
        loss = net(x).sum()
    loss.backward()
    trainer.step(2)
    y = net(x)
    net.export(str(tmp_path / "tl"))
    s = sym.load(str(tmp_path / "tl-symbol.json"))
    assert s.list_arguments()[:2] == ["data", "cnn_conv0_weight"]
    assert s.list_arguments()[-2:] == ["tl_dense0_weight", "tl_dense0_bias"]
    back = gluon.SymbolBlock.imports(str(tmp_path / "tl-symbol.json"), ["data"],
                                     str(tmp_path / "tl-0000.params"))
    np.testing.assert_allclose(back(x).asnumpy(), y.asnumpy(), rtol=1e-6)


# densenet121 matches too (checked by hand) but its 224x224 example pass is slow;
# resnet18_v1 differs: mxgrad's BasicBlockV1/BottleneckV1 compute the downsample branch
# first and add body(x) + residual, MXNet computes body first and adds residual + x (same
# values, other node order and names)
ZOO_JSON = {"resnet18_v2": "zoo_", "mobilenet0.25": "zoo_", "mobilenetv2_0.25": "zoo_",
            "squeezenet1.1": "zooj_", "inceptionv3": "zooj_", "alexnet": "zooj_",
            "vgg11_bn": "zooj_"}


@pytest.mark.parametrize("name", sorted(ZOO_JSON))
def test_model_zoo_trace_matches_mxnet_json(name):
    """mxgrad's model zoo traced on a shaped variable (parameters not initialized: their
    shapes follow from the data) gives the graph MXNet exports for the same model."""
    import gzip
    from mxgrad.gluon.model_zoo import vision
    with mx.name.NameManager():      # MXNet's fixture was made in a fresh process
        net = vision.get_model(name, classes=10)
    size = 299 if name == "inceptionv3" else 224
    ours = json.loads(net(sym.var("data", shape=(1, 3, size, size))).tojson())
    with gzip.open(os.path.join(DATA, f"{ZOO_JSON[name]}{name}-symbol.json.gz"), "rt") as f:
        theirs = json.loads(f.read())
    for key in ("arg_nodes", "node_row_ptr", "heads"):
        assert ours[key] == theirs[key], key
    assert len(ours["nodes"]) == len(theirs["nodes"])
    for a, b in zip(ours["nodes"], theirs["nodes"]):
        aa, ba = dict(a.get("attrs", {})), dict(b.get("attrs", {}))
        if "__shape__" in ba:
            assert _shape_compatible(aa.pop("__shape__"), ba.pop("__shape__")), a["name"]
        elif a["name"] == "data":         # the shape given to sym.var above
            aa.pop("__shape__")
        assert (a["op"], a["name"], a["inputs"], aa) == (b["op"], b["name"], b["inputs"], ba)


def test_shapeless_symbol_through_pooling_traces():
    from mxgrad.gluon import nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(4, 3), nn.MaxPool2D(), nn.Dense(2))
    net.initialize()
    net(mx.nd.ones((1, 1, 8, 8)))
    out = net(mx.sym.var("data"))
    assert isinstance(out, mx.sym.Symbol)
    assert [n["op"] for n in json.loads(out.tojson())["nodes"] if n["op"] != "null"] == \
        ["Convolution", "Pooling", "FullyConnected"]
