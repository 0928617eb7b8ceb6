"""Bad input at every public entry point: each case must raise an ``MXNetError``
subclass (also the natural built-in) whose message names the argument, and leave the
state (scopes, gradients, parameters, files) as it was.

The table holds hand-picked cases (each one an input MXNet or NumPy rejects, or one a
user really passed); ``test_bad_input_fuzz.py`` drives the same entry points with
generated arguments.
"""
import math
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError


def _x():
    return nd.array([[1.0, 2.0], [3.0, 4.0]])


def _net():
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize()
    return net


def _trained_net():
    net = _net()
    with autograd.record():
        loss = net(_x()).sum()
    loss.backward()
    return net


def _trainer(*args, **kwargs):
    return gluon.Trainer(_net().collect_params(), *args, **kwargs)


def _step(batch_size):
    net = _trained_net()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    before = net.weight.data().asnumpy().copy()
    try:
        tr.step(batch_size)
    finally:   # the parameters are unchanged after the error
        np.testing.assert_array_equal(net.weight.data().asnumpy(), before)


# (id, call, expected error class (besides MXNetError), words the message must contain)
CASES = [
    # ---- creation: shapes, dtypes, contexts, ranges
    ("zeros-str-shape", lambda: nd.zeros("a"), TypeError, ["shape"]),
    ("zeros-float-shape", lambda: nd.zeros((2.5,)), TypeError, ["shape"]),
    ("zeros-None-shape", lambda: nd.zeros(None), TypeError, ["shape"]),
    ("zeros-negative", lambda: nd.zeros((-1, 2)), ValueError, ["shape", "negative"]),
    ("zeros-huge", lambda: nd.zeros((2 ** 40, 2 ** 40)), ValueError, ["shape", "too large"]),
    ("ones-bool-shape", lambda: nd.ones((True,)), TypeError, ["shape"]),
    ("empty-str-dim", lambda: nd.empty((2, "3")), TypeError, ["shape"]),
    ("full-str-val", lambda: nd.full((2,), "a"), TypeError, ["val"]),
    ("full-None-val", lambda: nd.full((2,), None), TypeError, ["val"]),
    ("zeros-dtype-object", lambda: nd.zeros((2,), dtype=object), TypeError, ["dtype"]),
    ("array-dtype-object", lambda: nd.array([1, 2], dtype=object), TypeError, ["dtype"]),
    ("array-dtype-str", lambda: nd.array([1, 2], dtype=str), TypeError, ["dtype"]),
    ("array-dtype-complex", lambda: nd.array([1, 2], dtype="complex64"), TypeError, ["dtype"]),
    ("array-dtype-unknown", lambda: nd.array([1, 2], dtype="float33"), TypeError, ["dtype"]),
    ("array-strings", lambda: nd.array(["a", "b"]), TypeError, ["nd.array"]),
    ("array-ragged", lambda: nd.array([[1, 2], [3]]), TypeError, ["nd.array"]),
    ("array-ctx-foo", lambda: nd.array([1, 2], ctx="foo"), ValueError, ["ctx", "foo"]),
    ("zeros-ctx-foo", lambda: nd.zeros((2,), ctx="foo"), ValueError, ["ctx", "foo"]),
    ("zeros-ctx-int", lambda: nd.zeros((2,), ctx=3), TypeError, ["ctx"]),
    ("Context-foo", lambda: mx.Context("foo"), ValueError, ["device_type"]),
    ("Context-neg-id", lambda: mx.Context("cpu", -1), ValueError, ["device_id"]),
    ("arange-step0", lambda: nd.arange(0, 10, 0), ValueError, ["step"]),
    ("arange-wrong-way", lambda: nd.arange(0, 10, -1), ValueError, ["range"]),
    ("arange-nan", lambda: nd.arange(0, float("nan")), ValueError, ["stop"]),
    ("arange-inf", lambda: nd.arange(0, math.inf), ValueError, ["stop"]),
    ("arange-str", lambda: nd.arange("a"), TypeError, ["start"]),
    ("arange-repeat0", lambda: nd.arange(3, repeat=0), ValueError, ["repeat"]),
    ("arange-huge", lambda: nd.arange(0, 1e30, 1), ValueError, ["too large"]),
    ("linspace-neg", lambda: nd.linspace(0, 1, -1), ValueError, ["num"]),
    ("linspace-float-num", lambda: nd.linspace(0, 1, 2.5), TypeError, ["num"]),
    ("eye-neg", lambda: nd.eye(-1), ValueError, ["N"]),
    ("eye-str", lambda: nd.eye("a"), TypeError, ["N"]),
    # ---- indexing / one_hot / reductions / reshape
    ("one_hot-neg-depth", lambda: nd.one_hot(nd.array([0, 1]), -3), ValueError, ["depth"]),
    ("one_hot-float-depth", lambda: nd.one_hot(nd.array([0, 1]), 2.5), TypeError, ["depth"]),
    ("one_hot-str-on", lambda: nd.one_hot(nd.array([0]), 2, on_value="a"), TypeError,
     ["on_value"]),
    ("sum-dup-axes", lambda: _x().sum(axis=(0, 0)), ValueError, ["axis", "twice"]),
    ("sum-dup-neg-axes", lambda: nd.sum(_x(), axis=(1, -1)), ValueError, ["axis", "twice"]),
    ("mean-dup-axes", lambda: nd.mean(_x(), axis=(1, 1)), ValueError, ["axis"]),
    ("max-dup-axes", lambda: nd.max(_x(), axis=(1, 1)), ValueError, ["axis"]),
    ("norm-dup-axes", lambda: nd.norm(_x(), axis=(1, 1)), ValueError, ["axis"]),
    ("squeeze-dup-axes", lambda: nd.squeeze(nd.ones((1, 2, 1)), axis=(0, 0)), ValueError,
     ["axis"]),
    ("sum-str-axis", lambda: nd.sum(_x(), axis="a"), TypeError, ["axis"]),
    ("sum-float-axis", lambda: nd.sum(_x(), axis=1.5), TypeError, ["axis"]),
    ("sum-axis-range", lambda: nd.sum(_x(), axis=2), ValueError, ["axis"]),
    ("reshape-str", lambda: _x().reshape("a"), TypeError, ["shape"]),
    ("nd.reshape-str", lambda: nd.reshape(_x(), ("a", 2)), TypeError, ["shape"]),
    ("reshape-float", lambda: nd.reshape(_x(), (1.5, 2)), TypeError, ["shape"]),
    ("clip-None-None", lambda: nd.clip(_x(), None, None), TypeError, ["a_min"]),
    ("clip-str-max", lambda: _x().clip(0, "a"), TypeError, ["a_max"]),
    # ---- random
    ("uniform-str-low", lambda: nd.random.uniform("a", 1), TypeError, ["low"]),
    ("uniform-ctx", lambda: nd.random.uniform(shape=(2,), ctx="foo"), ValueError, ["ctx"]),
    ("normal-str-shape", lambda: nd.random.normal(shape="a"), TypeError, ["shape"]),
    ("normal-neg-shape", lambda: nd.random.normal(shape=(-2,)), ValueError, ["shape"]),
    ("normal-nan-scale", lambda: nd.random.normal(0, float("nan"), shape=(2,)), ValueError,
     ["scale"]),
    ("randint-float", lambda: nd.random.randint(0.5, 3, shape=(2,)), TypeError, ["low"]),
    ("seed-str", lambda: mx.random.seed("a"), TypeError, ["seed"]),
    ("bernoulli-prob", lambda: nd.random.bernoulli(2.0, shape=(2,)), ValueError, ["prob"]),
    ("multinomial-list", lambda: nd.random.multinomial([0.5, 0.5]), TypeError, ["data"]),
    ("multinomial-neg", lambda: nd.random.multinomial(nd.array([[-1.0, 2.0]])), ValueError,
     ["data"]),
    ("shuffle-list", lambda: nd.random.shuffle([1, 2]), TypeError, ["data"]),
    # ---- Gluon: initialize, Trainer, losses
    ("initialize-ctx", lambda: _net().collect_params().initialize(ctx="foo",
                                                                  force_reinit=True),
     ValueError, ["ctx"]),
    ("initialize-empty-ctx", lambda: gluon.nn.Dense(2, in_units=2).initialize(ctx=[]),
     ValueError, ["ctx"]),
    ("Trainer-params-float", lambda: _trainer("sgd", 0.1), TypeError, ["optimizer_params"]),
    ("Trainer-optimizer-int", lambda: _trainer(3), TypeError, ["optimizer"]),
    ("Trainer-rescale-str", lambda: _trainer("sgd", {"rescale_grad": "a"}), TypeError,
     ["rescale_grad"]),
    ("Trainer-step-0", lambda: _step(0), ValueError, ["batch_size"]),
    ("Trainer-step-neg", lambda: _step(-2), ValueError, ["batch_size"]),
    ("Trainer-step-nan", lambda: _step(float("nan")), ValueError, ["batch_size"]),
    ("Trainer-step-str", lambda: _step("a"), TypeError, ["batch_size"]),
    ("Trainer-step-None", lambda: _step(None), TypeError, ["batch_size"]),
    ("L2Loss-list-label", lambda: gluon.loss.L2Loss()(_x(), [[1, 2], [3, 4]]), TypeError,
     ["label"]),
    ("L2Loss-None-label", lambda: gluon.loss.L2Loss()(_x(), None), TypeError, ["label"]),
    ("L1Loss-numpy-label", lambda: gluon.loss.L1Loss()(_x(), np.ones((2, 2))), TypeError,
     ["label"]),
    ("SCE-list-label", lambda: gluon.loss.SoftmaxCrossEntropyLoss()(_x(), [0, 1]),
     TypeError, ["label"]),
    ("SCE-None-label", lambda: gluon.loss.SoftmaxCrossEntropyLoss()(_x(), None), TypeError,
     ["label"]),
    ("L2Loss-list-pred", lambda: gluon.loss.L2Loss()([1.0], nd.array([1.0])), TypeError,
     ["pred"]),
    ("L2Loss-sample-weight-list", lambda: gluon.loss.L2Loss()(_x(), _x(), [1, 2]),
     TypeError, ["sample_weight"]),
    ("Triplet-missing", lambda: gluon.loss.TripletLoss()(_x(), _x()), TypeError,
     ["negative"]),
    ("L2Loss-too-many", lambda: gluon.loss.L2Loss()(_x(), _x(), None, _x()), TypeError,
     ["label"]),
    # ---- files
    ("save-list-of-ints", lambda: nd.save(os.devnull, [1, 2]), TypeError, ["data"]),
    ("load-folder", lambda: nd.load(os.path.dirname(os.path.abspath(__file__))), OSError,
     ["fname"]),
]


