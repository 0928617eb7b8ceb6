"""The BLAS thread policy, measured idle and loaded (another process burning one core).

For each workload, three settings of the BLAS pool in the same process, in alternating
rounds (medians):

* ``all cores``: what NumPy does on its own (OpenBLAS: one thread per core),
* ``1 thread``: ``mx.set_num_threads(1)``,
* ``mxgrad``: the default policy (``mx.set_num_threads(None)``, see ``mxgrad/_threads.py``).

Workloads: the demo (``python -m mxgrad.demo --quiet --epochs 5``, in-process), an MLP
784-256-10 and d2l's LeNet training step (batch 128), notebook 03's CNN step (batch 64 of
1x8x8 digits), a VGG-style 3x3 convolution step (16x64x56x56 -> 128 channels) and a 2048^2
float32 GEMM (``nd.dot``).

Run: ``python bench/bench_threads.py`` (~1-2 minutes; ``BENCH_ROUNDS``, default 5). Prints one JSON line per measurement
and a Markdown table.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "MXNET_OMP_MAX_THREADS"):
    os.environ.pop(_v, None)     # the policy under test decides, not the caller's shell

import numpy as np  # noqa: E402

import mxgrad as mx  # noqa: E402
from mxgrad import _threads, autograd, gluon, nd  # noqa: E402
from mxgrad.gluon import nn  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_gluon import lenet  # noqa: E402

CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
SETTINGS = [("all cores", CORES), ("1 thread", 1), ("mxgrad", None)]


def _stepper(net, x, y, loss=None):
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.05})
    loss = loss or gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with autograd.record():
            out = loss(net(x), y)
        out.backward()
        trainer.step(x.shape[0])
        out.wait_to_read()
    return step


def workloads():
    rng = np.random.default_rng(0)
    mlp = nn.HybridSequential()
    mlp.add(nn.Dense(256, activation="relu", in_units=784), nn.Dense(10, in_units=256))
    x784 = nd.array(rng.standard_normal((128, 784)))
    y10 = nd.array(rng.integers(0, 10, 128))
    cnn = nn.HybridSequential()     # notebook 03's CNN
    cnn.add(nn.Conv2D(16, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(2),
            nn.Conv2D(32, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
            nn.MaxPool2D(2),
            nn.Flatten(), nn.Dropout(0.3), nn.Dense(10))
    vgg = nn.HybridSequential()
    vgg.add(nn.Conv2D(128, kernel_size=3, padding=1, in_channels=64, activation="relu"))
    a = nd.array(rng.standard_normal((2048, 2048)))
    b = nd.array(rng.standard_normal((2048, 2048)))
    from mxgrad import demo
    return [
        ("demo --epochs 5", lambda: demo.main(["--quiet", "--epochs", "5"]), 3),
        ("MLP 784-256-10 step, b128", _stepper(mlp, x784, y10), 60),
        ("LeNet step, b128", _stepper(lenet(), nd.array(rng.standard_normal((128, 1, 28, 28))),
                                      y10), 20),
        ("notebook 03 CNN step, b64", _stepper(cnn, nd.array(rng.standard_normal((64, 1, 8, 8))),
                                               y10[:64]), 40),
        ("VGG-style conv step 16x64x56x56", _stepper(vgg, nd.array(
            rng.standard_normal((16, 64, 56, 56))), nd.zeros((16, 128, 56, 56)),
            gluon.loss.L2Loss()), 2),
        ("2048^2 GEMM (nd.dot)", lambda: nd.dot(a, b).wait_to_read(), 5),
    ]


def measure(fn, reps, rounds):
    """Median per-call seconds for each setting, rounds alternating between settings."""
    times = {name: [] for name, _ in SETTINGS}
    for name, n in SETTINGS:     # warm up each setting once
        mx.set_num_threads(n)
        fn()
    for _ in range(rounds):
        for name, n in SETTINGS:
            mx.set_num_threads(n)
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            times[name].append((time.perf_counter() - t0) / reps)
    mx.set_num_threads(None)
    return {name: statistics.median(v) for name, v in times.items()}


def run(load: str, rounds: int):
    """Each workload's medians, with the cores other processes kept busy meanwhile (this
    machine may be shared: an 'idle' row whose other load is ~1 was not idle)."""
    rows = []
    for name, fn, reps in workloads():
        probe = _threads._Load()
        probe.look()
        probe.WINDOW = 0.0
        med = measure(fn, reps, rounds)
        row = {"workload": name, "load": load, **{k: round(v * 1e3, 3) for k, v in med.items()},
               "other processes (cores)": round(probe.other_cores(), 2)}
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main() -> None:
    rounds = int(os.environ.get("BENCH_ROUNDS", "5"))
    print(f"# {CORES} cores; times in ms (median of {rounds} rounds)", flush=True)
    rows = run("idle", rounds)
    burner = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        time.sleep(0.5)
        rows += run("loaded", rounds)
    finally:
        burner.terminate()
        burner.wait()
    print()
    names = [n for n, _ in SETTINGS]
    print("| workload | " + " | ".join(f"idle: {n}" for n in names) + " | "
          + " | ".join(f"loaded: {n}" for n in names) + " | other load idle / loaded |")
    print("|---" * (2 + 2 * len(names)) + "|")
    for w in dict.fromkeys(r["workload"] for r in rows):
        cells, other = [], []
        for load in ("idle", "loaded"):
            r = next(r for r in rows if r["workload"] == w and r["load"] == load)
            cells += [f"{r[n]:.3g}" for n in names]
            other.append(f"{r['other processes (cores)']:.1f}")
        print(f"| {w} | " + " | ".join(cells) + f" | {' / '.join(other)} |")


if __name__ == "__main__":
    main()
