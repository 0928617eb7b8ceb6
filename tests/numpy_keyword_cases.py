"""``out=`` and NumPy's ufunc keywords on ``mx.np`` functions, scalars meeting integer
arrays, and the functions MXNet's own NumPy tests found wrong or missing (matrix norms,
``einsum`` with ``...``, windows...): expressions whose results (or refusals) mxgrad must
give as MXNet 1.9.1 does.

``tools/make_numpy_keyword_fixtures.py`` evaluates them on real MXNet 1.9.1 and writes
``tests/data/mxnet/numpy_keyword_fixtures.npz``; ``tests/test_numpy_keywords.py`` evaluates
them on mxgrad and compares. ``X`` is ``np.array([1., 2., 3.])``, ``M`` a 2x3 float32
array, ``I`` ``np.array([1, 2, 3, -3], dtype='int32')``, ``NI`` the same as an ``mx.nd``
array. Each ``out=`` case returns ``out`` (MXNet returns the array it wrote).
"""

SETUP = """
X = np.array([1., 2., 3.])
M = np.array([[1., 2., 3.], [4., 5., 6.]])
I = np.array([1, 2, 3, -3], dtype='int32')
NI = nd.array([1, 2, 3, -3], dtype='int32')
M3 = np.arange(24.).reshape(2, 3, 4) - 11.
K = np.arange(20.).reshape(4, 5) / 10.
"""

