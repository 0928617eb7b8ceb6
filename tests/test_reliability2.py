"""Issue 24 (reliability, round 2): symbol JSON, imported initializers, Trainer states,
pickled NDArrays, RecordIO indexes, image lists, DLPack, model_zoo/Estimator arguments,
as_in_context, autograd.Function's saved tensors.

Each row of ``CASES`` is a call that must raise an ``MXNetError`` subclass that is also
the built-in named in the row, with a message containing the words listed. Hostile
*files* (every reader) are in ``test_hostile_files.py``.
"""
import errno
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError


def _graph(nodes, heads):
    return json.dumps({"nodes": nodes, "heads": heads, "arg_nodes": [0]})


_X = {"op": "null", "name": "x", "inputs": []}
_RELU = {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}


def _imported_init(tmp_path, init):
    y = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    graph = json.loads(y.tojson())
    for node in graph["nodes"]:
        if node["name"] == "fc_weight":
            node.setdefault("attrs", {})["__init__"] = init
    path = tmp_path / "m-symbol.json"
    path.write_text(json.dumps(graph))
    net = gluon.SymbolBlock.imports(str(path), ["data"])
    net.initialize()
    net(nd.ones((1, 3)))


def _estimator():
    from mxgrad.gluon.contrib.estimator import Estimator
    net = gluon.nn.Dense(2)
    net.initialize()
    return Estimator(net, gluon.loss.L2Loss(),
                     trainer=gluon.Trainer(net.collect_params(), "sgd"))


# (id, call, built-in the error must also be, words in the message)
CASES = [
    # ---- item 1: symbol JSON
    ("sym-nodes-int", lambda: mx.sym.load_json('{"nodes": 5, "heads": []}'),
     ValueError, ["nodes", "list"]),
    ("sym-node-str", lambda: mx.sym.load_json(_graph(["abc"], [[0, 0, 0]])),
     ValueError, ["node 0", "str"]),
    ("sym-op-list", lambda: mx.sym.load_json(
        _graph([{"op": ["a"], "name": "x", "inputs": []}], [[0, 0, 0]])), ValueError, ["op"]),
    ("sym-input-inf", lambda: mx.sym.load_json(
        '{"nodes": [{"op":"null","name":"x","inputs":[]},'
        '{"op":"relu","name":"r","inputs":[[1e999,0,0]]}], "heads": [[1,0,0]]}'),
     ValueError, ["input", "'r'"]),
    ("sym-input-later-node", lambda: mx.sym.load_json(
        _graph([_X, {"op": "relu", "name": "r", "inputs": [[1, 0, 0]]}], [[1, 0, 0]])),
     ValueError, ["'r'", "earlier"]),
    ("sym-input-output-3", lambda: mx.sym.load_json(
        _graph([_X, {"op": "relu", "name": "r", "inputs": [[0, 3, 0]]}], [[1, 0, 0]])),
     ValueError, ["output 3", "'x'"]),
    ("sym-head-output-5", lambda: mx.sym.load_json(_graph([_X, _RELU], [[1, 5, 0]])),
     ValueError, ["head", "output 5", "'r'"]),
    ("sym-head-not-node", lambda: mx.sym.load_json(_graph([_X, _RELU], [[7, 0, 0]])),
     ValueError, ["head 7"]),
    ("sym-head-str", lambda: mx.sym.load_json(_graph([_X, _RELU], [["1", 0, 0]])),
     ValueError, ["head"]),
    ("sym-no-heads", lambda: mx.sym.load_json(_graph([_X, _RELU], [])),
     ValueError, ["heads", "empty"]),
    ("sym-attrs-list", lambda: mx.sym.load_json(
        _graph([_X, dict(_RELU, attrs=[1])], [[1, 0, 0]])), ValueError, ["'r'", "attributes"]),
    ("sym-inputs-int", lambda: mx.sym.load_json(
        _graph([_X, dict(_RELU, inputs=3)], [[1, 0, 0]])), ValueError, ["'r'", "inputs"]),
    ("sym-deep", lambda: mx.sym.load_json("[" * 100_000 + "]" * 100_000),
     ValueError, ["nested"]),
    ("sym-not-str", lambda: mx.sym.load_json(5), TypeError, ["json_str"]),
    ("sym-missing-file", lambda: mx.sym.load("/nonexistent/missing-symbol.json"),
     FileNotFoundError, ["missing-symbol.json"]),
    # ---- item 2: __init__ attributes of imported graphs
    ("init-list3", lambda: mx.init.create("[1,2,3]"), ValueError, ["[1,2,3]", "dumps"]),
    ("init-kw-int", lambda: mx.init.create('["normal", 5]'), ValueError, ["normal", "dumps"]),
    ("init-broken-json", lambda: mx.init.create('["normal", {'), ValueError, ["dumps"]),
    # ---- item 9: DLPack (MXNet: "Unknown DLDataType")
    ("dlpack-complex", lambda: nd.from_dlpack(np.ones(2, np.complex64)), TypeError,
     ["complex64"]),
    ("dlpack-object", lambda: nd.from_dlpack(np.array(["a"])), TypeError, ["from_dlpack"]),
    # ---- item 10: model zoo and Estimator arguments
    ("get_model-int", lambda: gluon.model_zoo.vision.get_model(18), TypeError,
     ["name", "int"]),
    ("estimator-fit-ints", lambda: _estimator().fit([1, 2, 3], epochs=1), TypeError,
     ["train_data", "(data, label)"]),
    ("estimator-evaluate-ints", lambda: _estimator().evaluate([1, 2]), TypeError,
     ["val_data", "(data, label)"]),
    # ---- item 13: as_in_context takes a Context (MXNet: "copyto does not support type")
    ("as_in_context-str", lambda: nd.ones(2).as_in_context("gpu"), TypeError,
     ["context", "'gpu'"]),
    ("as_in_ctx-int", lambda: nd.ones(2).as_in_ctx(3), TypeError, ["context"]),
]


