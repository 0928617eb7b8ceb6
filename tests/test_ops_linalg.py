"""Matrix products: dot (MXNet N-D semantics and transpose flags), batch_dot,
linalg_gemm2/gemm and the @ operator — forward vs NumPy, numerical gradients of first
and second order, tangents, shapes and errors."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from opcheck import OpCase, op_tests, randn, face_tests


def _mx_dot(a, b, ta=False, tb=False):
    """NumPy reference of MXNet's dot."""
    if a.ndim == 1 and b.ndim == 1:
        return np.dot(a, b).reshape(1)
    a2 = a.reshape(a.shape[0], -1).T if ta else a.reshape(-1, a.shape[-1])
    b2 = b.reshape(-1, b.shape[-1]).T if tb else b.reshape(b.shape[0], -1)
    lp = (a.shape[1:] if ta else a.shape[:-1]) if a.ndim > 1 else ()
    rp = (b.shape[:-1] if tb else b.shape[1:]) if b.ndim > 1 else ()
    return (a2 @ b2).reshape(lp + rp)


def _t(x):
    return np.swapaxes(x, -1, -2)


M34, M45 = randn(3, 4, seed=1), randn(4, 5, seed=2)
CASES = [
    OpCase("dot_2d", nd.dot, [M34, M45], _mx_dot),
    OpCase("dot_ta", lambda a, b: nd.dot(a, b, transpose_a=True), [randn(4, 3), M45],
           lambda a, b: _mx_dot(a, b, True)),
    OpCase("dot_tb", lambda a, b: nd.dot(a, b, transpose_b=True), [M34, randn(5, 4)],
           lambda a, b: _mx_dot(a, b, False, True)),
    OpCase("dot_ta_tb", lambda a, b: nd.dot(a, b, transpose_a=True, transpose_b=True),
           [randn(4, 3), randn(5, 4)], lambda a, b: _mx_dot(a, b, True, True)),
    OpCase("dot_vec_vec", nd.dot, [randn(4), randn(4, seed=3)], _mx_dot),
    OpCase("dot_vec_mat", nd.dot, [randn(4), M45], _mx_dot),
    OpCase("dot_mat_vec", nd.dot, [M34, randn(4, seed=4)], _mx_dot),
    OpCase("dot_nd", nd.dot, [randn(2, 3, 4), randn(4, 2, 3, seed=5)], _mx_dot),
    OpCase("dot_nd_ta", lambda a, b: nd.dot(a, b, transpose_a=True),
           [randn(4, 2, 3), randn(4, 5, seed=6)], lambda a, b: _mx_dot(a, b, True)),
    OpCase("dot_nd_tb", lambda a, b: nd.dot(a, b, transpose_b=True),
           [randn(2, 3, 4), randn(2, 5, 4, seed=7)], lambda a, b: _mx_dot(a, b, False, True)),
    OpCase("dot_nd_ta_tb", lambda a, b: nd.dot(a, b, transpose_a=True, transpose_b=True),
           [randn(4, 3, 2), randn(5, 4, seed=8)], lambda a, b: _mx_dot(a, b, True, True)),
    OpCase("dot_method", lambda a, b: a.dot(b), [M34, M45], _mx_dot),
    OpCase("dot_square_chain", lambda a: nd.dot(a, a) * a, [randn(3, 3)],
           lambda a: (a @ a) * a),
    OpCase("batch_dot", nd.batch_dot, [randn(2, 3, 4), randn(2, 4, 5, seed=1)], np.matmul),
    OpCase("batch_dot_ta", lambda a, b: nd.batch_dot(a, b, transpose_a=True),
           [randn(2, 4, 3), randn(2, 4, 5, seed=1)], lambda a, b: _t(a) @ b),
    OpCase("batch_dot_tb", lambda a, b: nd.batch_dot(a, b, transpose_b=True),
           [randn(2, 3, 4), randn(2, 5, 4, seed=1)], lambda a, b: a @ _t(b)),
    OpCase("batch_dot_ta_tb", lambda a, b: nd.batch_dot(a, b, True, True),
           [randn(2, 4, 3), randn(2, 5, 4, seed=1)], lambda a, b: _t(a) @ _t(b)),
    OpCase("batch_dot_4d", nd.batch_dot, [randn(2, 2, 3, 4), randn(2, 2, 4, 2, seed=1)],
           np.matmul),
    OpCase("gemm2", lambda a, b: nd.linalg_gemm2(a, b, alpha=0.5), [M34, M45],
           lambda a, b: 0.5 * (a @ b)),
    OpCase("gemm2_tt", lambda a, b: nd.linalg_gemm2(a, b, True, True, alpha=2.0),
           [randn(2, 4, 3), randn(2, 5, 4, seed=1)], lambda a, b: 2 * (_t(a) @ _t(b))),
    OpCase("gemm2_axis", lambda a, b: nd.linalg_gemm2(a, b, axis=1),
           [randn(2, 3, 2, 4), randn(2, 4, 2, 5, seed=1)],
           lambda a, b: np.swapaxes(np.swapaxes(a, 1, 2) @ np.swapaxes(b, 1, 2), 1, 2)),
    OpCase("gemm", lambda a, b, c: nd.linalg_gemm(a, b, c, transpose_b=True, alpha=2.,
                                                  beta=0.5),
           [M34, randn(5, 4), randn(3, 5, seed=9)], lambda a, b, c: 2 * a @ b.T + 0.5 * c),
    OpCase("matmul_op", lambda a, b: a @ b, [randn(2, 3, 4), M45], np.matmul),
    OpCase("matmul_bcast", lambda a, b: a @ b, [randn(3, 1, 2, 4), randn(2, 4, 3, seed=1)],
           np.matmul),
    OpCase("matmul_vec_lhs", lambda a, b: a @ b, [randn(4), randn(2, 4, 5)], np.matmul),
    OpCase("matmul_vec_rhs", lambda a, b: a @ b, [randn(2, 3, 4), randn(4, seed=1)],
           np.matmul),
    OpCase("matmul_vec_vec", lambda a, b: a @ b, [randn(4), randn(4, seed=1)],
           lambda a, b: np.reshape(a @ b, (1,))),
]