VALUE_CASES = {
    # out= of element-wise functions: written, recorded, returned
    "exp_out": "np.exp(X, out=np.zeros(3))",
    "sin_out": "np.sin(X, out=np.zeros(3))",
    "negative_out": "np.negative(X, out=np.zeros(3))",
    "sqrt_int_out": "np.sqrt(I[:3], out=np.zeros(3, dtype='int32'))",
    "add_out_bcast": "np.add(X, np.array([[1.], [2.]]), out=np.zeros((2, 3)))",
    "multiply_scalar_out": "np.multiply(X, 2., out=np.zeros(3))",
    "subtract_rscalar_out": "np.subtract(2., X, out=np.zeros(3))",
    "power_out": "np.power(X, X, out=np.zeros(3))",
    "mod_out": "np.mod(M, 4., out=np.zeros((2, 3)))",
    "divide_out": "np.divide(X, 4., out=np.zeros(3))",
    "true_divide_out": "np.true_divide(M, 2., out=np.zeros((2, 3)))",
    "maximum_out": "np.maximum(X, np.array([3., 2., 1.]), out=np.zeros(3))",
    "minimum_out": "np.minimum(X, 2., out=np.zeros(3))",
    "hypot_out": "np.hypot(X, X, out=np.zeros(3))",
    "arctan2_out": "np.arctan2(X, 2., out=np.zeros(3))",
    "matmul_out": "np.matmul(M, M.T, out=np.zeros((2, 2)))",
    "dot_out": "np.dot(M, M.T, out=np.zeros((2, 2)))",
    "isnan_out": "np.isnan(X, out=np.zeros(3, dtype='bool'))",
    "logical_not_out": "np.logical_not(X, out=np.zeros(3, dtype='bool'))",
    # out= of the reductions and others
    "sum_out": "np.sum(M, axis=0, out=np.zeros(3))",
    "sum_full_out": "np.sum(M, out=np.zeros(()))",
    "method_sum_out": "M.sum(axis=1, out=np.zeros(2))",
    "mean_out": "np.mean(M, axis=0, out=np.zeros(3))",
    "prod_out": "np.prod(M, axis=1, out=np.zeros(2))",
    "max_out": "np.max(M, axis=0, out=np.zeros(3))",
    "min_out": "np.min(M, axis=1, out=np.zeros(2))",
    "std_out": "np.std(M, axis=0, out=np.zeros(3))",
    "var_out": "np.var(M, axis=1, out=np.zeros(2))",
    "cumsum_out": "np.cumsum(M, axis=0, out=np.zeros((2, 3)))",
    "clip_out": "np.clip(M, 2, 4, out=np.zeros((2, 3)))",
    "round_out": "np.round(M / 3, 1, out=np.zeros((2, 3)))",
    "argmax_out": "np.argmax(M, axis=0, out=np.zeros(3, dtype='int64'))",
    "concatenate_out": "np.concatenate([M, M], out=np.zeros((4, 3)))",
    "stack_out": "np.stack([X, X], out=np.zeros((2, 3)))",
    "take_out": "np.take(M, np.array([0, 2]), axis=1, out=np.zeros((2, 2)))",
    # the ufunc keywords at their defaults are accepted
    "exp_defaults": "np.exp(X, where=True, casting='same_kind', order='K', dtype=None, "
                    "subok=True)",
    "add_defaults": "np.add(X, X, where=True, casting='same_kind', order='K', dtype=None)",
    "where_one": "np.negative(X, where=1)",
    # a Python float meeting an integer array is cast to the array's dtype first
    "int_mul_float": "I * 2.5",
    "int_rmul_float": "2.5 * I",
    "int_add_float": "I + 2.5",
    "int_sub_float": "I - 2.5",
    "int_rsub_float": "2.5 - I",
    "int_pow_float": "I ** 2.5",
    "int_rpow_float": "2.5 ** I",
    "int_mod_float": "I % 2.5",
    "int_rmod_float": "7.5 % I",
    "int_eq_float": "I == 2.5",
    "int_lt_float": "I < 2.5",
    "int_multiply_float": "np.multiply(I, 2.5)",
    "int_maximum_float": "np.maximum(I, 2.5)",
    "int_hypot_float": "np.hypot(I, 2.5)",
    "int_arctan2_float": "np.arctan2(I, 2.5)",
    "float_arctan2_int": "np.arctan2(2.5, I)",
    "uint8_mul_float": "np.array([1, 2], dtype='uint8') * 2.5",
    "bool_mul_float": "np.array([True, False]) * 2.5",
    "nd_int_mul_float": "NI * 2.5",
    "nd_int_add_float": "NI + 2.5",
    "nd_int_rsub_float": "2.5 - NI",
    "nd_int_div_float": "NI / 2.5",
    "nd_int_pow_float": "NI ** 2.5",
    "nd_int_rmod_float": "7.5 % NI",
    "nd_int_eq_float": "NI == 2.5",
    # matrix and vector norms
    "norm_1_axes21": "np.linalg.norm(M3, 1, (2, 1))",
    "norm_m1_axes01_keep": "np.linalg.norm(M3, -1, (0, 1), True)",
    "norm_inf_str": "np.linalg.norm(M3, 'inf', (0, 2))",
    "norm_minf_str_10": "np.linalg.norm(M3, '-inf', (1, 0))",
    "norm_inf_float": "np.linalg.norm(M, np.inf)",
    "norm_matrix_1": "np.linalg.norm(M, 1)",
    "norm_matrix_2": "np.linalg.norm(M, 2)",
    "norm_matrix_m2": "np.linalg.norm(M3, -2, (0, 2))",
    "norm_nuc": "np.linalg.norm(M3, 'nuc', (1, 2))",
    "norm_fro_keep": "np.linalg.norm(M3, 'fro', (0, 2), True)",
    "norm_vec_0": "np.linalg.norm(M3, 0, 1)",
    "norm_vec_p": "np.linalg.norm(M3 + 0.5, -3.2, 2)",
    "norm_vec_inf_str": "np.linalg.norm(M3, 'inf', 1)",
    "norm_none_keep": "np.linalg.norm(M3, None, None, True)",
    # others
    "cumsum_bool": "np.cumsum(np.array([True, False, True], dtype='bool'))",
    "einsum_ellipsis_sum": "np.einsum('...j->...', M3)",
    "einsum_ellipsis_matmul": "np.einsum('...ij,jk->...ik', M3, K)",
    "einsum_ellipsis_front": "np.einsum('i...,i...->...', M, M)",
    "einsum_ellipsis_bcast": "np.einsum('...ij,...ij->...i', M3, M3[:1])",
    "nonzero_0d": "np.nonzero(np.array(3.))[0]",
    "flip_0d": "np.flip(np.array(3.))",
    "hanning": "np.hanning(5)",
    "hamming_f64": "np.hamming(4, dtype='float64')",
    "blackman": "np.blackman(6)",
    "quantile_lower": "np.quantile(np.arange(5.), 0.3, interpolation='lower')",
    "percentile_midpoint": "np.percentile(M, 30, axis=1, interpolation='midpoint')",
    "delete_float_indices": "np.delete(np.arange(6.), np.array([3, 0]))",
    "multinomial_empty": "np.random.multinomial(5, [])",
    "mvn_batch_shape": "np.array(np.random.multivariate_normal(np.zeros((3, 2)), "
                       "np.broadcast_to(np.eye(2), (4, 3, 2, 2)), (2,)).shape)",
    "ediff1d": "np.ediff1d(X * X, to_end=np.array([7., 8.]), to_begin=np.array([9.]))",
    "diagflat": "np.diagflat(M, 1)",
    "polyval": "np.polyval(X, np.array([1., 2., -1.]))",
    "nan_to_num": "np.nan_to_num(np.array([np.nan, np.inf, -np.inf, 1.]))",
    "nan_to_num_values": "np.nan_to_num(np.array([np.nan, np.inf, -np.inf]), nan=1., "
                         "posinf=2., neginf=3.)",
    "dsplit": "np.dsplit(M3, 2)[1]",
    "diag_empty": "np.diag(M, 5)",
    "trace_offset": "np.trace(M3, 1, 0, 2)",
    "pinv_rcond": "np.linalg.pinv(M, rcond=np.array(1e-15))",
    "squeeze_0d_axis": "np.squeeze(np.array(2.), -1)",
    "argmin_0d_axis": "np.argmin(np.array(2.), 0)",
    "argmax_empty_other_axis": "np.argmax(np.zeros((5, 0, 3)), 0)",
    "bool_mask_match": "M[np.array([True, False])]",
    "pad_constant": "np.pad(M, ((1, 2), (0, 1)))",
    "pad_int": "np.pad(np.arange(6, dtype='int32').reshape(2, 3), ((2, 1), (0, 1)))",
    "pad_edge": "np.pad(M, ((1, 1), (1, 2)), mode='edge')",
    "pad_reflect": "np.pad(M3, ((0, 0), (1, 1), (2, 0)), mode='reflect')",
    "tensorinv": "np.linalg.tensorinv(np.eye(6).reshape(2, 3, 6) * 2. + 0.1, 2)",
    "tensorsolve": "np.linalg.tensorsolve(np.eye(6).reshape(6, 2, 3) * 3. + 0.2, "
                   "np.arange(6.))",
}

