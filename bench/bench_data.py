"""Data-pipeline benchmarks: ``mx.image`` decoding and resizing, ``mx.recordio`` reading and
``mx.io.NDArrayIter`` batching, as ratios to the floor of doing the same with Pillow / NumPy
directly (Pillow's resize filters are not OpenCV's, so that floor is a speed reference, not
the same result).

1. ``imdecode`` of a 500x375 JPEG vs ``PIL.Image.open(...).convert('RGB')`` + ``np.asarray``.
2. ``imresize`` 500x375 -> 224x224 for each interpolation vs Pillow's nearest/bilinear/
   bicubic/box/lanczos resize.
3. ``MXIndexedRecordIO.read_idx`` over 1,000 records of 10 KB in random order vs reading the
   same byte ranges with ``file.seek``/``file.read``.
4. One epoch of ``NDArrayIter`` (60,000 x 784 float32, batch 128, no shuffle) vs slicing the
   NumPy array.

Run: python bench/bench_data.py   (needs Pillow: pip install mxgrad[image])
"""
from __future__ import annotations

import io
import os
import random
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from common import best_time, report  # noqa: E402

import numpy as np  # noqa: E402
from PIL import Image  # noqa: E402

import mxgrad as mx  # noqa: E402


def row(bench, impl, seconds, floor, target=None):
    return {"bench": bench, "impl": impl, "seconds": seconds, "ratio": seconds / floor,
            "target": target}


def main():
    rows = []
    rs = np.random.RandomState(0)
    yy, xx = np.mgrid[0:375, 0:500]
    arr = np.stack([xx % 256, yy % 256, (xx + yy) % 256], axis=2).astype(np.uint8)
    arr = np.clip(arr.astype(int) + rs.randint(-20, 20, arr.shape), 0, 255).astype(np.uint8)
    f = io.BytesIO()
    Image.fromarray(arr).save(f, "JPEG", quality=90)
    buf = f.getvalue()

    floor = best_time(lambda: np.asarray(Image.open(io.BytesIO(buf)).convert("RGB")))
    rows.append(row("imdecode 500x375 jpeg", "pillow", floor, floor))
    rows.append(row("imdecode 500x375 jpeg", "mxgrad", best_time(lambda: mx.image.imdecode(buf)),
                    floor))

    img = mx.image.imdecode(buf)
    pil = Image.fromarray(arr)
    filters = [Image.NEAREST, Image.BILINEAR, Image.BICUBIC, Image.BOX, Image.LANCZOS]
    for interp, filt in enumerate(filters):
        floor = best_time(lambda: np.asarray(pil.resize((224, 224), filt)))
        name = f"imresize 500x375->224 interp={interp}"
        rows.append(row(name, "pillow", floor, floor))
        rows.append(row(name, "mxgrad", best_time(lambda: mx.image.imresize(img, 224, 224,
                                                                           interp=interp)),
                        floor))

    d = tempfile.mkdtemp()
    rec, idx = os.path.join(d, "b.rec"), os.path.join(d, "b.idx")
    payload = bytes(rs.randint(0, 256, 10_000).astype(np.uint8))
    with mx.recordio.MXIndexedRecordIO(idx, rec, "w") as w:
        for i in range(1000):
            w.write_idx(i, payload)
    reader = mx.recordio.MXIndexedRecordIO(idx, rec, "r")
    order = list(range(1000))
    random.Random(0).shuffle(order)
    raw = open(rec, "rb")
    offsets = reader.idx

    def raw_read():
        for k in order:
            raw.seek(offsets[k] + 8)
            raw.read(10_000)

    floor = best_time(raw_read, repeat=5)
    rows.append(row("recordio read_idx 1000 x 10KB", "file", floor, floor))
    rows.append(row("recordio read_idx 1000 x 10KB", "mxgrad",
                    best_time(lambda: [reader.read_idx(k) for k in order], repeat=5), floor))

    x = rs.rand(60000, 784).astype(np.float32)
    y = rs.randint(0, 10, 60000).astype(np.float32)
    it = mx.io.NDArrayIter(x, y, batch_size=128)

    def epoch_np():
        for i in range(0, 60000, 128):
            x[i:i + 128].copy(), y[i:i + 128].copy()

    def epoch_mx():
        it.reset()
        for _ in it:
            pass

    floor = best_time(epoch_np, repeat=3)
    rows.append(row("NDArrayIter epoch 60000x784 bs128", "numpy", floor, floor))
    rows.append(row("NDArrayIter epoch 60000x784 bs128", "mxgrad", best_time(epoch_mx, repeat=3),
                    floor))
    report(rows, "data pipeline (ratio to Pillow / NumPy)")


if __name__ == "__main__":
    main()
