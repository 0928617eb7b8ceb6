"""mx.sym and SymbolBlock.imports against models exported by real MXNet 1.9.1.

Fixtures: tests/data/mxnet/symbol/ (made by tools/make_symbol_fixtures.py with MXNet;
the models are in tests/symbol_models.py).
"""
import json
import os
import shutil

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon
from mxgrad.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "symbol")
TOL = 1e-5


def _files(name):
    p = os.path.join(DATA, name)
    return p + "-symbol.json", p + "-0000.params", np.load(p + "-io.npz",
                                                           allow_pickle=False)


def _imports(name):
    js, params, io = _files(name)
    return gluon.SymbolBlock.imports(js, ["data"], params), io


@pytest.mark.parametrize("name", ["cnn", "mlp", "misc", "module", "layers", "groupnorm",
                                  "lstm"])
def test_import_predict_matches_mxnet(name):
    blk, io = _imports(name)
    y = blk(mx.nd.array(io["x"]))
    assert y.shape == io["y_predict"].shape
    np.testing.assert_allclose(y.asnumpy(), io["y_predict"], rtol=0, atol=TOL)


def test_import_train_mode_uses_batch_statistics():
    blk, io = _imports("cnn")
    with autograd.train_mode():
        y = blk(mx.nd.array(io["x"]))
    np.testing.assert_allclose(y.asnumpy(), io["y_train"], rtol=0, atol=TOL)
    assert np.abs(io["y_train"] - io["y_predict"]).max() > 1e-3   # really different


def test_finetune_one_step_matches_mxnet():
    """record + backward + Trainer.step on an imported model: every parameter (and
    BatchNorm's running statistics) as MXNet has them after the same step."""
    blk, io = _imports("cnn")
    trainer = gluon.Trainer(blk.collect_params(), "sgd",
                            {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3})
    x = mx.nd.array(io["x"])
    with autograd.record():
        loss = (blk(x) * mx.nd.array(io["w_loss"])).sum()
    loss.backward()
    trainer.step(x.shape[0])
    params = blk.collect_params()
    names = [k[len("after_"):] for k in io.files if k.startswith("after_")]
    assert sorted(names) == sorted(params.keys())
    for k in names:
        np.testing.assert_allclose(params[k].data().asnumpy(), io["after_" + k], rtol=0,
                                   atol=TOL, err_msg=k)
    assert params["cnn_batchnorm0_running_mean"].grad_req == "null"


def test_batchnorm_running_stats_update_as_mxnet_with_dropout_downstream():
    blk, io = _imports("mlp")
    x = mx.nd.array(io["x"])
    with autograd.record():
        y = blk(x)
    y.backward()
    for k in ("mlp_batchnorm0_running_mean", "mlp_batchnorm0_running_var"):
        np.testing.assert_allclose(blk.collect_params()[k].data().asnumpy(),
                                   io["after_" + k], rtol=0, atol=TOL, err_msg=k)


@pytest.mark.parametrize("name", ["cnn", "lstm"])
def test_imported_model_gradient_equals_gluon_model_gradient(name):
    """The interpreted graph is differentiable like the Gluon layers it came from."""
    import symbol_models
    js, params, io = _files(name)
    net, x = getattr(symbol_models, "build_" + name)(mx)
    net.collect_params().load(params, ignore_extra=False)
    blk = gluon.SymbolBlock.imports(js, ["data"], params)
    xs = mx.nd.array(x)
    w_loss = np.random.RandomState(8).randn(*io["y_predict"].shape)
    grads = []
    for model in (net, blk):
        with autograd.record():
            loss = (model(xs) * mx.nd.array(w_loss)).sum()
        loss.backward()
        grads.append({k: p.grad().asnumpy() for k, p in model.collect_params().items()
                      if p.grad_req != "null"})
    assert grads[0].keys() == grads[1].keys()
    for k in grads[0]:
        np.testing.assert_allclose(grads[1][k], grads[0][k], rtol=1e-5, atol=1e-6,
                                   err_msg=k)


