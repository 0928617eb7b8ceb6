"""MXNet's sequence ops and the composed ops (mxgrad/ops/sequence.py, mxgrad/ops/composed.py):
forward against NumPy written from MXNet 1.9.1's definitions (checked side by side with real
MXNet when written), first and second order gradients and tangents by float64 central
differences (tests/opcheck.py), argument errors."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError, ShapeError, StateError
from opcheck import OpCase, jvp_tests, op_tests, randn, face_tests

LENS = np.array([1, 4, 2])


def np_mask(x, lens, value=0.0, axis=0):
    out = x.copy()
    for b, n in enumerate(lens):
        if axis == 0:
            out[n:, b] = value
        else:
            out[b, n:] = value
    return out


def np_last(x, lens, axis=0):
    return np.stack([x[n - 1, b] if axis == 0 else x[b, n - 1] for b, n in enumerate(lens)])


def np_reverse(x, lens):
    out = x.copy()
    for b, n in enumerate(lens):
        out[:n, b] = x[:n, b][::-1]
    return out


def np_l2(x, axes, eps=1e-10):
    return x / np.sqrt((x ** 2).sum(axis=axes, keepdims=True) + eps)


def np_lrn(x, nsize, alpha=1e-4, beta=0.75, knorm=2.0):
    c = x.shape[1]
    sq = x ** 2
    win = np.stack([sq[:, max(0, i - nsize // 2):min(c, i + nsize // 2 + 1)].sum(axis=1)
                    for i in range(c)], axis=1)
    return x / (knorm + alpha / nsize * win) ** beta


def np_khatri_rao(*mats):
    out = mats[0]
    for m in mats[1:]:
        out = np.einsum("ik,jk->ijk", out, m).reshape(-1, m.shape[1])
    return out


T = randn(4, 3, 2)
M = randn(3, 4, seed=1)
IMG = randn(2, 5, 3, 3, seed=2)
CASES = [
    OpCase("SequenceMask_axis0", lambda x: nd.SequenceMask(x, nd.array(LENS), True, value=-1),
           [T], lambda x: np_mask(x, LENS, -1)),
    OpCase("SequenceMask_axis1", lambda x: nd.SequenceMask(x, nd.array([1, 3, 4]), True,
                                                           axis=1),
           [M], lambda x: np_mask(x, [1, 3, 4], 0.0, axis=1)),
    OpCase("SequenceMask_nolen", lambda x: nd.SequenceMask(x), [T], lambda x: x),
    OpCase("SequenceLast_axis0", lambda x: nd.SequenceLast(x, nd.array(LENS), True), [T],
           lambda x: np_last(x, LENS)),
    OpCase("SequenceLast_axis1", lambda x: nd.SequenceLast(x, nd.array([1, 3, 4]), True, axis=1),
           [M], lambda x: np_last(x, [1, 3, 4], axis=1)),
    OpCase("SequenceLast_nolen", lambda x: nd.SequenceLast(x), [T], lambda x: x[-1]),
    OpCase("SequenceReverse", lambda x: nd.SequenceReverse(x, nd.array(LENS), True), [T],
           lambda x: np_reverse(x, LENS)),
    OpCase("SequenceReverse_nolen", lambda x: nd.SequenceReverse(x), [T], lambda x: x[::-1]),
    OpCase("moments_mean", lambda x: nd.moments(x, axes=(0, 2))[0], [T],
           lambda x: x.mean(axis=(0, 2))),
    OpCase("moments_var", lambda x: nd.moments(x, axes=(0, 2))[1], [T],
           lambda x: x.var(axis=(0, 2))),
    OpCase("moments_var_keepdims", lambda x: nd.moments(x, axes=1, keepdims=True)[1], [T],
           lambda x: x.var(axis=1, keepdims=True)),
    OpCase("L2Normalization_instance", lambda x: nd.L2Normalization(x), [IMG],
           lambda x: np_l2(x, (1, 2, 3))),
    OpCase("L2Normalization_channel", lambda x: nd.L2Normalization(x, mode="channel"), [IMG],
           lambda x: np_l2(x, (1,))),
    OpCase("L2Normalization_spatial", lambda x: nd.L2Normalization(x, mode="spatial"), [IMG],
           lambda x: np_l2(x, (2, 3))),
    OpCase("LRN", lambda x: nd.LRN(x, nsize=3, alpha=0.1), [IMG],
           lambda x: np_lrn(x, 3, alpha=0.1)),
    OpCase("LRN_nsize5", lambda x: nd.LRN(x, nsize=5, alpha=0.5, beta=0.5, knorm=1.0), [IMG],
           lambda x: np_lrn(x, 5, 0.5, 0.5, 1.0)),
    OpCase("UpSampling_nearest", lambda x: nd.UpSampling(x, scale=2), [IMG],
           lambda x: x.repeat(2, axis=2).repeat(2, axis=3)),
    OpCase("UpSampling_concat", lambda a, b: nd.UpSampling(a, b, scale=2, num_args=2),
           [randn(1, 2, 2, 2), randn(1, 1, 4, 4, seed=3)],
           lambda a, b: np.concatenate([a.repeat(2, axis=2).repeat(2, axis=3), b], axis=1)),
    OpCase("UpSampling_sum", lambda a, b: nd.UpSampling(a, b, scale=2, multi_input_mode="sum"),
           [randn(1, 2, 2, 2), randn(1, 2, 1, 1, seed=3)],
           lambda a, b: a.repeat(2, axis=2).repeat(2, axis=3) + b.repeat(4, 2).repeat(4, 3)),
    OpCase("khatri_rao", lambda a, b: nd.khatri_rao(a, b), [randn(2, 3), randn(4, 3, seed=5)],
           np_khatri_rao),
    OpCase("khatri_rao_3", lambda a, b, c: nd.khatri_rao(a, b, c),
           [randn(2, 2), randn(3, 2, seed=5), randn(2, 2, seed=6)], np_khatri_rao),
    OpCase("identity", lambda x: nd.identity(x), [T], lambda x: x),
    OpCase("diag_extract", lambda x: nd.diag(x), [M], np.diag),
    OpCase("diag_extract_k", lambda x: nd.diag(x, k=1), [M], lambda x: np.diag(x, 1)),
    OpCase("diag_extract_negk", lambda x: nd.diag(x, k=-1), [M], lambda x: np.diag(x, -1)),
    OpCase("diag_axes", lambda x: nd.diag(x, k=1, axis1=2, axis2=0), [T],
           lambda x: np.diagonal(x, 1, 2, 0)),
    OpCase("diag_embed", lambda x: nd.diag(x, k=-2), [randn(3)], lambda x: np.diag(x, -2)),
    OpCase("cumsum_flat", lambda x: nd.cumsum(x), [T], lambda x: np.cumsum(x)),
    OpCase("cumsum_axis", lambda x: nd.cumsum(x, axis=1), [T], lambda x: np.cumsum(x, 1)),
    OpCase("cumsum_neg_axis", lambda x: nd.cumsum(x, axis=-1), [T], lambda x: np.cumsum(x, -1)),
]
test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)
test_jvp = jvp_tests(CASES)


def test_upsampling_bilinear_is_a_grouped_transposed_convolution():
    x = nd.array(randn(1, 2, 3, 3))
    w = nd.zeros((2, 1, 4, 4))
    mx.init.Bilinear()(mx.init.InitDesc("up_weight"), w)
    y = nd.UpSampling(x, w, scale=2, sample_type="bilinear", num_filter=2)
    ref = nd.Deconvolution(x, w, kernel=(4, 4), stride=(2, 2), pad=(1, 1), num_filter=2,
                           num_group=2, no_bias=True)
    assert y.shape == (1, 2, 6, 6)
    np.testing.assert_allclose(y.asnumpy(), ref.asnumpy())
    # interior pixels of a bilinear upsampling of a constant map stay constant
    ones = nd.UpSampling(nd.ones((1, 2, 3, 3)), w, scale=2, sample_type="bilinear",
                         num_filter=2)
    np.testing.assert_allclose(ones.asnumpy()[..., 1:-1, 1:-1], 1.0, rtol=1e-6)


@pytest.mark.parametrize("normalization", ["null", "batch", "valid"])
def test_make_loss_gives_mxnet_fixed_gradient(normalization):
    x = nd.array([[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]])
    x.attach_grad()
    with mx.autograd.record():
        loss = nd.MakeLoss(x * 2, grad_scale=3, normalization=normalization)
    np.testing.assert_array_equal(loss.asnumpy(), x.asnumpy() * 2)
    loss.backward(nd.full(loss.shape, 100.0))     # the head gradient is ignored
    # grad_scale 3, divided by the batch (2) or by the 4 outputs above valid_thresh=0,
    # times d(2x)/dx = 2
    expected = {"null": 3.0, "batch": 3.0 / 2, "valid": 3.0 / 4}[normalization] * 2
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((2, 3), expected))


def test_make_loss_is_makeloss():
    # MXNet 1.9.1: make_loss ignores the head gradient too (it is not the identity)
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with mx.autograd.record():
        loss = nd.make_loss(x * x)
    loss.backward(nd.array([100.0, 100.0]))
    np.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 4.0])


def test_cumsum_dtypes_as_mxnet():
    assert nd.cumsum(nd.array([1, 2], dtype="int32")).dtype == np.int32
    assert nd.cumsum(nd.array([1, 2]), dtype="float64").dtype == np.float64
    np.testing.assert_array_equal(nd.cumsum(nd.array([[1, 2], [3, 4]])).asnumpy(),
                                  [1, 3, 6, 10])


def test_all_finite_and_aliases():
    assert nd.all_finite(nd.array([1.0, np.inf])).asnumpy().tolist() == [0.0]
    assert nd.all_finite(nd.array([1.0, 2.0])).asnumpy().tolist() == [1.0]
    a = nd.array([1.5, 2.5])
    assert nd.Cast(a, dtype="int32").dtype == np.int32
    assert nd.amp_cast(a, dtype="float16").dtype == np.float16
    np.testing.assert_array_equal(nd.true_divide(a, a).asnumpy(), [1.0, 1.0])


def test_bad_arguments_name_the_problem():
    x = nd.ones((4, 3))
    with pytest.raises(StateError, match="sequence_length"):
        nd.SequenceMask(x, use_sequence_length=True)
    with pytest.raises(ShapeError, match="one value per sequence"):
        nd.SequenceLast(x, nd.array([1, 2]), use_sequence_length=True)
    with pytest.raises(StateError, match=r"\[1, 4\]"):
        nd.SequenceLast(x, nd.array([0, 2, 3]), use_sequence_length=True)
    with pytest.raises(StateError, match="axis must be 0"):
        nd.SequenceReverse(x, axis=1)
    with pytest.raises(StateError, match="mode"):
        nd.L2Normalization(x, mode="row")
    with pytest.raises(StateError, match="nsize"):
        nd.LRN(nd.ones((1, 3, 2, 2)))
    with pytest.raises(ShapeError, match="columns"):
        nd.khatri_rao(nd.ones((2, 3)), nd.ones((2, 2)))
    with pytest.raises(StateError, match="differ"):
        nd.diag(x, axis1=1, axis2=1)
    with pytest.raises(MXNetError, match="4-D"):
        nd.UpSampling(x, scale=2)


def test_sequence_ops_in_a_recorded_rnn_style_loss():
    # gradient reaches only the real steps, as in MXNet
    x = nd.array(randn(4, 3, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = nd.SequenceMask(x, nd.array(LENS), use_sequence_length=True).sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), np_mask(np.ones((4, 3, 2)), LENS))
