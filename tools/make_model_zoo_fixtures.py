"""Record MXNet 1.9.1's model-zoo names, shapes and outputs for tests/test_model_zoo.py.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_model_zoo_fixtures.py

Writes under ``tests/data/mxnet/model_zoo/``:

- ``names_shapes.json.gz``: for every model of ``vision.get_model`` (default 1000
  classes), the input shape used to resolve deferred shapes, the root prefix, and each
  parameter as ``[structural name (what save_parameters writes), collect_params name,
  shape]`` in MXNet's order, plus the order of ``collect_params()``.
- ``outputs.json``: for some models (``classes=10``), every parameter filled with
  ``tests/model_zoo_weights.deterministic_value`` of its structural name, the forward
  output (predict mode) on ``deterministic_input(shape)``.
- ``tiny_*.params`` + ``tiny.json``: small zoo-class configurations initialized by
  MXNet itself (with random BatchNorm statistics) and saved with ``save_parameters``
  (MXNet's binary format), with MXNet's output for each on ``deterministic_input(shape, seed)``.
"""
import gzip
import json
import os
import sys

import numpy as np
import mxnet as mx
from mxnet.gluon.model_zoo import vision

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from model_zoo_weights import deterministic_value, deterministic_input  # noqa: E402

OUT = os.path.join(HERE, "..", "tests", "data", "mxnet", "model_zoo")

MODELS = ["resnet18_v1", "resnet34_v1", "resnet50_v1", "resnet101_v1", "resnet152_v1",
          "resnet18_v2", "resnet34_v2", "resnet50_v2", "resnet101_v2", "resnet152_v2",
          "vgg11", "vgg13", "vgg16", "vgg19", "vgg11_bn", "vgg13_bn", "vgg16_bn",
          "vgg19_bn", "alexnet", "densenet121", "densenet161", "densenet169",
          "densenet201", "squeezenet1.0", "squeezenet1.1", "inceptionv3", "mobilenet1.0",
          "mobilenet0.75", "mobilenet0.5", "mobilenet0.25", "mobilenetv2_1.0",
          "mobilenetv2_0.75", "mobilenetv2_0.5", "mobilenetv2_0.25"]

# the smallest square input each architecture takes (shapes of Dense layers after a
# Flatten depend on it for VGG and AlexNet)
SIZE = {"alexnet": 64, "squeezenet1.0": 224, "squeezenet1.1": 224, "inceptionv3": 299}
for _n in MODELS:
    if _n.startswith("densenet"):
        SIZE[_n] = 224

# models whose outputs are recorded with deterministic weights
OUTPUT_MODELS = ["resnet18_v1", "resnet18_v2", "resnet50_v1", "resnet50_v2", "vgg11_bn",
                 "alexnet", "mobilenet0.25", "mobilenetv2_0.25", "squeezenet1.0",
                 "squeezenet1.1", "densenet121", "inceptionv3"]


def input_shape(name):
    s = SIZE.get(name, 32)
    return (1, 3, s, s)


def build(name, **kwargs):
    with mx.name.NameManager():
        return vision.get_model(name, **kwargs)


def names_shapes():
    out = {}
    for name in MODELS:
        net = build(name)
        net.initialize()
        shape = input_shape(name)
        net(mx.nd.zeros(shape))
        params = net._collect_params_with_prefix()
        out[name] = {
            "input_shape": list(shape),
            "prefix": net.prefix,
            "params": [[k, p.name, list(p.shape)] for k, p in params.items()],
            "collect_params": list(net.collect_params().keys()),
        }
        print(name, len(params), flush=True)
    with gzip.open(os.path.join(OUT, "names_shapes.json.gz"), "wt") as f:
        json.dump(out, f, separators=(",", ":"))


def outputs():
    out = {}
    for name in OUTPUT_MODELS:
        net = build(name, classes=10)
        net.initialize()
        shape = input_shape(name)
        net(mx.nd.zeros(shape))
        for k, p in net._collect_params_with_prefix().items():
            p.set_data(mx.nd.array(deterministic_value(k, p.shape)))
        y = net(mx.nd.array(deterministic_input(shape))).asnumpy()
        out[name] = {"input_shape": list(shape), "output": y.ravel().tolist(),
                     "output_shape": list(y.shape)}
        print(name, y.ravel()[:3], flush=True)
    with open(os.path.join(OUT, "outputs.json"), "w") as f:
        json.dump(out, f, indent=1)


def tiny():
    from mxnet.gluon.model_zoo.vision import resnet, densenet, mobilenet
    configs = {
        "resnet_v1_basic": (lambda: resnet.ResNetV1(resnet.BasicBlockV1, [1, 1],
                                                    [4, 8, 16], classes=5,
                                                    thumbnail=True), 8),
        "resnet_v1_bottleneck": (lambda: resnet.ResNetV1(resnet.BottleneckV1, [1, 1],
                                                         [8, 16, 32], classes=5), 32),
        "resnet_v2_bottleneck": (lambda: resnet.ResNetV2(resnet.BottleneckV2, [1, 1],
                                                         [8, 16, 32], classes=5,
                                                         thumbnail=True), 8),
        "densenet": (lambda: densenet.DenseNet(8, 4, [2, 2], classes=5), 56),
        "mobilenet": (lambda: mobilenet.MobileNet(0.03125, classes=5), 32),
    }
    meta = {}
    rng = np.random.RandomState(1)
    for key, (make, size) in configs.items():
        with mx.name.NameManager():
            net = make()
        net.initialize(mx.init.Xavier())
        shape = (2, 3, size, size)
        net(mx.nd.zeros(shape))
        for k, p in net._collect_params_with_prefix().items():
            if k.endswith("running_mean"):
                p.set_data(mx.nd.array(rng.uniform(-0.2, 0.2, p.shape)))
            elif k.endswith("running_var"):
                p.set_data(mx.nd.array(rng.uniform(0.5, 2.0, p.shape)))
            elif k.endswith(("gamma", "beta")):
                p.set_data(mx.nd.array(rng.uniform(0.5, 1.5, p.shape)
                                       if k.endswith("gamma") else
                                       rng.uniform(-0.2, 0.2, p.shape)))
        x = deterministic_input(shape, seed=len(meta) + 1)
        y = net(mx.nd.array(x)).asnumpy()
        fname = f"tiny_{key}.params"
        net.save_parameters(os.path.join(OUT, fname))
        meta[key] = {"file": fname, "input_shape": list(shape), "input_seed": len(meta) + 1,
                     "output": y.tolist()}
        print(key, os.path.getsize(os.path.join(OUT, fname)), flush=True)
    with open(os.path.join(OUT, "tiny.json"), "w") as f:
        json.dump(meta, f)


if __name__ == "__main__":
    os.makedirs(OUT, exist_ok=True)
    what = sys.argv[1:] or ["names", "outputs", "tiny"]
    if "names" in what:
        names_shapes()
    if "outputs" in what:
        outputs()
    if "tiny" in what:
        tiny()
