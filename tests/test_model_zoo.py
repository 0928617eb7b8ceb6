"""gluon.model_zoo.vision against MXNet 1.9.1 (fixtures from tools/make_model_zoo_fixtures.py).

- every model: structural names (what save_parameters writes), collect_params names and
  the shapes known at construction equal MXNet's; for the models cheap to run, all
  shapes after a forward;
- outputs: with every parameter set to the same deterministic values, a forward gives
  MXNet's output (rtol 1e-4) for one or more models of each family;
- tiny zoo-class configurations initialized and saved by MXNet itself (binary .params)
  load with load_parameters and give MXNet's outputs;
- pretrained=True: loads from root when the file is there, otherwise a clear error.
"""
import gzip
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError
from mxgrad.gluon.model_zoo import vision, model_store
from mxgrad.gluon.model_zoo.vision import resnet, densenet, mobilenet
from model_zoo_weights import deterministic_value, deterministic_input

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "model_zoo")

with gzip.open(os.path.join(DATA, "names_shapes.json.gz"), "rt") as _f:
    NAMES = json.load(_f)
with open(os.path.join(DATA, "outputs.json")) as _f:
    OUTPUTS = json.load(_f)
with open(os.path.join(DATA, "tiny.json")) as _f:
    TINY = json.load(_f)

# shapes of these do not depend on the input size, so a small input resolves them cheaply
SMALL_INPUT = {n: 8 for n in NAMES if n.startswith(("resnet", "mobilenet"))}
# models run forward in the shape test (the others: outputs test, or construction only)
FORWARD_SHAPES = sorted(SMALL_INPUT) + ["alexnet", "squeezenet1.0", "squeezenet1.1",
                                        "vgg11"]


def _relative(net, entry, name):
    """``name`` with this net's root prefix replaced by MXNet's (counters differ)."""
    assert name.startswith(net.prefix), name
    return entry["prefix"] + name[len(net.prefix):]


def test_model_names():
    assert vision.model_names() == sorted(NAMES)
    assert len(NAMES) == 34


@pytest.mark.parametrize("name", sorted(NAMES))
def test_names_and_construction_shapes(name):
    entry = NAMES[name]
    net = vision.get_model(name)
    params = net._collect_params_with_prefix()
    got = [[k, _relative(net, entry, p.name)] for k, p in params.items()]
    assert got == [e[:2] for e in entry["params"]]
    assert [_relative(net, entry, k) for k in net.collect_params().keys()] == \
        entry["collect_params"]
    for (k, p), (_, _, shape) in zip(params.items(), entry["params"]):
        cur = p.shape
        assert len(cur) == len(shape), k
        assert all(c in (0, s) for c, s in zip(cur, shape)), (k, cur, shape)


@pytest.mark.parametrize("name", FORWARD_SHAPES)
def test_shapes_after_forward(name):
    entry = NAMES[name]
    net = vision.get_model(name)
    net.collect_params().setattr("grad_req", "null")   # no gradient buffers needed here
    net.initialize(mx.init.Zero())
    size = SMALL_INPUT.get(name, entry["input_shape"][-1])
    net(mx.nd.zeros((1, 3, size, size)))
    got = [[k, _relative(net, entry, p.name), list(p.shape)]
           for k, p in net._collect_params_with_prefix().items()]
    assert got == entry["params"]


@pytest.mark.parametrize("name", sorted(OUTPUTS))
def test_outputs_with_deterministic_weights(name, tmp_path):
    entry = OUTPUTS[name]
    full = {k: s for k, _, s in NAMES[name]["params"]}
    net = vision.get_model(name, classes=10)
    values = {}
    for k in net._collect_params_with_prefix():
        shape = full[k]
        if shape[0] == 1000:   # the classifier (MXNet's shapes were for 1000 classes)
            shape = [10] + shape[1:]
        values[k] = mx.nd.array(deterministic_value(k, shape))
    # through a file and load_parameters, which checks every shape against the layer
    f = str(tmp_path / "w.params")
    mx.nd.save(f, values)
    net.load_parameters(f)
    x = mx.nd.array(deterministic_input(tuple(entry["input_shape"])))
    y = net(x).asnumpy()
    expected = np.array(entry["output"], dtype=np.float32).reshape(entry["output_shape"])
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4 * scale)


TINY_MODELS = {
    "resnet_v1_basic": lambda: resnet.ResNetV1(resnet.BasicBlockV1, [1, 1], [4, 8, 16],
                                               classes=5, thumbnail=True),
    "resnet_v1_bottleneck": lambda: resnet.ResNetV1(resnet.BottleneckV1, [1, 1],
                                                    [8, 16, 32], classes=5),
    "resnet_v2_bottleneck": lambda: resnet.ResNetV2(resnet.BottleneckV2, [1, 1],
                                                    [8, 16, 32], classes=5, thumbnail=True),
    "densenet": lambda: densenet.DenseNet(8, 4, [2, 2], classes=5),
    "mobilenet": lambda: mobilenet.MobileNet(0.03125, classes=5),
}