@pytest.mark.parametrize("call,kind,words", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_raises_our_error_naming_the_argument(call, kind, words):
    rec, train = autograd.is_recording(), autograd.is_training()
    with pytest.raises(MXNetError) as info:
        call()
    assert isinstance(info.value, kind), type(info.value).__mro__
    for word in words:
        assert word in str(info.value), str(info.value)
    assert (autograd.is_recording(), autograd.is_training()) == (rec, train)


def test_bad_input_inside_record_leaves_scopes_and_gradients_unchanged():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = (x * x).sum()
        for call, _, _ in [c[1:] for c in CASES[:20]]:
            with pytest.raises(MXNetError):
                call()
        assert autograd.is_recording() and autograd.is_training()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 4.0])
    assert not autograd.is_recording() and not autograd.is_training()


def test_failed_save_leaves_the_old_file(tmp_path):
    f = str(tmp_path / "w.params")
    nd.save(f, {"w": nd.array([1.0, 2.0])})
    before = open(f, "rb").read()
    with pytest.raises(MXNetError):
        nd.save(f, {"w": nd.array([3.0]), "bad": [1, 2]})
    with pytest.raises(MXNetError):
        nd.save(f, [nd.array([3.0]), "x"])
    assert open(f, "rb").read() == before
    assert os.listdir(tmp_path) == ["w.params"]      # no stray temporary file