def _spd(n, seed, batch=()):
    a = randn(*(batch + (n, n)), seed=seed)
    return a @ _t(a) + n * np.eye(n)


CASES += [
    OpCase("extractdiag", nd.linalg_extractdiag, [randn(2, 3, 3)],
           lambda a: np.diagonal(a, 0, -2, -1)),
    OpCase("extractdiag_offset", lambda a: nd.linalg_extractdiag(a, offset=1),
           [randn(3, 3)], lambda a: np.diagonal(a, 1)),
    OpCase("makediag", nd.linalg_makediag, [randn(2, 3)],
           lambda v: np.stack([np.diag(r) for r in v])),
    OpCase("makediag_offset", lambda v: nd.linalg_makediag(v, offset=-1), [randn(3)],
           lambda v: np.diag(v, -1)),
    OpCase("sumlogdiag", nd.linalg_sumlogdiag, [_spd(3, 1)],
           lambda a: np.log(np.diag(a)).sum().reshape(1)),
    OpCase("sumlogdiag_batch", nd.linalg_sumlogdiag, [_spd(3, 2, (2,))],
           lambda a: np.log(np.diagonal(a, 0, -2, -1)).sum(-1)),
    OpCase("syrk", lambda a: nd.linalg_syrk(a, alpha=0.5), [M34], lambda a: 0.5 * a @ a.T),
    OpCase("syrk_t", lambda a: nd.linalg_syrk(a, transpose=True), [randn(2, 3, 4)],
           lambda a: _t(a) @ a),
    OpCase("inverse", nd.linalg_inverse, [_spd(3, 3)], np.linalg.inv, fwd_rtol=1e-4),
    OpCase("inverse_batch", nd.linalg_inverse, [_spd(3, 4, (2,))], np.linalg.inv,
           fwd_rtol=1e-4),
    OpCase("det", nd.linalg_det, [randn(3, 3, seed=5)],
           lambda a: np.linalg.det(a).reshape(1), fwd_rtol=1e-4),
    OpCase("det_batch", nd.linalg_det, [randn(2, 3, 3, seed=6)], np.linalg.det,
           fwd_rtol=1e-4),
    OpCase("slogdet", nd.linalg_slogdet, [randn(2, 3, 3, seed=7)],
           lambda a: tuple(np.linalg.slogdet(a)), fwd_rtol=1e-4),
]


def _sym(a):
    """Symmetrise, so that numerical gradients see the symmetric gradient MXNet gives."""
    return (a + _swap(a)) * 0.5


def _swap(a):
    from mxgrad.ops.linalg import _mT
    return _mT(a)


