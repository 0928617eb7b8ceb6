"""What ``hybridize()`` buys: training steps (forward + backward) of five networks run
imperatively and hybridized (the planned graph), timed in paired interleaved rounds on one
thread, with PyTorch (eager, and ``torch.compile`` where it runs) when it is installed.

Networks (issue 22's list):

* ``chain``: the 200-op chain of tiny ops of ``bench_core`` as a HybridBlock (tanh, * 1.5,
  + c, sin on 16 floats; NumPy by hand is the floor);
* ``lstm``: a 2-layer LSTM of ``gluon.rnn.LSTMCell``s unrolled over 35 steps inside one
  HybridBlock (hidden 64, batch 16, input 32);
* ``mlp``: 784-256-10 at batch 16 (NumPy by hand is the floor);
* ``lenet``: d2l's LeNet at batch 128;
* ``encoder``: a transformer encoder block written with ``F`` ops (d_model 128, 4 heads,
  sequence 32, batch 16);
* ``convbn``: 3 x (Conv-BatchNorm-ReLU), 16 channels, 32x32, batch 8 (BatchNorm in training);
* ``mlpdrop``: 784-256-256-10 with two Dropouts and the softmax cross-entropy loss, batch 16.

Variants: ``imperative``, ``hybridized`` (``hybridize()``), ``static``
(``hybridize(static_alloc=True, static_shape=True)``: the forward's memory planned, see
``mxgrad.symbol._plan_memory``). Each round times one step of each variant, in an
order shuffled anew every round; the table gives the median step time and the median of
the per-round ratio to the imperative step.

Run: python bench/bench_hybrid.py [rounds] [--only name,name] [--memory] [--numpy]
[--predict] (``--memory``: peak bytes allocated during one training step instead of times;
``--predict``: forward passes in predict mode, not recorded, instead of training steps;
``--numpy``: also the same networks in NumPy mode, ``mx.np`` arrays, imperative and
hybridized.)
"""
from __future__ import annotations

import os
import random
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))

import numpy as np  # noqa: E402

from common import torch_or_none  # noqa: E402  (sets one BLAS thread first)
import mxgrad as mx  # noqa: E402
from mxgrad import autograd, gluon, nd  # noqa: E402
from mxgrad.gluon import nn, rnn  # noqa: E402
from bench_core import N_CHAIN, _chain, chain_numpy  # noqa: E402
from bench_gluon import lenet, _torch_lenet  # noqa: E402

mx.set_num_threads(1)


# ------------------------------------------------------------------ the networks
class Chain(gluon.HybridBlock):
    def hybrid_forward(self, F, x, c):
        return _chain(x, c, F.tanh, F.sin)


class UnrolledLSTM(gluon.HybridBlock):
    def __init__(self, hidden=64, steps=35, **kw):
        super().__init__(**kw)
        self.steps = steps
        with self.name_scope():
            self.l0 = rnn.LSTMCell(hidden, input_size=32)
            self.l1 = rnn.LSTMCell(hidden, input_size=hidden)

    def hybrid_forward(self, F, x, h0, c0, h1, c1):
        s0, s1 = [h0, c0], [h1, c1]
        outs = []
        for t in F.split(x, num_outputs=self.steps, axis=0, squeeze_axis=True):
            o, s0 = self.l0(t, s0)
            o, s1 = self.l1(o, s1)
            outs.append(o)
        return F.sum(F.stack(*outs))


def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(256, activation="relu", in_units=784), nn.Dense(10, in_units=256))
    return net


def convbn():
    """3 x (Conv 3x3, 16 channels - BatchNorm - ReLU), global average pooling, Dense 10."""
    net = nn.HybridSequential()
    for i in range(3):
        net.add(nn.Conv2D(16, 3, padding=1, in_channels=3 if i == 0 else 16),
                nn.BatchNorm(in_channels=16), nn.Activation("relu"))
    net.add(nn.GlobalAvgPool2D(), nn.Dense(10, in_units=16))
    return net


class MLPDropout(gluon.HybridBlock):
    """784-256-256-10 with two Dropouts and the softmax cross-entropy loss inside."""

    def __init__(self, **kw):
        super().__init__(**kw)
        with self.name_scope():
            self.net = nn.HybridSequential()
            self.net.add(nn.Dense(256, activation="relu", in_units=784), nn.Dropout(0.2),
                         nn.Dense(256, activation="relu", in_units=256), nn.Dropout(0.5),
                         nn.Dense(10, in_units=256))
            self.loss = gluon.loss.SoftmaxCrossEntropyLoss()

    def hybrid_forward(self, F, x, y):
        return F.sum(self.loss(self.net(x), y))


