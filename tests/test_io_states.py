"""Trainer/Updater states files: no pickle by default, checked against the model,
written atomically; MXNet's pickled states only with allow_pickle=True."""
import os
import pickle
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import _states
from mxgrad.base import FileFormatError, MXNetError
from mxgrad.gluon import nn

from test_io_mxnet import fixture, values

# every registered optimizer but SGLD (random noise: two runs differ by design)
# GroupAdaGrad takes only 2-D weights and wd=0, as MXNet (its own round trip: test_optimizer)
OPTIMIZERS = sorted(set(mx.optimizer.Optimizer.opt_registry) - {"sgld", "groupadagrad"})
OPT_PARAMS = {"sgd": {"momentum": 0.9}, "nag": {"momentum": 0.9},
              "rmsprop": {"centered": True}, "signum": {"momentum": 0.9},
              "dcasgd": {"momentum": 0.5}}


def make(units=(3, 2), seed=0):
    net = nn.HybridSequential()
    with net.name_scope():
        net.add(nn.Dense(units[0], in_units=4), nn.Dense(units[1], in_units=units[0]))
    net.initialize(mx.init.Xavier(rnd_type="gaussian"))
    rng = np.random.RandomState(seed)
    for p in net.collect_params().values():
        p.set_data(mx.nd.array(rng.randn(*p.shape)))
    return net


def train(net, trainer, steps, seed=1):
    rng = np.random.RandomState(seed)
    for _ in range(steps):
        x = mx.nd.array(rng.randn(5, 4))
        with mx.autograd.record():
            loss = (net(x) ** 2).mean()
        loss.backward()
        trainer.step(5)


def weights(net):
    return [p.data().asnumpy().copy() for p in net.collect_params().values()]


@pytest.mark.parametrize("name", OPTIMIZERS)
def test_states_round_trip_continues_training_identically(tmp_path, name):
    f = str(tmp_path / "t.states")
    params = dict(OPT_PARAMS.get(name, {}), learning_rate=0.05, wd=0.01)
    net = make()
    tr = mx.gluon.Trainer(net.collect_params(), name, params)
    train(net, tr, 2)
    tr.save_states(f)
    with open(f, "rb") as fh:
        assert fh.read(1) != b"\x80"                  # not a pickle
    net2 = make()
    for p, q in zip(net.collect_params().values(), net2.collect_params().values()):
        q.set_data(p.data().copy())
    tr2 = mx.gluon.Trainer(net2.collect_params(), "sgd", {"learning_rate": 9.0})
    tr2.load_states(f)
    assert type(tr2.optimizer).__name__.lower() == name
    assert tr2.learning_rate == tr.learning_rate
    assert tr2.optimizer.num_update == tr.optimizer.num_update
    train(net, tr, 2, seed=7)
    train(net2, tr2, 2, seed=7)
    for a, b in zip(weights(net), weights(net2)):
        np.testing.assert_array_equal(a, b)


def test_lr_scheduler_and_update_counts_round_trip(tmp_path):
    f = str(tmp_path / "t.states")
    sched = mx.lr_scheduler.FactorScheduler(step=2, factor=0.5, base_lr=0.05)
    net = make()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"lr_scheduler": sched})
    train(net, tr, 5)
    tr.save_states(f)
    net2 = make()
    tr2 = mx.gluon.Trainer(net2.collect_params(), "sgd")
    tr2.load_states(f)
    s2 = tr2.optimizer.lr_scheduler
    assert type(s2) is mx.lr_scheduler.FactorScheduler and s2 is not sched
    assert vars(s2) == vars(sched)
    assert tr2.learning_rate == tr.learning_rate
    opt = tr2.optimizer
    assert opt._index_update_count is opt._all_index_update_counts[0]
    assert opt._index_update_count == tr.optimizer._index_update_count
    params2 = net2.collect_params()
    assert opt.param_dict[0] is params2[sorted(params2.keys())[0]]   # sorted order, as MXNet


def test_updater_get_set_states_without_optimizer():
    upd = mx.optimizer.get_updater(mx.optimizer.Adam(learning_rate=0.1))
    w = mx.nd.array([1.0, 2.0])
    upd(0, mx.nd.array([0.5, 0.5]), w)
    upd("name", mx.nd.array([0.5]), mx.nd.array([3.0]))
    blob = upd.get_states()
    upd2 = mx.optimizer.get_updater(mx.optimizer.SGD())
    upd2.set_states(blob)
    assert isinstance(upd2.optimizer, mx.optimizer.SGD)       # not dumped: kept
    assert sorted(upd2.states, key=str) == [0, "name"]
    for a, b in zip(upd.states[0], upd2.states[0]):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert upd2.states_synced == {0: False, "name": False}
    # the content is an NDArray file anyone can inspect
    assert "__mxgrad_states__" in mx.nd.load_frombuffer(blob)


