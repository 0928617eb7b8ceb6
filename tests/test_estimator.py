"""gluon.contrib.estimator: the same weights and metrics as a hand-written loop, handler
call order and priorities, epochs/batches stopping, validation, logging (with and
without tqdm), checkpoints that load back and resume to the same result, early
stopping, and the errors."""
import io
import logging
import os
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError, StateError
from mxgrad.gluon import nn
from mxgrad.gluon.contrib.estimator import (
    BatchEnd, BatchBegin, CheckpointHandler, EarlyStoppingHandler, EpochBegin, EpochEnd,
    Estimator, GradientUpdateHandler, LoggingHandler, MetricHandler, StoppingHandler,
    TrainBegin, TrainEnd, ValidationHandler)
from mxgrad.gluon.contrib.estimator import event_handler as eh_module
from mxgrad.gluon.data import ArrayDataset, DataLoader

RNG = np.random.RandomState(7)
X = RNG.normal(size=(12, 4)).astype(np.float32)
Y = (X[:, 0] > 0).astype(np.float32) + (X[:, 1] > 0.5).astype(np.float32)   # 3 classes
XV = RNG.normal(size=(8, 4)).astype(np.float32)
YV = (XV[:, 0] > 0).astype(np.float32) + (XV[:, 1] > 0.5).astype(np.float32)


def loader(x=X, y=Y, bs=4):
    return DataLoader(ArrayDataset(nd.array(x), nd.array(y)), batch_size=bs)


def make_net(seed=0):
    net = nn.Dense(3, in_units=4)
    net.initialize()
    rs = np.random.RandomState(seed)
    net.weight.set_data(nd.array(rs.normal(scale=0.3, size=(3, 4))))
    net.bias.set_data(nd.zeros((3,)))
    return net


def make_est(net=None, lr=0.1, **kwargs):
    net = net or make_net()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr,
                                                          "momentum": 0.9})
    est = Estimator(net, gluon.loss.SoftmaxCrossEntropyLoss(), trainer=trainer, **kwargs)
    est.logger.handlers[:] = [logging.NullHandler()]
    return est


def params_of(net):
    return {k.split("_", 1)[1]: p.data().asnumpy().copy()
            for k, p in net.collect_params().items()}


def manual_fit(net, epochs, lr=0.1):
    """The loop the Estimator replaces; returns the per-epoch training accuracies."""
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": lr,
                                                          "momentum": 0.9})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    accs, losses = [], []
    for _ in range(epochs):
        correct = total = 0
        loss_sum = 0.0
        for x, y in loader():
            with autograd.record():
                out = net(x)
                loss = loss_fn(out, y)
            loss.backward()
            trainer.step(x.shape[0])
            correct += int((out.asnumpy().argmax(1) == y.asnumpy()).sum())
            total += x.shape[0]
            loss_sum += float(loss.asnumpy().sum())
        accs.append(correct / total)
        losses.append(loss_sum / total)
    return accs, losses, trainer


def accuracy(net, x, y):
    return float((net(nd.array(x)).asnumpy().argmax(1) == y).mean())


def test_fit_matches_hand_written_loop():
    est = make_est()
    est.fit(loader(), epochs=3)
    ref = make_net()
    accs, losses, _ = manual_fit(ref, 3)
    got, want = params_of(est.net), params_of(ref)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6, atol=1e-7)
    names = [m.name for m in est.train_metrics]
    assert names == ["training accuracy", "training softmaxcrossentropyloss"]
    assert est.train_metrics[0].get()[1] == pytest.approx(accs[-1])
    assert est.train_metrics[1].get()[1] == pytest.approx(losses[-1], rel=1e-5)
    assert [m.name for m in est.val_metrics] == ["validation accuracy",
                                                 "validation softmaxcrossentropyloss"]