def test_module_checkpoint_softmax_label_is_not_a_parameter():
    blk, io = _imports("module")
    keys = set(blk.collect_params().keys())
    assert "softmax_label" not in keys
    assert {"bn1_moving_mean", "bn1_moving_var", "conv1_weight"} <= keys
    y = blk(mx.nd.array(io["x"])).asnumpy()
    np.testing.assert_allclose(y.sum(axis=1), 1.0, rtol=1e-6)


def _with_node_changed(tmp_path, change):
    js, params, _ = _files("cnn")
    graph = json.load(open(js))
    change(graph)
    out = tmp_path / "bad-symbol.json"
    out.write_text(json.dumps(graph))
    return str(out), params


def test_unknown_op_fails_at_import_naming_op_and_node(tmp_path):
    def change(g):
        g["nodes"][9]["op"] = "FancyAct"
    js, params = _with_node_changed(tmp_path, change)
    with pytest.raises(MXNetError) as err:
        gluon.SymbolBlock.imports(js, ["data"], params)
    assert "FancyAct" in str(err.value) and "cnn_relu0_fwd" in str(err.value)
    assert isinstance(err.value, NotImplementedError)
    with pytest.raises(MXNetError, match="FancyAct"):
        mx.sym.load(js)


def test_unknown_attribute_fails_at_import(tmp_path):
    def change(g):
        g["nodes"][10]["attrs"]["frobnicate"] = "3"
    js, params = _with_node_changed(tmp_path, change)
    with pytest.raises(MXNetError, match="cnn_pool0_fwd.*frobnicate"):
        gluon.SymbolBlock.imports(js, ["data"], params)


def test_unknown_input_name_is_an_error():
    js, params, _ = _files("cnn")
    with pytest.raises(MXNetError, match="no input named 'x'"):
        gluon.SymbolBlock.imports(js, ["x"], params)


@pytest.mark.parametrize("name", ["cnn", "mlp", "misc", "module", "layers", "groupnorm",
                                  "lstm"])
def test_tojson_reproduces_mxnet_file(name):
    js, _, _ = _files(name)
    text = open(js).read()
    assert mx.sym.load(js).tojson() == text
    assert mx.sym.load_json(text).tojson() == text


def test_symbol_api_on_loaded_graph():
    js, _, _ = _files("cnn")
    s = mx.sym.load(js)
    assert s.list_outputs() == ["cnn_dense0_fwd_output"]
    assert s.list_auxiliary_states() == ["cnn_batchnorm0_running_mean",
                                         "cnn_batchnorm0_running_var"]
    assert s.list_arguments()[:3] == ["data", "cnn_conv0_weight", "cnn_conv0_bias"]
    assert len(s.list_inputs()) == len(s.list_arguments()) + 2
    # tojson writes MXNet's text: identical to the file MXNet wrote
    assert s.tojson() == open(js).read()
    internals = s.get_internals()
    assert "cnn_relu0_fwd_output" in internals.list_outputs()
    relu = internals["cnn_relu0_fwd_output"]
    assert relu.name == "cnn_relu0_fwd"
    assert repr(relu) == "<Symbol cnn_relu0_fwd>"


def test_internal_output_runs_in_symbolblock():
    js, params, io = _files("cnn")
    s = mx.sym.load(js)
    feat = s.get_internals()["cnn_flatten0_flatten0_output"]
    blk = gluon.SymbolBlock(feat, mx.sym.var("data"))
    blk.collect_params().load(params, ignore_extra=True)
    assert blk(mx.nd.array(io["x"])).shape == (2, 5)


def test_symbolblock_without_params_infers_shapes():
    x = mx.sym.var("data")
    y = mx.sym.Convolution(x, kernel=(3, 3), num_filter=4, name="c")
    y = mx.sym.BatchNorm(y, name="bn")
    y = mx.sym.FullyConnected(mx.sym.relu(y), num_hidden=2, name="fc")
    blk = gluon.SymbolBlock(y, x)
    blk.initialize()
    out = blk(mx.nd.ones((2, 3, 5, 5)))
    assert out.shape == (2, 2)
    p = blk.collect_params()
    assert p["c_weight"].shape == (4, 3, 3, 3)
    assert p["fc_weight"].shape == (2, 36)
    assert p["bn_moving_var"].grad_req == "null"
    assert p["bn_moving_var"].data().asnumpy().tolist() == [1.0] * 4
    assert p["bn_gamma"].data().asnumpy().tolist() == [1.0] * 4