@pytest.mark.parametrize("call, builtin, words", [c[1:] for c in CASES],
                         ids=[c[0] for c in CASES])
def test_bad_input_raises_a_clear_mxnet_error(call, builtin, words):
    with pytest.raises(MXNetError) as info:
        call()
    assert isinstance(info.value, builtin), type(info.value).__mro__
    for word in words:
        assert word in str(info.value), (word, str(info.value))


@pytest.mark.parametrize("init", ["[1,2,3]", '["normal", 5]', '["normal", {"sigma"'])
def test_imported_graph_with_a_bad_init_attribute_names_the_parameter(tmp_path, init):
    with pytest.raises(MXNetError) as info:
        _imported_init(tmp_path, init)
    assert isinstance(info.value, ValueError)
    assert "fc_weight" in str(info.value) and "__init__" in str(info.value)


def test_imported_graph_with_a_good_init_attribute_uses_it(tmp_path):
    y = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc")
    graph = json.loads(y.tojson())
    for node in graph["nodes"]:
        if node["name"] == "fc_weight":
            node.setdefault("attrs", {})["__init__"] = '["constant", {"value": 0.5}]'
    path = tmp_path / "m-symbol.json"
    path.write_text(json.dumps(graph))
    net = gluon.SymbolBlock.imports(str(path), ["data"])
    net.initialize()
    net(nd.ones((1, 3)))
    np.testing.assert_array_equal(net.collect_params()["fc_weight"].data().asnumpy(),
                                  np.full((2, 3), 0.5, np.float32))


def test_symbol_json_round_trip_still_loads():
    y = mx.sym.SliceChannel(mx.sym.var("x"), num_outputs=2, name="s")[1]
    z = mx.sym.load_json(y.tojson())
    assert z.list_outputs() == y.list_outputs()
    out = z.eval(x=nd.array([[1.0, 2.0]]))[0]
    np.testing.assert_array_equal(out.asnumpy(), [[2.0]])


# ------------------------------------------------------------- item 5: export
def test_export_that_fails_halfway_keeps_the_previous_export(tmp_path, monkeypatch):
    # before: -symbol.json was replaced before the .params was written, so a full disk
    # left a new graph beside old parameters that no longer matched
    path = str(tmp_path / "net")
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    net(nd.ones((1, 3)))
    net.export(path)
    old = {f: (tmp_path / f).read_bytes() for f in os.listdir(tmp_path)}
    bigger = gluon.nn.HybridSequential()
    bigger.add(gluon.nn.Dense(4, in_units=3), gluon.nn.Dense(2, in_units=4))
    bigger.initialize()
    bigger.hybridize()
    bigger(nd.ones((1, 3)))
    real_fsync, calls = os.fsync, []

    def fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(os, "fsync", fsync)
    with pytest.raises(OSError):
        bigger.export(path)
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert {f: (tmp_path / f).read_bytes() for f in os.listdir(tmp_path)} == old
    back = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    np.testing.assert_allclose(back(nd.ones((1, 3))).asnumpy(), net(nd.ones((1, 3))).asnumpy(),
                               rtol=1e-6)