class Recorder(TrainBegin, EpochBegin, BatchBegin, BatchEnd, EpochEnd, TrainEnd):
    def __init__(self, log, tag="rec", priority=0):
        self.log, self.tag, self.priority = log, tag, priority

    def train_begin(self, estimator, *args, **kwargs):
        self.log.append((self.tag, "train_begin"))

    def epoch_begin(self, estimator, *args, **kwargs):
        self.log.append((self.tag, "epoch_begin"))

    def batch_begin(self, estimator, *args, **kwargs):
        assert kwargs["batch"][0].shape == (4, 4)
        self.log.append((self.tag, "batch_begin"))

    def batch_end(self, estimator, *args, **kwargs):
        assert set(kwargs) == {"batch", "pred", "label", "loss"}
        self.log.append((self.tag, "batch_end"))
        return False

    def epoch_end(self, estimator, *args, **kwargs):
        self.log.append((self.tag, "epoch_end"))
        return False

    def train_end(self, estimator, *args, **kwargs):
        self.log.append((self.tag, "train_end"))


def test_handler_call_order():
    log = []
    make_est().fit(loader(), epochs=2, event_handlers=[Recorder(log)])
    epoch = ["epoch_begin"] + ["batch_begin", "batch_end"] * 3 + ["epoch_end"]
    assert [e for _, e in log] == ["train_begin"] + epoch * 2 + ["train_end"]


def test_priorities_order_handlers_around_the_update():
    seen = {}

    class Snap(BatchEnd):
        def __init__(self, tag, priority):
            self.tag, self.priority = tag, priority

        def batch_end(self, estimator, *args, **kwargs):
            seen.setdefault(self.tag, estimator.net.weight.data().asnumpy().copy())

    est = make_est(lr=0.5)
    w0 = est.net.weight.data().asnumpy().copy()
    est.fit(loader(), batches=1, event_handlers=[Snap("late", 0), Snap("early", -3000)])
    np.testing.assert_array_equal(seen["early"], w0)      # before GradientUpdateHandler
    # after it: the first SGD step, w - lr * grad / batch_size (momentum starts at 0)
    grad = est.net.weight.grad().asnumpy()
    np.testing.assert_allclose(seen["late"], w0 - 0.5 * grad / 4, rtol=1e-6)


def test_ties_keep_the_given_order_and_defaults_sort_by_priority():
    log = []
    est = make_est()
    est.fit(loader(), batches=1, event_handlers=[Recorder(log, "a"), Recorder(log, "b")])
    assert log[:2] == [("a", "train_begin"), ("b", "train_begin")]
    handlers = est._prepare_default_handlers(None, [])
    assert [type(h).__name__ for h in handlers] == [
        "GradientUpdateHandler", "MetricHandler", "StoppingHandler", "LoggingHandler"]


def test_fit_by_batches_crosses_epochs():
    log = []
    est = make_est()
    est.fit(loader(), batches=5, event_handlers=[Recorder(log)])
    events = [e for _, e in log]
    assert events.count("batch_end") == 5 and events.count("epoch_end") == 2
    assert est.trainer.optimizer.num_update == 5


def test_validation_each_epoch_and_evaluate():
    est = make_est()
    est.fit(loader(), val_data=loader(XV, YV), epochs=2)
    acc = accuracy(est.net, XV, YV)
    assert est.val_metrics[0].get() == ("validation accuracy", pytest.approx(acc))
    loss = gluon.loss.SoftmaxCrossEntropyLoss()(est.net(nd.array(XV)), nd.array(YV))
    assert est.val_metrics[1].get()[1] == pytest.approx(float(loss.asnumpy().mean()),
                                                        rel=1e-5)
    for m in est.val_metrics:
        m.reset()
    est.evaluate(loader(XV, YV))
    assert est.val_metrics[0].get()[1] == pytest.approx(acc)


def test_validation_every_n_batches():
    calls = []
    est = make_est()
    handler = ValidationHandler(loader(XV, YV), lambda **kw: calls.append(sorted(kw)),
                                epoch_period=None, batch_period=2)
    est.fit(loader(), epochs=2, event_handlers=[handler])
    assert calls == [["batch_axis", "event_handlers", "val_data"]] * 3   # batches 2, 4, 6


def log_lines(est):
    stream = io.StringIO()
    est.logger.handlers[:] = [logging.StreamHandler(stream)]
    return stream


