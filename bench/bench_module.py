"""Module.fit against the same MLP trained in Gluon, hybridized (issue 25's check "Module.fit
of an MLP no slower than the same network in Gluon"). One epoch over 2048 MNIST-shaped
samples, batch 64, SGD, accuracy metric updated per batch in both. Ratio = time / Gluon's;
best of paired, interleaved rounds (the machine may be shared).

Run: python bench/bench_module.py
"""
from __future__ import annotations

import logging
import os
import sys
import warnings

sys.path.insert(0, os.path.dirname(__file__))
from common import best_time, report  # noqa: E402

import numpy as np  # noqa: E402

import mxgrad as mx  # noqa: E402
from mxgrad import autograd, gluon  # noqa: E402

N, BATCH = 2048, 64


def data():
    rs = np.random.RandomState(0)
    return rs.rand(N, 784).astype("float32"), rs.randint(0, 10, N).astype("float32")


def module_fit(x, y, hidden):
    h = mx.sym.var("data")
    for i, n in enumerate(hidden):
        h = mx.sym.Activation(mx.sym.FullyConnected(h, num_hidden=n, name=f"fc{i}"), "relu")
    out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=10, name="out"),
                               name="softmax")
    mod = mx.mod.Module(out)
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    mod.bind(it.provide_data, it.provide_label)
    mod.init_params(mx.init.Xavier())

    def run():
        mod.fit(it, num_epoch=1, optimizer_params={"learning_rate": 0.1})
    return run


def gluon_fit(x, y, hidden):
    net = gluon.nn.HybridSequential()
    for n in hidden:
        net.add(gluon.nn.Dense(n, activation="relu"))
    net.add(gluon.nn.Dense(10))
    net.initialize(mx.init.Xavier())
    net.hybridize()
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    it = mx.io.NDArrayIter(x, y, batch_size=BATCH)
    metric = mx.metric.Accuracy()

    def run():
        it.reset()
        metric.reset()
        for batch in it:
            data, label = batch.data[0], batch.label[0]
            with autograd.record():
                out = net(data)
                loss = loss_fn(out, label)
            loss.backward()
            trainer.step(BATCH)
            metric.update([label], [out])
    return run


def main():
    logging.getLogger().setLevel(logging.ERROR)     # fit's per-epoch lines
    warnings.simplefilter("ignore")                  # "already initialized" on each refit
    x, y = data()
    rows = []
    for hidden in ((128, 64), (512, 256)):
        run_gluon, run_mod = gluon_fit(x, y, hidden), module_fit(x, y, hidden)
        t_gluon = t_mod = float("inf")
        for _ in range(5):      # paired, interleaved rounds: both see the same machine load
            t_gluon = min(t_gluon, best_time(run_gluon, repeat=2, number=1))
            t_mod = min(t_mod, best_time(run_mod, repeat=2, number=1))
        bench = f"mlp 784-{'-'.join(map(str, hidden))}-10 epoch of {N}, batch {BATCH}"
        rows.append({"bench": bench, "impl": "gluon hybridized", "seconds": t_gluon,
                     "ratio": 1.0})
        rows.append({"bench": bench, "impl": "Module.fit", "seconds": t_mod,
                     "ratio": t_mod / t_gluon})
    report(rows, "Module.fit vs Gluon (hybridized) training loop: time per epoch")


if __name__ == "__main__":
    main()
