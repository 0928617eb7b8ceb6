"""File I/O benchmarks: loading and saving a ~100 MB ``.params`` file (MXNet's NDArray
format) against ``np.fromfile`` / ``ndarray.tofile`` of the same bytes (the floor), and
``torch.load``/``torch.save`` of the same tensors when PyTorch is installed. Files are in the
OS page cache after the first read, so this measures parsing and copying, not the disk.
Saving writes a temporary file and renames it over the old one (atomic); encoding the
headers takes < 1 ms, the rest is the write itself (180 writes instead of one ``tofile``).

Run: python bench/bench_io.py [size_mb]
"""
from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from common import best_time, report, torch_or_none  # noqa: E402

import numpy as np  # noqa: E402

import mxgrad as mx  # noqa: E402


def make_arrays(total_mb: float):
    """A parameter-file-like mix: big conv/dense weights and many small vectors."""
    rng = np.random.RandomState(0)
    arrays = {}
    per_block = 4 * (256 * 256 * 9 + 1024 * 256 + 4 * 256)
    blocks = max(1, int(total_mb * 2 ** 20 // per_block))
    for b in range(blocks):
        arrays[f"features.{b}.conv.weight"] = rng.randn(256, 256, 3, 3).astype(np.float32)
        arrays[f"features.{b}.fc.weight"] = rng.randn(1024, 256).astype(np.float32)
        for n in ("gamma", "beta", "running_mean", "running_var"):
            arrays[f"features.{b}.bn.{n}"] = rng.randn(256).astype(np.float32)
    return arrays


def main():
    size_mb = float(sys.argv[1]) if len(sys.argv) > 1 else 100.0
    arrays = make_arrays(size_mb)
    nds = {k: mx.nd.NDArray(v) for k, v in arrays.items()}
    folder = tempfile.mkdtemp()
    path = os.path.join(folder, "model.params")
    raw = os.path.join(folder, "model.raw")
    mx.nd.save(path, nds)
    nbytes = os.path.getsize(path)
    flat = np.fromfile(path, dtype=np.uint8)
    flat.tofile(raw)
    rows = []

    def row(bench, impl, seconds, floor, target=None):
        rows.append({"bench": bench, "impl": impl, "seconds": seconds,
                     "ratio": seconds / floor, "target": target,
                     "mb": round(nbytes / 2 ** 20, 1), "arrays": len(arrays)})

    t_np = best_time(lambda: np.fromfile(path, dtype=np.uint8), repeat=5)
    row("load 100MB file", "numpy", t_np, t_np)
    def readinto():
        out = np.empty(nbytes, np.uint8)
        with open(path, "rb") as f:
            f.readinto(out.data)
    row("load 100MB file", "readinto", best_time(readinto, repeat=5), t_np)
    t_load = best_time(lambda: mx.nd.load(path), repeat=5)
    row("load 100MB file", "mxgrad", t_load, t_np, 1.5)
    with open(path, "rb") as f:
        buf = f.read()
    row("load_frombuffer (bytes in memory)", "mxgrad",
        best_time(lambda: mx.nd.load_frombuffer(buf), repeat=5), t_np)

    t_np_save = best_time(lambda: flat.tofile(raw), repeat=3)
    row("save 100MB file (no fsync)", "numpy", t_np_save, t_np_save)
    from mxgrad import _fileio
    from mxgrad.ndarray import _format

    def save_nofsync():
        chunks = _format.encode(list(arrays.values()), list(arrays))
        with _fileio.atomic_write(path, fsync=False) as f:
            for c in chunks:
                f.write(c)
    row("save 100MB file (no fsync)", "mxgrad", best_time(save_nofsync, repeat=3),
        t_np_save)
    row("save 100MB file (nd.save, fsync)", "mxgrad",
        best_time(lambda: mx.nd.save(path, nds), repeat=3), t_np_save)

    torch = torch_or_none()
    if torch is not None:
        tpath = os.path.join(folder, "model.pt")
        tens = {k: torch.from_numpy(v) for k, v in arrays.items()}
        torch.save(tens, tpath)
        row("load 100MB file", "torch",
            best_time(lambda: torch.load(tpath, weights_only=True), repeat=5), t_np)
        row("save 100MB file (no fsync)", "torch",
            best_time(lambda: torch.save(tens, tpath), repeat=3), t_np_save)
    report(rows, f"File I/O, {nbytes / 2 ** 20:.1f} MB, {len(arrays)} arrays "
                 f"(ratio to NumPy on the same bytes)")
    for name in os.listdir(folder):
        os.remove(os.path.join(folder, name))
    os.rmdir(folder)


if __name__ == "__main__":
    main()