def test_logging_lines_without_tqdm(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "tqdm", None)     # tqdm not installed
    est = make_est()
    stream = log_lines(est)
    est.fit(loader(), val_data=loader(XV, YV), epochs=2)
    lines = stream.getvalue().splitlines()
    assert lines[0] == "Training begin: using optimizer SGD with current learning rate 0.1000 "
    assert lines[1] == "Train for 2 epochs."
    assert lines[2] == "[Epoch 0] Begin, current learning rate: 0.1000"
    acc = est.train_metrics[0].get()[1]
    # validation (priority -1000) runs before the logging of the epoch (priority inf)
    assert lines[3] == "Validation Begin"
    assert lines[4].startswith("Validation finished in ") and "validation accuracy" in lines[4]
    assert lines[5].startswith("[Epoch 0] Finished in ")
    assert "training accuracy: " in lines[5] and "training softmaxcrossentropyloss: " in lines[5]
    assert lines[6] == "[Epoch 1] Begin, current learning rate: 0.1000"
    assert lines[-1].startswith("Train finished using total ")
    assert lines[-1].endswith(f"training accuracy: {acc:.4f}, training "
                              f"softmaxcrossentropyloss: {est.train_metrics[1].get()[1]:.4f}")
    assert capsys.readouterr().err == ""        # no progress bar


def test_logging_every_n_batches(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    est = make_est()
    stream = log_lines(est)
    est.fit(loader(), epochs=1,
            event_handlers=[LoggingHandler(log_interval=2, metrics=est.train_metrics)])
    batch_lines = [l for l in stream.getvalue().splitlines() if "[Batch" in l]
    assert [l.split(" time")[0] for l in batch_lines] == [
        "[Epoch 0][Batch 0][Samples 4]", "[Epoch 0][Batch 2][Samples 12]"]


def test_progress_bar_with_tqdm(capsys):
    pytest.importorskip("tqdm")     # the test extra installs it
    est = make_est()
    stream = log_lines(est)
    est.fit(loader(), epochs=2)
    err = capsys.readouterr().err
    assert "[Epoch 0]" in err and "[Epoch 1]" in err and "3/3" in err
    assert "training accuracy" in err
    assert "[Epoch 1] Begin" in stream.getvalue()      # the line log stays


def test_progress_true_without_tqdm_is_clear(monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)
    est = make_est()
    with pytest.raises(StateError, match=r"mxgrad\[progress\]"):
        est.fit(loader(), epochs=1, event_handlers=[
            LoggingHandler(metrics=est.train_metrics, progress=True)])


def test_checkpoints_rotate_and_load_back(tmp_path):
    est = make_est()
    ck = CheckpointHandler(str(tmp_path), model_prefix="m", max_checkpoints=2)
    est.fit(loader(), epochs=3, event_handlers=[ck])
    assert sorted(os.listdir(tmp_path)) == ["m-epoch1batch6.params", "m-epoch1batch6.states",
                                            "m-epoch2batch9.params", "m-epoch2batch9.states"]
    net = make_net(seed=5)
    net.load_parameters(str(tmp_path / "m-epoch2batch9.params"))
    got, want = params_of(net), params_of(est.net)
    for k in want:
        np.testing.assert_array_equal(got[k], want[k])
    # the trainer states (momentum) load back: one more step agrees with the original
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1,
                                                          "momentum": 0.9})
    trainer.load_states(str(tmp_path / "m-epoch2batch9.states"))
    x, y = next(iter(loader()))
    for n, t in ((net, trainer), (est.net, est.trainer)):
        with autograd.record():
            loss = gluon.loss.SoftmaxCrossEntropyLoss()(n(x), y)
        loss.backward()
        t.step(4)
    got, want = params_of(net), params_of(est.net)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-6)


def test_checkpoint_every_n_batches(tmp_path):
    est = make_est()
    est.fit(loader(), batches=5, event_handlers=[
        CheckpointHandler(str(tmp_path), epoch_period=None, batch_period=2)])
    assert sorted(f for f in os.listdir(tmp_path) if f.endswith(".params")) == [
        "model-epoch0batch1.params", "model-epoch1batch3.params"]


