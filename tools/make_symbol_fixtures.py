"""Make the Symbol/export fixtures under tests/data/mxnet/symbol/ with real MXNet 1.9.1.

Needs MXNet (not run in CI):  /tmp/mxvenv/bin/python tools/make_symbol_fixtures.py

For each model NAME it writes
  NAME-symbol.json, NAME-0000.params   what MXNet's ``export`` (or save_checkpoint) wrote
  NAME-io.npz                          inputs and MXNet's outputs (np.savez, no pickle):
      x            the input
      y_predict    the imported model's output in predict mode
      y_train      the output of one training-mode forward (batch statistics)
      after_<param>  (cnn, mlp) parameters after one training step: training-mode forward,
                   loss = sum(y * w_loss), backward, Trainer('sgd', lr=0.1, momentum=0.9,
                   wd=1e-3).step(batch): BatchNorm running statistics and weights
      w_loss       the loss weights
Models are built with explicit prefixes so that mxgrad can rebuild the same names.
"""
import os
import sys

import numpy as np
import mxnet as mx
from mxnet import autograd, gluon
from mxnet.gluon import nn

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "tests", "data", "mxnet", "symbol")
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from symbol_models import (BUILDERS, build_groupnorm, build_lstm, set_running_stats, ZOO, zoo_param_values,  # noqa: E402
                           zoo_input)


def module_style():
    """A checkpoint as the Module API writes it: mx.sym graph + SoftmaxOutput."""
    data = mx.sym.var("data")
    c = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv1")
    c = mx.sym.BatchNorm(c, fix_gamma=False, name="bn1")
    c = mx.sym.LeakyReLU(c, act_type="leaky", slope=0.2, name="lrelu1")
    c = mx.sym.Pooling(c, kernel=(3, 3), stride=(2, 2), pool_type="max",
                       pooling_convention="full", name="pool1")
    c = mx.sym.Pooling(c, kernel=(1, 1), global_pool=True, pool_type="avg", name="gpool")
    c = mx.sym.Flatten(c, name="flat")
    c = mx.sym.Dropout(c, p=0.2, name="drop")
    f = mx.sym.FullyConnected(c, num_hidden=5, name="fc1")
    f = mx.sym.Activation(f, act_type="relu", name="relu1")
    f = mx.sym.identity(f, name="copy")
    f = mx.sym.FullyConnected(f, num_hidden=3, name="fc2")
    out = mx.sym.SoftmaxOutput(f, name="softmax")
    mod = mx.mod.Module(out, data_names=["data"], label_names=["softmax_label"])
    x = np.random.RandomState(4).randn(2, 3, 7, 7).astype("float32")
    mod.bind(data_shapes=[("data", x.shape)], label_shapes=[("softmax_label", (2,))])
    mx.random.seed(5)
    mod.init_params(mx.init.Xavier(magnitude=2.0))
    arg, aux = mod.get_params()
    aux = {k: mx.nd.array(np.random.RandomState(6).rand(*v.shape) + 0.5) for k, v in aux.items()}
    mx.model.save_checkpoint(os.path.join(OUT, "module"), 0, out, arg, aux)
    mod.set_params(arg, aux)
    mod.forward(mx.io.DataBatch([mx.nd.array(x)], [mx.nd.zeros((2,))]), is_train=False)
    y = mod.get_outputs()[0].asnumpy()
    np.savez(os.path.join(OUT, "module-io.npz"), x=x, y_predict=y)


def export_model(name, build, int_input=False):
    mx.random.seed(0)
    net, x = build(mx)
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(mx.nd.array(x))
    set_running_stats(net, mx)
    net(mx.nd.array(x))
    path = os.path.join(OUT, name)
    net.export(path)
    # what a user of the exported files sees
    blk = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    res = {"x": x}
    res["y_predict"] = blk(mx.nd.array(x)).asnumpy()
    if name in ("cnn", "mlp"):
        with autograd.train_mode():
            if name == "cnn":      # no randomness in cnn
                res["y_train"] = blk(mx.nd.array(x)).asnumpy()
        blk2 = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"],
                                         path + "-0000.params")
        trainer = gluon.Trainer(blk2.collect_params(), "sgd",
                                {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3})
        w_loss = np.random.RandomState(8).randn(*res["y_predict"].shape).astype("float32")
        res["w_loss"] = w_loss
        with autograd.record():
            y = blk2(mx.nd.array(x))
            loss = (y * mx.nd.array(w_loss)).sum()
        loss.backward()
        trainer.step(x.shape[0])
        for k, p in blk2.collect_params().items():
            res["after_" + k] = p.data().asnumpy()
    np.savez(os.path.join(OUT, name + "-io.npz"), **res)


