"""Core engine benchmarks: mxgrad against the same math in NumPy written by hand
(forward and backward), and against PyTorch when installed. One process, one thread;
figures are ratios to the NumPy floor.

The per-op cost (what the op-application layer, ``mxgrad/ops/_apply.py``, adds to each
call) is measured side by side on tiny arrays, where it dominates: single ops
unrecorded, and a 200-op chain unrecorded and recorded with its backward.

Run: python bench/bench_core.py [--quick]   (--quick: the per-op part only)
"""
from __future__ import annotations

import gc
import os
import sys
import tracemalloc

sys.path.insert(0, os.path.dirname(__file__))
# measure the tree this script lives in (not another install of mxgrad)
sys.path.insert(1, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import best_time, report, torch_or_none  # noqa: E402

import numpy as np  # noqa: E402

import mxgrad as mx  # noqa: E402
from mxgrad import nd, autograd  # noqa: E402

print(f"# mxgrad from {os.path.dirname(mx.__file__)}")

N_CHAIN = 200


# ------------------------------------------------------------ chain of small ops
def chain_numpy(x0, c):
    saved = []
    y = x0
    for i in range(N_CHAIN):
        k = i % 4
        if k == 0:
            y = np.tanh(y); saved.append(y)
        elif k == 1:
            y = y * 1.5; saved.append(None)
        elif k == 2:
            y = y + c; saved.append(None)
        else:
            saved.append(y); y = np.sin(y)
    s = y.sum()
    g = np.ones_like(y)
    for i in range(N_CHAIN - 1, -1, -1):
        k = i % 4
        if k == 0:
            t = saved[i]; g = g * (1 - t * t)
        elif k == 1:
            g = g * 1.5
        elif k == 3:
            g = g * np.cos(saved[i])
    return s, g


def _chain(y, c, tanh, sin):
    """The chain workload with a library's tanh and sin (NumPy's or mx.nd's)."""
    for i in range(N_CHAIN):
        k = i % 4
        if k == 0:
            y = tanh(y)
        elif k == 1:
            y = y * 1.5
        elif k == 2:
            y = y + c
        else:
            y = sin(y)
    return y.sum()


def chain_numpy_forward(x0, c):
    return _chain(x0, c, np.tanh, np.sin)


def chain_mx(x, c):
    return _chain(x, c, nd.tanh, nd.sin)


def chain_np(x, c):
    """The chain on the ``mx.np`` face (``np.tanh``, ``np.sin``, its operators)."""
    import mxgrad.numpy as mnp
    return _chain(x, c, mnp.tanh, mnp.sin)


def side_by_side(fns, rounds=15, sample=0.02):
    """Time the callables of ``fns`` ({impl: fn}) in interleaved rounds (order reversed
    every other round) of about ``sample`` seconds each. Returns {impl: (best seconds per
    call, median over rounds of its time / the first impl's time)}: the ratio of two
    measurements taken moments apart, robust to a machine whose load changes."""
    import statistics
    import time
    numbers = {}
    for k, f in fns.items():
        f()
        n = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            if time.perf_counter() - t0 >= sample / 4 or n > 1_000_000:
                break
            n *= 2
        numbers[k] = max(1, int(n * sample / max(time.perf_counter() - t0, 1e-9)))
    samples = {k: [] for k in fns}
    keys = list(fns)
    for r in range(rounds):
        for k in (keys if r % 2 == 0 else keys[::-1]):
            f, n = fns[k], numbers[k]
            t0 = time.perf_counter()
            for _ in range(n):
                f()
            samples[k].append((time.perf_counter() - t0) / n)
    ref = samples[keys[0]]
    return {k: (min(v), statistics.median(a / b for a, b in zip(v, ref)))
            for k, v in samples.items()}


def _add_rows(rows, name, res, targets=None):
    for impl, (sec, ratio) in res.items():
        row = dict(bench=name, impl=impl, seconds=sec, ratio=ratio)
        if targets and impl in targets:
            row["target"] = targets[impl]
        rows.append(row)


def _recorded_chain(chain, x, c):
    """``chain(x, c)`` recorded and differentiated, as one callable (``x`` a variable)."""
    x.attach_grad()

    def run():
        with autograd.record():
            s = chain(x, c)
        s.backward()
    return run


def bench_chain(rows):
    import mxgrad.numpy as mnp
    rng = np.random.default_rng(0)
    x0 = rng.standard_normal(16).astype(np.float32)
    c0 = rng.standard_normal(16).astype(np.float32)
    x, c = nd.array(x0), nd.array(c0)
    xn, cn = mnp.array(x0), mnp.array(c0)
    mx_fb = _recorded_chain(chain_mx, x, c)
    np_fb = _recorded_chain(chain_np, xn, cn)
    # check the math agrees (both faces, and with NumPy by hand)
    mx_fb()
    np_fb()
    np.testing.assert_allclose(x.grad.asnumpy(), chain_numpy(x0, c0)[1], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(xn.grad.asnumpy(), x.grad.asnumpy(), rtol=1e-6)
    fns = {"numpy": lambda: chain_numpy(x0, c0), "mxgrad": mx_fb, "mxgrad.np": np_fb}
    torch = torch_or_none()
    if torch is not None:
        tx = torch.tensor(x0, requires_grad=True)
        tc = torch.tensor(c0)

        def torch_fb():
            y = tx
            for i in range(N_CHAIN):
                k = i % 4
                y = torch.tanh(y) if k == 0 else y * 1.5 if k == 1 else y + tc if k == 2 \
                    else torch.sin(y)
            y.sum().backward()
            tx.grad = None
        fns["torch"] = torch_fb
    _add_rows(rows, f"chain {N_CHAIN} ops (16,) fwd+bwd", side_by_side(fns), {"mxgrad": 3.0})
    xf = nd.array(x0)
    xnf = mnp.array(x0)
    fns = {"numpy": lambda: chain_numpy_forward(x0, c0), "mxgrad": lambda: chain_mx(xf, c),
           "mxgrad.np": lambda: chain_np(xnf, cn)}
    _add_rows(rows, f"chain {N_CHAIN} ops (16,) forward, not recorded", side_by_side(fns),
              {"mxgrad": 1.6})


# ------------------------------------------------------------ single tiny ops
def bench_per_op(rows):
    """One op on a (16,) float32 array, unrecorded: the dispatch overhead per call."""
    rng = np.random.default_rng(4)
    a0 = rng.standard_normal(16).astype(np.float32)
    b0 = rng.standard_normal(16).astype(np.float32)
    a, b = nd.array(a0), nd.array(b0)
    torch = torch_or_none()
    ta = tb = None
    if torch is not None:
        ta, tb = torch.tensor(a0), torch.tensor(b0)
    cases = [
        ("nd.tanh(x)", lambda: np.tanh(a0), lambda: nd.tanh(a),
         None if ta is None else (lambda: torch.tanh(ta))),
        ("x * 1.5", lambda: a0 * 1.5, lambda: a * 1.5,
         None if ta is None else (lambda: ta * 1.5)),
        ("x + y", lambda: a0 + b0, lambda: a + b,
         None if ta is None else (lambda: ta + tb)),
        ("nd.relu(x)", lambda: np.maximum(a0, 0, dtype=a0.dtype), lambda: nd.relu(a),
         None if ta is None else (lambda: torch.relu(ta))),
    ]
    for label, f_np, f_mx, f_t in cases:
        fns = {"numpy": f_np, "mxgrad": f_mx}
        if f_t is not None:
            fns["torch"] = f_t
        _add_rows(rows, f"{label} (16,) one op, not recorded",
                  side_by_side(fns, rounds=9, sample=0.01))


# --------------------------------------------------------------- big elementwise
def bench_big(rows):
    rng = np.random.default_rng(1)
    x0 = rng.standard_normal((1000, 1000)).astype(np.float32)

    def np_fb():
        t = np.tanh(x0)
        sq = x0 * x0
        e = np.exp(-sq)
        s = (t * x0 + e).sum()
        # backward of sum(tanh(x)*x + exp(-x*x))
        g = (1 - t * t) * x0
        g += t
        e *= x0
        e *= -2.0
        g += e
        return s, g

    x = nd.array(x0)
    x.attach_grad()

    def mx_fb():
        with autograd.record():
            s = (nd.tanh(x) * x + nd.exp(-x * x)).sum()
        s.backward()

    mx_fb()
    np.testing.assert_allclose(x.grad.asnumpy(), np_fb()[1], rtol=1e-4, atol=1e-5)
    t_np = best_time(np_fb, repeat=5)
    t_mx = best_time(mx_fb, repeat=5)
    name = "sum(tanh(x)*x+exp(-x*x)) (1000,1000) f+b"
    rows.append(dict(bench=name, impl="numpy", seconds=t_np, ratio=1.0))
    rows.append(dict(bench=name, impl="mxgrad", seconds=t_mx, ratio=t_mx / t_np, target=1.4))
    torch = torch_or_none()
    if torch is not None:
        tx = torch.tensor(x0, requires_grad=True)

        def torch_fb():
            (torch.tanh(tx) * tx + torch.exp(-tx * tx)).sum().backward()
            tx.grad = None
        t_t = best_time(torch_fb, repeat=5)
        rows.append(dict(bench=name, impl="torch", seconds=t_t, ratio=t_t / t_np))


# ------------------------------------------------------------------------ MLP
def _mlp_params(rng):
    sizes = [784, 512, 512, 10]
    ws = [(rng.standard_normal((o, i)) * np.sqrt(2.0 / i)).astype(np.float32)
          for i, o in zip(sizes[:-1], sizes[1:])]
    bs = [np.zeros(o, np.float32) for o in sizes[1:]]
    return ws, bs


def mlp_numpy(x, labels, ws, bs):
    acts = [x]
    h = x
    pre = []
    for k, (w, b) in enumerate(zip(ws, bs)):
        z = h @ w.T + b
        pre.append(z)
        h = np.maximum(z, 0) if k < len(ws) - 1 else z
        acts.append(h)
    z = acts[-1]
    m = z.max(axis=1, keepdims=True)
    e = np.exp(z - m)
    ssum = e.sum(axis=1, keepdims=True)
    logp = z - m - np.log(ssum)
    n = x.shape[0]
    loss = -logp[np.arange(n), labels].sum()
    g = e / ssum
    g[np.arange(n), labels] -= 1.0
    grads = []
    for k in range(len(ws) - 1, -1, -1):
        if k < len(ws) - 1:
            g = g * (pre[k] > 0)
        gw = g.T @ acts[k]
        gb = g.sum(axis=0)
        grads.append((gw, gb))
        if k > 0:
            g = g @ ws[k]
    return loss, grads


def bench_mlp(rows):
    if not hasattr(nd, "FullyConnected") or not hasattr(nd, "log_softmax") \
            or not hasattr(nd, "pick"):
        print("# MLP benchmark skipped: nd.FullyConnected/log_softmax/pick not available")
        return
    rng = np.random.default_rng(2)
    ws0, bs0 = _mlp_params(rng)
    x0 = rng.standard_normal((128, 784)).astype(np.float32)
    lab0 = rng.integers(0, 10, 128)
    ws = [nd.array(w) for w in ws0]
    bs = [nd.array(b) for b in bs0]
    for p in ws + bs:
        p.attach_grad()
    x, lab = nd.array(x0), nd.array(lab0)

    def mx_fb():
        with autograd.record():
            h = x
            for k in range(3):
                h = nd.FullyConnected(h, ws[k], bs[k], num_hidden=ws[k].shape[0])
                if k < 2:
                    h = nd.relu(h)
            loss = -nd.pick(nd.log_softmax(h), lab).sum()
        loss.backward()

    mx_fb()
    ref = mlp_numpy(x0, lab0, ws0, bs0)[1]
    np.testing.assert_allclose(ws[0].grad.asnumpy(), ref[-1][0], rtol=1e-3, atol=1e-3)
    t_np = best_time(lambda: mlp_numpy(x0, lab0, ws0, bs0), repeat=7)
    t_mx = best_time(mx_fb, repeat=7)
    name = "MLP 784-512-512-10 b128 f+b (nd ops)"
    rows.append(dict(bench=name, impl="numpy", seconds=t_np, ratio=1.0))
    rows.append(dict(bench=name, impl="mxgrad", seconds=t_mx, ratio=t_mx / t_np, target=1.1))
    torch = torch_or_none()
    if torch is not None:
        tws = [torch.tensor(w, requires_grad=True) for w in ws0]
        tbs = [torch.tensor(b, requires_grad=True) for b in bs0]
        tx, tl = torch.tensor(x0), torch.tensor(lab0)

        def torch_fb():
            h = tx
            for k in range(3):
                h = torch.nn.functional.linear(h, tws[k], tbs[k])
                if k < 2:
                    h = torch.relu(h)
            torch.nn.functional.cross_entropy(h, tl, reduction="sum").backward()
            for p in tws + tbs:
                p.grad = None
        t_t = best_time(torch_fb, repeat=7)
        rows.append(dict(bench=name, impl="torch", seconds=t_t, ratio=t_t / t_np))


# --------------------------------------------------------------------- memory
def bench_memory(rows):
    gc.collect()
    tracemalloc.start()  # before the model exists, so its arrays are in the baseline
    rng = np.random.default_rng(3)
    w = nd.array(rng.standard_normal((64, 64)).astype(np.float32) * 0.1)
    w.attach_grad()
    x = nd.array(rng.standard_normal((32, 64)).astype(np.float32))

    def step():
        nonlocal w
        with autograd.record():
            h = nd.tanh(x * 1.0)
            for _ in range(5):
                h = nd.tanh((h * w.sum(axis=0)) + h)
            loss = (h * h).mean()
        loss.backward()
        with autograd.pause():
            w -= 0.01 * w.grad

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
    # live Python objects are exact; traced bytes also include NumPy's small-buffer cache,
    # which warms up over the first few hundred steps (a few KB, bounded)
    rows.append(dict(bench="live objects after 300 steps / after 50", impl="mxgrad",
                     seconds=0.0, ratio=objs300 / objs50, target=1.0))
    rows.append(dict(bench="traced bytes after 300 steps / after 50", impl="mxgrad",
                     seconds=0.0, ratio=at300 / max(at50, 1), bytes_50=at50,
                     bytes_300=at300, growth_kib=(at300 - at50) / 1024))
    # a recorded forward never differentiated frees its graph with its outputs
    import weakref
    with autograd.record():
        y = nd.tanh(x * w.sum(axis=0))
    ref = weakref.ref(y._node)
    del y
    gc.collect()
    rows.append(dict(bench="undifferentiated graph freed (1=yes)", impl="mxgrad",
                     seconds=0.0, ratio=1.0 if ref() is None else 0.0))


def main():
    rows = []
    bench_per_op(rows)
    bench_chain(rows)
    if "--quick" in sys.argv[1:]:
        report(rows, "mxgrad per-op cost (ratio = time / NumPy by hand, one process)")
        return
    bench_big(rows)
    bench_mlp(rows)
    bench_memory(rows)
    report(rows, "mxgrad core benchmarks (ratio = time / NumPy by hand, one process)")


if __name__ == "__main__":
    main()