LOW = np.tril(randn(3, 3, seed=30)) + 3 * np.eye(3)
CASES += [
    OpCase("trmm", lambda a, b: nd.linalg_trmm(a, b, alpha=2.), [randn(3, 3), M34],
           lambda a, b: 2 * np.tril(a) @ b),
    OpCase("trmm_t_right_upper",
           lambda a, b: nd.linalg_trmm(a, b, transpose=True, rightside=True, lower=False),
           [randn(2, 4, 4), randn(2, 3, 4, seed=1)], lambda a, b: b @ _t(np.triu(a))),
    OpCase("trsm", lambda a, b: nd.linalg_trsm(a, b, alpha=0.5), [LOW, M34],
           lambda a, b: np.linalg.solve(np.tril(a), 0.5 * b), fwd_rtol=1e-4),
    OpCase("trsm_t", lambda a, b: nd.linalg_trsm(a, b, transpose=True), [LOW, M34],
           lambda a, b: np.linalg.solve(np.tril(a).T, b), fwd_rtol=1e-4),
    OpCase("trsm_right", lambda a, b: nd.linalg_trsm(a, b, rightside=True, lower=False),
           [LOW.T.copy(), randn(2, 3, seed=2)],
           lambda a, b: b @ np.linalg.inv(np.triu(a)), fwd_rtol=1e-4),
    OpCase("potrf", lambda a: nd.linalg_potrf(_sym(a)), [_spd(3, 31)],
           np.linalg.cholesky, fwd_rtol=1e-4),
    OpCase("potrf_upper_batch", lambda a: nd.linalg_potrf(_sym(a), lower=False),
           [_spd(3, 32, (2,))], lambda a: _t(np.linalg.cholesky(a)), fwd_rtol=1e-4),
    OpCase("potri", nd.linalg_potri, [LOW],
           lambda a: np.linalg.inv(np.tril(a) @ np.tril(a).T), fwd_rtol=1e-4),
]

test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)


# ------------------------------------------------------------ tangents (jvp)
def _outs(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def _jvp_check(fn, inputs, seed=0, eps=1e-6, rtol=1e-5, atol=1e-7):
    rng = np.random.default_rng(seed)
    xs = [np.asarray(x, dtype=np.float64) for x in inputs]
    ts = [rng.standard_normal(x.shape) for x in xs]
    args = []
    for x, t in zip(xs, ts):
        a = nd.array(x, dtype=np.float64)
        a._tan = nd.array(t, dtype=np.float64)
        args.append(a)
    outs = _outs(fn(*args))
    plus = _outs(fn(*[nd.array(x + eps * t, dtype=np.float64) for x, t in zip(xs, ts)]))
    minus = _outs(fn(*[nd.array(x - eps * t, dtype=np.float64) for x, t in zip(xs, ts)]))
    for o, p, m in zip(outs, plus, minus):
        num = (p.asnumpy() - m.asnumpy()) / (2 * eps)
        if o._tan is None:
            np.testing.assert_allclose(num, 0, atol=atol)
        else:
            np.testing.assert_allclose(o._tan.asnumpy(), num, rtol=rtol, atol=atol)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_jvp(case):
    _jvp_check(case.fn, case.inputs)


# ---------------------------------------------------------------- semantics
def test_dot_shapes_follow_mxnet():
    assert nd.dot(nd.ones((2, 3, 4)), nd.ones((4, 5, 6))).shape == (2, 3, 5, 6)
    assert nd.dot(nd.ones((4, 3, 2)), nd.ones((4, 5)), transpose_a=True).shape == (3, 2, 5)
    assert nd.dot(nd.ones((3,)), nd.ones((5, 3)), transpose_b=True).shape == (5,)
    assert nd.dot(nd.ones((3,)), nd.ones((3,))).shape == (1,)
    assert nd.dot(nd.ones((3,)), nd.ones((3,))).asscalar() == 3.0


def test_dot_keeps_dtype():
    assert nd.dot(nd.ones((2, 3)), nd.ones((3, 2))).dtype == np.float32
    d64 = nd.ones((2, 3), dtype="float64")
    assert nd.dot(d64, nd.ones((3, 2), dtype="float64")).dtype == np.float64
    assert (d64 @ nd.ones((3,), dtype="float64")).dtype == np.float64


def test_dot_values():
    a = nd.array([[1., 2.], [3., 4.]])
    b = nd.array([[5., 6.], [7., 8.]])
    assert nd.dot(a, b).asnumpy().tolist() == [[19., 22.], [43., 50.]]
    assert nd.dot(a, b, transpose_a=True).asnumpy().tolist() == [[26., 30.], [38., 44.]]
    assert nd.dot(a, b, transpose_b=True).asnumpy().tolist() == [[17., 23.], [39., 53.]]
    assert (a @ b).asnumpy().tolist() == [[19., 22.], [43., 50.]]


def test_dot_gradient_values():
    a = nd.array([[1., 2.], [3., 4.]])
    b = nd.array([[5., 6.], [7., 8.]])
    a.attach_grad(); b.attach_grad()
    with mx.autograd.record():
        y = nd.dot(a, b)
    y.backward()
    # d sum(AB)/dA = 1 B^T, d/dB = A^T 1
    assert a.grad.asnumpy().tolist() == [[11., 15.], [11., 15.]]
    assert b.grad.asnumpy().tolist() == [[4., 4.], [6., 6.]]


def test_dot_shape_errors_name_shapes():
    with pytest.raises(ValueError) as e:
        nd.dot(nd.ones((2, 3)), nd.ones((4, 5)))
    assert "(2, 3)" in str(e.value) and "(4, 5)" in str(e.value)
    assert isinstance(e.value, mx.MXNetError)
    with pytest.raises(mx.MXNetError):
        nd.dot(nd.ones((3,)), nd.ones((3,)), transpose_a=True)
    with pytest.raises(mx.MXNetError):
        nd.dot(nd.ones((3,)), nd.ones((4,)))


def test_dot_dtype_mismatch_is_clear():
    with pytest.raises(TypeError) as e:
        nd.dot(nd.ones((2, 2)), nd.ones((2, 2), dtype="float64"))
    assert "dtype" in str(e.value)


def test_batch_dot_errors():
    with pytest.raises(ValueError) as e:
        nd.batch_dot(nd.ones((2, 3)), nd.ones((3, 2)))
    assert "batch_dot" in str(e.value)
    with pytest.raises(ValueError):
        nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((3, 4, 5)))
    with pytest.raises(ValueError):
        nd.batch_dot(nd.ones((2, 3, 4)), nd.ones((2, 3, 5)))