# ------------------------------------------------------------- item 7: pickled NDArrays
@pytest.mark.parametrize("state", [
    {"data": "x"}, {"data": np.array([1, None], dtype=object)},
    {"data": np.array(["a"])}, {"data": np.array([1j])}, 5, {"handle": 3},
], ids=["str", "object", "unicode", "complex", "not-dict", "handle-int"])
def test_unpickling_an_ndarray_with_a_bad_state_is_refused(state):
    # before: {'data': 'x'} and an object array were accepted
    x = nd.NDArray.__new__(nd.NDArray)
    with pytest.raises(MXNetError) as info:
        x.__setstate__(state)
    assert isinstance(info.value, ValueError)
    assert "pickled NDArray" in str(info.value)


def test_pickled_ndarrays_still_round_trip():
    import pickle
    for a in (nd.array([1.5, 2.5]), nd.array([[1, 2]], dtype="int64"), nd.array([True])):
        b = pickle.loads(pickle.dumps(a))
        assert b.dtype == a.dtype and b.shape == a.shape
        np.testing.assert_array_equal(b.asnumpy(), a.asnumpy())
    c = nd.NDArray.__new__(nd.NDArray)
    c.__setstate__({"data": np.array([1.0, 2.0], dtype=">f4")})
    assert c.asnumpy().dtype.isnative and c.asnumpy().tolist() == [1.0, 2.0]


# ------------------------------------------------------------- items 9, 10, 13: still work
def test_valid_calls_next_to_the_refused_ones_still_work():
    a = np.arange(3.0, dtype=np.float32)
    np.testing.assert_array_equal(nd.from_dlpack(a).asnumpy(), [0.0, 1.0, 2.0])
    assert nd.from_dlpack(np.array([True, False])).dtype == np.bool_
    x = nd.ones(2)
    assert x.as_in_context(mx.cpu()) is x
    net = gluon.model_zoo.vision.get_model("ResNet18_v1", classes=3)
    assert net.output._units == 3
    data = gluon.data.ArrayDataset(nd.ones((4, 3)), nd.zeros((4, 2)))
    est = _estimator()
    est.fit(gluon.data.DataLoader(data, batch_size=2), epochs=1)
    assert est.net.weight.shape == (2, 3)


# ------------------------------------------------------------- item 13: Function saves
class _Triple(autograd.Function):
    def forward(self, x):
        return x * 3

    def backward(self, dy):
        return dy * 3


def test_mxnet_style_saved_tensors_readable_right_after_save_for_backward():
    # MXNet's save_for_backward only stores the values: they are readable at once
    # before: () until the function was called
    f = _Triple()
    k = nd.array([2.0])
    f.save_for_backward(k, 5)
    saved = f.saved_tensors
    assert len(saved) == 2 and saved[0] is k and saved[1] == 5
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = f(x)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 3.0])


def test_saved_names_that_are_also_tuple_or_dict_methods():
    # before: ctx.saved_variables.items returned the dict-like items method
    seen = {}

    class F(autograd.Function):
        def forward(self, x):
            self.save_for_backward(items=[1, 2], keys=3, count=4, index="i", x=x)
            return x * 2

        def backward(self, dy):
            sv = self.saved_variables
            seen.update(items=sv.items, keys=sv.keys, count=sv.count, index=sv.index,
                        x=sv.x.asnumpy().tolist(), first=sv[0], by_key=sv["items"])
            return dy * 2

    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = F()(x)
    y.backward()
    assert seen == {"items": [1, 2], "keys": 3, "count": 4, "index": "i",
                    "x": [1.0, 2.0], "first": [1, 2], "by_key": [1, 2]}
    np.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 2.0])


# ------------------------------------------------------------- item 11: layer dtypes
_IMG8 = np.arange(2 * 3 * 5 * 5).reshape(2, 3, 5, 5) % 256


def _layer(cls, hybridize, **kw):
    net = getattr(gluon.nn, cls)(**kw)
    net.initialize()
    if hybridize:
        net.hybridize()
    return net