def test_infer_shape_and_eval():
    a = mx.sym.var("a")
    y = mx.sym.FullyConnected(a, num_hidden=3, name="fc")
    args, outs, aux = y.infer_shape(a=(2, 4), fc_weight=(3, 4), fc_bias=(3,))
    assert args == [(2, 4), (3, 4), (3,)] and outs == [(2, 3)] and aux == []
    w = mx.nd.array(np.arange(12).reshape(3, 4))
    r = y.eval(a=mx.nd.ones((2, 4)), fc_weight=w, fc_bias=mx.nd.zeros((3,)))
    np.testing.assert_allclose(r[0].asnumpy(), [[6, 22, 38]] * 2)


def test_symbol_arithmetic_and_names():
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = mx.sym.Group([a + b, a - 1, 2 - a, a * b, a / 2, 2 / a, a ** 2, -a, a > b])
    ops = [json.loads(c.tojson())["nodes"][n]["op"]
           for n, _, _ in json.loads(c.tojson())["heads"]]
    assert ops == ["elemwise_add", "_minus_scalar", "_rminus_scalar", "elemwise_mul",
                   "_div_scalar", "_rdiv_scalar", "_power_scalar", "_mul_scalar",
                   "_greater"]
    vals = c.eval(a=mx.nd.array([2.0]), b=mx.nd.array([3.0]))
    assert [v.asscalar() for v in vals] == [5.0, 1.0, 0.0, 6.0, 1.0, 1.0, 4.0, -2.0, 0.0]
    with pytest.raises(MXNetError):
        bool(a)


def test_auto_created_parameters_follow_mxnet():
    x = mx.sym.var("x")
    assert mx.sym.FullyConnected(x, num_hidden=2, no_bias=True,
                                 name="f").list_arguments() == ["x", "f_weight"]
    bn = mx.sym.BatchNorm(x, name="bn")
    assert bn.list_arguments() == ["x", "bn_gamma", "bn_beta"]
    assert bn.list_auxiliary_states() == ["bn_moving_mean", "bn_moving_var"]
    assert mx.sym.LeakyReLU(x, act_type="prelu", name="p").list_arguments() == \
        ["x", "p_gamma"]
    assert mx.sym.Deconvolution(x, kernel=(2, 2), num_filter=3,
                                name="d").list_arguments() == ["x", "d_weight"]
    s = mx.sym.SliceChannel(x, num_outputs=3, name="s")
    assert s.list_outputs() == ["s_output0", "s_output1", "s_output2"]
    assert s[1].list_outputs() == ["s_output1"]


def test_unsupported_sym_function_message():
    with pytest.raises(AttributeError, match="supported_ops"):
        mx.sym.Convolution_v1     # MXNet 1.9.1 has it; mx.nd here does not
    assert "Convolution" in mx.sym.supported_ops()


def test_load_json_rejects_garbage():
    with pytest.raises(MXNetError):
        mx.sym.load_json("{not json")
    with pytest.raises(MXNetError):
        mx.sym.load_json(json.dumps({"nodes": []}))


@pytest.mark.parametrize("name", ["resnet18_v1", "resnet18_v2", "mobilenet0.25",
                                  "mobilenetv2_0.25"])
def test_model_zoo_graphs_match_mxnet(name):
    """MXNet model-zoo architectures (their exported JSON): parameters inferred from the
    input, deterministic values, outputs in predict and training mode as MXNet's."""
    import gzip
    from symbol_models import zoo_param_values
    with gzip.open(os.path.join(DATA, f"zoo_{name}-symbol.json.gz"), "rt") as f:
        s = mx.sym.load_json(f.read())
    io = np.load(os.path.join(DATA, "zoo-io.npz"), allow_pickle=False)
    x = mx.nd.array(io["x"])
    blk = gluon.SymbolBlock(s, mx.sym.var("data"))
    blk.initialize()
    blk(x)                                   # shapes inferred from the input
    params = blk.collect_params()
    for k, v in zoo_param_values({k: p.shape for k, p in params.items()}).items():
        params[k].set_data(mx.nd.array(v))
    for mode, scope in (("predict", autograd.predict_mode), ("train", autograd.train_mode)):
        if f"{name}_{mode}" not in io.files:   # see tools/make_symbol_fixtures.py
            continue
        with scope():
            y = blk(x).asnumpy()
        ref = io[f"{name}_{mode}"]
        np.testing.assert_allclose(y, ref, rtol=1e-4, atol=1e-5 * np.abs(ref).max(),
                                   err_msg=mode)