@pytest.mark.parametrize("key", sorted(TINY))
def test_mxnet_written_params_load(key):
    """A .params file MXNet 1.9.1 wrote (save_parameters of its own zoo classes) loads
    into the same mxgrad class and gives MXNet's output."""
    entry = TINY[key]
    net = TINY_MODELS[key]()
    net.load_parameters(os.path.join(DATA, entry["file"]))
    x = mx.nd.array(deterministic_input(tuple(entry["input_shape"]),
                                        seed=entry["input_seed"]))
    y = net(x).asnumpy()
    expected = np.array(entry["output"], dtype=np.float32)
    scale = max(1.0, float(np.abs(expected).max()))
    np.testing.assert_allclose(y, expected, rtol=1e-4, atol=1e-4 * scale)


def test_get_model_unknown_name():
    with pytest.raises(ValueError, match="resnet18_v1") as err:
        vision.get_model("resnet19_v1")
    assert isinstance(err.value, MXNetError)


def test_pretrained_missing_file_says_where(tmp_path):
    root = str(tmp_path / "store")
    with pytest.raises(FileNotFoundError) as err:
        vision.resnet18_v1(pretrained=True, root=root)
    assert isinstance(err.value, model_store.ModelFileNotFoundError)
    assert isinstance(err.value, MXNetError)
    msg = str(err.value)
    assert "resnet18_v1-a0666292.params" in msg and root in msg


def test_pretrained_default_root_uses_mxnet_home(tmp_path, monkeypatch):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert model_store.default_root() == os.path.join(str(tmp_path), "models")
    with pytest.raises(model_store.ModelFileNotFoundError,
                       match=r"mobilenetv2_0\.25-ae8f9392\.params"):
        vision.get_model("mobilenetv2_0.25", pretrained=True)
    monkeypatch.delenv("MXNET_HOME")
    assert model_store.default_root() == os.path.join(os.path.expanduser("~"), ".mxnet",
                                                      "models")


@pytest.mark.parametrize("name,file_name", [
    ("mobilenet0.25", "mobilenet0.25-9f83e440.params"),
    ("mobilenet0.5", "mobilenet0.5-8e9d539c.params"),
    ("mobilenet1.0", "mobilenet1.0-6b8c5106.params"),
    ("mobilenetv2_1.0", "mobilenetv2_1.0-36da4ff1.params"),
    ("squeezenet1.1", "squeezenet1.1-33ba0f93.params"),
    ("vgg11_bn", "vgg11_bn-ee79a809.params"),
    ("inceptionv3", "inceptionv3-ed47ec45.params"),
])
def test_pretrained_file_names(name, file_name, tmp_path):
    with pytest.raises(model_store.ModelFileNotFoundError) as err:
        vision.get_model(name, pretrained=True, root=str(tmp_path))
    assert file_name in str(err.value)


def test_pretrained_present_file_is_loaded(tmp_path):
    src = mobilenet.MobileNet(0.25, classes=1000)
    src.initialize(mx.init.Xavier())
    x = mx.nd.array(deterministic_input((1, 3, 32, 32)))
    expected = src(x).asnumpy()
    path = tmp_path / model_store.model_file_name("mobilenet0.25")
    src.save_parameters(str(path))
    with pytest.warns(UserWarning, match="SHA-1"):
        net = vision.mobilenet0_25(pretrained=True, root=str(tmp_path))
    np.testing.assert_array_equal(net(x).asnumpy(), expected)


def test_training_step_fills_every_gradient():
    """Backward through a zoo model (grouped convolutions, RELU6, shortcuts, BatchNorm in
    training mode) gives a gradient for every trainable parameter; a step changes them.
    Seeded."""
    mx.random.seed(7)
    np.random.seed(7)
    net = vision.get_model("mobilenetv2_0.25", classes=4)
    net.initialize(mx.init.Xavier())
    x = mx.nd.array(deterministic_input((2, 3, 32, 32)))
    y = mx.nd.array([1, 3])
    trainer = mx.gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    with mx.autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    trainable = {k: p for k, p in net.collect_params().items() if p.grad_req != "null"}
    assert len(trainable) == sum(not k.endswith(("running_mean", "running_var"))
                                 for k, _, _ in NAMES["mobilenetv2_0.25"]["params"]) == 160
    for k, p in trainable.items():
        g = p.grad().asnumpy()
        assert g.shape == p.shape and np.isfinite(g).all(), k
    # The beta of each bottleneck's last BatchNorm shifts the block's output by a constant
    # per channel; every path from there meets a convolution followed by a training-mode
    # BatchNorm, which removes such a shift: their gradients are zero up to rounding.
    shift_only = {k for k in trainable if "linearbottleneck" in k and k.endswith("batchnorm2_beta")}
    assert len(shift_only) == 17
    top = max(float(np.abs(p.grad().asnumpy()).max()) for p in trainable.values())
    for k, p in trainable.items():
        g = np.abs(p.grad().asnumpy()).max()
        if k in shift_only:
            assert g < 1e-4 * top, k
        else:
            assert g > 0, k
    before = net.output[0].weight.data().asnumpy().copy()
    trainer.step(2)
    assert not np.allclose(net.output[0].weight.data().asnumpy(), before)


def test_concurrent_slice_keeps_axis():
    from mxgrad.gluon.contrib.nn import HybridConcurrent, Identity
    net = HybridConcurrent(axis=1)
    net.add(Identity(), Identity(), Identity())
    assert net[1:](mx.nd.ones((2, 3))).shape == (2, 6)
