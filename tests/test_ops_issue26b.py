"""Operators added for MXNet programs (issue 26, second part): linalg extracttrian/
maketrian/gelqf/syevd, the contrib.interleaved_matmul_* attention products,
contrib.ROIAlign/RROIAlign/PSROIPooling and Correlation. Outputs and
gradients equal MXNet 1.9.1's (tests/data/mxnet/ops26b.npz by tools/make_op26b_fixtures.py,
same case names and arguments); gradients also against float64 central differences, first
and second order (the op table below)."""
import os

import numpy as np
import pytest

from mxgrad import autograd, nd
from mxgrad.base import MXNetError
from opcheck import OpCase, op_tests, randn, uniform, check_op_fixture

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "ops26b.npz"))

CASES = {
    "extracttrian": ("linalg.extracttrian", {}),
    "extracttrian_upper": ("linalg.extracttrian", dict(lower=False)),
    "extracttrian_off1": ("linalg.extracttrian", dict(offset=1)),
    "extracttrian_offm2": ("linalg.extracttrian", dict(offset=-2)),
    "maketrian": ("linalg.maketrian", {}),
    "maketrian_upper_off1": ("linalg.maketrian", dict(offset=1)),
    "gelqf": ("linalg.gelqf", {}),
    "syevd": ("linalg.syevd", {}),
    "selfatt_qk": ("contrib.interleaved_matmul_selfatt_qk", dict(heads=2)),
    "selfatt_valatt": ("contrib.interleaved_matmul_selfatt_valatt", dict(heads=2)),
    "encdec_qk": ("contrib.interleaved_matmul_encdec_qk", dict(heads=2)),
    "encdec_valatt": ("contrib.interleaved_matmul_encdec_valatt", dict(heads=2)),
    "roialign": ("contrib.ROIAlign", dict(pooled_size=(2, 3), spatial_scale=1.0)),
    "roialign_scaled_ratio": ("contrib.ROIAlign", dict(pooled_size=(3, 2), spatial_scale=0.5,
                                                       sample_ratio=2)),
    "roialign_aligned": ("contrib.ROIAlign", dict(pooled_size=(2, 2), spatial_scale=1.0,
                                                  aligned=True)),
    "roialign_ps": ("contrib.ROIAlign", dict(pooled_size=(2, 2), spatial_scale=1.0,
                                             position_sensitive=True)),
    "rroialign": ("contrib.RROIAlign", dict(pooled_size=(2, 3), spatial_scale=1.0)),
    "rroialign_scaled": ("contrib.RROIAlign", dict(pooled_size=(3, 2), spatial_scale=0.5,
                                                   sampling_ratio=2)),
    "psroipool": ("contrib.PSROIPooling", dict(spatial_scale=1.0, output_dim=2, pooled_size=3)),
    "psroipool_group": ("contrib.PSROIPooling", dict(spatial_scale=0.5, output_dim=2,
                                                     pooled_size=3, group_size=2)),
    "correlation": ("Correlation", dict(max_displacement=2, pad_size=2)),
    "correlation_k3_strides": ("Correlation", dict(kernel_size=3, max_displacement=2, stride1=2,
                                                   stride2=2, pad_size=3)),
    "correlation_subtract": ("Correlation", dict(kernel_size=1, max_displacement=1, pad_size=0,
                                                 is_multiply=False)),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_matches_mxnet(name):
    op, kw = CASES[name]
    check_op_fixture(FIX, name, op, kw, rtol=1e-4, atol=1e-5, grad_rtol=1e-4, grad_atol=1e-4)


def _sym(a):
    return a + nd.swapaxes(a, -1, -2)


def _np_selfatt_qk(x, h):
    s, b, f = x.shape
    t = x.reshape(s, b, h, 3, -1)
    q, k = t[:, :, :, 0].transpose(1, 2, 0, 3), t[:, :, :, 1].transpose(1, 2, 0, 3)
    return (q @ np.swapaxes(k, -1, -2)).reshape(b * h, s, s) / np.sqrt(t.shape[-1])


ROIS = np.array([[0, 0.4, 1.2, 3.3, 4.1], [1, 1.0, 0.0, 5.6, 2.5], [0, 2.2, 1.1, 2.6, 1.9]])
S4 = randn(2, 3, 3, seed=21)
S4 = S4 + np.swapaxes(S4, -1, -2) + np.diag([0.0, 3.0, 6.0])   # well-separated eigenvalues
TABLE = [
    OpCase("extracttrian", lambda a: nd.linalg.extracttrian(a * a, offset=-1),
           [randn(2, 4, 4, seed=20)], lambda a: (a * a)[:, [1, 2, 2, 3, 3, 3], [0, 0, 1, 0, 1, 2]]),
    OpCase("extracttrian_upper", lambda a: nd.linalg.extracttrian(a * a, lower=False),
           [randn(3, 3, seed=22)], lambda a: (a * a)[[0, 0, 1, 0, 1, 2], [0, 1, 1, 2, 2, 2]]),
    OpCase("maketrian", lambda v: nd.linalg.maketrian(v * v, offset=1),
           [randn(2, 3, seed=23)], None),
    OpCase("gelqf", lambda a: [x ** 2 for x in nd.linalg.gelqf(a)],
           [randn(2, 3, seed=24)], None, jvp=False),
    OpCase("syevd", lambda a: [x ** 2 for x in nd.linalg.syevd(_sym(a))],
           [S4], lambda a: _np_syevd_sq(a), jvp=False),
    OpCase("selfatt_qk", lambda x: nd.contrib.interleaved_matmul_selfatt_qk(x * x, heads=2),
           [randn(3, 2, 12, seed=25)], lambda x: _np_selfatt_qk(x * x, 2)),
    OpCase("selfatt_valatt", lambda x, a: nd.contrib.interleaved_matmul_selfatt_valatt(
        x, a * a, heads=2), [randn(3, 1, 12, seed=26), randn(2, 3, 3, seed=27)], None),
    OpCase("encdec_qk", lambda q, kv: nd.contrib.interleaved_matmul_encdec_qk(
        q * q, kv, heads=2), [randn(3, 1, 4, seed=28), randn(2, 1, 8, seed=29)], None),
    OpCase("roialign", lambda x, r: nd.contrib.ROIAlign(x * x, r, pooled_size=(2, 2),
                                                         spatial_scale=1.0),
           [randn(2, 2, 5, 6, seed=32), ROIS], None, grad_inputs=(0,), jvp=False),
    OpCase("roialign_ps_aligned", lambda x, r: nd.contrib.ROIAlign(
        x * x, r, pooled_size=(2, 1), spatial_scale=0.5, aligned=True, position_sensitive=True,
        sample_ratio=2), [randn(1, 4, 4, 4, seed=33), ROIS[:1] * [0, 2, 2, 2, 2]], None,
        grad_inputs=(0,), jvp=False),
    OpCase("rroialign", lambda x, r: nd.contrib.RROIAlign(x * x, r, pooled_size=(2, 2),
                                                           spatial_scale=1.0),
           [randn(2, 2, 5, 6, seed=39), [[0, 2.5, 2.0, 3.0, 2.2, 20.0],
                                         [1, 3.0, 2.5, 2.4, 4.0, -60]]],
           None, grad_inputs=(0,), jvp=False),
    OpCase("psroipool", lambda x, r: nd.contrib.PSROIPooling(
        x * x, r, spatial_scale=1.0, output_dim=1, pooled_size=2),
        [randn(2, 4, 5, 6, seed=34), ROIS], None, grad_inputs=(0,), jvp=False),
    OpCase("correlation", lambda a, b: nd.Correlation(a * a, b, kernel_size=3,
                                                      max_displacement=1, pad_size=2),
           [randn(1, 2, 4, 5, seed=35), randn(1, 2, 4, 5, seed=36)], None, jvp=False),
    OpCase("correlation_subtract", lambda a, b: nd.Correlation(
        a * a, b, max_displacement=2, stride2=2, pad_size=1, is_multiply=False),
        [randn(1, 2, 4, 4, seed=37), uniform(3, 4, 1, 2, 4, 4, seed=38)], None, jvp=False),
    OpCase("encdec_valatt", lambda kv, a: nd.contrib.interleaved_matmul_encdec_valatt(
        kv * kv, a, heads=1), [randn(2, 2, 6, seed=30), randn(2, 4, 2, seed=31)], None),
]


def _np_syevd_sq(a):
    w, v = np.linalg.eigh(a + np.swapaxes(a, -1, -2))
    return [np.swapaxes(v, -1, -2) ** 2, w ** 2]


test_table_forward, test_table_grad, test_table_second_order = op_tests(TABLE)


def test_syevd_and_gelqf_reconstruct():
    a = nd.array(S4, dtype="float64")
    U, L = nd.linalg.syevd(a)
    rec = np.swapaxes(U.asnumpy(), -1, -2) @ (L.asnumpy()[..., None] * U.asnumpy())
    np.testing.assert_allclose(rec, S4, atol=1e-10)
    b = randn(2, 3, 5, seed=3)
    Q, Lq = nd.linalg.gelqf(nd.array(b, dtype="float64"))
    np.testing.assert_allclose(Lq.asnumpy() @ Q.asnumpy(), b, atol=1e-10)
    np.testing.assert_allclose(np.triu(Lq.asnumpy(), 1), 0.0)


def test_bad_arguments():
    with pytest.raises(MXNetError, match="triangular number"):
        nd.linalg.maketrian(nd.ones((4,)))
    with pytest.raises(MXNetError, match="m <= n"):
        nd.linalg.gelqf(nd.ones((3, 2)))
    with pytest.raises(MXNetError, match="square"):
        nd.linalg.syevd(nd.ones((3, 2)))
    with pytest.raises(MXNetError, match="heads"):
        nd.contrib.interleaved_matmul_selfatt_qk(nd.ones((2, 1, 10)), heads=2)
    with pytest.raises(MXNetError, match="attention"):
        nd.contrib.interleaved_matmul_selfatt_valatt(nd.ones((2, 1, 12)), nd.ones((2, 2, 3)),
                                                     heads=2)
    with pytest.raises(MXNetError, match="rois"):
        nd.contrib.ROIAlign(nd.ones((1, 2, 4, 4)), nd.ones((2, 4)), (2, 2), 1.0)
    with pytest.raises(MXNetError, match="batch index"):
        nd.contrib.ROIAlign(nd.ones((1, 2, 4, 4)), nd.array([[1, 0, 0, 2, 2]]), (2, 2), 1.0)
    with pytest.raises(MXNetError, match="divisible"):
        nd.contrib.ROIAlign(nd.ones((1, 3, 4, 4)), nd.array([[0, 0, 0, 2, 2]]), (2, 2), 1.0,
                            position_sensitive=True)
    with pytest.raises(MXNetError, match="output_dim"):
        nd.contrib.PSROIPooling(nd.ones((1, 5, 4, 4)), nd.array([[0, 0, 0, 2, 2]]), 1.0,
                                output_dim=2, pooled_size=2)
    with pytest.raises(MXNetError, match="kernel_size"):
        nd.Correlation(nd.ones((1, 1, 5, 5)), nd.ones((1, 1, 5, 5)), kernel_size=2)
    with pytest.raises(MXNetError, match="one shape"):
        nd.Correlation(nd.ones((1, 1, 5, 5)), nd.ones((1, 1, 5, 4)))


def test_out_argument_is_written():
    x = nd.array(randn(1, 2, 4, 4, seed=40))
    rois = nd.array([[0, 0.5, 0.5, 3.0, 2.5]])
    for fn in (lambda out: nd.contrib.ROIAlign(x, rois, (2, 2), 1.0, out=out),
               lambda out: nd.contrib.PSROIPooling(x[:, :1].tile((1, 4, 1, 1)), rois, 1.0, 1,
                                                   2, out=out),
               lambda out: nd.Correlation(x, x, max_displacement=0, out=out)):
        ref = fn(None)
        out = nd.zeros(ref.shape)
        assert fn(out) is out
        np.testing.assert_array_equal(out.asnumpy(), ref.asnumpy())
    a = nd.array(S4[0])
    q = [nd.zeros((3, 3)), nd.zeros((3,))]
    res = nd.linalg.syevd(a, out=q)
    assert res[0] is q[0] and res[1] is q[1]
    np.testing.assert_allclose(q[1].asnumpy(), np.linalg.eigvalsh(S4[0]), rtol=1e-5)
    v = nd.zeros((6,))
    assert nd.linalg.extracttrian(a, out=v) is v