# gradients of X through a function that wrote into out=
GRAD_CASES = {
    "grad_exp_out": "(np.exp(X, out=np.zeros(3)) * 2).sum()",
    "grad_multiply_out": "np.multiply(X, X, out=np.zeros(3)).sum()",
    "grad_maximum_out": "np.maximum(X, 2., out=np.zeros(3)).sum()",
    "grad_sum_out": "np.sum(X * X, out=np.zeros(())) * 3",
    "grad_norm_1_matrix": "np.linalg.norm(M * X, 1, (0, 1))",
    "grad_norm_inf_matrix": "np.linalg.norm(M * X, 'inf', (0, 1))",
    "grad_norm_p": "np.linalg.norm(X, 3)",
    "grad_einsum_ellipsis": "np.einsum('...i,...i->...', M, M * X).sum()",
    "grad_polyval_p": "np.polyval(X, np.array([1., 2., -1.])).sum()",
    "grad_ediff1d": "(np.ediff1d(X * X) * np.array([1., 3.])).sum()",
    "grad_diagflat": "(np.diagflat(X) * np.arange(9.).reshape(3, 3)).sum()",
    "grad_trace_empty": "np.trace(np.diag(X), 5) + X.sum()",
    "grad_normal_loc": "np.random.normal(X, 2., size=(2, 3)).sum()",
    "grad_gumbel_loc": "np.random.gumbel(X, 2.).sum()",
    "grad_pad": "(np.pad(X * X, (2, 1)) * np.arange(6.)).sum()",
    "grad_tensorinv": "np.linalg.tensorinv(np.diag(X).reshape(3, 1, 3), 1).sum()",
    "grad_tensorsolve": "np.linalg.tensorsolve(np.diag(X) + 1., X * 2.).sum()",
}

