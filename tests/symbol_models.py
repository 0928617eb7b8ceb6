"""The small models of the Symbol/export fixtures, written once for both MXNet and mxgrad.

Each ``build_<name>(mx)`` takes the framework module (``mxnet`` or ``mxgrad``) and returns
``(net, x)``: an uninitialized HybridBlock with fixed prefixes (so both frameworks give
the same names) and a NumPy input. Used by ``tools/make_symbol_fixtures.py`` (with real
MXNet) and by ``tests/test_symbol*.py`` (with mxgrad).
"""
import numpy as np


def build_cnn(mx):
    nn = mx.gluon.nn
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


def build_mlp(mx):
    nn = mx.gluon.nn
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


def build_misc(mx):
    nn = mx.gluon.nn

    class Misc(mx.gluon.HybridBlock):
        """Elementwise/broadcast and scalar arithmetic, shape ops, reductions, softmax."""

        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.emb = nn.Embedding(10, 4)
                self.ln = nn.LayerNorm()
                self.dense = nn.Dense(6, flatten=False)

        def hybrid_forward(self, F, tokens):
            e = self.ln(self.emb(tokens))             # (B, T, 4)
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

    net = Misc(prefix="misc_")
    x = np.random.RandomState(3).randint(0, 10, size=(2, 3)).astype("float32")
    return net, x


BUILDERS = {"cnn": build_cnn, "mlp": build_mlp, "misc": build_misc}


def set_running_stats(net, mx):
    """Non-trivial BatchNorm running statistics (the same in both frameworks)."""
    for p in net.collect_params().values():
        if p.name.endswith(("running_mean", "running_var")):
            v = np.random.RandomState(7).rand(*p.shape).astype("float32") + 0.5
            p.set_data(mx.nd.array(v))


ZOO = ("resnet18_v1", "resnet18_v2", "mobilenet0.25", "mobilenetv2_0.25")


def zoo_param_values(shapes):
    """Deterministic parameter values for a model-zoo graph, the same in both frameworks:
    ``shapes`` maps parameter names to shapes; returns name -> float32 NumPy array."""
    out = {}
    for k, name in enumerate(sorted(shapes)):
        shape = tuple(shapes[name])
        size = int(np.prod(shape))
        wave = np.sin(np.arange(size, dtype=np.float64) * 0.61 + k).reshape(shape)
        if name.endswith(("running_var", "moving_var")):
            v = 1.0 + 0.5 * np.abs(wave)
        elif name.endswith("gamma"):
            v = 1.0 + 0.1 * wave
        elif name.endswith(("running_mean", "moving_mean", "beta", "bias")):
            v = 0.1 * wave
        else:
            fan_in = int(np.prod(shape[1:])) if len(shape) > 1 else 1
            v = wave * np.sqrt(3.0 / fan_in)
        out[name] = v.astype(np.float32)
    return out


def zoo_input():
    return np.random.RandomState(11).rand(2, 3, 16, 16).astype("float32")


def build_layers(mx):
    """The other Gluon layers: transposed and grouped convolution, instance norm,
    reflection padding, GELU/Swish/SiLU, 1-D convolution and pooling."""
    nn = mx.gluon.nn

    class Layers(mx.gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.body = nn.HybridSequential()
                self.body.add(
                    nn.Conv2DTranspose(4, 3, strides=2, padding=1, output_padding=1,
                                       in_channels=3),
                    nn.InstanceNorm(in_channels=4),
                    nn.ReflectionPad2D(1),
                    nn.Conv2D(4, 3, groups=2, activation="relu", in_channels=4),
                    nn.GELU(),
                    nn.Swish(beta=1.5),
                    nn.AvgPool2D(2, count_include_pad=False, padding=1),
                    nn.Conv2D(6, 1, dilation=1, strides=1),
                    nn.MaxPool2D(2, 1))
                self.seq = nn.HybridSequential()
                self.seq.add(nn.Conv1D(3, 2, in_channels=6), nn.AvgPool1D(2),
                             nn.GlobalMaxPool1D(), nn.Dense(2, flatten=False))

        def hybrid_forward(self, F, x):
            h = self.body(x)                          # (B, 6, H, W)
            h = F.reshape(h, shape=(0, 0, -1))        # (B, 6, H*W)
            return self.seq(h)

    net = Layers(prefix="layers_")
    return net, np.random.RandomState(5).randn(2, 3, 5, 5).astype("float32")


BUILDERS["layers"] = build_layers


def build_groupnorm(mx):
    """GroupNorm (import only: MXNet 1.x's gamma/beta have one value per group)."""
    nn = mx.gluon.nn
    net = nn.HybridSequential(prefix="gn_")
    with net.name_scope():
        net.add(nn.Conv2D(6, 1, in_channels=2), nn.GroupNorm(num_groups=3), nn.Flatten())
    return net, np.random.RandomState(6).randn(2, 2, 3, 3).astype("float32")


def build_lstm(mx):
    """A bidirectional 2-layer LSTM + Dense: Gluon's export writes the fused RNN op,
    _rnn_param_concat and begin states as _zeros with an unknown batch size (imported
    from MXNet's export and exported by mxgrad)."""
    nn, rnn = mx.gluon.nn, mx.gluon.rnn
    net = nn.HybridSequential(prefix="seq_")
    with net.name_scope():
        net.add(rnn.LSTM(5, num_layers=2, layout="NTC", bidirectional=True, input_size=3),
                nn.Dense(2, flatten=False))
    return net, np.random.RandomState(3).randn(2, 4, 3).astype("float32")


BUILDERS["lstm"] = build_lstm


def _build_numpy(case):
    def build(mx):
        """A NumPy-mode block (call under ``npx.set_np()``): Gluon layers, then the
        expression ``case`` of tests/sym_numpy_cases.py on slices of their output."""
        import numpy as onp
        from sym_numpy_cases import np_model
        x = onp.random.RandomState(0).uniform(-1, 1, (2, 3, 6, 6)).astype("float32")
        return np_model(mx.gluon, units=6, cases=[case], prefix="npnet_"), x
    return build


def _numpy_builders():
    from sym_numpy_cases import CASES
    return {f"numpy_{case}": _build_numpy(case) for case in CASES}


# one model per case: MXNet's shape inference fails on some graphs joining many of them
# (an entry read by many nodes), where each one alone loads
NUMPY_BUILDERS = _numpy_builders()
