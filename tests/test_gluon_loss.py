"""gluon.loss: values against NumPy (shape (batch,), mean over the other axes),
weight and sample_weight, numerical gradients, label shape errors."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import ShapeError, StateError
from mxgrad.test_utils import check_numeric_gradient

L = gluon.loss
RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


def f64(x):
    return None if x is None else nd.array(x, dtype="float64")


def log_softmax(x, axis=-1):
    m = x.max(axis=axis, keepdims=True)
    return x - m - np.log(np.exp(x - m).sum(axis=axis, keepdims=True))


def check(loss, args, ref, grad_inputs=(0,), rtol=1e-6):
    out = loss(*[f64(a) for a in args])
    assert out.shape == ref.shape
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=rtol, atol=1e-10)
    if grad_inputs:
        def fn(*xs):
            full = [f64(a) for a in args]
            for i, x in zip(grad_inputs, xs):
                full[i] = x
            return loss(*full)
        check_numeric_gradient(fn, [args[i] for i in grad_inputs])


def test_l2_and_l1():
    p, y = randn(4, 3, 2), randn(4, 3, 2)
    check(L.L2Loss(), [p, y], (0.5 * (p - y) ** 2).mean(axis=(1, 2)))
    check(L.L2Loss(weight=3.0), [p, y], (1.5 * (p - y) ** 2).mean(axis=(1, 2)))
    check(L.L1Loss(), [p, y], np.abs(p - y).mean(axis=(1, 2)))
    # label reshaped to pred's shape
    p2, y2 = randn(5, 1), randn(5)
    check(L.L2Loss(), [p2, y2], 0.5 * (p2[:, 0] - y2) ** 2)
    a, b = randn(6), randn(6)
    check(L.L2Loss(), [a, b], 0.5 * (a - b) ** 2)      # 1-D: one value per sample


def test_sample_weight_and_batch_axis():
    p, y = randn(4, 3), randn(4, 3)
    sw = RNG.uniform(0, 1, (4, 1))
    check(L.L2Loss(), [p, y, sw], (0.5 * (p - y) ** 2 * sw).mean(axis=1))
    check(L.L1Loss(weight=2.0), [p, y, sw], (2 * np.abs(p - y) * sw).mean(axis=1))
    check(L.L1Loss(batch_axis=1), [p, y], np.abs(p - y).mean(axis=0))
    with pytest.raises(mx.base.DTypeError, match="weight must be a number"):
        L.L1Loss(weight=nd.ones((1,)))(nd.ones((2,)), nd.ones((2,)))


def test_softmax_ce_sparse():
    p = randn(5, 4)
    y = np.array([0, 3, 1, 1, 2])
    ref = -log_softmax(p)[np.arange(5), y]
    loss = L.SoftmaxCrossEntropyLoss()
    out = loss(f64(p), f64(y))
    assert out.shape == (5,)
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-10)
    check_numeric_gradient(lambda x: loss(x, f64(y)), [p])
    assert L.SoftmaxCELoss is L.SoftmaxCrossEntropyLoss
    # (batch, 1) labels are accepted
    np.testing.assert_allclose(loss(f64(p), f64(y.reshape(5, 1))).asnumpy(), ref,
                               rtol=1e-10)
    # default float32
    assert loss(nd.array(p), nd.array(y)).dtype == np.float32


def test_softmax_ce_dense_axis_from_logits_weights():
    p = randn(3, 4, 2)
    lab = np.abs(randn(3, 4, 2))
    lab /= lab.sum(axis=1, keepdims=True)
    loss = L.SoftmaxCrossEntropyLoss(axis=1, sparse_label=False)
    ref = (-(log_softmax(p, axis=1) * lab).sum(axis=1)).mean(axis=1)
    check(loss, [p, lab], ref)
    lp = log_softmax(randn(4, 3))
    y = np.array([2, 0, 1, 1])
    sw = RNG.uniform(0, 1, (4, 1))
    check(L.SoftmaxCrossEntropyLoss(from_logits=True, weight=0.5), [lp, y, sw],
          -0.5 * lp[np.arange(4), y] * sw[:, 0], grad_inputs=(0,))


def test_softmax_ce_label_shape_error():
    with pytest.raises(ShapeError, match="sparse labels"):
        L.SoftmaxCrossEntropyLoss()(nd.ones((4, 3)), nd.ones((3,)))


def test_sigmoid_bce():
    x = randn(4, 3) * 3
    z = (RNG.uniform(size=(4, 3)) > 0.5).astype(float)
    sig = 1 / (1 + np.exp(-x))
    ref = -(z * np.log(sig) + (1 - z) * np.log(1 - sig))
    check(L.SigmoidBinaryCrossEntropyLoss(), [x, z], ref.mean(axis=1))
    check(L.SigmoidBinaryCrossEntropyLoss(from_sigmoid=True), [sig, z],
          (-(z * np.log(sig + 1e-12) + (1 - z) * np.log(1 - sig + 1e-12))).mean(axis=1))
    pw = RNG.uniform(0.5, 2, (3,))
    refw = -(pw * z * np.log(sig) + (1 - z) * np.log(1 - sig))
    check(L.SigmoidBCELoss(), [x, z, None, pw], refw.mean(axis=1), rtol=1e-6)
    # numerically stable for large logits
    big = L.SigmoidBCELoss()(nd.array([[100.0, -100.0]]), nd.array([[0.0, 1.0]]))
    np.testing.assert_allclose(big.asnumpy(), [100.0], rtol=1e-6)


def test_kldiv():
    lab = np.abs(randn(3, 4)) + 0.1
    lab /= lab.sum(axis=1, keepdims=True)
    lp = log_softmax(randn(3, 4))
    # MXNet 1.9.1 sums over the non-batch axes (test_loss_mxnet.py checks its values)
    check(L.KLDivLoss(), [lp, lab], (lab * (np.log(lab + 1e-12) - lp)).sum(axis=1))
    logits = randn(3, 4)
    check(L.KLDivLoss(from_logits=False), [logits, lab],
          (lab * (np.log(lab + 1e-12) - log_softmax(logits))).sum(axis=1))


def test_huber_hinge_logistic():
    p, y = randn(5, 4) * 2, randn(5, 4) * 2
    e = np.abs(y - p)
    check(L.HuberLoss(rho=1.5), [p, y],
          np.where(e > 1.5, e - 0.75, 0.5 / 1.5 * e ** 2).mean(axis=1))
    s = np.sign(randn(5, 4))
    check(L.HingeLoss(), [p, s], np.maximum(0, 1 - p * s).mean(axis=1))
    check(L.HingeLoss(margin=2), [p, s], np.maximum(0, 2 - p * s).mean(axis=1))
    check(L.SquaredHingeLoss(), [p, s], (np.maximum(0, 1 - p * s) ** 2).mean(axis=1))
    check(L.LogisticLoss(), [p, s], np.log1p(np.exp(-p * s)).mean(axis=1))
    b = (s + 1) / 2
    check(L.LogisticLoss(label_format="binary"), [p, b],
          np.log1p(np.exp(-p * s)).mean(axis=1))
    with pytest.raises(StateError, match="label_format"):
        L.LogisticLoss(label_format="bad")


def test_triplet_poisson_cosine():
    a, pos, neg = randn(4, 3), randn(4, 3), randn(4, 3)
    ref = np.maximum(0, ((pos - a) ** 2 - (neg - a) ** 2).sum(axis=1) + 1)
    check(L.TripletLoss(), [a, pos, neg], ref)
    pred, tgt = randn(4, 3), RNG.poisson(2.0, (4, 3)).astype(float)
    check(L.PoissonNLLLoss(), [pred, tgt], np.array([(np.exp(pred) - tgt * pred).mean()]))
    x1, x2 = randn(4, 3), randn(4, 3)
    lab = np.array([1, -1, 1, -1])
    cos = (x1 * x2).sum(1) / (np.linalg.norm(x1, axis=1) * np.linalg.norm(x2, axis=1))
    ref = np.where(lab == 1, 1 - cos, np.maximum(0, cos - 0.1)).reshape(4, 1)
    check(L.CosineEmbeddingLoss(margin=0.1), [x1, x2, lab], ref, grad_inputs=(0, 1))


def test_loss_repr_and_in_training_loop():
    assert repr(L.L2Loss()) == "L2Loss(batch_axis=0, w=1.0)"
    x = nd.array(randn(4, 2))
    x.attach_grad()
    with autograd.record():
        loss = L.L2Loss()(x, nd.zeros((4, 2)))
    loss.backward()          # head of shape (batch,): ones
    np.testing.assert_allclose(x.grad.asnumpy(), x.asnumpy() / 2, rtol=1e-6)


def _sdml_reference(a, b, s):
    d = ((a[:, None, :] - b[None, :, :]) ** 2).sum(axis=2)
    z = -d - (-d).max(axis=1, keepdims=True)
    logp = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    n = a.shape[0]
    lab = np.where(np.eye(n) > 0, 1 - s, s / (n - 1))
    return (lab * (np.log(lab + 1e-12) - logp)).sum(axis=1)


@pytest.mark.parametrize("s", [0.3, 0.05])
def test_sdml_loss_matches_its_definition_and_gradient(s):
    """MXNet 1.9.1 gives the same values (checked by hand: 5.194848, 4.0365252, 0.19616199,
    1.363619 for default_rng(5) 4x3 normals, smoothing 0.3)."""
    rng = np.random.default_rng(5)
    a = rng.standard_normal((4, 3))
    b = rng.standard_normal((4, 3))
    loss = gluon.loss.SDMLLoss(smoothing_parameter=s)
    got = loss(nd.array(a, dtype="float64"), nd.array(b, dtype="float64")).asnumpy()
    np.testing.assert_allclose(got, _sdml_reference(a, b, s), rtol=1e-10)
    x1, x2 = nd.array(a, dtype="float64"), nd.array(b, dtype="float64")
    x1.attach_grad()
    x2.attach_grad()
    with autograd.record():
        total = loss(x1, x2).sum()
    total.backward()
    eps = 1e-6
    for x, g, other, first in ((a, x1.grad, b, True), (b, x2.grad, a, False)):
        num = np.zeros_like(x)
        for idx in np.ndindex(*x.shape):
            xp, xm = x.copy(), x.copy()
            xp[idx] += eps
            xm[idx] -= eps
            fp = _sdml_reference(xp, other, s) if first else _sdml_reference(other, xp, s)
            fm = _sdml_reference(xm, other, s) if first else _sdml_reference(other, xm, s)
            num[idx] = (fp.sum() - fm.sum()) / (2 * eps)
        np.testing.assert_allclose(g.asnumpy(), num, rtol=1e-6, atol=1e-8)
