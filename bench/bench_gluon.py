"""Gluon training-step benchmarks: a whole ``record / backward / Trainer.step`` of an MLP
built from Gluon layers, against the same step written by hand in plain NumPy (forward,
backward with a fused BatchNorm backward, SGD with momentum), and against PyTorch when
installed. One process, one thread; figures are ratios to the NumPy floor.

1. 784-512-512-10 MLP, each hidden Dense followed by BatchNorm, ReLU and Dropout(0.5),
   batch 128, SoftmaxCrossEntropyLoss, ``Trainer('sgd', lr 0.1, momentum 0.9)``.
2. The same MLP without BatchNorm/Dropout.
3. Memory over 300 training steps of (1): live Python objects and traced bytes after
   300 steps against after 50.
4. d2l's LeNet (sigmoid, average pooling) on 1x28x28, batch 128, ``Trainer('sgd', lr 0.9)``.
5. A ResNet-style block on 64x32x32, batch 16: 3x3 conv (64, no bias) - BatchNorm - ReLU -
   3x3 conv - BatchNorm, plus the identity, ReLU, 2x2 max pooling, Dense(10); SGD with
   momentum.

For (4) and (5) the ratio is to PyTorch (when installed; the same weights, the results
compared before timing), in the same interleaved rounds, measured as CPU time of the
process (one thread everywhere; ``--wall`` for wall time); the table gives the minimum and
the median over the rounds (the machine may be shared). ``--conv`` runs only (4) and (5).

Before timing, the mxgrad and NumPy steps are run side by side from the same weights and
the same random-generator state (so the same dropout masks) and must agree: loss, every
updated parameter and the BatchNorm running statistics.

Run: python bench/bench_gluon.py [--conv] [--wall] [--blas]
(``--blas``: also the share of the conv/dense BLAS products in the mxgrad steps of (4), (5))
"""
from __future__ import annotations

import gc
import json
import os
import sys
import tracemalloc

sys.path.insert(0, os.path.dirname(__file__))
from common import best_time, report, torch_or_none  # noqa: E402

import numpy as np  # noqa: E402

import mxgrad as mx  # noqa: E402
from mxgrad import autograd, gluon, nd  # noqa: E402
from mxgrad.gluon import nn  # noqa: E402

SIZES = [784, 512, 512, 10]
BATCH = 128
LR, MOMENTUM = 0.1, 0.9
P_DROP = 0.5
BN_EPS, BN_MOM = 1e-5, 0.9
SEED = 7


def _init(rng):
    ws = [(rng.standard_normal((o, i)) * np.sqrt(2.0 / i)).astype(np.float32)
          for i, o in zip(SIZES[:-1], SIZES[1:])]
    bs = [(rng.standard_normal(o) * 0.1).astype(np.float32) for o in SIZES[1:]]
    return ws, bs