# calls MXNet 1.9.1 refuses: the name of the built-in class its error belongs to
# (NotImplementedError, TypeError, or MXNetError: a RuntimeError), and the word mxgrad's
# message must name
REFUSED_CASES = {
    "exp_where_false": ("np.exp(X, where=False)", "where"),
    "exp_casting_safe": ("np.exp(X, casting='safe')", "casting"),
    "exp_casting_bad": ("np.exp(X, casting='mxnet')", "casting"),
    "exp_order_c": ("np.exp(X, order='C')", "order"),
    "exp_order_bad": ("np.exp(X, order=1)", "order"),
    "exp_dtype": ("np.exp(X, dtype='float64')", "dtype"),
    "exp_dtype_bad": ("np.exp(X, dtype='complex64')", "dtype"),
    "exp_subok": ("np.exp(X, subok=False)", "subok"),
    "exp_unknown": ("np.exp(X, axis=0)", "axis"),
    "exp_scalar_where": ("np.exp(2.0, where=False)", "where"),
    "isnan_where": ("np.isnan(X, where=False)", "where"),
    "logical_not_order": ("np.logical_not(X, order='C')", "order"),
    "add_where_false": ("np.add(X, X, where=False)", "where"),
    "add_casting_bad": ("np.add(X, X, casting='mxnet')", "casting"),
    "multiply_dtype": ("np.multiply(X, X, dtype='float64')", "dtype"),
    "maximum_order": ("np.maximum(X, X, order='C')", "order"),
    "hypot_unknown": ("np.hypot(X, X, axis=0)", "axis"),
    "matmul_where": ("np.matmul(M, M.T, where=False)", "where"),
    "power_scalars_where": ("np.power(2, 3, where=False)", "where"),
    "true_divide_where": ("np.true_divide(X, X, where=True)", "where"),
    "equal_where": ("np.equal(X, X, where=True)", "where"),
    "exp_out_dtype": ("np.exp(X, out=np.zeros(3, dtype='float64'))", "out"),
    "exp_out_shape": ("np.exp(X, out=np.zeros(2))", "out"),
    "exp_out_nd": ("np.exp(X, out=nd.zeros(3))", "out"),
    "exp_int_out_float": ("np.exp(I, out=np.zeros(4))", "out"),
    "add_out_bigger": ("np.add(X, X, out=np.zeros((2, 3)))", "out"),
    "add_out_nd": ("np.add(X, X, out=nd.zeros(3))", "out"),
    "sum_out_dtype": ("np.sum(M, axis=0, out=np.zeros(3, dtype='float64'))", "out"),
    "sum_out_shape": ("np.sum(M, axis=0, out=np.zeros(7))", "out"),
    "dot_out_shape": ("np.dot(M, M.T, out=np.zeros(7))", "out"),
    "concatenate_out_dtype": ("np.concatenate([M, M], out=np.zeros((4, 3), dtype='float64'))",
                              "out"),
    "trace_1d": ("np.trace(X)", "dimensions"),
    "trace_same_axes": ("np.trace(M3, 0, 1, 1)", "axis"),
    "trace_bad_axis": ("np.trace(M3, 1, 0, -4)", "axis"),
    "pinv_hermitian": ("np.linalg.pinv(M, hermitian=True)", "hermitian"),
    "exponential_negative": ("np.random.exponential(-1.)", "scale"),
    "rayleigh_negative": ("np.random.rayleigh(-1.)", "scale"),
    "weibull_zero": ("np.random.weibull(0.)", "a"),
    "pareto_negative": ("np.random.pareto(a=-1.)", "a"),
    "bool_mask_short": ("M3[np.array([True], dtype='bool')]", "boolean index"),
    "bool_mask_long": ("M3[np.zeros(6, dtype='bool')]", "boolean index"),
    "argmax_empty_axis": ("np.argmax(np.zeros((5, 0, 3)), 1)", "empty"),
}