class Encoder(gluon.HybridBlock):
    def __init__(self, d=128, heads=4, **kw):
        super().__init__(**kw)
        self.d, self.h = d, heads
        with self.name_scope():
            self.qkv = nn.Dense(3 * d, flatten=False, in_units=d)
            self.proj = nn.Dense(d, flatten=False, in_units=d)
            self.ln1 = nn.LayerNorm(in_channels=d)
            self.ln2 = nn.LayerNorm(in_channels=d)
            self.ff1 = nn.Dense(4 * d, flatten=False, activation="relu", in_units=d)
            self.ff2 = nn.Dense(d, flatten=False, in_units=4 * d)

    def hybrid_forward(self, F, x):
        d, h = self.d, self.h
        qkv = self.qkv(x)                                    # (B, T, 3d)
        qkv = F.reshape(qkv, shape=(0, 0, 3, h, d // h))     # (B, T, 3, h, dh)
        qkv = F.transpose(qkv, axes=(2, 0, 3, 1, 4))         # (3, B, h, T, dh)
        q, k, v = F.split(qkv, num_outputs=3, axis=0, squeeze_axis=True)
        q = F.reshape(q, shape=(-3, 0, 0)) / float(np.sqrt(d // h))   # (B*h, T, dh)
        k = F.reshape(k, shape=(-3, 0, 0))
        v = F.reshape(v, shape=(-3, 0, 0))
        att = F.softmax(F.batch_dot(q, k, transpose_b=True), axis=-1)
        o = F.batch_dot(att, v)                              # (B*h, T, dh)
        o = F.reshape(o, shape=(-4, -1, h, 0, 0))            # (B, h, T, dh)
        o = F.reshape(F.transpose(o, axes=(0, 2, 1, 3)), shape=(0, 0, -1))
        x = self.ln1(x + self.proj(o))
        return F.sum(self.ln2(x + self.ff2(self.ff1(x))))


def _inputs(name):
    rng = np.random.default_rng(0)
    f = lambda *s: nd.array(rng.standard_normal(s).astype(np.float32))  # noqa: E731
    if name == "chain":
        return [f(16), f(16)]
    if name == "lstm":
        return [f(35, 16, 32), f(16, 64), f(16, 64), f(16, 64), f(16, 64)]
    if name == "mlp":
        return [f(16, 784)]
    if name == "lenet":
        return [f(128, 1, 28, 28)]
    if name == "convbn":
        return [f(8, 3, 32, 32)]
    if name == "mlpdrop":
        return [f(16, 784), nd.array(rng.integers(0, 10, 16).astype(np.float32))]
    return [f(16, 32, 128)]


NETS = {"chain": Chain, "lstm": UnrolledLSTM, "mlp": mlp, "lenet": lenet, "encoder": Encoder,
        "convbn": convbn, "mlpdrop": MLPDropout}
TARGETS = {"chain": 0.5, "lstm": 0.6, "mlp": 0.6, "lenet": 0.95, "encoder": None,
           "convbn": None, "mlpdrop": None}


PREDICT = [False]    # --predict: a forward pass in predict mode instead of a training step


def _step_fn(net, args, grad_input=False):
    """One training step's work: forward and backward to the parameters (as training
    does: the inputs need no gradient; the chain, which has no parameters, to its
    input); with ``--predict`` a forward pass in predict mode."""
    if PREDICT[0]:
        return lambda: net(*args)
    if grad_input:
        args[0].attach_grad()

    def step():
        with autograd.record():
            out = net(*args)
            if out.size != 1:
                out = out.sum()
        out.backward()
    return step


def _mlp_numpy():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((16, 784)).astype(np.float32)
    w1 = rng.standard_normal((256, 784)).astype(np.float32) * 0.05
    b1 = np.zeros(256, np.float32)
    w2 = rng.standard_normal((10, 256)).astype(np.float32) * 0.05
    b2 = np.zeros(10, np.float32)

    def step():
        h = x @ w1.T + b1
        r = np.maximum(h, 0)
        y = r @ w2.T + b2
        g = np.ones_like(y)
        gw2, gb2 = g.T @ r, g.sum(0)
        gr = g @ w2
        gh = gr * (h > 0)
        return gh.T @ x, gh.sum(0), gw2, gb2
    return step


def _torch_steps(name, torch):
    """PyTorch eager (and compiled) steps of the same network, or {}."""
    tnn = torch.nn
    g = torch.Generator().manual_seed(0)
    t = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
    if name == "chain":
        x, c = t(16).requires_grad_(), t(16)

        def fwd():
            y = x
            for i in range(N_CHAIN):
                k = i % 4
                y = torch.tanh(y) if k == 0 else y * 1.5 if k == 1 else y + c if k == 2 \
                    else torch.sin(y)
            return y.sum()
        mod, args = None, ()
    elif name == "mlp":
        mod = tnn.Sequential(tnn.Linear(784, 256), tnn.ReLU(), tnn.Linear(256, 10))
        args = (t(16, 784),)
    elif name == "lenet":
        mod = _torch_lenet(torch)
        args = (t(128, 1, 28, 28),)
    elif name == "lstm":
        class L(tnn.Module):
            def __init__(self):
                super().__init__()
                self.c0, self.c1 = tnn.LSTMCell(32, 64), tnn.LSTMCell(64, 64)

            def forward(self, x, h0, c0, h1, c1):
                s0, s1, outs = (h0, c0), (h1, c1), []
                for step in x.unbind(0):
                    s0 = self.c0(step, s0)
                    s1 = self.c1(s0[0], s1)
                    outs.append(s1[0])
                return torch.stack(outs)
        mod = L()
        args = (t(35, 16, 32), t(16, 64), t(16, 64), t(16, 64), t(16, 64))
    elif name == "convbn":
        layers = []
        for i in range(3):
            layers += [tnn.Conv2d(3 if i == 0 else 16, 16, 3, padding=1),
                       tnn.BatchNorm2d(16), tnn.ReLU()]
        mod = tnn.Sequential(*layers, tnn.AdaptiveAvgPool2d(1), tnn.Flatten(),
                             tnn.Linear(16, 10))
        args = (t(8, 3, 32, 32),)
    elif name == "mlpdrop":
        class M(tnn.Module):
            def __init__(self):
                super().__init__()
                self.net = tnn.Sequential(tnn.Linear(784, 256), tnn.ReLU(), tnn.Dropout(0.2),
                                          tnn.Linear(256, 256), tnn.ReLU(), tnn.Dropout(0.5),
                                          tnn.Linear(256, 10))
                self.loss = tnn.CrossEntropyLoss(reduction="sum")

            def forward(self, x, y):
                return self.loss(self.net(x), y)
        mod = M()
        args = (t(16, 784), torch.randint(0, 10, (16,), generator=g))
    else:
        layer = tnn.TransformerEncoderLayer(128, 4, 512, dropout=0.0, batch_first=True,
                                            norm_first=False)
        mod, args = layer, (t(16, 32, 128),)
    res = {}
    if mod is None:
        res["torch"] = lambda: fwd().backward()
        return res
    res["torch"] = lambda: mod(*args).sum().backward()
    try:
        cm = torch.compile(mod)
        cm(*args).sum().backward()
        res["torch.compile"] = lambda: cm(*args).sum().backward()
    except Exception:      # noqa: BLE001 - torch.compile needs a C++ compiler on CPU
        pass
    return res


def _numpy_variants(name, net):
    """The same network in NumPy mode (``npx.set_np()``, ``mx.np`` inputs and
    parameters), imperative and hybridized, with ``net``'s parameter values."""
    from mxgrad.util import use_np
    args = [a.as_np_ndarray() for a in _inputs(name)]
    res = {}
    for variant in ("np imperative", "np hybridized"):
        @use_np
        def build():
            n = NETS[name]()
            n.initialize()
            n(*[a.copy() for a in args])          # (deferred shapes)
            for p, q in zip(net.collect_params().values(), n.collect_params().values()):
                q.set_data(p.data().copy().as_np_ndarray())
            if variant == "np hybridized":
                n.hybridize()
            step = use_np(_step_fn(n, args, name == "chain"))
            step()
            return step
        res[variant] = build()
    return res


def measure(name, rounds, numpy=False):
    args = _inputs(name)
    net = NETS[name]()
    net.initialize(mx.init.Xavier())
    imp = _step_fn(net, args, name == "chain")
    imp()
    hyb_net = NETS[name]()
    hyb_net.initialize()
    for p, q in zip(net.collect_params().values(), hyb_net.collect_params().values()):
        q.set_data(p.data().copy())
    hyb_net.hybridize()
    hyb = _step_fn(hyb_net, args, name == "chain")
    hyb()
    static_net = NETS[name]()
    static_net.initialize()
    for p, q in zip(net.collect_params().values(), static_net.collect_params().values()):
        q.set_data(p.data().copy())
    static_net.hybridize(static_alloc=True, static_shape=True)
    static = _step_fn(static_net, args, name == "chain")
    static()
    fns = {"imperative": imp, "hybridized": hyb, "static": static}
    if PREDICT[0]:
        pass           # (the NumPy floors and PyTorch's steps are training steps)
    elif name == "chain":
        x0, c0 = np.asarray(args[0].asnumpy()), np.asarray(args[1].asnumpy())  # plain arrays
        fns["numpy"] = lambda: chain_numpy(x0, c0)
    elif name == "mlp":
        fns["numpy"] = _mlp_numpy()
    if numpy:
        fns.update(_numpy_variants(name, net))
    torch = None if PREDICT[0] else torch_or_none()
    if torch is not None:
        fns.update(_torch_steps(name, torch))
    times = {k: [] for k in fns}
    order = list(fns)
    shuffle = random.Random(0).shuffle
    for r in range(rounds):
        # a new order every round (seeded): no variant always runs after the same one
        # (PyTorch's steps leave the caches cold for whichever comes next)
        seq = list(order)
        shuffle(seq)
        for k in seq:
            t0 = time.perf_counter()
            fns[k]()
            times[k].append(time.perf_counter() - t0)
    ratios = {k: statistics.median(h / i for h, i in zip(times[k], times["imperative"]))
              for k in times}
    return {k: statistics.median(v) for k, v in times.items()}, ratios


def peak_memory(name):
    """Peak bytes allocated (tracemalloc: NumPy reports its buffers) during one training
    step, imperative, hybridized and with static_alloc (after a warm-up step each; the
    static buffers, made at the warm-up, are not counted: they are the plan's)."""
    import tracemalloc
    res = {}
    for variant in ("imperative", "hybridized", "static"):
        args = _inputs(name)
        net = NETS[name]()
        net.initialize(mx.init.Xavier())
        if variant != "imperative":
            net.hybridize(static_alloc=variant == "static")
        step = _step_fn(net, args, name == "chain")
        step()
        tracemalloc.start()
        tracemalloc.reset_peak()
        base = tracemalloc.get_traced_memory()[0]
        step()
        res[variant] = tracemalloc.get_traced_memory()[1] - base
        tracemalloc.stop()
    return res


def main():
    rounds = 60
    only = list(NETS)
    argv = sys.argv[1:]
    if "--only" in argv:
        only = argv[argv.index("--only") + 1].split(",")
        del argv[argv.index("--only"):argv.index("--only") + 2]
    if "--predict" in argv:
        argv.remove("--predict")
        PREDICT[0] = True
    if "--memory" in argv:
        argv.remove("--memory")
        print(f"{'network':10s} {'imperative':>12s} {'hybridized':>12s} {'static':>12s}  "
              f"peak bytes in a step (ratios to imperative)")
        for name in only:
            m = peak_memory(name)
            print(f"{name:10s} {m['imperative']:12d} {m['hybridized']:12d} {m['static']:12d}  "
                  f"({m['hybridized'] / m['imperative']:.2f}x, "
                  f"{m['static'] / m['imperative']:.2f}x)")
        return
    numpy = "--numpy" in argv
    if numpy:
        argv.remove("--numpy")
    if argv:
        rounds = int(argv[0])
    print(f"{'network':10s} {'variant':14s} {'step':>11s} {'vs imperative':>14s} {'target':>7s}")
    for name in only:
        med, ratios = measure(name, rounds, numpy)
        for k, v in med.items():
            rel = ratios[k]
            tgt = TARGETS[name] if k in ("hybridized", "static") and TARGETS[name] else None
            print(f"{name:10s} {k:14s} {v * 1e6:9.1f}us {rel:14.2f} "
                  f"{'' if tgt is None else f'{tgt:7.2f}'}")


if __name__ == "__main__":
    main()