def zoo_fixtures():
    """Model-zoo architectures (classes=10): the exported JSON only (gzipped, the
    weights would be MBs), run by MXNet with deterministic parameters
    (symbol_models.zoo_param_values) on a 16x16 batch: zoo-io.npz holds x and
    <name>_predict outputs (and mobilenet0.25_train)."""
    import gzip
    from mxnet.gluon.model_zoo import vision
    x = zoo_input()
    res = {"x": x}
    for name in ZOO:
        net = vision.get_model(name, classes=10)
        net.initialize()
        net.hybridize()
        net(mx.nd.array(x))
        tmp = os.path.join(OUT, "_tmp_zoo")
        net.export(tmp)
        os.remove(tmp + "-0000.params")
        with open(tmp + "-symbol.json", "rb") as f:
            text = f.read()
        os.remove(tmp + "-symbol.json")
        with gzip.GzipFile(os.path.join(OUT, f"zoo_{name}-symbol.json.gz"), "wb",
                           mtime=0) as f:
            f.write(text)
        sym = mx.sym.load_json(text.decode())
        blk = gluon.SymbolBlock(sym, mx.sym.var("data"))
        blk.initialize()
        blk(mx.nd.array(x))
        shapes = {k: p.shape for k, p in blk.collect_params().items()}
        for k, v in zoo_param_values(shapes).items():
            blk.collect_params()[k].set_data(mx.nd.array(v))
        res[name + "_predict"] = blk(mx.nd.array(x)).asnumpy()
        if name == "mobilenet0.25":
            # training mode (batch statistics of 2 samples, down to 1x1 maps) amplifies
            # float32 rounding differences layer after layer in the deeper ResNets and
            # MobileNetV2 (relative 1e-6 at the input, O(1) at the output); this one
            # stays well conditioned
            with autograd.train_mode():
                res[name + "_train"] = blk(mx.nd.array(x)).asnumpy()
    np.savez(os.path.join(OUT, "zoo-io.npz"), **res)


ZOO_JSON_ONLY = ("squeezenet1.1", "densenet121", "inceptionv3", "alexnet", "vgg11_bn")


def zoo_json_only():
    """More model-zoo architectures as Symbol JSON only (their 224x224 inputs are too slow
    to run in the tests): mxgrad must load every operator and attribute."""
    import gzip
    from mxnet.gluon.model_zoo import vision
    for name in ZOO_JSON_ONLY:
        net = vision.get_model(name, classes=10)
        net.hybridize()
        text = net(mx.sym.var("data")).tojson().encode()
        with gzip.GzipFile(os.path.join(OUT, f"zooj_{name}-symbol.json.gz"), "wb",
                           mtime=0) as f:
            f.write(text)


def op_names():
    """The names of all operators MXNet 1.9.1 registers (mxnet_op_names.txt)."""
    import ctypes
    from mxnet.base import _LIB, py_str
    plist = ctypes.POINTER(ctypes.c_char_p)()
    size = ctypes.c_uint()
    _LIB.MXListAllOpNames(ctypes.byref(size), ctypes.byref(plist))
    names = sorted(set(py_str(plist[i]) for i in range(size.value)))
    with open(os.path.join(OUT, "mxnet_op_names.txt"), "w") as f:
        f.write("\n".join(names) + "\n")


