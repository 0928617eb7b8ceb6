"""Ops a Symbol graph runs that mxgrad composes from mx.nd (scalar ops, inference-only
outputs) and whole interpreted graphs: forward against NumPy, first- and second-order
gradients by float64 central differences (tests/opcheck.py)."""
import os

import numpy as np

import mxgrad as mx
from mxgrad.symbol import _ops
from mxgrad.symbol.symbol import evaluate

from opcheck import OpCase, op_tests, randn, uniform

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "symbol")


def _graph_fn(op, attrs, n_in=1):
    xs = [mx.sym.var(f"x{i}") for i in range(n_in)]
    s = _ops.make(op, xs, attrs, "node", op.lower())

    def fn(*arrays):
        return evaluate(s, {f"x{i}": a for i, a in enumerate(arrays)})[0]
    return fn


S = 1.5
SCALAR = [
    ("_plus_scalar", lambda x: x + S, None),
    ("_minus_scalar", lambda x: x - S, None),
    ("_rminus_scalar", lambda x: S - x, None),
    ("_mul_scalar", lambda x: x * S, None),
    ("_div_scalar", lambda x: x / S, None),
    ("_rdiv_scalar", lambda x: S / x, (0.5, 2.0)),
    ("_power_scalar", lambda x: x ** S, (0.5, 2.0)),
    ("_rpower_scalar", lambda x: S ** x, None),
    ("_maximum_scalar", lambda x: np.maximum(x, S), (-1.0, 1.0)),
    ("_minimum_scalar", lambda x: np.minimum(x, S), (-1.0, 1.0)),
    ("_hypot_scalar", lambda x: np.hypot(x, S), None),
]
CASES = [OpCase(op, _graph_fn(op, {"scalar": S}),
                [uniform(*rng, 3, 4) if rng else randn(3, 4)], ref)
         for op, ref, rng in SCALAR]
CASES += [
    OpCase("_mod_scalar", _graph_fn("_mod_scalar", {"scalar": S}),
           [uniform(0.1, 1.4, 3, 4)], lambda x: np.mod(x, S), second=False),
    OpCase("_greater_scalar", _graph_fn("_greater_scalar", {"scalar": 0.0}),
           [randn(3, 4)], lambda x: (x > 0).astype(x.dtype), grad=False),
    OpCase("_copy", _graph_fn("_copy", {}), [randn(2, 3)], lambda x: x),
]


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


CASES += [
    OpCase("SoftmaxOutput", _graph_fn("SoftmaxOutput", {}), [randn(3, 4)], _softmax),
    OpCase("SoftmaxOutput_4d", _graph_fn("SoftmaxOutput", {}), [randn(2, 3, 2, 2)],
           lambda x: _softmax(x.reshape(2, -1)).reshape(x.shape)),
    OpCase("SoftmaxOutput_multi", _graph_fn("SoftmaxOutput", {"multi_output": True}),
           [randn(2, 3, 4)], lambda x: _softmax(x, axis=1)),
    OpCase("SoftmaxOutput_preserve", _graph_fn("SoftmaxOutput", {"preserve_shape": True}),
           [randn(2, 3, 4)], lambda x: _softmax(x, axis=-1)),
    OpCase("LogisticRegressionOutput", _graph_fn("LogisticRegressionOutput", {}),
           [randn(3, 2)], lambda x: 1 / (1 + np.exp(-x))),
    OpCase("LinearRegressionOutput", _graph_fn("LinearRegressionOutput", {}),
           [randn(3, 2)], lambda x: x),
]


