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


@pytest.mark.parametrize("name", ["cnn", "mlp", "misc", "module"])
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


def test_imported_model_gradient_equals_gluon_model_gradient():
    """The interpreted graph is differentiable like the Gluon layers it came from."""
    from symbol_models import build_cnn
    js, params, io = _files("cnn")
    net, x = build_cnn(mx)
    net.collect_params().load(params, ignore_extra=False)
    blk = gluon.SymbolBlock.imports(js, ["data"], params)
    xs = mx.nd.array(x)
    grads = []
    for model in (net, blk):
        with autograd.record():
            loss = (model(xs) * mx.nd.array(io["w_loss"])).sum()
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


@pytest.mark.parametrize("name", ["cnn", "mlp", "misc", "module"])
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
        mx.sym.Correlation
    assert "Convolution" in mx.sym.supported_ops()


def test_load_json_rejects_garbage():
    with pytest.raises(MXNetError):
        mx.sym.load_json("{not json")
    with pytest.raises(MXNetError):
        mx.sym.load_json(json.dumps({"nodes": []}))
