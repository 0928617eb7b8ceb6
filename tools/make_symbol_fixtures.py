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


class Misc(gluon.HybridBlock):
    """Elementwise/broadcast arithmetic, scalar ops, shape ops, reductions, softmax."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.emb = nn.Embedding(10, 4)
            self.ln = nn.LayerNorm()
            self.dense = nn.Dense(6, flatten=False)

    def hybrid_forward(self, F, tokens):
        e = self.emb(tokens)                      # (B, T, 4)
        e = self.ln(e)
        h = self.dense(e)                         # (B, T, 6)
        a = F.Activation(h, act_type="softrelu") + F.Activation(h, act_type="softsign")
        b = F.LeakyReLU(h, act_type="selu") * F.LeakyReLU(h, act_type="gelu")
        c = F.Activation(h, act_type="tanh") - F.Activation(h, act_type="sigmoid")
        d = F.broadcast_mul(a, F.mean(b, axis=1, keepdims=True))
        s = (2 * c + 1) / 3 - 0.5
        s = 1 - s
        s = 2 / (s * s + 1) + (-c) ** 2
        s = F.clip(s, a_min=-1.0, a_max=2.0)
        z = F.concat(d, s, dim=2)                 # (B, T, 12)
        z = F.transpose(z, axes=(0, 2, 1))        # (B, 12, T)
        z = F.reshape(z, shape=(0, -1))           # (B, 12T)
        p = F.softmax(z, axis=-1)
        q = F.log_softmax(z)
        r = F.sum(p * q, axis=1) + F.mean(F.relu(z), axis=1)
        out = F.broadcast_add(F.expand_dims(r, axis=1), F.elemwise_mul(p, F.sqrt(p + 1)))
        return F.maximum(out, 0.001)


def build_cnn():
    net = nn.HybridSequential(prefix="cnn_")
    with net.name_scope():
        net.add(nn.Conv2D(4, 3, padding=1, in_channels=3),
                nn.BatchNorm(in_channels=4),
                nn.Activation("relu"),
                nn.MaxPool2D(2),
                nn.Conv2D(5, 3, strides=2, padding=1, use_bias=False, activation="tanh"),
                nn.AvgPool2D(2, ceil_mode=True),
                nn.GlobalMaxPool2D(),
                nn.Flatten(),
                nn.Dense(3))
    return net, np.random.RandomState(1).randn(2, 3, 8, 8).astype("float32")


def build_mlp():
    net = nn.HybridSequential(prefix="mlp_")
    with net.name_scope():
        net.add(nn.Dense(8, activation="relu"),
                nn.BatchNorm(),
                nn.LeakyReLU(0.1),
                nn.Dense(7, activation="sigmoid"),
                nn.ELU(0.5),
                nn.Dense(6, activation="softrelu"),
                nn.PReLU(),
                nn.Dropout(0.3),
                nn.Dense(5, use_bias=False),
                nn.SELU(),
                nn.Dense(4))
    return net, np.random.RandomState(2).randn(3, 5).astype("float32")


def build_misc():
    net = Misc(prefix="misc_")
    x = np.random.RandomState(3).randint(0, 10, size=(2, 3)).astype("float32")
    return net, x


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
    net, x = build()
    net.initialize(mx.init.Xavier())
    net.hybridize()
    net(mx.nd.array(x))
    # non-trivial running statistics
    for p in net.collect_params().values():
        if p.name.endswith(("running_mean", "running_var")):
            v = np.random.RandomState(7).rand(*p.shape).astype("float32") + 0.5
            p.set_data(mx.nd.array(v))
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
        if name == "mlp":
            # switch off dropout's randomness for a comparable training step
            pass
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
        if name == "mlp":
            res["y_train_step"] = y.asnumpy()
    np.savez(os.path.join(OUT, name + "-io.npz"), **res)


def main():
    os.makedirs(OUT, exist_ok=True)
    export_model("cnn", build_cnn)
    export_model("mlp", build_mlp)
    export_model("misc", build_misc)
    module_style()
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(os.path.join(OUT, f)))


if __name__ == "__main__":
    sys.exit(main())