# ------------------------------------------------------------------ NumPy floor
class NumpyMLP:
    """The training step written by hand in NumPy (float32)."""

    def __init__(self, ws, bs, bn_drop, seed):
        self.ws = [w.copy() for w in ws]
        self.bs = [b.copy() for b in bs]
        self.bn_drop = bn_drop
        h = SIZES[1:-1]
        self.gamma = [np.ones(n, np.float32) for n in h]
        self.beta = [np.zeros(n, np.float32) for n in h]
        self.rmean = [np.zeros(n, np.float32) for n in h]
        self.rvar = [np.ones(n, np.float32) for n in h]
        self.params = self.ws + self.bs + (self.gamma + self.beta if bn_drop else [])
        self.moms = [np.zeros_like(p) for p in self.params]
        self.rng = np.random.default_rng(seed)
        self.keep = np.float32(1.0 - P_DROP)
        self.scale = np.float32(1.0 / (1.0 - P_DROP))

    def step(self, x, labels):
        ws, bs = self.ws, self.bs
        n = x.shape[0]
        nl = len(ws)
        acts = [x]
        cache = []
        h = x
        # ---- forward
        for k in range(nl):
            z = h @ ws[k].T
            z += bs[k]
            if k == nl - 1:
                break
            if self.bn_drop:
                mean = z.mean(axis=0)
                z -= mean
                var = np.einsum("ij,ij->j", z, z) / n
                inv = 1.0 / np.sqrt(var + BN_EPS)
                z *= inv                              # xhat
                y = z * self.gamma[k]
                y += self.beta[k]
                rm, rv = self.rmean[k], self.rvar[k]
                rm *= BN_MOM
                rm += (1.0 - BN_MOM) * mean
                rv *= BN_MOM
                rv += (1.0 - BN_MOM) * var
                np.maximum(y, 0, out=y)               # relu
                mask = self.rng.random(y.shape, dtype=np.float32) < self.keep
                dmask = np.multiply(mask, self.scale, dtype=np.float32)
                h = y * dmask
                cache.append((z, inv, y, dmask))
            else:
                h = np.maximum(z, 0, out=z)
                cache.append((h,))
            acts.append(h)
        # ---- softmax cross-entropy (summed over the batch; Trainer divides by n)
        m = z.max(axis=1, keepdims=True)
        e = np.exp(z - m)
        s = e.sum(axis=1, keepdims=True)
        rows = np.arange(n)
        loss = np.log(s[:, 0]) + m[:, 0] - z[rows, labels]
        e /= s
        e[rows, labels] -= 1.0
        g = e
        # ---- backward
        grads_w, grads_b, grads_g, grads_be = [None] * nl, [None] * nl, [None] * 2, [None] * 2
        for k in range(nl - 1, -1, -1):
            grads_w[k] = g.T @ acts[k]
            grads_b[k] = g.sum(axis=0)
            if k == 0:
                break
            g = g @ ws[k]
            if self.bn_drop:
                xhat, inv, y, dmask = cache[k - 1]
                g *= dmask
                g *= y > 0
                gbeta = g.sum(axis=0)
                ggamma = np.einsum("ij,ij->j", g, xhat)
                grads_g[k - 1], grads_be[k - 1] = ggamma, gbeta
                # fused BatchNorm backward: gamma*inv/n * (n*g - sum(g) - xhat*sum(g*xhat))
                g *= n
                g -= gbeta
                xhat *= ggamma
                g -= xhat
                g *= (self.gamma[k - 1] * inv) / n
            else:
                g *= cache[k - 1][0] > 0
        grads = grads_w + grads_b + (grads_g + grads_be if self.bn_drop else [])
        # ---- SGD with momentum: mom = mu*mom - lr*g/batch; w += mom
        lr = LR / n
        for p, gp, mom in zip(self.params, grads, self.moms):
            mom *= MOMENTUM
            mom -= lr * gp
            p += mom
        return loss


# ----------------------------------------------------------------------- mxgrad
def gluon_net(ws, bs, bn_drop):
    net = nn.HybridSequential()
    dense = []
    for k, (i, o) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        d = nn.Dense(o, in_units=i)
        dense.append(d)
        net.add(d)
        if k < len(ws) - 1:
            if bn_drop:
                net.add(nn.BatchNorm(in_channels=o, momentum=BN_MOM, epsilon=BN_EPS),
                        nn.Activation("relu"), nn.Dropout(P_DROP))
            else:
                net.add(nn.Activation("relu"))
    net.initialize()
    for d, w, b in zip(dense, ws, bs):
        d.weight.set_data(nd.array(w))
        d.bias.set_data(nd.array(b))
    return net, dense


def mx_stepper(net, x, y):
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": LR, "momentum": MOMENTUM})

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(BATCH)
        return loss
    return step


