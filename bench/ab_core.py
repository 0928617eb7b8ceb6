"""Before/after: this tree's mxgrad against another checkout's, in one process.

The 200-op chain of ``bench_core`` (tiny arrays, where per-op cost dominates), recorded
with its backward and unrecorded, timed in paired rounds (order alternating) with the
thread's CPU time, so a loaded machine moves both sides alike. Prints the median over
rounds of new/old and each side's ratio to NumPy by hand.

With ``--conv lenet`` or ``--conv block`` it times instead the training steps of
``bench_gluon.py``'s LeNet or ResNet-style block the same way (median of new/old over
paired steps): the way to judge a convolution change on a busy machine.

Run: python bench/ab_core.py /path/to/other/checkout [rounds] [--conv lenet|block]
(the other checkout's ``mxgrad`` package is copied to a temporary directory and imported
under another name; mxgrad's modules import each other relatively, so both coexist.)
"""
from __future__ import annotations

import atexit
import os
import shutil
import statistics
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))

import numpy as np  # noqa: E402

import mxgrad  # noqa: E402
from bench_core import N_CHAIN, chain_numpy, chain_numpy_forward  # noqa: E402


def _import_other(checkout):
    tmp = tempfile.mkdtemp(prefix="mxgrad_ab_")
    atexit.register(shutil.rmtree, tmp, True)
    shutil.copytree(os.path.join(checkout, "mxgrad"), os.path.join(tmp, "mxgrad_other"))
    sys.path.insert(0, tmp)
    import mxgrad_other
    return mxgrad_other


def _workload(mx):
    nd, ag = mx.nd, mx.autograd

    def chain(x, c):
        y = x
        for i in range(N_CHAIN):
            k = i % 4
            if k == 0:
                y = nd.tanh(y)
            elif k == 1:
                y = y * 1.5
            elif k == 2:
                y = y + c
            else:
                y = nd.sin(y)
        return y.sum()

    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(16).astype(np.float32)
    c0 = rng.standard_normal(16).astype(np.float32)
    x, c, xf = nd.array(x0), nd.array(c0), nd.array(x0)
    x.attach_grad()

    def fb():
        with ag.record():
            s = chain(x, c)
        s.backward()
    return fb, (lambda: chain(xf, c)), x0, c0


def _time(f, n):
    t0 = time.thread_time()
    for _ in range(n):
        f()
    return (time.thread_time() - t0) / n


def _paired_rounds(fns, rounds, number):
    """Time each function of the dict ``fns`` once per round, in an order that alternates
    from round to round; ``number(key)`` calls per timing. Returns {key: [seconds per
    call, one per round]}."""
    t = {k: [] for k in fns}
    keys = list(fns)
    for r in range(rounds):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            t[k].append(_time(fns[k], number(k)))
    return t


def _conv_step(mx, which):
    """One training step of bench_gluon's LeNet or ResNet-style block with ``mx``."""
    import bench_gluon as bg
    rng = np.random.default_rng(0)
    if which == "lenet":
        net, n, shape = bg.lenet(mx), bg.LENET_BATCH, (bg.LENET_BATCH, 1, 28, 28)
        opt = {"learning_rate": bg.LENET_LR}
    else:
        n = bg.BLOCK_BATCH
        net, shape = bg.res_block(bg.BLOCK_C, mx), (n, bg.BLOCK_C, bg.BLOCK_HW, bg.BLOCK_HW)
        opt = {"learning_rate": 0.05, "momentum": bg.MOMENTUM}
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(rng.standard_normal(shape).astype(np.float32))
    y = mx.nd.array(rng.integers(0, 10, n))
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", opt)
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()

    def step():
        with mx.autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(n)
    return step


def main_conv(other, which, rounds):
    new, old = _conv_step(mxgrad, which), _conv_step(other, which)
    for _ in range(3):
        new()
        old()
    t = _paired_rounds({"new": new, "old": old}, rounds, lambda k: 1)
    tn, to = t["new"], t["old"]
    pair = statistics.median(a / b for a, b in zip(tn, to))
    print(f"new: {os.path.dirname(mxgrad.__file__)}\nold: {os.path.dirname(other.__file__)}")
    print(f"{which} training step: new/old {pair:.3f}; new {statistics.median(tn) * 1e3:.1f} "
          f"ms, old {statistics.median(to) * 1e3:.1f} ms (medians of {rounds} paired steps)")


def main():
    args = list(sys.argv[1:])
    conv = None
    if "--conv" in args:
        i = args.index("--conv")
        conv = args[i + 1] if i + 1 < len(args) else None
        if conv not in ("lenet", "block"):
            sys.exit("--conv takes lenet or block")
        del args[i:i + 2]
    if not args:
        sys.exit(__doc__)
    other = _import_other(args[0])
    rounds = int(args[1]) if len(args) > 1 else 40
    if conv is not None:
        return main_conv(other, conv, rounds)
    new_fb, new_f, x0, c0 = _workload(mxgrad)
    old_fb, old_f, _, _ = _workload(other)
    fns = {"new fwd+bwd": new_fb, "old fwd+bwd": old_fb, "new forward": new_f,
           "old forward": old_f, "numpy fwd+bwd": lambda: chain_numpy(x0, c0),
           "numpy forward": lambda: chain_numpy_forward(x0, c0)}
    for f in fns.values():
        f()
    t = _paired_rounds(fns, rounds, lambda k: 10 if "bwd" in k else 20)
    med = {k: statistics.median(v) for k, v in t.items()}
    print(f"new: {os.path.dirname(mxgrad.__file__)}\nold: {os.path.dirname(other.__file__)}")
    for what, np_key in (("fwd+bwd", "numpy fwd+bwd"), ("forward", "numpy forward")):
        pair = statistics.median(a / b for a, b in zip(t["new " + what], t["old " + what]))
        print(f"chain {N_CHAIN} ops (16,) {what}: new/old {pair:.3f}; / numpy: new "
              f"{med['new ' + what] / med[np_key]:.2f}, old {med['old ' + what] / med[np_key]:.2f}")


if __name__ == "__main__":
    main()
