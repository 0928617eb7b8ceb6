"""Write tests/data/mxnet/crop.npz: MXNet 1.9.1's deprecated ``Crop`` (by ``h_w`` and
offset, centred, like a second input) on a seeded NCHW input: outputs and input gradients
for a seeded head gradient. Keys as ``tools/_mxnet_case.py`` writes them;
tests/test_ops_crop.py holds the same cases.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_crop_fixtures.py
"""
import os
import sys

import mxnet as mx
import numpy as np

from _mxnet_case import record_op_case

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "tests"))
from crop_cases import CASES  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "crop.npz")


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
