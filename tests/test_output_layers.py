"""MXNet's loss/output layers in ``mx.nd`` equal MXNet 1.9.1: the forward (prediction)
and the data gradient under ``autograd.record()`` (head gradient ignored, MXNet's
scaling and label rules) for every option of SoftmaxOutput, the regression outputs,
SVMOutput, MakeLoss/make_loss, BlockGrad and IdentityAttachKLSparseReg's moving average
(tests/data/mxnet/output_layers.npz, made by tools/make_output_layer_fixtures.py)."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

from output_layer_run import run_nd

DATA = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "output_layers.npz"),
               allow_pickle=False)
META = json.loads(str(DATA["meta"]))
CASES = {c["name"]: c for c in META["cases"]}


def _run(op, kw, data, label, head):
    return run_nd(mx, op, kw, data, label, head)


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name):
    c = CASES[name]
    get = lambda k: DATA[name + "/" + k] if name + "/" + k in DATA.files else None  # noqa
    out, grad = _run(c["op"], c["kwargs"], get("data"), get("label"), get("head"))
    tol = dict(rtol=2e-3, atol=1e-4) if out.dtype == np.float16 else dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(out, get("out"), **tol)
    np.testing.assert_allclose(grad, get("grad"), **tol)
    assert (out.dtype, grad.dtype) == (get("out").dtype, get("grad").dtype)


def test_head_gradient_is_ignored():
    d = DATA["so_plain/data"]
    lab = DATA["so_plain/label"]
    a = _run("SoftmaxOutput", {}, d, lab, None)[1]
    b = _run("SoftmaxOutput", {}, d, lab, np.full(d.shape, -3.0, "float32"))[1]
    np.testing.assert_array_equal(a, b)
    assert np.abs(a).sum() > 0


def test_kl_sparse_reg_moving_average_two_steps():
    kw = META["kl_kwargs"]
    avg = mx.nd.array(DATA["kl_avg0"])
    for step in (1, 2):
        x = mx.nd.array(DATA[f"kl_data{step}"])
        x.attach_grad()
        with mx.autograd.record():
            y = mx.nd.IdentityAttachKLSparseReg(x, avg, **kw)
        np.testing.assert_array_equal(avg.asnumpy(), DATA[f"kl_avg{step - 1}"])  # not yet
        y.backward(mx.nd.array(DATA[f"kl_head{step}"]))
        np.testing.assert_allclose(y.asnumpy(), DATA[f"kl_out{step}"], rtol=1e-6)
        np.testing.assert_allclose(x.grad.asnumpy(), DATA[f"kl_grad{step}"], rtol=1e-5,
                                   atol=1e-6)
        np.testing.assert_allclose(avg.asnumpy(), DATA[f"kl_avg{step}"], rtol=1e-6)


def test_kl_sparse_reg_symbol_has_moving_avg_aux():
    s = mx.sym.IdentityAttachKLSparseReg(mx.sym.var("data"), name="kl")
    assert s.list_arguments() == ["data"]
    assert s.list_auxiliary_states() == META["kl_aux_names"]


def test_svm_output_symbol_has_label():
    s = mx.sym.SVMOutput(mx.sym.var("data"), name="svm", margin=2.0)
    assert s.list_arguments() == ["data", "svm_label"]
    assert s.attr("margin") == "2.0"


@pytest.mark.parametrize("call, msg", [
    (lambda: mx.nd.SoftmaxOutput(mx.nd.zeros((2, 3, 4)), mx.nd.zeros((2,))), r"\(2, 3\)"),
    (lambda: mx.nd.SoftmaxOutput(mx.nd.zeros((2, 3, 4)), mx.nd.zeros((2, 5)),
                                 multi_output=True), "multi_output"),
    (lambda: mx.nd.SoftmaxOutput(mx.nd.zeros((2, 3)), mx.nd.zeros((2,)),
                                 normalization="mean"), "normalization"),
    (lambda: mx.nd.LinearRegressionOutput(mx.nd.zeros((2, 3)), mx.nd.zeros((3, 2))),
     "first dimension"),
    (lambda: mx.nd.SVMOutput(mx.nd.zeros((2, 3)), mx.nd.zeros((3,))), r"\(2,\)"),
    (lambda: mx.nd.IdentityAttachKLSparseReg(mx.nd.zeros((2, 3)), mx.nd.zeros((2,))),
     "moving_avg"),
    (lambda: mx.nd.IdentityAttachKLSparseReg(mx.nd.zeros((2, 3)), 0.1), "moving_avg"),
])
def test_bad_arguments_raise(call, msg):
    with pytest.raises(MXNetError, match=msg):
        call()


@pytest.mark.parametrize("name", ["so_smooth_ignore_valid", "so_multi_channel_label",
                                  "so_prob_label", "lin_3d", "logistic", "mae", "svm_l1",
                                  "svm_3d", "makeloss_valid", "make_loss"])
def test_symbol_graph_matches_mxnet(name):
    """The same layers as Symbol ops (JSON round trip), run by SymbolBlock under
    autograd, give MXNet's numbers."""
    c = CASES[name]
    data = mx.sym.var("data")
    names = ["data"]
    if name + "/label" in DATA.files:
        sym = getattr(mx.sym, c["op"])(data=data, label=mx.sym.var("label"), **c["kwargs"])
        names.append("label")
    else:
        sym = getattr(mx.sym, c["op"])(data=data, **c["kwargs"])
    sym = mx.sym.load_json(sym.tojson())
    net = mx.gluon.SymbolBlock(sym, [mx.sym.var(n) for n in names])
    x = mx.nd.array(DATA[name + "/data"])
    x.attach_grad()
    args = [x] + [mx.nd.array(DATA[name + "/label"]) for _ in names[1:]]
    with mx.autograd.record():
        out = net(*args)
    out.backward()
    np.testing.assert_allclose(out.asnumpy(), DATA[name + "/out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), DATA[name + "/grad"], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["so_3d_default", "so_preserve", "so_multi_flat_label",
                                  "logistic", "lin", "svm_l1", "makeloss_batch"])