@pytest.mark.parametrize("hybridize", [False, True])
@pytest.mark.parametrize("cls, kw, dtype, words", [
    ("Conv2D", dict(channels=4, kernel_size=3), "uint8", ["uniform type", "weight"]),
    ("Conv2D", dict(channels=4, kernel_size=3), "float64", ["uniform type", "weight"]),
    ("Conv2D", dict(channels=4, kernel_size=3), "float16", ["uniform type", "weight"]),
    ("Conv2DTranspose", dict(channels=4, kernel_size=3), "uint8", ["uniform type"]),
    ("Conv2DTranspose", dict(channels=4, kernel_size=3), "float64", ["uniform type"]),
    ("MaxPool2D", {}, "uint8", ["floating-point", "uint8"]),
    ("AvgPool2D", {}, "uint8", ["floating-point", "uint8"]),
    ("GlobalAvgPool2D", {}, "int32", ["floating-point", "int32"]),
    ("BatchNorm", {}, "uint8", ["uniform type", "gamma"]),
    ("BatchNorm", {}, "float64", ["uniform type", "gamma"]),
    ("LayerNorm", {}, "float64", ["uniform type", "gamma"]),
    ("LayerNorm", {}, "float16", ["uniform type", "gamma"]),
    ("InstanceNorm", {}, "uint8", ["uniform type"]),
    ("GroupNorm", dict(num_groups=3), "float64", ["uniform type"]),
    ("PReLU", {}, "float64", ["uniform type", "gamma"]),
])
def test_layers_refuse_mixed_or_integer_dtypes_as_mxnet(cls, kw, dtype, words, hybridize):
    # before: a uint8 image came out of Conv2D/pooling as wrapped-around uint8 values and
    # float64 data went through float32 layers; MXNet 1.9.1 raises "This layer requires
    # uniform type" / "only support floating point types" for each
    net = _layer(cls, hybridize, **kw)
    with pytest.raises(MXNetError) as info:
        net(nd.array(_IMG8, dtype=dtype))
    assert isinstance(info.value, TypeError)
    for w in words:
        assert w in str(info.value), str(info.value)


@pytest.mark.parametrize("call, words", [
    (lambda x: nd.Convolution(x, nd.ones((4, 3, 3, 3)), nd.zeros(4), kernel=(3, 3),
                              num_filter=4), ["Convolution", "uniform type", "weight"]),
    (lambda x: nd.Convolution(x.astype("float32"), nd.ones((4, 3, 3, 3)),
                              nd.zeros(4, dtype="float64"), kernel=(3, 3), num_filter=4),
     ["Convolution", "uniform type", "bias"]),
    (lambda x: nd.Convolution(x, nd.ones((4, 3, 3, 3), dtype="uint8"), kernel=(3, 3),
                              num_filter=4, no_bias=True), ["floating-point"]),
    (lambda x: nd.Deconvolution(x, nd.ones((3, 4, 3, 3)), kernel=(3, 3), num_filter=4,
                                no_bias=True), ["Deconvolution", "uniform type"]),
    (lambda x: nd.Pooling(x, kernel=(2, 2), pool_type="avg"), ["Pooling", "uint8"]),
    (lambda x: nd.Pooling(x, kernel=(2, 2), pool_type="lp", p_value=2), ["Pooling"]),
], ids=["conv-weight", "conv-bias", "conv-int", "deconv", "pool-avg", "pool-lp"])
def test_nd_layer_ops_refuse_mixed_or_integer_dtypes(call, words):
    with pytest.raises(MXNetError) as info:
        call(nd.array(_IMG8, dtype="uint8"))
    assert isinstance(info.value, TypeError)
    for w in words:
        assert w in str(info.value), str(info.value)


def test_uniform_float_dtypes_still_work():
    x = nd.array(_IMG8, dtype="float64")
    y = nd.Convolution(x, nd.ones((4, 3, 3, 3), dtype="float64"),
                       nd.zeros(4, dtype="float64"), kernel=(3, 3), num_filter=4)
    ref = np.array([sum(_IMG8[0, c, i, j] for c in range(3) for i in range(3)
                        for j in range(3))], np.float64)
    assert y.dtype == np.float64 and y.asnumpy()[0, 0, 0, 0] == ref[0]
    net = _layer("Conv2D", False, channels=2, kernel_size=3)
    net.cast("float64")
    assert net(x).dtype == np.float64
    p = nd.Pooling(x, kernel=(2, 2), pool_type="max")
    assert p.dtype == np.float64 and p.asnumpy()[0, 0, 0, 0] == _IMG8[0, 0, :2, :2].max()
    img = nd.array(_IMG8, dtype="uint8").astype("float32") / 255
    assert _layer("MaxPool2D", True)(img).dtype == np.float32
    # float16 data keeps BatchNorm's float32 statistics (MXNet's mixed precision)
    bn = _layer("BatchNorm", False)
    half = bn(nd.array(_IMG8, dtype="float16") / 255)
    assert half.dtype == np.float16 and bn.gamma.data().dtype == np.float32
    ln = _layer("LayerNorm", False)
    ln.cast("float64")
    out = ln(x)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.asnumpy().mean(axis=-1), 0, atol=1e-12)