@pytest.mark.parametrize("name", ["squeezenet1.1", "densenet121", "inceptionv3", "alexnet",
                                  "vgg11_bn"])
def test_model_zoo_json_loads(name):
    """Every operator and attribute of these MXNet model-zoo graphs is understood."""
    import gzip
    with gzip.open(os.path.join(DATA, f"zooj_{name}-symbol.json.gz"), "rt") as f:
        text = f.read()
    s = mx.sym.load_json(text)
    assert s.tojson() == text
    blk = gluon.SymbolBlock(s, mx.sym.var("data"))
    n_bn = sum(1 for n in json.loads(text)["nodes"] if n["op"] == "BatchNorm")
    assert len(blk.collect_params()) == len(s.list_arguments()) - 1 + 2 * n_bn


def test_running_stats_unchanged_in_predict_mode_and_with_global_stats():
    blk, io = _imports("cnn")
    p = blk.collect_params()
    before = p["cnn_batchnorm0_running_mean"].data().asnumpy().copy()
    blk(mx.nd.array(io["x"]))
    np.testing.assert_array_equal(p["cnn_batchnorm0_running_mean"].data().asnumpy(), before)
    with autograd.train_mode():
        blk(mx.nd.array(io["x"]))
    assert np.abs(p["cnn_batchnorm0_running_mean"].data().asnumpy() - before).max() > 1e-4

    x = mx.sym.var("data")
    y = mx.sym.BatchNorm(x, use_global_stats=True, fix_gamma=False, name="bn")
    g = gluon.SymbolBlock(y, x)
    g.initialize()
    with autograd.record():
        out = g(mx.nd.array([[1.0, 2.0], [3.0, 5.0]]))
    np.testing.assert_allclose(out.asnumpy(), [[1.0, 2.0], [3.0, 5.0]] / np.sqrt(1 + 1e-3),
                               rtol=1e-6)
    assert g.collect_params()["bn_moving_mean"].data().asnumpy().tolist() == [0.0, 0.0]


def test_symbolblock_with_several_outputs():
    x = mx.sym.var("data")
    parts = mx.sym.split(x, num_outputs=2, axis=1, name="sp")
    blk = gluon.SymbolBlock([parts[1] * 2, parts[0]], x)
    a, b = blk(mx.nd.array([[1.0, 2.0]]))
    assert a.asnumpy().tolist() == [[4.0]] and b.asnumpy().tolist() == [[1.0]]


def test_creation_ops_as_mxnet_writes_them():
    s = mx.sym.Group([mx.sym.zeros((2, 3)), mx.sym.ones(shape=(2,)),
                      mx.sym.full((2,), 3.0), mx.sym.arange(0, 4)])
    nodes = json.loads(s.tojson())["nodes"]
    # what MXNet 1.9.1's mx.sym.zeros/ones/full/arange write
    assert [(n["op"], n["attrs"]) for n in nodes] == [
        ("_zeros", {"dtype": "float32", "shape": "(2, 3)"}),
        ("_ones", {"dtype": "float32", "shape": "(2,)"}),
        ("_full", {"dtype": "float32", "shape": "(2,)", "value": "3.0"}),
        ("_arange", {"dtype": "float32", "infer_range": "False", "repeat": "1",
                     "start": "0", "step": "1.0", "stop": "4"})]
    vals = mx.sym.load_json(s.tojson()).eval()
    assert [v.asnumpy().tolist() for v in vals] == [[[0.0] * 3] * 2, [1.0, 1.0], [3.0, 3.0],
                                                    [0.0, 1.0, 2.0, 3.0]]