def test_save_into_a_missing_folder_or_onto_a_folder(tmp_path):
    with pytest.raises(MXNetError) as info:
        nd.save(str(tmp_path / "no" / "w.params"), nd.ones(1))
    assert isinstance(info.value, OSError) and "folder" in str(info.value)
    with pytest.raises(MXNetError) as info:
        nd.save(str(tmp_path), nd.ones(1))
    assert isinstance(info.value, OSError) and "folder" in str(info.value)


@pytest.mark.parametrize("make", [
    lambda p: np.save(p, np.zeros(3)),
    lambda p: open(p, "wb").write(os.urandom(64)),
    lambda p: open(p, "wb").write(b""),
    lambda p: np.savez(p, a=np.zeros(2)),
    lambda p: open(p, "wb").write(b"\x12\x01\x00\x00\x00\x00\x00\x00" + b"\xff" * 40),
], ids=["npy", "garbage", "empty", "npz", "truncated-header"])
def test_loading_a_foreign_file_raises_a_file_format_error(tmp_path, make):
    p = str(tmp_path / "f")
    make(p)
    if os.path.exists(p + ".npy"):
        p += ".npy"
    if os.path.exists(p + ".npz"):
        p += ".npz"
    net = _net()
    w = net.weight.data().asnumpy().copy()
    for load in (nd.load, net.load_parameters):
        with pytest.raises(MXNetError) as info:
            load(p)
        assert isinstance(info.value, ValueError)
        assert p in str(info.value)
    np.testing.assert_array_equal(net.weight.data().asnumpy(), w)


def test_valid_contexts_are_still_accepted():
    assert nd.zeros((2,), ctx="cpu(0)").shape == (2,)
    assert nd.zeros((2,), ctx=mx.cpu(1)).shape == (2,)
    assert nd.array([1, 2], ctx="cpu_pinned(0)").shape == (2,)
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize(ctx=[mx.cpu(0), "cpu(1)"])
    assert net.weight.list_ctx() == [mx.cpu(0), mx.cpu(1)]


def test_valid_edge_inputs_still_work():
    assert nd.zeros((1,)).shape == (1,)   # shape () is refused, as MXNet: test_refusals.py
    assert nd.zeros((0, 3)).shape == (0, 3)
    assert nd.arange(5, 5).shape == (0,)
    assert nd.arange(5, 0, -1).asnumpy().tolist() == [5, 4, 3, 2, 1]
    assert nd.one_hot(nd.array([0, 1]), 0).shape == (2, 0)
    assert nd.full((2,), float("nan")).asnumpy().tolist() != [0, 0]
    assert nd.zeros((np.int64(2), 3)).shape == (2, 3)
    assert nd.flip(nd.array([[1, 2]]), axis=(1, 1)).shape == (1, 2)
    assert nd.sum(_x(), axis=(0, 1)).asscalar() == 10