def cpu_times(fns, rounds=15, number=2):
    """Per-call CPU time of this process (``time.process_time``) of each function: the
    minimum and the median over ``rounds`` interleaved rounds of ``number`` calls. On a
    shared machine wall time also counts other processes' time slices; CPU time of a
    one-thread process does not (memory bandwidth and caches are still shared)."""
    import time
    for fn in fns:
        fn()
    per_round = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            t0 = time.process_time()
            for _ in range(number):
                fn()
            per_round[i].append((time.process_time() - t0) / number)
    return [min(t) for t in per_round], [float(np.median(t)) for t in per_round]


def best_times(fns, rounds=25, round_time=0.06, median=False):
    """``best_time`` of each function, the rounds interleaved so that all of them see the
    same background load (the machine may be shared). With ``median=True`` also the
    median over the rounds: returns ``(best, medians)``."""
    import time
    numbers = []
    for fn in fns:   # calibrate: calls per round of about round_time
        fn()
        t0 = time.perf_counter()
        fn()
        numbers.append(max(1, int(round_time / max(time.perf_counter() - t0, 1e-9))))
    per_round = [[] for _ in fns]
    for _ in range(rounds):
        for i, fn in enumerate(fns):
            per_round[i].append(best_time(fn, repeat=1, number=numbers[i]))
    best = [min(t) for t in per_round]
    if median:
        return best, [float(np.median(t)) for t in per_round]
    return best


def _check_same(bn_drop, ws0, bs0, x0, lab0):
    """mxgrad and NumPy from the same weights and generator state: same numbers."""
    floor = NumpyMLP(ws0, bs0, bn_drop, SEED)
    net, dense = gluon_net(ws0, bs0, bn_drop)
    mx.random.seed(SEED)   # after initialize(), which draws from the generator
    step = mx_stepper(net, nd.array(x0), nd.array(lab0))
    for _ in range(3):
        l_np = floor.step(x0, lab0)
        l_mx = step().asnumpy()
        np.testing.assert_allclose(l_mx, l_np, rtol=2e-4, atol=2e-4)
    for k, d in enumerate(dense):
        np.testing.assert_allclose(d.weight.data().asnumpy(), floor.ws[k], rtol=1e-3, atol=1e-4)
        np.testing.assert_allclose(d.bias.data().asnumpy(), floor.bs[k], rtol=1e-3, atol=1e-4)
    if bn_drop:
        bns = [b for b in net if isinstance(b, nn.BatchNorm)]
        for k, b in enumerate(bns):
            for p, ref in ((b.gamma, floor.gamma[k]), (b.beta, floor.beta[k]),
                           (b.running_mean, floor.rmean[k]), (b.running_var, floor.rvar[k])):
                np.testing.assert_allclose(p.data().asnumpy(), ref, rtol=1e-3, atol=1e-4)


def bench_step(rows, bn_drop, target):
    rng = np.random.default_rng(11)
    ws0, bs0 = _init(rng)
    x0 = rng.standard_normal((BATCH, SIZES[0])).astype(np.float32)
    lab0 = rng.integers(0, SIZES[-1], BATCH)
    _check_same(bn_drop, ws0, bs0, x0, lab0)

    floor = NumpyMLP(ws0, bs0, bn_drop, SEED)
    net, _ = gluon_net(ws0, bs0, bn_drop)
    step = mx_stepper(net, nd.array(x0), nd.array(lab0))
    fns = [lambda: floor.step(x0, lab0), step]
    torch = torch_or_none()
    if torch is not None:
        fns.append(_torch_step(torch, ws0, bs0, x0, lab0, bn_drop))
    times = best_times(fns)
    t_np = times[0]
    name = ("MLP+BN+Dropout" if bn_drop else "MLP") + " 784-512-512-10 b128 step"
    rows.append(dict(bench=name, impl="numpy", seconds=t_np, ratio=1.0))
    rows.append(dict(bench=name, impl="mxgrad", seconds=times[1], ratio=times[1] / t_np,
                     target=target))
    if torch is not None:
        rows.append(dict(bench=name, impl="torch", seconds=times[2], ratio=times[2] / t_np))


