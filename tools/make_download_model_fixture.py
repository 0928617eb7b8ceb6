"""Write ``tests/data/mxnet/download_model_urls.json``: the URLs MXNet 1.9.1's
``test_utils.download_model`` fetches for each model name of its default table (recorded
with ``test_utils.download`` replaced, so nothing is downloaded).

Needs real MXNet (not run in CI):  /tmp/mxvenv/bin/python tools/make_download_model_fixture.py
"""
import json
import os
import tempfile

import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "download_model_urls.json")
NAMES = (["imagenet1k-inception-bn"] + [f"imagenet1k-resnet-{n}" for n in (18, 34, 50, 101, 152)]
         + ["imagenet1k-resnext-50", "imagenet1k-resnext-101", "imagenet1k-resnext-101-64x4d",
            "imagenet11k-resnet-152", "imagenet11k-place365ch-resnet-152",
            "imagenet11k-place365ch-resnet-50"])


def main():
    table = {}
    for name in NAMES:
        urls = []
        mx.test_utils.download = lambda url, fname=None, *a, **k: urls.append(url)
        mx.test_utils.download_model(name, dst_dir=tempfile.mkdtemp())
        table[name] = {"symbol": urls[0], "params": urls[1]}
    with open(OUT, "w") as f:
        json.dump(table, f, indent=1, sort_keys=True)
        f.write("\n")
    print(f"{len(table)} models -> {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
