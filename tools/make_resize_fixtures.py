"""Write tests/data/mxnet/image/resize_uint8.npz: MXNet 1.9.1's ``mx.image.imresize`` of a random
30x20 RGB uint8 image with every interpolation, shrinking, enlarging and mixed sizes wide enough
for OpenCV's SIMD row kernels (its rounding differs between vector blocks and the row's tail).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_resize_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "image", "resize_uint8.npz")
SIZES = [(40, 50), (33, 17), (11, 9), (15, 22), (20, 20), (10, 20), (5, 5), (47, 61), (10, 15)]


def main():
    img = np.random.RandomState(0).randint(0, 256, (30, 20, 3)).astype("uint8")
    out = {"img": img}
    src = mx.nd.array(img, dtype="uint8")
    for interp in range(5):
        for (w, h) in SIZES:
            out[f"{interp}_{w}x{h}"] = mx.image.imresize(src, w, h, interp).asnumpy()
    out["gray_2_40x50"] = mx.image.imresize(src[:, :, :1], 40, 50, 2).asnumpy()
    np.savez_compressed(OUT, **out)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