def _torch_step(torch, ws0, bs0, x0, lab0, bn_drop):
    tnn = torch.nn
    layers = []
    for k, (i, o) in enumerate(zip(SIZES[:-1], SIZES[1:])):
        lin = tnn.Linear(i, o)
        with torch.no_grad():
            lin.weight.copy_(torch.tensor(ws0[k]))
            lin.bias.copy_(torch.tensor(bs0[k]))
        layers.append(lin)
        if k < len(SIZES) - 2:
            if bn_drop:
                layers += [tnn.BatchNorm1d(o, eps=BN_EPS, momentum=1 - BN_MOM), tnn.ReLU(),
                           tnn.Dropout(P_DROP)]
            else:
                layers.append(tnn.ReLU())
    model = tnn.Sequential(*layers).train()
    opt = torch.optim.SGD(model.parameters(), lr=LR, momentum=MOMENTUM)
    tx, tl = torch.tensor(x0), torch.tensor(lab0)

    def step():
        opt.zero_grad(set_to_none=True)
        torch.nn.functional.cross_entropy(model(tx), tl).backward()
        opt.step()
    return step


# ---------------------------------------------------------------------- memory
def bench_memory(rows):
    rng = np.random.default_rng(12)
    ws0, bs0 = _init(rng)
    x = nd.array(rng.standard_normal((BATCH, SIZES[0])).astype(np.float32))
    y = nd.array(rng.integers(0, SIZES[-1], BATCH))
    gc.collect()
    tracemalloc.start()  # before the model exists, so its arrays are in the baseline
    net, _ = gluon_net(ws0, bs0, True)
    step = mx_stepper(net, x, y)
    for i in range(300):
        step()
        if i == 49:
            gc.collect()
            at50 = tracemalloc.get_traced_memory()[0]
            objs50 = len(gc.get_objects())
    gc.collect()
    at300 = tracemalloc.get_traced_memory()[0]
    objs300 = len(gc.get_objects())
    tracemalloc.stop()
    rows.append(dict(bench="train step: live objects 300 steps / 50", impl="mxgrad",
                     seconds=0.0, ratio=objs300 / objs50, target=1.0, objects_50=objs50,
                     objects_300=objs300))
    rows.append(dict(bench="train step: traced bytes 300 steps / 50", impl="mxgrad",
                     seconds=0.0, ratio=at300 / max(at50, 1), bytes_50=at50,
                     bytes_300=at300, growth_kib=(at300 - at50) / 1024))


# ------------------------------------------------------------- conv networks
LENET_BATCH, LENET_LR = 128, 0.9
BLOCK_BATCH, BLOCK_C, BLOCK_HW = 16, 64, 32


