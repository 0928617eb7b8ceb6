"""LSTM training-step benchmark: ``gluon.rnn.LSTM`` (2 layers, hidden 256, input 256,
sequence 35, batch 32; forward, L2 loss, backward, SGD step) against PyTorch's ``nn.LSTM``
with the same weights, when torch is installed. One thread each; the two are timed in
interleaved rounds (so machine load hits both alike) and the minimum and median over rounds
are reported, with their ratios (target: mxgrad <= 1.5x PyTorch).

Before timing, one step of each from the same weights must agree (loss and updated weights).

Run: OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 MKL_NUM_THREADS=1 python bench/bench_rnn.py
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from common import torch_or_none  # noqa: E402  (sets the thread variables first)

import numpy as np  # noqa: E402

from mxgrad import autograd, gluon, nd  # noqa: E402

T, N, I, H, L = 35, 32, 256, 256, 2
LR = 0.1
ROUNDS = int(os.environ.get("ROUNDS", "7"))
STEPS = int(os.environ.get("STEPS", "3"))


def make_weights(rng):
    w = {}
    for layer in range(L):
        ni = I if layer == 0 else H
        s = 1.0 / np.sqrt(H)
        w[f"l{layer}_i2h_weight"] = rng.uniform(-s, s, (4 * H, ni)).astype(np.float32)
        w[f"l{layer}_h2h_weight"] = rng.uniform(-s, s, (4 * H, H)).astype(np.float32)
        w[f"l{layer}_i2h_bias"] = rng.uniform(-s, s, (4 * H,)).astype(np.float32)
        w[f"l{layer}_h2h_bias"] = rng.uniform(-s, s, (4 * H,)).astype(np.float32)
    return w


class MxStep:
    def __init__(self, weights, x, y):
        self.layer = gluon.rnn.LSTM(H, num_layers=L, input_size=I, prefix="lstm_")
        self.layer.initialize()
        for k, v in weights.items():
            self.layer.collect_params()["lstm_" + k].set_data(nd.array(v))
        self.trainer = gluon.Trainer(self.layer.collect_params(), "sgd",
                                     {"learning_rate": LR})
        self.x, self.y = nd.array(x), nd.array(y)
        self.loss = gluon.loss.L2Loss(batch_axis=1)

    def __call__(self):
        with autograd.record():
            loss = self.loss(self.layer(self.x), self.y)
        loss.backward()
        self.trainer.step(N)
        return loss

    def weights(self):
        return {k[len("lstm_"):]: p.data().asnumpy() for k, p in
                self.layer.collect_params().items()}


class TorchStep:
    def __init__(self, torch, weights, x, y):
        self.torch = torch
        self.lstm = torch.nn.LSTM(I, H, num_layers=L)
        with torch.no_grad():
            for layer in range(L):
                for ours, theirs in (("i2h_weight", "weight_ih"), ("h2h_weight", "weight_hh"),
                                     ("i2h_bias", "bias_ih"), ("h2h_bias", "bias_hh")):
                    getattr(self.lstm, f"{theirs}_l{layer}").copy_(
                        torch.from_numpy(weights[f"l{layer}_{ours}"]))
        self.opt = torch.optim.SGD(self.lstm.parameters(), lr=LR)
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def __call__(self):
        self.opt.zero_grad()
        out, _ = self.lstm(self.x)
        # gluon's L2Loss: mean over all but the batch axis of (out - y)^2 / 2, then the
        # Trainer divides the summed gradient by the batch size
        loss = ((out - self.y) ** 2).mean(dim=(0, 2)) / 2
        loss.sum().div(N).backward()
        self.opt.step()
        return loss

    def weights(self):
        w = {}
        for layer in range(L):
            for ours, theirs in (("i2h_weight", "weight_ih"), ("h2h_weight", "weight_hh"),
                                 ("i2h_bias", "bias_ih"), ("h2h_bias", "bias_hh")):
                w[f"l{layer}_{ours}"] = getattr(self.lstm, f"{theirs}_l{layer}").detach().numpy()
        return w


def timed(fn, steps):
    t0 = time.perf_counter()
    for _ in range(steps):
        fn()
    return (time.perf_counter() - t0) / steps


def main():
    rng = np.random.default_rng(0)
    weights = make_weights(rng)
    x = rng.standard_normal((T, N, I)).astype(np.float32)
    y = rng.standard_normal((T, N, H)).astype(np.float32) * 0.1
    mxs = MxStep(weights, x, y)
    torch = torch_or_none()
    ths = TorchStep(torch, weights, x, y) if torch is not None else None
    if ths is not None:   # same math first
        l1 = mxs().asnumpy()
        l2 = ths().detach().numpy()
        np.testing.assert_allclose(l1, l2, rtol=1e-4, atol=1e-6)
        w1, w2 = mxs.weights(), ths.weights()
        for k in w1:
            np.testing.assert_allclose(w1[k], w2[k], rtol=1e-4, atol=1e-5, err_msg=k)
        print("check: one training step agrees with PyTorch (loss and updated weights)")
        ths()
    mxs()
    times = {"mxgrad": [], "torch": []}
    for _ in range(ROUNDS):
        times["mxgrad"].append(timed(mxs, STEPS))
        if ths is not None:
            times["torch"].append(timed(ths, STEPS))
    rows = []
    for impl, ts in times.items():
        if not ts:
            continue
        rows.append({"bench": f"lstm_train_step_L{L}_H{H}_T{T}_N{N}", "impl": impl,
                     "min_s": min(ts), "median_s": statistics.median(ts), "rounds": ROUNDS,
                     "steps_per_round": STEPS})
    for r in rows:
        print(json.dumps(r))
    print(f"\n2-layer LSTM training step (T={T}, N={N}, I={I}, H={H}), one thread, "
          f"{ROUNDS} interleaved rounds of {STEPS} steps")
    for r in rows:
        print(f"  {r['impl']:8s} min {r['min_s'] * 1e3:8.2f} ms   median "
              f"{r['median_s'] * 1e3:8.2f} ms")
    if times["torch"]:
        rmin = min(times["mxgrad"]) / min(times["torch"])
        rmed = statistics.median(times["mxgrad"]) / statistics.median(times["torch"])
        print(f"  ratio mxgrad/torch: min {rmin:.2f}x, median {rmed:.2f}x (target <= 1.5x)")
        print(json.dumps({"bench": "lstm_ratio", "ratio_min": rmin, "ratio_median": rmed,
                          "target": 1.5}))


if __name__ == "__main__":
    main()