def test_matmul_numpy_operand():
    a = nd.array([[1., 2.], [3., 4.]])
    r = a @ np.eye(2)
    assert isinstance(r, nd.NDArray)
    assert r.asnumpy().tolist() == [[1., 2.], [3., 4.]]


def test_dot_out_argument():
    out = nd.zeros((2, 2))
    nd.dot(nd.ones((2, 3)), nd.ones((3, 2)), out=out)
    assert out.asnumpy().tolist() == [[3., 3.], [3., 3.]]


def test_dot_transposed_input_is_not_copied_wrongly():
    # a non-contiguous input (a transposed view) gives the same result
    base = np.arange(12, dtype=np.float32).reshape(3, 4)
    a = nd.NDArray(base.T)
    np.testing.assert_allclose(nd.dot(a, nd.ones((3, 2))).asnumpy(), base.T @ np.ones((3, 2)))


def test_inverse_singular_error():
    with pytest.raises(ValueError) as e:
        nd.linalg_inverse(nd.zeros((2, 2)))
    assert "singular" in str(e.value)
    with pytest.raises(ValueError):
        nd.linalg_det(nd.ones((2, 3)))


def test_potrf_gradient_is_symmetric_like_mxnet():
    a = nd.array(_spd(3, 40), dtype="float64"); a.attach_grad()
    head = nd.array(randn(3, 3, seed=41), dtype="float64")
    with mx.autograd.record():
        L = nd.linalg_potrf(a)
    L.backward(head)
    g = a.grad.asnumpy()
    np.testing.assert_allclose(g, g.T, rtol=1e-10, atol=1e-12)
    Ln = np.linalg.cholesky(a.asnumpy())
    M = Ln.T @ head.asnumpy()
    S = np.tril(M) + np.tril(M, -1).T
    ref = 0.5 * np.linalg.inv(Ln).T @ S @ np.linalg.inv(Ln)
    np.testing.assert_allclose(g, ref, rtol=1e-8)


def test_potrf_not_positive_definite():
    with pytest.raises(ValueError) as e:
        nd.linalg_potrf(nd.array([[1., 2.], [2., 1.]]))
    assert "positive definite" in str(e.value)