def res_block(c, mxmod=mx):
    """conv-BN-ReLU-conv-BN + identity, ReLU, 2x2 max pooling, Dense(10), built with
    ``mxmod`` (this mxgrad, or another checkout's for bench/ab_core.py)."""
    nn = mxmod.gluon.nn

    class ResBlock(nn.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.conv1 = nn.Conv2D(c, 3, padding=1, use_bias=False, in_channels=c)
                self.bn1 = nn.BatchNorm(in_channels=c)
                self.conv2 = nn.Conv2D(c, 3, padding=1, use_bias=False, in_channels=c)
                self.bn2 = nn.BatchNorm(in_channels=c)
                self.pool = nn.MaxPool2D(2, 2)
                self.out = nn.Dense(10, in_units=c * (BLOCK_HW // 2) ** 2)

        def hybrid_forward(self, F, x):
            h = F.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            return self.out(self.pool(F.relu(h + x)))
    return ResBlock()


def lenet(mxmod=mx):
    """d2l's LeNet (sigmoid, average pooling), built with ``mxmod``."""
    nn = mxmod.gluon.nn
    net = nn.HybridSequential()
    net.add(nn.Conv2D(6, kernel_size=5, padding=2, activation="sigmoid", in_channels=1),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Conv2D(16, kernel_size=5, activation="sigmoid", in_channels=6),
            nn.AvgPool2D(pool_size=2, strides=2),
            nn.Dense(120, activation="sigmoid", in_units=400),
            nn.Dense(84, activation="sigmoid", in_units=120),
            nn.Dense(10, in_units=84))
    return net


def _torch_lenet(torch):
    tnn = torch.nn
    return tnn.Sequential(
        tnn.Conv2d(1, 6, 5, padding=2), tnn.Sigmoid(), tnn.AvgPool2d(2, 2),
        tnn.Conv2d(6, 16, 5), tnn.Sigmoid(), tnn.AvgPool2d(2, 2), tnn.Flatten(),
        tnn.Linear(400, 120), tnn.Sigmoid(), tnn.Linear(120, 84), tnn.Sigmoid(),
        tnn.Linear(84, 10))


def _torch_block(torch):
    tnn = torch.nn
    c = BLOCK_C

    class Block(tnn.Module):
        def __init__(self):
            super().__init__()
            self.conv1 = tnn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn1 = tnn.BatchNorm2d(c, eps=1e-5, momentum=0.1)
            self.conv2 = tnn.Conv2d(c, c, 3, padding=1, bias=False)
            self.bn2 = tnn.BatchNorm2d(c, eps=1e-5, momentum=0.1)
            self.pool = tnn.MaxPool2d(2, 2)
            self.out = tnn.Linear(c * (BLOCK_HW // 2) ** 2, 10)

        def forward(self, x):
            h = torch.relu(self.bn1(self.conv1(x)))
            h = self.bn2(self.conv2(h))
            return self.out(torch.flatten(self.pool(torch.relu(h + x)), 1))
    return Block()


def _copy_to_torch(torch, net, model):
    """Copy the Gluon parameters (in creation order) into the PyTorch model's
    parameters (same order, same shapes)."""
    ours = [p for p in net.collect_params().values() if p.grad_req != "null"]
    theirs = list(model.parameters())
    assert len(ours) == len(theirs), (len(ours), len(theirs))
    with torch.no_grad():
        for p, t in zip(ours, theirs):
            t.copy_(torch.tensor(p.data().asnumpy()).reshape(t.shape))


def bench_conv(rows, which, target):
    rng = np.random.default_rng(13)
    mx.random.seed(SEED)
    if which == "lenet":
        net, n = lenet(), LENET_BATCH
        x0 = rng.random((n, 1, 28, 28), dtype=np.float32)
        opt = {"learning_rate": LENET_LR}
        name = "LeNet (d2l) b128 step"
    else:
        net, n = res_block(BLOCK_C), BLOCK_BATCH
        x0 = rng.standard_normal((n, BLOCK_C, BLOCK_HW, BLOCK_HW)).astype(np.float32)
        opt = {"learning_rate": 0.05, "momentum": MOMENTUM}
        name = "ResNet-style block 64ch 32x32 b16 step"
    net.initialize(mx.init.Xavier())
    lab0 = rng.integers(0, 10, n)
    x, y = nd.array(x0), nd.array(lab0)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    trainer = gluon.Trainer(net.collect_params(), "sgd", dict(opt))

    def step():
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(n)
        return loss

    fns = [step]
    torch = torch_or_none()
    if torch is not None:
        model = _torch_lenet(torch) if which == "lenet" else _torch_block(torch)
        _copy_to_torch(torch, net, model)
        model.train()
        topt = torch.optim.SGD(model.parameters(), lr=opt["learning_rate"],
                               momentum=opt.get("momentum", 0.0))
        tx, tl = torch.tensor(x0), torch.tensor(lab0)

        def tstep():
            topt.zero_grad(set_to_none=True)
            loss = torch.nn.functional.cross_entropy(model(tx), tl, reduction="sum") / n
            loss.backward()
            topt.step()
            return loss
        # same weights, same data: the same losses for a few steps
        for _ in range(3):
            l_mx = float(step().asnumpy().mean())
            l_t = float(tstep().detach())
            np.testing.assert_allclose(l_mx, l_t, rtol=2e-3, atol=2e-4)
        fns.append(tstep)
    if "--wall" in sys.argv[1:]:
        best, med = best_times(fns, rounds=15, round_time=0.3, median=True)
    else:
        best, med = cpu_times(fns, rounds=20, number=3 if which == "lenet" else 1)
    if "--blas" in sys.argv[1:]:   # after the comparison and the timing (it steps on)
        t_all, t_blas = blas_share(step)
        print(f"{name}: mxgrad step {t_all * 1e3:.1f} ms CPU, of which BLAS products "
              f"{t_blas * 1e3:.1f} ms ({100 * t_blas / t_all:.0f}%), the rest "
              f"{(t_all - t_blas) * 1e3:.1f} ms (medians of 15 steps)")
    base_b = best[1] if torch is not None else best[0]
    base_m = med[1] if torch is not None else med[0]
    for impl, b, m in zip(("mxgrad", "torch"), best, med):
        rows.append(dict(bench=name, impl=impl, seconds=b, median_seconds=m,
                         ratio=b / base_b, median_ratio=m / base_m,
                         target=target if impl == "mxgrad" and torch is not None else None))


def blas_share(step, rounds=15):
    """CPU time of ``step`` and the part spent in the BLAS products of convolutions and
    dense layers (``np.matmul``/``np.dot`` called by ``mxgrad.ops.conv`` and
    ``mxgrad.ops.nn``, timed through a stand-in for their ``np`` module): medians over
    ``rounds`` steps. Measurement only; the stand-in is removed afterwards."""
    import time
    import types
    from mxgrad.ops import conv as conv_mod, nn as nn_mod
    spent = [0.0]

    def timed(fn):
        def run(*a, **k):
            t0 = time.process_time()
            r = fn(*a, **k)
            spent[0] += time.process_time() - t0
            return r
        return run
    proxy = types.ModuleType("numpy_timed")
    proxy.__dict__.update(np.__dict__)
    proxy.matmul, proxy.dot = timed(np.matmul), timed(np.dot)
    step()
    total, blas = [], []
    conv_mod.np = nn_mod.np = proxy
    try:
        for _ in range(rounds):
            spent[0] = 0.0
            t0 = time.process_time()
            step()
            total.append(time.process_time() - t0)
            blas.append(spent[0])
    finally:
        conv_mod.np = nn_mod.np = np
    return float(np.median(total)), float(np.median(blas))


def report_conv(rows):
    for r in rows:
        print(json.dumps(r))
    print()
    clock = "wall" if "--wall" in sys.argv[1:] else "CPU"
    print(f"mxgrad vs PyTorch, conv training steps ({clock} time; ratio = time / PyTorch; "
          f"one thread)")
    print(f"{'benchmark':40s} {'impl':8s} {'min':>9s} {'median':>9s} {'ratio min':>10s} "
          f"{'ratio med':>10s} {'target':>7s}")
    for r in rows:
        t = r.get("target")
        print(f"{r['bench']:40s} {r['impl']:8s} {r['seconds'] * 1e3:7.1f}ms "
              f"{r['median_seconds'] * 1e3:7.1f}ms {r['ratio']:10.2f} "
              f"{r['median_ratio']:10.2f} {'' if t is None else f'{t:7.2f}'}")


def main():
    if "--conv" in sys.argv[1:]:
        rows = []
        bench_conv(rows, "lenet", 0.9)
        bench_conv(rows, "block", 1.0)
        report_conv(rows)
        return
    rows = []
    bench_step(rows, True, 1.15)
    bench_step(rows, False, 1.1)
    bench_memory(rows)
    report(rows, "mxgrad Gluon training step (ratio = time / NumPy by hand, one process)")
    rows = []
    bench_conv(rows, "lenet", 0.9)
    bench_conv(rows, "block", 1.0)
    report_conv(rows)


if __name__ == "__main__":
    main()
