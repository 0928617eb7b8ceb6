"""Shared timing helpers: best-of-N wall time, one JSON line per measurement."""
from __future__ import annotations

import json
import os
import time

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("MKL_NUM_THREADS", "1")


def best_time(fn, repeat=7, number=None, min_time=0.2):
    """Best per-call time (seconds) of ``fn`` over ``repeat`` rounds."""
    fn()  # warm up
    if number is None:
        number = 1
        while True:
            t0 = time.perf_counter()
            for _ in range(number):
                fn()
            dt = time.perf_counter() - t0
            if dt >= min_time / 5 or number > 1_000_000:
                break
            number *= 2
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def report(rows, title):
    """Print one JSON line per row and a table of ratios to the NumPy floor."""
    for r in rows:
        print(json.dumps(r))
    print()
    print(title)
    print(f"{'benchmark':44s} {'impl':10s} {'time':>12s} {'ratio':>8s} {'target':>8s}")
    for r in rows:
        target = r.get("target")
        print(f"{r['bench']:44s} {r['impl']:10s} {r['seconds'] * 1e6:10.1f}us "
              f"{r['ratio']:8.2f} {'' if target is None else f'{target:8.2f}'}")


def torch_or_none():
    try:
        import torch
        torch.set_num_threads(1)
        return torch
    except Exception:  # torch is an optional extra
        return None