def test_save_best_keeps_the_best_epoch(tmp_path):
    snapshots = []

    class Snap(EpochEnd):
        priority = -10      # before the CheckpointHandler (0); params are final anyway

        def epoch_end(self, estimator, *args, **kwargs):
            snapshots.append((estimator.train_metrics[1].get()[1], params_of(estimator.net)))

    est = make_est(lr=0.05)
    monitor = est.train_metrics[1]           # the training loss: 'auto' means lower is better
    ck = CheckpointHandler(str(tmp_path), monitor=monitor, save_best=True)
    assert ck.mode == "min"
    est.fit(loader(), epochs=4, event_handlers=[ck, Snap()])
    best_loss, best_params = min(snapshots, key=lambda s: s[0])
    assert ck.best == best_loss
    net = make_net(seed=5)
    net.load_parameters(str(tmp_path / "model-best.params"))
    for k, v in params_of(net).items():
        np.testing.assert_array_equal(v, best_params[k])
    assert os.path.exists(tmp_path / "model-best.states")
    acc_ck = CheckpointHandler(str(tmp_path / "b"), monitor=est.train_metrics[0],
                               save_best=True)
    assert acc_ck.mode == "max"


def test_resume_gives_the_same_result_as_one_run(tmp_path):
    one = make_est()
    one.fit(loader(), epochs=4)
    first = make_est()
    first.fit(loader(), epochs=2, event_handlers=[CheckpointHandler(str(tmp_path))])
    second = make_est(net=make_net(seed=9))           # other weights: all must come back
    ck = CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)
    log = []
    second.fit(loader(), epochs=4, event_handlers=[ck, Recorder(log)])
    assert [e for _, e in log].count("epoch_end") == 2     # only the remaining epochs
    got, want = params_of(second.net), params_of(one.net)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-7)
    # numbering continues: epochs 2 and 3 of the whole run
    assert "model-epoch3batch12.params" in os.listdir(tmp_path)
    assert "model-epoch2batch9.params" in os.listdir(tmp_path)


def test_resume_errors(tmp_path):
    est = make_est()
    est.fit(loader(), epochs=2, event_handlers=[CheckpointHandler(str(tmp_path))])
    with pytest.raises(StateError, match="already reached 2 epochs"):
        make_est().fit(loader(), epochs=2, event_handlers=[
            CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)])
    with pytest.raises(StateError, match="same\\s+kind of period"):
        make_est().fit(loader(), batches=4, event_handlers=[
            CheckpointHandler(str(tmp_path), resume_from_checkpoint=True)])


def test_early_stopping():
    log = []
    est = make_est(lr=0.0)                      # nothing learns: the loss stays put
    stop = EarlyStoppingHandler(est.train_metrics[1], patience=2)
    est.fit(loader(), epochs=10, event_handlers=[stop, Recorder(log)])
    # epoch 0 improves on +inf, epochs 1 and 2 do not: stop after 3 epochs
    assert [e for _, e in log].count("epoch_end") == 3
    assert stop.stopped_epoch == 2 and stop.mode == "min"
    est2 = make_est(lr=0.1)
    stop2 = EarlyStoppingHandler(est2.train_metrics[0], patience=100)
    assert stop2.mode == "max"
    est2.fit(loader(), epochs=3, event_handlers=[stop2])
    assert not stop2.stop_training and stop2.best > 0


def test_errors():
    net = make_net()
    with pytest.raises(TypeError, match="gluon.loss.Loss"):
        Estimator(net, "l2", trainer=gluon.Trainer(net.collect_params(), "sgd"))
    est = make_est()
    with pytest.raises(StateError, match="exactly one of epochs"):
        est.fit(loader(), epochs=1, batches=2)
    with pytest.raises(StateError, match="exactly one of epochs"):
        est.fit(loader())
    with pytest.raises(TypeError, match="iterator"):
        est.fit(iter(loader()), epochs=1)
    with pytest.raises(TypeError, match="EventHandler"):
        est.fit(loader(), epochs=1, event_handlers=[object()])
    with pytest.raises(StateError, match="not one of the Estimator's"):
        est.fit(loader(), epochs=1,
                event_handlers=[MetricHandler([mx.metric.Accuracy()]),
                                EarlyStoppingHandler(mx.metric.Accuracy())])
    with pytest.raises(StateError, match="monitor"):
        EarlyStoppingHandler(None)
    with pytest.raises(StateError, match="log_interval"):
        LoggingHandler(log_interval=0)


def test_save_best_needs_a_monitor(tmp_path):
    with pytest.raises(StateError, match="monitor") as err:
        CheckpointHandler(str(tmp_path / "ck"), save_best=True)
    assert isinstance(err.value, (MXNetError, ValueError))
    assert not (tmp_path / "ck").exists()