def test_module_checkpoint_trains_with_its_softmax_output_loss():
    """Fed with its label, SoftmaxOutput is MXNet's loss layer: backward gives
    softmax - one_hot(label) at the logits whatever the head gradient."""
    js, params, io = _files("module")
    blk = gluon.SymbolBlock.imports(js, ["data", "softmax_label"], params)
    assert "softmax_label" not in blk.collect_params().keys()
    x, label = mx.nd.array(io["x"]), mx.nd.array([2, 0])
    with autograd.record(train_mode=False):     # no dropout: comparable gradients
        p = blk(x, label)
    p.backward()
    np.testing.assert_allclose(p.asnumpy(), io["y_predict"], atol=TOL)
    # the same gradient through the graph cut at fc2 with an explicit cross-entropy
    fc2 = mx.sym.load(js).get_internals()["fc2_output"]
    cut = gluon.SymbolBlock(fc2, mx.sym.var("data"))
    cut.collect_params().load(params, ignore_extra=True)
    with autograd.record(train_mode=False):
        logits = cut(x)
        loss = -(mx.nd.log_softmax(logits) * mx.nd.one_hot(label, 3)).sum()
    loss.backward()
    for k in ("fc2_weight", "fc1_weight", "conv1_weight"):
        np.testing.assert_allclose(blk.collect_params()[k].grad().asnumpy(),
                                   cut.collect_params()[k].grad().asnumpy(),
                                   rtol=1e-4, atol=1e-6, err_msg=k)


def test_every_supported_op_is_an_mxnet_op():
    """Graphs mxgrad writes use only operators MXNet 1.9.1 registers (list made by
    tools/make_symbol_fixtures.py), under their canonical names."""
    with open(os.path.join(DATA, "mxnet_op_names.txt")) as f:
        mxnet_ops = set(f.read().split())
    assert set(mx.sym.supported_ops()) <= mxnet_ops
    from mxgrad.symbol._registry import _ALIASES
    assert set(_ALIASES) <= mxnet_ops          # aliases too (old JSON files use them)


def test_operator_graph_matches_mxnet_executor():
    """~70 operators with many attribute forms (tools/make_symbol_fixtures.py: ops_graph),
    each output as MXNet's executor computed it, with MXNet's output names and dtypes."""
    s = mx.sym.load(os.path.join(DATA, "ops-symbol.json"))
    io = np.load(os.path.join(DATA, "ops-io.npz"), allow_pickle=False)
    assert s.list_outputs() == io["names"].tolist()
    assert s.tojson() == open(os.path.join(DATA, "ops-symbol.json")).read()
    outs = s.eval(**{k: mx.nd.array(io[k]) for k in ("a", "b", "m", "idx")})
    assert len(outs) == len(io["names"])
    for i, (name, o) in enumerate(zip(io["names"], outs)):
        ref = io[f"y{i}"]
        assert o.shape == ref.shape, name
        assert np.dtype(o.dtype) == ref.dtype, name
        np.testing.assert_allclose(o.asnumpy(), ref, rtol=1e-5,
                                   atol=1e-5 * max(1.0, np.abs(ref).max()), err_msg=name)


def test_name_scopes_as_mxnet():
    import threading
    with mx.name.NameManager():
        a = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
        b = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
        with mx.name.Prefix("inner_"):
            c = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
            d = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2, name="named")
        e = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=2)
    assert [s.name for s in (a, b, c, d, e)] == [
        "fullyconnected0", "fullyconnected1", "inner_fullyconnected0", "inner_named",
        "fullyconnected2"]
    seen = []

    def other_thread():       # scopes are per thread: this one sees no prefix
        seen.append(mx.name.current_name(None, "t"))
    with mx.name.Prefix("main_"):
        th = threading.Thread(target=other_thread)
        th.start()
        th.join()
    assert not seen[0].startswith("main_")


def test_var_with_an_int_shape_is_one_dimensional():
    """``mx.sym.var('b', shape=1)`` (MXNet's tests write ``shape=(1)``): stored as MXNet
    stores it ('1') and inferred as ``(1,)``."""
    b = mx.sym.var("b", shape=1)
    assert b.attr("__shape__") == "1"
    assert (b + 1).infer_shape() == ([(1,)], [(1,)], [])
    assert (mx.sym.var("c", shape=3) * 2).simple_bind(mx.cpu()).forward()[0].shape == (3,)