class _Payload:
    """Unpickling this would create a marker file."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_crafted_pickle_states_file_is_refused_and_not_executed(tmp_path):
    marker = tmp_path / "pwned"
    f = tmp_path / "evil.states"
    f.write_bytes(pickle.dumps(({0: _Payload(str(marker))}, None)))
    net = make()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd", {"momentum": 0.9})
    with pytest.raises(FileFormatError, match="pickle") as info:
        tr.load_states(str(f))
    assert isinstance(info.value, MXNetError)
    assert not marker.exists()
    # even with allow_pickle=True only MXNet's classes and plain containers load
    with pytest.warns(UserWarning, match="trust"):
        with pytest.raises(FileFormatError, match="builtins.open|io.open"):
            tr.load_states(str(f), allow_pickle=True)
    assert not marker.exists()
    upd = mx.optimizer.get_updater(mx.optimizer.SGD())
    with pytest.raises(FileFormatError, match="allow_pickle=True"):
        upd.set_states(f.read_bytes())
    assert not marker.exists()
    # the old pickle-based API is gone from the package
    import mxgrad
    root = os.path.dirname(mxgrad.__file__)
    for dirpath, _, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(dirpath, name), encoding="utf-8") as fh:
                    text = fh.read()
                assert "pickle.load" not in text, name
                assert "allow_pickle=True" not in text.replace(
                    "allow_pickle=True``", "").replace("allow_pickle=True.", "") \
                    or name == "_states.py", name


def test_mxnet_pickled_states_load_with_allow_pickle():
    # MXNet's Trainer sorts a ParameterDict's parameters by name: d_bias, d_weight
    net = nn.Dense(2, in_units=3, prefix="d_")
    net.initialize()
    params = [net.bias, net.weight]
    tr = mx.gluon.Trainer(params, "adam")
    with pytest.raises(FileFormatError, match="allow_pickle"):
        tr.load_states(fixture("trainer_sgd.states"))
    with pytest.warns(UserWarning, match="allow_pickle=True"):
        tr.load_states(fixture("trainer_sgd.states"), allow_pickle=True)
    opt = tr.optimizer
    assert type(opt) is mx.optimizer.SGD
    assert (opt.momentum, opt.learning_rate, opt.num_update) == (0.9, 0.1, 1)
    assert opt._index_update_count is opt._all_index_update_counts[0]
    expected = mx.nd.load(fixture("trainer_sgd_expected.nd"))
    states = tr._updaters[0].states
    assert sorted(states) == [0, 1]
    for k, v in expected.items():
        np.testing.assert_array_equal(states[int(k)].asnumpy(), v.asnumpy())
    # momentum continues: one more step with zero gradient keeps mom * 0.9
    net2 = nn.Dense(2, in_units=3, prefix="d_")
    net2.initialize()
    tr2 = mx.gluon.Trainer([net2.bias, net2.weight], "sgd")
    with pytest.warns(UserWarning):
        tr2.load_states(fixture("trainer_sgd.states"), allow_pickle=True)
    w0 = net2.weight.data().asnumpy().copy()
    with mx.autograd.record():
        loss = (net2(mx.nd.zeros((1, 3))) * 0).sum()
    loss.backward()
    tr2.step(1)
    np.testing.assert_allclose(net2.weight.data().asnumpy(),
                               w0 + 0.9 * expected["1"].asnumpy(), rtol=1e-6)


def test_states_of_another_model_are_refused_with_the_name(tmp_path):
    f = str(tmp_path / "t.states")
    big = make((3, 2))
    tr = mx.gluon.Trainer(big.collect_params(), "sgd", {"momentum": 0.9})
    train(big, tr, 1)
    tr.save_states(f)
    other = make((5, 2))          # same count, other shapes
    tr2 = mx.gluon.Trainer(other.collect_params(), "adam", {"learning_rate": 0.3})
    train(other, tr2, 1)
    before = {k: [a.asnumpy().copy() for a in v] for k, v in tr2._updaters[0].states.items()}
    name = sorted(other.collect_params().keys())[0]       # the Trainer's order, as MXNet
    with pytest.raises(ValueError, match=f"'{name}'.*\\(5,\\).*\\(3,\\)") as info:
        tr2.load_states(f)
    assert isinstance(info.value, MXNetError)
    # nothing changed
    assert type(tr2.optimizer) is mx.optimizer.Adam and tr2.learning_rate == 0.3
    for k, v in tr2._updaters[0].states.items():
        for a, b in zip(v, before[k]):
            np.testing.assert_array_equal(a.asnumpy(), b)
    small = nn.Dense(3, in_units=4)   # fewer parameters than the file has states for
    small.initialize()
    tr3 = mx.gluon.Trainer(small.collect_params(), "sgd")
    with pytest.raises(ValueError, match="4 parameters.*this Trainer has 2"):
        tr3.load_states(f)
    # a bigger model whose first parameters have the same shapes is refused too
    bigger = make((3, 2))
    with bigger.name_scope():
        bigger.add(nn.Dense(1, in_units=2))
    bigger[2].initialize()
    tr4 = mx.gluon.Trainer(bigger.collect_params(), "sgd")
    with pytest.raises(ValueError, match="4 parameters.*this Trainer has 6"):
        tr4.load_states(f)
    # without a recorded count (Updater states, MXNet pickles) indices are still checked
    blob = _states.dumps(tr._updaters[0].states)
    with pytest.raises(ValueError, match="parameter 2.*2 parameters"):
        sp = small.collect_params()
        _states.check_states(_states.loads(blob)[0], [sp[k] for k in sorted(sp.keys())], "x")


def test_save_states_is_atomic_and_checked_first(tmp_path):
    f = tmp_path / "t.states"
    f.write_bytes(b"old")
    net = make()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd")
    train(net, tr, 1)
    tr.optimizer.my_callback = lambda: None           # cannot be stored without pickle
    with pytest.raises(TypeError, match="my_callback"):
        tr.save_states(str(f))
    assert f.read_bytes() == b"old" and os.listdir(tmp_path) == ["t.states"]


@pytest.mark.parametrize("blob, what", [
    (b"", "empty"), (b"garbage!" * 4, "not an MXNet NDArray file"),
])
def test_bad_states_files(tmp_path, blob, what):
    f = tmp_path / "bad.states"
    f.write_bytes(blob)
    tr = mx.gluon.Trainer(make().collect_params(), "sgd")
    with pytest.raises(FileFormatError, match=what):
        tr.load_states(str(f))
    mx.nd.save(str(f), {"a": mx.nd.ones((2,))})
    with pytest.raises(FileFormatError, match="not an optimizer states file"):
        tr.load_states(str(f))
    with pytest.raises(FileFormatError, match="not registered"):
        _states._make_optimizer("nosuchopt", {}, 0, "x")


def test_multi_precision_states_round_trip(tmp_path):
    f = str(tmp_path / "mp.states")
    net = nn.Dense(3, in_units=4, dtype="float16")
    net.initialize()
    tr = mx.gluon.Trainer(net.collect_params(), "sgd",
                          {"learning_rate": 0.1, "momentum": 0.9, "multi_precision": True})
    x = mx.nd.ones((2, 4), dtype="float16")
    with mx.autograd.record():
        loss = net(x).sum()
    loss.backward()
    tr.step(2)
    tr.save_states(f)
    tr2 = mx.gluon.Trainer(net.collect_params(), "sgd")
    tr2.load_states(f)
    def same(a, b):
        assert type(a) is type(b)
        if isinstance(a, tuple):
            assert len(a) == len(b)
            for x, y in zip(a, b):
                same(x, y)
        elif a is not None:
            assert a.dtype == b.dtype
            np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    assert sorted(tr._updaters[0].states) == sorted(tr2._updaters[0].states) == [0, 1]
    for k, state in tr._updaters[0].states.items():
        same(state, tr2._updaters[0].states[k])
    assert tr2.optimizer.multi_precision is True


def test_updater_set_states_reads_mxnet_pickle_only_when_asked():
    blob = open(fixture("trainer_sgd.states"), "rb").read()
    upd = mx.optimizer.get_updater(mx.optimizer.Adam())
    with pytest.raises(FileFormatError, match="allow_pickle=True"):
        upd.set_states(blob)
    assert isinstance(upd.optimizer, mx.optimizer.Adam) and upd.states == {}
    with pytest.warns(UserWarning, match="trust"):
        upd.set_states(blob, allow_pickle=True)
    assert isinstance(upd.optimizer, mx.optimizer.SGD) and sorted(upd.states) == [0, 1]


def _tampered(doc_edit):
    import json
    tr = mx.gluon.Trainer(make().collect_params(), "sgd", {"momentum": 0.9})
    names, arrays = mx.ndarray._format.loads(
        _states.dumps({0: mx.nd.ones((3, 4))}, tr.optimizer))
    table = dict(zip(names, arrays))
    doc = json.loads(table["__mxgrad_states__"].tobytes())
    doc_edit(doc)
    table["__mxgrad_states__"] = np.frombuffer(json.dumps(doc).encode(), np.uint8)
    return mx.ndarray._format.dumps(list(table.values()), list(table))


@pytest.mark.parametrize("edit, what", [
    (lambda d: d["optimizer"]["attrs"]["dict"].append(["update", "x"]), "update"),
    (lambda d: d["optimizer"]["attrs"]["dict"].append(["__class__", "x"]), "__class__"),
    (lambda d: d["optimizer"].update({"class": "os"}), "not registered"),
    (lambda d: d.update({"states": {"dict": [[0, {"scalar": ["|O", 1]}]]}}), "dtype"),
    (lambda d: d.update({"states": {"dict": [[0, {"scalar": ["<f4", {"list": []}]}]]}}),
     "scalar value"),
    (lambda d: d.update({"states": {"dict": [[{"list": []}, 1]]}}), "key"),
    (lambda d: d.update({"states": {"dict": [[0, {"nd": "99"}]]}}), "missing array"),
    (lambda d: d.update({"states": {"dict": [[0, {"eval": "1"}]]}}), "unknown entry"),
    (lambda d: d.update({"version": 7}), "version"),
    (lambda d: d.update({"states": [1]}), "not a dict|unknown entry"),
])
def test_tampered_states_descriptions_are_refused(edit, what):
    with pytest.raises(FileFormatError, match=what):
        _states.loads(_tampered(edit))