def test_forward_mode_tangent_of_the_prediction(name):
    """jvp goes through the forward (the prediction), checked by central differences."""
    from mxgrad.autograd.functional import jvp
    c = CASES[name]
    x = mx.nd.array(DATA[name + "/data"], dtype="float64")
    v = mx.nd.array(np.random.RandomState(3).randn(*x.shape), dtype="float64")
    if name + "/label" in DATA.files:
        lab = mx.nd.array(DATA[name + "/label"], dtype="float64")
        f = lambda a: getattr(mx.nd, c["op"])(a, lab, **c["kwargs"])  # noqa: E731
    else:
        f = lambda a: getattr(mx.nd, c["op"])(a, **c["kwargs"])  # noqa: E731
    _, t = jvp(f, x, v)
    num = (f(x + 1e-6 * v) - f(x - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(t.asnumpy(), num.asnumpy(), rtol=1e-6, atol=1e-8)


def test_mxnet_graph_of_every_output_layer():
    """MXNet's JSON of a graph using every output layer loads with MXNet's argument,
    auxiliary-state and output names; run under autograd (heads of ones) it gives MXNet's
    executor outputs, data and weight gradients and updated moving average."""
    g = META["graph"]
    s = mx.sym.load_json(g["json"])
    assert s.list_arguments() == g["arguments"]
    assert s.list_auxiliary_states() == g["aux"]
    assert s.list_outputs() == g["outputs"]
    feed = {k: mx.nd.array(DATA["graph/" + k]) for k in g["arguments"] + g["aux"]}
    for k in ("data", "fc_weight"):
        feed[k].attach_grad()
    with mx.autograd.record():
        outs = s.eval(**feed)
    mx.autograd.backward(outs, [mx.nd.ones_like(o) for o in outs])
    for i, o in enumerate(outs):
        np.testing.assert_allclose(o.asnumpy(), DATA[f"graph/out{i}"], rtol=1e-5, atol=1e-6,
                                   err_msg=g["outputs"][i])
    for k in ("data", "fc_weight"):
        np.testing.assert_allclose(feed[k].grad.asnumpy(), DATA["graph/grad_" + k], rtol=1e-5,
                                   atol=1e-6, err_msg=k)
    np.testing.assert_allclose(feed["kl_moving_avg"].asnumpy(), DATA["graph/avg1"], rtol=1e-6)


def test_out_argument_receives_the_prediction():
    x = mx.nd.array([[1., 2., 3.]])
    for op, args in (("SoftmaxOutput", (mx.nd.array([0]),)), ("SVMOutput", (mx.nd.array([1]),)),
                     ("LogisticRegressionOutput", (mx.nd.zeros((1, 3)),)),
                     ("IdentityAttachKLSparseReg", ())):
        out = mx.nd.zeros((1, 3))
        r = getattr(mx.nd, op)(x, *args, out=out)
        assert r is out
        np.testing.assert_allclose(out.asnumpy(), getattr(mx.nd, op)(x, *args).asnumpy())
        assert np.abs(out.asnumpy()).sum() > 0


@pytest.mark.parametrize("op", ["SoftmaxOutput", "SVMOutput", "LinearRegressionOutput",
                                "LogisticRegressionOutput", "MAERegressionOutput"])
def test_symbolblock_with_an_output_layer_infers_its_parameters_without_a_label(op):
    d = mx.sym.var("data")
    s = getattr(mx.sym, op)(mx.sym.FullyConnected(d, num_hidden=3, name="fc"), name="out")
    blk = mx.gluon.SymbolBlock(s, [d])
    blk.initialize()
    assert blk(mx.nd.ones((2, 4))).shape == (2, 3)
    assert sorted(blk.collect_params().keys()) == ["fc_bias", "fc_weight"]


def test_symbolblock_sizes_the_kl_moving_average():
    d = mx.sym.var("data")
    kl = mx.sym.IdentityAttachKLSparseReg(mx.sym.FullyConnected(d, num_hidden=5, name="fc"),
                                          name="kl")
    blk = mx.gluon.SymbolBlock(kl, [d])
    blk.initialize()
    assert blk(mx.nd.ones((2, 4))).shape == (2, 5)
    assert blk.collect_params()["kl_moving_avg"].shape == (5,)
