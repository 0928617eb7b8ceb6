"""gluon.nn.BatchNormReLU and nd.contrib.BatchNormWithReLU against MXNet 1.9.1
(tools/make_batchnorm_relu_fixtures.py): training-mode output, input gradient and running
statistics, predict-mode output, the exported graph; the layer sizes its parameters
through the operator's shape rule (it has no shape code)."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.test_utils import check_numeric_gradient, check_second_order

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


@pytest.fixture(scope="module")
def fx():
    return dict(np.load(os.path.join(DATA, "batchnorm_relu.npz")))


def test_layer_equals_mxnet(fx):
    net = mx.gluon.nn.BatchNormReLU(momentum=0.8, prefix="bnr_")
    net.initialize()
    x = nd.array(fx["x"])
    x.attach_grad()
    with autograd.record():
        y = net(x)
    y.backward(nd.array(fx["head"]))
    assert net.gamma.shape == (3,)          # deferred: inferred through the op's rule
    np.testing.assert_allclose(y.asnumpy(), fx["train_out"], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(x.grad.asnumpy(), fx["x_grad"], rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(net.running_mean.data().asnumpy(), fx["running_mean"],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net.running_var.data().asnumpy(), fx["running_var"],
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(net(x).asnumpy(), fx["predict_out"], rtol=1e-5, atol=1e-6)


def test_export_writes_mxnets_graph_and_runs_it(fx, tmp_path):
    net = mx.gluon.nn.BatchNormReLU(momentum=0.8, prefix="bnr_")
    net.initialize()
    net.hybridize()
    x = nd.array(fx["x"])
    net(x)
    net.export(str(tmp_path / "bnr"))
    ours = json.load(open(tmp_path / "bnr-symbol.json"))
    theirs = json.load(open(os.path.join(DATA, "batchnorm_relu-symbol.json")))
    assert [(n["op"], n["name"]) for n in ours["nodes"]] == \
        [(n["op"], n["name"]) for n in theirs["nodes"]]
    # MXNet's graph, loaded here, computes what the layer computes
    block = mx.gluon.SymbolBlock.imports(os.path.join(DATA, "batchnorm_relu-symbol.json"),
                                         ["data"], str(tmp_path / "bnr-0000.params"))
    np.testing.assert_allclose(block(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)


def test_numpy_mode_applies_relu():
    from mxgrad import np as mnp, npx
    npx.set_np()
    try:
        net = mx.gluon.nn.BatchNormReLU()
        net.initialize()
        y = net(mnp.array([[1.0], [-3.0]]))
        assert type(y) is mnp.ndarray and float(y.min()) == 0.0
    finally:
        npx.reset_np()


def test_op_gradient_and_second_order():
    rs = np.random.RandomState(1)
    x = rs.normal(size=(3, 2, 2)) + 0.3
    gamma, beta = rs.uniform(0.5, 1.5, 2), rs.normal(size=2)

    def f(x, gamma, beta):
        with autograd.train_mode():     # batch statistics, in the differences too
            return nd.contrib.BatchNormWithReLU(x, gamma, beta, nd.zeros(2, dtype=x.dtype),
                                                nd.ones(2, dtype=x.dtype), fix_gamma=False)
    # (float64 central differences)
    assert check_numeric_gradient(f, [x, gamma, beta], rtol=1e-4, atol=1e-6)
    assert check_second_order(f, [x, gamma, beta])
