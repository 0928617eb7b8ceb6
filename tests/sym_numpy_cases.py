"""Expressions on NumPy-interface Symbols (``mx.sym.np``/``npx``), shared by
``tools/make_symbol_numpy_fixtures.py`` (runs them on MXNet 1.9.1: the operators it writes
and the values it computes) and ``tests/test_symbol_numpy.py`` (runs them on mxgrad).

Each case is evaluated with ``a`` (shape (2, 3)) and ``b`` (shape (3,)) as ``_Symbol``
variables, ``np``/``npx`` as the Symbol namespaces; its value is computed by a
``SymbolBlock`` on ``A`` and ``B``.
"""
import numpy as onp

A = onp.array([[0.5, -1.5, 2.0], [3.0, 0.25, -0.75]], dtype="float32")
B = onp.array([1.0, 2.0, -0.5], dtype="float32")

CASES = {
    "add": "a + b",
    "radd_scalar": "2 + a",
    "sub_scalar": "a - 1.5",
    "rsub_scalar": "2 - a",
    "mul": "a * b",
    "div": "a / b",
    "rdiv_scalar": "2 / b",
    "pow_scalar": "a ** 2",
    "rpow_scalar": "2 ** a",
    "mod_scalar": "a % 2",
    "neg": "-a",
    "gt_scalar": "a > 1",
    "le": "a <= b",
    "exp": "np.exp(a)",
    "tanh": "np.tanh(a)",
    "absolute": "np.absolute(a)",
    "sqrt_abs": "np.sqrt(np.abs(a))",
    "maximum": "np.maximum(a, b)",
    "maximum_scalar": "np.maximum(a, 0)",
    "power": "np.power(np.abs(a), b)",
    "sum": "np.sum(a)",
    "sum_axis": "a.sum(axis=0)",
    "sum_keepdims": "np.sum(a, axis=1, keepdims=True)",
    "mean": "a.mean()",
    "mean_axis": "np.mean(a, axis=0)",
    "max": "a.max(axis=1)",
    "min": "np.min(a)",
    "prod": "a.prod(axis=0)",
    "std": "a.std()",
    "var_ddof": "a.var(ddof=1)",
    "argmax": "a.argmax(1)",
    "reshape": "a.reshape(3, 2)",
    "reshape_tuple": "a.reshape((-1,))",
    "np_reshape": "np.reshape(a, (3, 2))",
    "transpose": "a.T",
    "transpose_axes": "a.transpose(1, 0)",
    "flatten": "a.flatten()",
    "squeeze": "np.squeeze(a.reshape(1, 2, 3))",
    "expand_dims": "np.expand_dims(b, 0)",
    "swapaxes": "np.swapaxes(a, 0, 1)",
    "clip": "np.clip(a, 0, 1)",
    "dot": "np.dot(a, b)",
    "matmul": "np.matmul(a, a.T)",
    "concatenate": "np.concatenate([a, a], axis=1)",
    "stack": "np.stack([b, b])",
    "where": "np.where(a > 0, a, a * 0.1)",
    "index_int": "a[0]",
    "index_slice": "a[1:]",
    "index_tuple": "a[:, 1]",
    "index_mixed": "a[0, 1:3]",
    "index_slices": "a[:, :2]",
    "index_neg_slice": "a[-1:]",
    "split0": "np.split(a, 3, axis=1)[0]",
    "split2": "np.split(a, 3, axis=1)[2]",
    "zeros_add": "a + np.zeros((2, 3))",
    "ones_mul": "b * np.ones(3)",
    "full_add": "a + np.full((2, 3), 2.5)",
    "arange_add": "b + np.arange(3)",
    "relu": "npx.relu(a)",
    "sigmoid": "npx.sigmoid(a)",
    "softmax": "npx.softmax(a)",
    "log_softmax": "npx.log_softmax(a, axis=0)",
    "activation": "npx.activation(a, act_type='tanh')",
    "npx_reshape": "npx.reshape(a, (-2, -1))",
    "batch_flatten": "npx.batch_flatten(a.reshape(2, 3, 1))",
    "repeat": "a.repeat(2)",
    "round": "a.round()",
    "cumsum": "np.cumsum(a)",
    "tile": "np.tile(b, 2)",
    "flip": "np.flip(a, 0)",
    "norm": "np.linalg.norm(a)",
    "astype": "a.astype('int32')",
    "chain": "np.sum(npx.relu(a * 2 + 1), axis=1, keepdims=True) / 3 + np.exp(a).mean()",
    "ravel": "np.ravel(a)",
    "append": "np.append(a, b)",
    "fliplr": "np.fliplr(a)",
    "hsplit": "np.hsplit(a.T, 2)[1]",
    "vsplit": "np.vsplit(a, 2)[1]",
    "inner": "np.inner(b, b)",
    "outer": "np.outer(b, b)",
    "vdot": "np.vdot(a, a)",
    "clip_upper_only": "np.clip(a, None, 1)",
    "full_like": "np.full_like(a, 2.5)",
    "zeros_like": "np.zeros_like(a) + a",
    "norm_axis": "np.linalg.norm(a, axis=1)",
    "norm_fro": "np.linalg.norm(a, 'fro')",
    "where_scalar": "np.where(a > 0, a, 0)",
    "take": "np.take(a, np.argmax(b).astype('int32'))",
    "tensordot": "np.tensordot(a, a.T, 1)",
    "einsum": "np.einsum('ij,j->i', a, b)",
}


def np_model(gluon, units: int = 5, cases=(), **kw):
    """The NumPy-mode block of the fixtures (MXNet's or mxgrad's ``gluon``): Conv-BN-ReLU-
    MaxPool-Dense, then ``tanh(z) * 2 + sum(z, axis=1) / units``; with ``cases`` (names of
    CASES), those expressions on slices of ``z`` too, all flattened and concatenated."""
    nn = gluon.nn

    class NpModel(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv = nn.Conv2D(4, kernel_size=3, padding=1)
                self.bn = nn.BatchNorm()
                self.pool = nn.MaxPool2D(2)
                self.dense = nn.Dense(units)

        def hybrid_forward(self, F, x):
            z = self.dense(self.pool(F.npx.relu(self.bn(self.conv(x)))))
            y = F.np.tanh(z) * 2 + F.np.sum(z, axis=1, keepdims=True) / units
            if not cases:
                return y
            a, b = z[:, :3], z[0, 3:]
            outs = [y] + [eval(CASES[c], {"np": F.np, "npx": F.npx, "a": a, "b": b})
                          for c in cases]
            return F.np.concatenate([o.reshape(-1).astype("float32") for o in outs])

    return NpModel(**kw)
