"""mx.callback and mx.model's checkpoint files (issue 25 item 4): MXNet's file names, keys
and bytes, MXNet's log lines. Fixtures: tools/make_module_fixtures.py (real MXNet 1.9.1)."""
import logging
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import DTypeError, FileFormatError, FileMissingError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "module")
MLP = os.path.join(DATA, "mlp")


def fixture():
    return np.load(os.path.join(DATA, "mlp.npz"))


def test_load_checkpoint_written_by_mxnet_module_fit():
    sym, arg, aux = mx.model.load_checkpoint(MLP, 2)
    assert sym.list_arguments() == ["data", "fc1_weight", "fc1_bias", "bn1_gamma", "bn1_beta",
                                    "fc2_weight", "fc2_bias", "softmax_label"]
    assert sym.list_auxiliary_states() == ["bn1_moving_mean", "bn1_moving_var"]
    assert sorted(arg) == ["bn1_beta", "bn1_gamma", "fc1_bias", "fc1_weight", "fc2_bias",
                           "fc2_weight"]
    assert sorted(aux) == ["bn1_moving_mean", "bn1_moving_var"]
    f = fixture()
    for name, value in {**arg, **aux}.items():
        np.testing.assert_array_equal(value.asnumpy(), f["fit1:" + name])
    # the epoch-1 file holds other (earlier) values
    _, arg1, _ = mx.model.load_checkpoint(MLP, 1)
    assert not np.array_equal(arg1["fc2_weight"].asnumpy(), f["fit1:fc2_weight"])


def test_save_checkpoint_writes_mxnets_bytes(tmp_path):
    sym, arg, aux = mx.model.load_checkpoint(MLP, 2)
    prefix = str(tmp_path / "again")
    mx.model.save_checkpoint(prefix, 2, sym, arg, aux)
    with open(MLP + "-0002.params", "rb") as a, open(prefix + "-0002.params", "rb") as b:
        assert a.read() == b.read()
    sym2, arg2, aux2 = mx.model.load_checkpoint(prefix, 2)
    assert sym2.tojson() == sym.tojson()
    assert list(arg2) == list(arg) and list(aux2) == list(aux)


def test_load_params_keys_and_errors(tmp_path):
    arg, aux = mx.model.load_params(MLP, 1)
    assert len(arg) == 6 and len(aux) == 2
    with pytest.raises(FileMissingError, match="0007.params"):
        mx.model.load_params(MLP, 7)
    bad = str(tmp_path / "bad")
    mx.nd.save(bad + "-0000.params", {"fc_weight": mx.nd.ones((1,))})
    with pytest.raises(FileFormatError, match="no 'arg:' or 'aux:' prefix"):
        mx.model.load_params(bad, 0)
    mx.nd.save(bad + "-0001.params", [mx.nd.ones((1,))])
    with pytest.raises(FileFormatError, match="list of arrays"):
        mx.model.load_params(bad, 1)
    with pytest.raises(DTypeError, match="arg_params"):
        mx.model.save_checkpoint(bad, 2, None, {"w": np.ones(1)}, {})


def test_do_checkpoint_every_period(tmp_path):
    prefix = str(tmp_path / "net")
    cb = mx.callback.do_checkpoint(prefix, period=2)
    net = mx.sym.var("data") * 2
    for epoch in range(4):
        cb(epoch, net, {"w": mx.nd.full((2,), epoch)}, {"m": mx.nd.zeros((1,))})
    assert sorted(os.listdir(tmp_path)) == ["net-0002.params", "net-0004.params",
                                            "net-symbol.json"]
    _, arg, aux = mx.model.load_checkpoint(prefix, 4)
    assert arg["w"].asnumpy().tolist() == [3.0, 3.0] and list(aux) == ["m"]


def test_module_checkpoint_calls_save_checkpoint():
    calls = []

    class Mod:
        def save_checkpoint(self, prefix, epoch, states):
            calls.append((prefix, epoch, states))

    cb = mx.callback.module_checkpoint(Mod(), "p", period=3, save_optimizer_states=True)
    for epoch in range(7):
        cb(epoch)
    assert calls == [("p", 3, True), ("p", 6, True)]


def _param(nbatch, metric, epoch=1):
    return mx.model.BatchEndParam(epoch=epoch, nbatch=nbatch, eval_metric=metric,
                                  locals=None)


def test_speedometer_logs_speed_and_metric_then_resets(caplog):
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([0, 1])], [mx.nd.array([[1, 0], [1, 0]])])
    speed = mx.callback.Speedometer(batch_size=4, frequent=2)
    with caplog.at_level(logging.INFO):
        for n in range(5):
            speed(_param(n, metric))
    lines = [r.getMessage() for r in caplog.records]
    assert len(lines) == 2
    assert lines[0].startswith("Epoch[1] Batch [0-2]\tSpeed: ")
    assert lines[0].endswith(" samples/sec\taccuracy=0.500000")
    assert lines[1].startswith("Epoch[1] Batch [2-4]\tSpeed: ")
    assert lines[1].endswith("accuracy=nan")          # auto_reset cleared the local values
    assert metric.get_global()[1] == 0.5
    speed(_param(0, metric))                         # a new epoch restarts the clock
    assert speed.init and speed.last_count == 0 and len(caplog.records) == 2


def test_speedometer_without_reset_and_without_metric(caplog):
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([1])], [mx.nd.array([[0, 1]])])
    speed = mx.callback.Speedometer(batch_size=1, frequent=1, auto_reset=False)
    bare = mx.callback.Speedometer(batch_size=1, frequent=1)
    with caplog.at_level(logging.INFO):
        for n in range(2):
            speed(_param(n, metric))
            bare(_param(n, None))
    lines = [r.getMessage() for r in caplog.records]
    assert lines[0].startswith("Epoch[1] Batch [0-1]\tSpeed: ")
    assert lines[0].endswith("accuracy=1.000000")
    assert lines[1].startswith("Iter[1] Batch [1]\tSpeed: ")


def test_log_train_metric_and_progress_bar(caplog):
    metric = mx.metric.Accuracy()
    metric.update([mx.nd.array([1])], [mx.nd.array([[0, 1]])])
    cb = mx.callback.log_train_metric(2, auto_reset=True)
    bar = mx.callback.ProgressBar(total=4, length=8)
    with caplog.at_level(logging.INFO):
        cb(_param(1, metric))
        cb(_param(2, metric))
        cb(_param(4, metric))
        bar(_param(3, None))
        mx.callback.LogValidationMetricsCallback()(_param(3, metric))
    lines = [r.getMessage() for r in caplog.records]
    assert lines == ["Iter[1] Batch[2] Train-accuracy=1.000000",
                     "Iter[1] Batch[4] Train-accuracy=nan",
                     "[======--] 75%\r",
                     "Epoch[1] Validation-accuracy=nan"]