def ops_graph():
    """One mx.sym graph with many operators and attribute forms (ops-symbol.json), run by
    MXNet's executor on fixed inputs: ops-io.npz holds the inputs a, b, m, idx, every
    output y<i> and MXNet's output names."""
    S = mx.sym
    a, b = S.var("a"), S.var("b")          # (2, 3, 4)
    m = S.var("m")                         # (3, 4) matrix
    idx = S.var("idx")                     # (2,) integer-valued
    outs = [
        S.slice_axis(a, axis=2, begin=1, end=3), S.split(a, num_outputs=3, axis=1)[1],
        S.pad(S.reshape(a, shape=(1, 2, 3, 4)), mode="constant", pad_width=(0, 0, 0, 0, 1, 1, 2, 0), constant_value=0.5),
        S.tile(a, reps=(1, 2, 1)), S.repeat(a, repeats=2, axis=0), S.reverse(a, axis=1),
        S.squeeze(S.expand_dims(a, axis=0)), S.swapaxes(a, dim1=0, dim2=2), S.broadcast_to(S.slice_axis(a, axis=0, begin=0, end=1), shape=(3, 3, 4)),
        S.take(m, idx), S.pick(a, S.argmax(b, axis=1), axis=1),
        S.one_hot(idx, depth=5), S.where(a > 0, a, b), S.dot(S.reshape(a, shape=(6, 4)), m, transpose_b=True),
        S.batch_dot(a, b, transpose_b=True), S.topk(a, k=2, axis=-1, ret_typ="value"), S.argmax(a, axis=1),
        S.sort(a, axis=2, is_ascend=False), S.norm(a, ord=2, axis=1), S.max(a, axis=(0, 2)), S.min(a, axis=1, keepdims=True),
        S.prod(a, axis=2), S.Cast(a, dtype="float64"), S.BlockGrad(a), S.stack(a, b, axis=1), S.add_n(a, b, a),
        S.slice(a, begin=(0, 1, None), end=(2, 3, None), step=(1, 1, 2)), S.depth_to_space(S.reshape(a, shape=(1, 4, 2, 3)), block_size=2),
        S.space_to_depth(S.reshape(a, shape=(1, 1, 4, 6)), block_size=2), S.softmin(a, axis=1), S.SoftmaxActivation(S.reshape(a, shape=(2, 12))),
        S.hard_sigmoid(a, alpha=0.3, beta=0.4), S.smooth_l1(a, scalar=2.0), S.broadcast_like(S.slice_axis(a, axis=1, begin=0, end=1), b),
        S.reshape_like(S.reshape(a, shape=(24,)), b), S.slice_like(a, S.slice_axis(b, axis=2, begin=0, end=2)), S.zeros_like(a) + S.ones_like(b), S.argmax_channel(m),
        S.gather_nd(m, S.stack(idx, idx, axis=0)), S.sum(a, axis=1, exclude=True), S.mean(a, axis=(1,), keepdims=True),
        S.Reshape(a, shape=(-1, 0), reverse=True), S.Reshape(a, shape=(-3, -2)), S.Flatten(a), S.transpose(a),
        S.Activation(a, act_type="softrelu"), S.LeakyReLU(a, act_type="rrelu"), S.LeakyReLU(a, act_type="elu", slope=0.3),
        S.clip(a, a_min=-0.5, a_max=0.5), S.broadcast_maximum(a, S.slice_axis(b, axis=2, begin=0, end=1)),
        S.broadcast_power(S.abs(a) + 0.5, S.slice_axis(b, axis=0, begin=0, end=1)), S.broadcast_hypot(a, b), S.hypot(a, b) if hasattr(S, "hypot") else a,
        S.maximum(a, b), S.minimum(a, 0.2), S.power(S.abs(a) + 0.1, 1.5), 3.0 ** S.tanh(a), a % 0.7, (a >= b) + (a != 0.3) + (a < b) + (a <= 0.1),
        S.log_softmax(a, axis=1, temperature=2.0), S.softmax(a, axis=0, temperature=0.5), S.erf(a), S.sign(a), S.round(a * 3), S.floor(a), S.ceil(a),
        S.square(a), S.rsqrt(S.abs(a) + 1), S.reciprocal(S.abs(a) + 1), S.log1p(S.abs(a)), S.expm1(a), S.cbrt(a), S.sinh(a), S.arctan(a),
    ]
    g = S.Group(outs)
    rs = np.random.RandomState(9)
    vals = {"a": rs.randn(2, 3, 4).astype("float32"), "b": rs.randn(2, 3, 4).astype("float32"),
            "m": rs.randn(3, 4).astype("float32"), "idx": np.array([2, 0], dtype="float32")}
    ex = g.bind(mx.cpu(), {k: mx.nd.array(v) for k, v in vals.items()})
    res = ex.forward()
    out = dict(vals)
    for i, r in enumerate(res):
        out[f"y{i}"] = r.asnumpy()
    out["names"] = np.array(g.list_outputs())
    for i, name in enumerate(g.list_outputs()):
        if name.endswith("_mask"):   # rrelu's mask: MXNet leaves it unwritten in predict
            out[f"y{i}"] = np.zeros_like(out[f"y{i}"])
    g.save(os.path.join(OUT, "ops-symbol.json"))
    np.savez(os.path.join(OUT, "ops-io.npz"), **out)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, build in BUILDERS.items():
        export_model(name, build)
    export_model("groupnorm", build_groupnorm)
    export_model("lstm", build_lstm)
    module_style()
    zoo_fixtures()
    zoo_json_only()
    op_names()
    ops_graph()
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)))


if __name__ == "__main__":
    sys.exit(main())
