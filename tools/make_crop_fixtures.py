"""Write tests/data/mxnet/crop.npz: MXNet 1.9.1's deprecated ``Crop`` (by ``h_w`` and
offset, centred, like a second input) on a seeded NCHW input: outputs and input gradients
for a seeded head gradient. Keys as ``tools/_mxnet_case.py`` writes them;
tests/test_ops_crop.py holds the same cases.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_crop_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

from _mxnet_case import record_op_case

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "crop.npz")

CASES = {
    "hw_offset": dict(h_w=(2, 3), offset=(1, 2)),
    "hw_center": dict(h_w=(3, 4), center_crop=True),
    "hw_center_even": dict(h_w=(2, 2), center_crop=True),
    "like": dict(num_args=2),
    "like_offset": dict(num_args=2, offset=(2, 1)),
    "like_center": dict(num_args=2, center_crop=True),
}


def main():
    rs = np.random.RandomState(0)
    out = {}
    x = rs.randn(2, 3, 6, 7)
    like = np.zeros((1, 1, 3, 4))
    for name, kw in CASES.items():
        ins = [x, like] if kw.get("num_args") == 2 else [x]
        record_op_case(mx, rs, out, name, "Crop", ins, kw, list(range(len(ins))))
    np.savez_compressed(OUT, **out)
    print("wrote", OUT, len(out), "arrays")


if __name__ == "__main__":
    main()