def _group_norm_ref(x, g, b, groups=2, eps=1e-5):
    n, c = x.shape[:2]
    xg = x.reshape(n, groups, -1)
    xn = (xg - xg.mean(-1, keepdims=True)) / np.sqrt(xg.var(-1, keepdims=True) + eps)
    shape = (1, c) + (1,) * (x.ndim - 2)
    return (xn.reshape(x.shape) * np.repeat(g, c // groups).reshape(shape)
            + np.repeat(b, c // groups).reshape(shape))


CASES += [
    # MXNet 1.x GroupNorm: one gamma/beta value per group
    OpCase("GroupNorm_per_group", _graph_fn("GroupNorm", {"num_groups": 2}, n_in=3),
           [randn(2, 4, 3), uniform(0.5, 1.5, 2), randn(2)], _group_norm_ref),
]


def _model_fn(name, wrt, train=False):
    """The MXNet-exported graph ``name`` in predict (or training) mode as a function of
    its input and of parameter ``wrt`` (the other parameters fixed, float64)."""
    s = mx.sym.load(os.path.join(DATA, name + "-symbol.json"))
    params = {k[4:]: v.astype("float64")
              for k, v in mx.nd.load(os.path.join(DATA, name + "-0000.params")).items()}

    def fn(x, w):
        values = dict(params)
        values["data"] = x
        values[wrt] = w
        # explicit mode: the check records, which would mean training mode
        with (mx.autograd.train_mode() if train else mx.autograd.predict_mode()):
            return evaluate(s, values)[0]
    return fn, params[wrt].asnumpy().astype(np.float64)


_cnn_fn, _cnn_w = _model_fn("cnn", "cnn_conv0_weight")
_mlp_fn, _mlp_w = _model_fn("mlp", "mlp_dense1_weight")
_cnn_train_fn, _ = _model_fn("cnn", "cnn_batchnorm0_gamma", train=True)
_bn_gamma = uniform(0.5, 1.5, 4)
CASES += [
    OpCase("graph_cnn", _cnn_fn, [randn(1, 3, 6, 6), _cnn_w], second=False,
           fwd_dtype="float64"),
    OpCase("graph_mlp", _mlp_fn, [randn(2, 5), _mlp_w], fwd_dtype="float64"),
    # training mode: BatchNorm normalizes with the batch statistics
    OpCase("graph_cnn_train", _cnn_train_fn, [randn(2, 3, 6, 6), _bn_gamma],
           second=False, fwd_dtype="float64"),
]

test_forward, test_grad, test_second_order = op_tests(CASES)


def test_sequence_and_normalization_ops_in_graphs_match_nd():
    # SequenceMask/Last/Reverse, L2Normalization, LRN, UpSampling, moments, cumsum, diag
    # and khatri_rao run from a Symbol graph (e.g. one loaded from JSON) as mx.nd runs them
    d, n = mx.sym.var("d"), mx.sym.var("n")
    img = mx.sym.var("img")
    heads = [mx.sym.SequenceMask(d, n, use_sequence_length=True, value=-2.0),
             mx.sym.SequenceLast(d, n, use_sequence_length=True),
             mx.sym.SequenceReverse(d, n, use_sequence_length=True),
             mx.sym.LRN(mx.sym.L2Normalization(img, mode="channel"), nsize=3),
             mx.sym.UpSampling(img, scale=2, sample_type="nearest"),
             mx.sym.cumsum(d, axis=0), mx.sym.diag(d), mx.sym.khatri_rao(d, d),
             mx.sym.moments(d, axes=(0,))[1]]
    graph = mx.sym.load_json(mx.sym.Group(heads).tojson())
    vals = {"d": mx.nd.array(randn(3, 3)), "n": mx.nd.array([1, 3, 2]),
            "img": mx.nd.array(randn(1, 3, 2, 2))}
    got = evaluate(graph, vals)
    nd, x, lens, im = mx.nd, vals["d"], vals["n"], vals["img"]
    want = [nd.SequenceMask(x, lens, use_sequence_length=True, value=-2.0),
            nd.SequenceLast(x, lens, use_sequence_length=True),
            nd.SequenceReverse(x, lens, use_sequence_length=True),
            nd.LRN(nd.L2Normalization(im, mode="channel"), nsize=3),
            nd.UpSampling(im, scale=2, sample_type="nearest"), nd.cumsum(x, axis=0),
            nd.diag(x), nd.khatri_rao(x, x), nd.moments(x, axes=(0,))[1]]
    assert len(got) == len(want)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g.asnumpy(), w.asnumpy(), rtol=1e-6)