def test_defaults_initialize_and_warn_about_trainer():
    net = nn.Dense(2)
    with pytest.warns(UserWarning, match="default SGD"):
        est = Estimator(net, gluon.loss.L2Loss())
    est.logger.handlers[:] = [logging.NullHandler()]
    assert [m.name for m in est.train_metrics] == ["training l2loss"]
    x = nd.array(X[:, :3]); y = nd.array(X[:, 3:4].repeat(2, axis=1))
    est.fit(DataLoader(ArrayDataset(x, y), batch_size=6), epochs=2)
    assert est.net.weight.shape == (2, 3)          # deferred init done by the first batch
    assert est.trainer.optimizer.num_update == 4
    assert est.trainer.learning_rate == 0.001
    assert est.context == [mx.cpu()]


def test_demo_with_the_estimator_matches_the_loop(capsys):
    from mxgrad import demo
    a = demo.main(["--epochs", "2", "--seed", "3", "--quiet"])
    b = demo.main(["--epochs", "2", "--seed", "3", "--quiet", "--estimator"])
    np.testing.assert_allclose(b["losses"], a["losses"], rtol=1e-6)
    assert b["test_accs"] == a["test_accs"] and b["train_accs"] == a["train_accs"]
    assert capsys.readouterr().out == ""
    demo.main(["--epochs", "1", "--estimator", "--batch-size", "128"])
    out = capsys.readouterr().out
    assert "Train for 1 epochs." in out and "[Epoch 0] train acc" in out
    assert "final test accuracy" in out


def test_two_contexts_train_like_one():
    """Each batch is split across the contexts; the slices' gradients add up."""
    results = []
    for ctx in (None, [mx.cpu(0), mx.cpu(1)]):
        net = make_net()
        est = make_est(net=net, context=ctx)
        est.fit(loader(), epochs=2)
        results.append((params_of(est.net), est.train_metrics[0].get()[1],
                        est.trainer.optimizer.num_update))
    (p1, acc1, n1), (p2, acc2, n2) = results
    for k in p1:
        np.testing.assert_allclose(p2[k], p1[k], rtol=1e-5, atol=1e-7)
    assert acc1 == acc2 and n1 == n2 == 6


def test_val_net_and_val_loss():
    net = make_net()
    twice = gluon.loss.SoftmaxCrossEntropyLoss(weight=2.0)
    est = make_est(net=net, val_loss=twice)
    est.evaluate(loader(XV, YV))
    base = gluon.loss.SoftmaxCrossEntropyLoss()(net(nd.array(XV)), nd.array(YV))
    assert est.val_metrics[1].get()[1] == pytest.approx(2 * float(base.asnumpy().mean()),
                                                        rel=1e-5)
    other = make_net(seed=3)
    est2 = make_est(net=make_net(), val_net=other)
    est2.evaluate(loader(XV, YV))
    assert est2.val_metrics[0].get()[1] == pytest.approx(accuracy(other, XV, YV))


def test_crash_while_saving_keeps_earlier_checkpoints(tmp_path, monkeypatch):
    est = make_est()
    real_save = est.trainer.save_states
    calls = []

    def failing_save(fname):
        calls.append(fname)
        if len(calls) == 3:       # the third checkpoint dies between its two files
            raise OSError("disk full")
        real_save(fname)

    monkeypatch.setattr(est.trainer, "save_states", failing_save)
    with pytest.raises(OSError, match="disk full"):
        est.fit(loader(), epochs=5, event_handlers=[
            CheckpointHandler(str(tmp_path), max_checkpoints=2)])
    names = sorted(os.listdir(tmp_path))
    # the two finished checkpoints are kept (no rotation happened), the third has no states
    assert "model-epoch0batch3.states" in names and "model-epoch1batch6.states" in names
    assert "model-epoch2batch9.states" not in names
    # resuming takes the newest complete checkpoint: epoch 1
    again = make_est(net=make_net(seed=4))
    log = []
    again.fit(loader(), epochs=4, event_handlers=[
        CheckpointHandler(str(tmp_path), resume_from_checkpoint=True), Recorder(log)])
    assert [e for _, e in log].count("epoch_end") == 2
    ref = make_est()
    ref.fit(loader(), epochs=4)
    for k, v in params_of(ref.net).items():
        np.testing.assert_allclose(params_of(again.net)[k], v, rtol=1e-5, atol=1e-7)
