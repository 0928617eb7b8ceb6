"""A hybridized block (a planned graph, mxgrad.gluon._hybrid_plan) gives the numbers of
the same block run imperatively: outputs, input gradients, parameter gradients and
parameter values after a few Trainer steps, for every Gluon layer and block mxgrad has;
and the hybridize() behaviours around it (Dropout masks, BatchNorm statistics,
grad_req='add', active=False, re-planning, modes, set_data, deferred initialization,
export, MXNet's error on a Python branch on values, a branch on the training mode,
create_graph, hooks, shared parameters, inputs given as lists, cells hybridized
themselves, the engine's errors).

Blocks are built twice with the same parameters; ``check_twins`` trains both side by
side in float64 (SGD; Adam and float32 in a second test) and compares everything to
1e-6, and checks that the hybridized twin really ran a plan."""
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError, NotImplementedForSymbol
from mxgrad.gluon import contrib, nn, rnn
from mxgrad.gluon import loss as gloss
from mxgrad.gluon._hybrid_plan import NOT_PLANNED
from mxgrad.gluon.model_zoo import vision

TOL = dict(rtol=1e-6, atol=1e-6)
HYBRIDIZE: dict = {}      # hybridize()'s arguments for the twins (test_plan_static: static_alloc)


def _rand(*shape, seed=0, low=-1.0, high=1.0):
    return np.random.RandomState(seed + sum(shape)).uniform(low, high, shape)


def _flat(out):
    if isinstance(out, (list, tuple)):
        return [a for o in out for a in _flat(o)]
    return [out]


def _blocks(block):
    yield block
    for child in block._children.values():
        yield from _blocks(child)


def _plan_count(block):
    """Planned signatures of ``block`` (entries that are not a fallback)."""
    plans = block.__dict__.get("_plans") or {}
    return sum(1 for e in plans.values() if e is not NOT_PLANNED)


def _twins(make, xs, dtype="float64", seed=0):
    """The block built twice with the same parameters; the second hybridized."""
    nets = []
    for _ in range(2):
        mx.random.seed(seed)
        net = make()
        net.initialize(mx.init.Xavier())
        net.cast(dtype)
        with autograd.pause():
            net(*xs)            # deferred initialization, imperatively
        nets.append(net)
    a, b = nets
    for p, q in zip(a.collect_params().values(), b.collect_params().values()):
        assert p.shape == q.shape
        q.set_data(p.data().copy())
    b.hybridize(**HYBRIDIZE)
    return a, b


def _run(net, trainer, xs, grad_inputs, step, train, weights):
    ins = [x.copy() for x in xs]
    for x, g in zip(ins, grad_inputs):
        if g:
            x.attach_grad()
    mx.random.seed(100 + step)        # the same Dropout masks for both twins
    with autograd.record(train_mode=train):
        outs = _flat(net(*ins))
        loss = sum(((o * w).sum() for o, w in zip(outs, weights)),
                   nd.zeros((1,), dtype=outs[0].dtype))
    loss.backward()
    if trainer is not None:
        trainer.step(ins[0].shape[0])
    params = list(net.collect_params().values())
    return ([o.asnumpy() for o in outs],
            [x.grad.asnumpy() for x, g in zip(ins, grad_inputs) if g],
            [p.grad().asnumpy() for p in params if p.grad_req != "null"],
            [p.data().asnumpy() for p in params])


def check_twins(make, xs, steps=2, opt="sgd", dtype="float64", train=True,
                grad_inputs=None, check_planned=True):
    """Train the imperative and the hybridized twin side by side; all numbers equal."""
    xs = [nd.array(x, dtype=dtype) for x in xs]
    if grad_inputs is None:
        grad_inputs = [True] * len(xs)
    a, b = _twins(make, xs, dtype)
    trainers = [gluon.Trainer(n.collect_params(), opt, {"learning_rate": 0.1})
                if n.collect_params() else None for n in (a, b)]
    weights = None
    for step in range(steps):
        if weights is None:
            with autograd.pause():
                shapes = [o.shape for o in _flat(a(*xs))]
            weights = [nd.array(_rand(*s, seed=7), dtype=dtype) for s in shapes]
        ra = _run(a, trainers[0], xs, grad_inputs, step, train, weights)
        rb = _run(b, trainers[1], xs, grad_inputs, step, train, weights)
        for what, u, v in zip(("output", "input grad", "param grad", "param"), ra, rb):
            assert len(u) == len(v)
            for i, (s, t) in enumerate(zip(u, v)):
                np.testing.assert_allclose(t, s, err_msg=f"step {step} {what} {i}", **TOL)
    assert _plan_count(b) >= 1 or not check_planned, "the hybridized twin ran imperatively"
    return a, b


# ------------------------------------------------------------------ blocks under test
def _seq(*layers):
    def make():
        net = nn.HybridSequential()
        net.add(*[layer() for layer in layers])
        return net
    return make


class Unroll(gluon.HybridBlock):
    """A cell unrolled over the sequence inside one HybridBlock."""

    def __init__(self, make_cell, layout="NTC", merge=True, **kwargs):
        super().__init__(**kwargs)
        self._layout, self._merge = layout, merge
        with self.name_scope():
            self.cell = make_cell()

    def hybrid_forward(self, F, x):
        length = x.shape[self._layout.find("T")]
        return self.cell.unroll(length, x, layout=self._layout, merge_outputs=self._merge)


class BiMasked(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.BidirectionalCell(rnn.LSTMCell(3), rnn.GRUCell(2))

    def hybrid_forward(self, F, x, valid_length):
        return self.cell.unroll(4, x, layout="TNC", merge_outputs=True,
                                valid_length=valid_length)


class CellStep(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.cell = rnn.LSTMCell(3)

    def hybrid_forward(self, F, x, h, c):
        return self.cell(x, [h, c])


class RNNModel(gluon.HybridBlock):
    """d2l's shape: a fused RNN layer (begin states made inside) and a Dense head."""

    def __init__(self, make_layer, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.rnn = make_layer()
            self.dense = nn.Dense(3, flatten=False)

    def hybrid_forward(self, F, x):
        return self.dense(self.rnn(x))


class TwoDropouts(gluon.HybridBlock):
    """Dropouts made in an order other than MXNet's graph order (the second one is read
    first), after an RNN layer whose begin states get their batch size at planning."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.rnn = rnn.GRU(4)

    def hybrid_forward(self, F, x):
        h = self.rnn(x)
        first = F.Dropout(h, p=0.5)
        second = F.Dropout(h, p=0.5)
        return second + first * 2


class WithLoss(gluon.HybridBlock):
    """A Dense layer followed by a loss, both in the hybridized graph."""

    def __init__(self, make_loss, units, act=None, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(units, activation=act)
            self.loss = make_loss()

    def hybrid_forward(self, F, x, *labels):
        return self.loss(self.dense(x), *labels)


class Custom(gluon.HybridBlock):
    """Parameters of its own and many F.* ops."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.w = self.params.get("w", shape=(4, 5))
            self.b = self.params.get("b", shape=(4,), init="ones")

    def hybrid_forward(self, F, x, w, b):
        h = F.FullyConnected(x, w, b, num_hidden=4)
        h = F.relu(h) + F.sigmoid(h) * F.exp(-F.abs(h)) + (h > 0.1) * F.tanh(h)
        z = F.concat(F.softmax(h, axis=-1), F.log_softmax(h), dim=1)
        z = F.broadcast_mul(z, F.sum(z, axis=1, keepdims=True))
        z = F.slice_axis(z, axis=1, begin=1, end=6).transpose()
        s = F.stack(F.mean(F.square(x), axis=1), F.norm(x, axis=1), axis=1)
        return F.dot(z, x), F.clip(s, 0.2, 2.0), F.where(x > 0, x, -x) * 2


class Nested(gluon.HybridBlock):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.inner = nn.HybridSequential()
            self.inner.add(nn.Dense(6, activation="relu"), nn.BatchNorm(), nn.Dropout(0.3))
            self.head = nn.Dense(2)

    def hybrid_forward(self, F, x):
        h = self.inner(x)
        return self.head(h), F.sum(h, axis=1)


class Shared(gluon.HybridBlock):
    """One Dense layer's parameters used twice (by a second Dense layer)."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.a = nn.Dense(5, in_units=5)
            self.b = nn.Dense(5, in_units=5, params=self.a.params)

    def hybrid_forward(self, F, x):
        return self.b(F.tanh(self.a(x)))


class WithConstant(gluon.HybridBlock):
    """A Constant (a parameter without gradient) next to trained ones."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.c = self.params.get_constant("c", np.arange(4.0).reshape(1, 4))
            self.dense = nn.Dense(4)

    def hybrid_forward(self, F, x, c):
        return F.broadcast_mul(self.dense(x), c)


def _stacked_cell():
    cell = rnn.HybridSequentialRNNCell()
    cell.add(rnn.LSTMCell(4))
    cell.add(rnn.DropoutCell(0.3))
    cell.add(rnn.GRUCell(3))
    return cell


def _concurrent():
    net = contrib.nn.HybridConcurrent(axis=1)
    net.add(nn.Dense(3), nn.Dense(2, activation="tanh"), contrib.nn.Identity())
    return net


X2, X3, X4 = _rand(3, 5), _rand(2, 3, 4), _rand(2, 2, 5, 5)

LAYERS = {
    # gluon.nn basic layers
    "Dense": (lambda: nn.Dense(4, activation="tanh"), [X2]),
    "Dense_no_flatten": (lambda: nn.Dense(4, flatten=False, use_bias=False), [X3]),
    "Embedding": (lambda: nn.Embedding(10, 4), [np.array([[1, 2], [3, 9]])]),
    "Flatten": (_seq(nn.Flatten, lambda: nn.Dense(2)), [X3]),
    "Dropout": (_seq(lambda: nn.Dense(6), lambda: nn.Dropout(0.5)), [X2]),
    "Dropout_axes": (lambda: nn.Dropout(0.5, axes=(1,)), [X3]),
    "BatchNorm": (lambda: nn.BatchNorm(), [X4]),
    "BatchNorm_axis_noscale": (lambda: nn.BatchNorm(axis=-1, scale=False, center=False,
                                                    momentum=0.5), [X3]),
    "BatchNorm_global_stats": (lambda: nn.BatchNorm(use_global_stats=True), [X3]),
    "InstanceNorm": (lambda: nn.InstanceNorm(), [X3]),
    "LayerNorm": (lambda: nn.LayerNorm(), [X3]),
    "LayerNorm_axis1": (lambda: nn.LayerNorm(axis=1), [X3]),
    "GroupNorm": (lambda: nn.GroupNorm(2), [_rand(2, 4, 3)]),
    "Identity": (_seq(lambda: nn.Dense(3), nn.Identity), [X2]),
    "HybridLambda": (lambda: nn.HybridLambda(lambda F, x: F.tanh(x) * 2 + x), [X2]),
    "HybridLambda_name": (lambda: nn.HybridLambda("softsign"), [X2]),
    "ReflectionPad2D": (lambda: nn.ReflectionPad2D(1), [_rand(1, 2, 3, 3)]),
    # activations
    "Activation_relu": (lambda: nn.Activation("relu"), [X2]),
    "Activation_sigmoid": (lambda: nn.Activation("sigmoid"), [X2]),
    "Activation_tanh": (lambda: nn.Activation("tanh"), [X2]),
    "Activation_softrelu": (lambda: nn.Activation("softrelu"), [X2]),
    "Activation_softsign": (lambda: nn.Activation("softsign"), [X2]),
    "LeakyReLU": (lambda: nn.LeakyReLU(0.1), [X2]),
    "PReLU": (lambda: nn.PReLU(), [X2]),
    "PReLU_channels": (lambda: nn.PReLU(in_channels=2), [X3[:, :2]]),
    "ELU": (lambda: nn.ELU(0.7), [X2]),
    "SELU": (nn.SELU, [X2]),
    "GELU": (nn.GELU, [X2]),
    "Swish": (lambda: nn.Swish(1.5), [X2]),
    "SiLU": (nn.SiLU, [X2]),
    # convolution and pooling
    "Conv1D": (lambda: nn.Conv1D(3, 3, padding=1, dilation=1), [_rand(2, 2, 7)]),
    "Conv2D": (lambda: nn.Conv2D(3, 3, strides=2, padding=1, activation="relu"), [X4]),
    "Conv2D_groups": (lambda: nn.Conv2D(4, 3, groups=2, use_bias=False), [_rand(1, 4, 5, 5)]),
    "Conv3D": (lambda: nn.Conv3D(2, 2), [_rand(1, 2, 3, 4, 4)]),
    "Conv1DTranspose": (lambda: nn.Conv1DTranspose(3, 3), [_rand(2, 2, 5)]),
    "Conv2DTranspose": (lambda: nn.Conv2DTranspose(3, 3, strides=2, output_padding=1),
                        [_rand(2, 2, 4, 4)]),
    "Conv3DTranspose": (lambda: nn.Conv3DTranspose(2, 2), [_rand(1, 2, 3, 3, 3)]),
    "NHWC_conv_pools": (_seq(lambda: nn.Conv2D(3, 3, layout="NHWC", in_channels=2),
                             lambda: nn.MaxPool2D(layout="NHWC"),
                             lambda: nn.AvgPool2D(layout="NHWC")), [_rand(2, 6, 6, 2)]),
    "MaxPool1D": (lambda: nn.MaxPool1D(2), [_rand(2, 2, 6)]),
    "MaxPool2D_ceil": (lambda: nn.MaxPool2D(2, ceil_mode=True), [X4]),
    "MaxPool3D": (lambda: nn.MaxPool3D(2), [_rand(1, 2, 4, 4, 4)]),
    "AvgPool1D": (lambda: nn.AvgPool1D(2), [_rand(2, 2, 6)]),
    "AvgPool2D_nopad": (lambda: nn.AvgPool2D(3, 1, 1, count_include_pad=False), [X4]),
    "AvgPool3D": (lambda: nn.AvgPool3D(2), [_rand(1, 2, 4, 4, 4)]),
    "GlobalMaxPool1D": (nn.GlobalMaxPool1D, [_rand(2, 2, 6)]),
    "GlobalMaxPool2D": (nn.GlobalMaxPool2D, [X4]),
    "GlobalMaxPool3D": (nn.GlobalMaxPool3D, [_rand(2, 2, 3, 3, 3)]),
    "GlobalAvgPool1D": (nn.GlobalAvgPool1D, [_rand(2, 2, 6)]),
    "GlobalAvgPool2D": (nn.GlobalAvgPool2D, [X4]),
    "GlobalAvgPool3D": (nn.GlobalAvgPool3D, [_rand(2, 2, 3, 3, 3)]),
    "LeNet": (_seq(lambda: nn.Conv2D(4, 3, activation="relu"), lambda: nn.MaxPool2D(),
                   lambda: nn.Conv2D(4, 2), nn.BatchNorm, lambda: nn.Activation("relu"),
                   nn.Flatten, lambda: nn.Dense(8, activation="sigmoid"),
                   lambda: nn.Dropout(0.2), lambda: nn.Dense(3)), [_rand(2, 1, 8, 8)]),
    # gluon.rnn: fused layers (alone, with states, inside a block) and unrolled cells
    "LSTM_2layers": (lambda: rnn.LSTM(4, 2), [_rand(3, 2, 5)]),
    "GRU_bidirectional_NTC": (lambda: rnn.GRU(3, layout="NTC", bidirectional=True),
                              [_rand(2, 3, 5)]),
    "RNN_tanh_dropout": (lambda: rnn.RNN(3, 2, activation="tanh", dropout=0.4),
                         [_rand(3, 2, 4)]),
    "LSTM_in_block": (lambda: RNNModel(lambda: rnn.LSTM(4, 2)), [_rand(3, 2, 5)]),
    "Dropouts_in_call_order": (TwoDropouts, [_rand(3, 2, 5)]),
    "GRU_in_block_NTC": (lambda: RNNModel(lambda: rnn.GRU(4, layout="NTC")), [_rand(2, 3, 5)]),
    "LSTMCell_unroll": (lambda: Unroll(lambda: rnn.LSTMCell(4)), [_rand(2, 4, 3)]),
    "GRUCell_unroll_list": (lambda: Unroll(lambda: rnn.GRUCell(4), merge=False),
                            [_rand(2, 4, 3)]),
    "RNNCell_unroll_TNC": (lambda: Unroll(lambda: rnn.RNNCell(4, activation="relu"),
                                          layout="TNC"), [_rand(4, 2, 3)]),
    "SequentialRNNCell_dropout": (lambda: Unroll(_stacked_cell), [_rand(2, 4, 3)]),
    "ResidualCell": (lambda: Unroll(lambda: rnn.ResidualCell(rnn.GRUCell(3))),
                     [_rand(2, 4, 3)]),
    "ZoneoutCell": (lambda: Unroll(lambda: rnn.ZoneoutCell(rnn.LSTMCell(3), 0.3, 0.2)),
                    [_rand(2, 4, 3)]),
    "BidirectionalCell_valid_length": (BiMasked, [_rand(4, 2, 3), np.array([2, 4])]),
    "LSTMCell_one_step": (CellStep, [_rand(2, 5), _rand(2, 3), _rand(2, 3)]),
    # gluon.contrib
    "HybridConcurrent": (_concurrent, [X2]),
    "PixelShuffle1D": (lambda: contrib.nn.PixelShuffle1D(2), [_rand(1, 4, 3)]),
    "PixelShuffle2D": (lambda: contrib.nn.PixelShuffle2D((2, 1)), [_rand(1, 4, 3, 2)]),
    "PixelShuffle3D": (lambda: contrib.nn.PixelShuffle3D(2), [_rand(1, 8, 2, 1, 2)]),
    "SyncBatchNorm": (contrib.nn.SyncBatchNorm, [_rand(4, 3, 2)]),
    "Conv1DLSTMCell": (lambda: Unroll(lambda: contrib.rnn.Conv1DLSTMCell((2, 5), 3, 3, 3)),
                       [_rand(2, 3, 2, 5)]),
    "Conv2DGRUCell": (lambda: Unroll(lambda: contrib.rnn.Conv2DGRUCell((2, 4, 4), 2, 3, 3)),
                      [_rand(2, 2, 2, 4, 4)]),
    "Conv3DRNNCell": (lambda: Unroll(lambda: contrib.rnn.Conv3DRNNCell((1, 3, 3, 3), 2, 3,
                                                                       3)),
                      [_rand(1, 2, 1, 3, 3, 3)]),
    "LSTMPCell": (lambda: Unroll(lambda: contrib.rnn.LSTMPCell(4, 2)), [_rand(2, 3, 3)]),
    "VariationalDropoutCell": (lambda: Unroll(lambda: contrib.rnn.VariationalDropoutCell(
        rnn.GRUCell(3), drop_inputs=0.3, drop_states=0.3, drop_outputs=0.3)), [_rand(2, 3, 3)]),
    "VariationalDropoutCell_no_state_drop": (lambda: Unroll(
        lambda: contrib.rnn.VariationalDropoutCell(rnn.LSTMCell(3), drop_inputs=0.3,
                                                   drop_outputs=0.4)), [_rand(2, 3, 3)]),
    # custom, nested and shared-parameter blocks
    "Custom_F_ops": (Custom, [X2]),
    "Nested": (Nested, [_rand(4, 5)]),
    "Shared_params": (Shared, [X2]),
    "Constant_param": (WithConstant, [X2]),
    # the model zoo at small sizes
    "ResNetV1_basic": (lambda: vision.ResNetV1(vision.BasicBlockV1, [1, 1, 1, 1],
                                               [4, 4, 6, 8, 10], classes=3, thumbnail=True),
                       [_rand(1, 3, 8, 8)]),
    "ResNetV2_bottleneck": (lambda: vision.ResNetV2(vision.BottleneckV2, [1, 1, 1, 1],
                                                    [4, 8, 12, 16, 20], classes=3,
                                                    thumbnail=True), [_rand(1, 3, 8, 8)]),
    "MobileNet": (lambda: vision.MobileNet(0.25, classes=3), [_rand(1, 3, 32, 32)]),
    "MobileNetV2": (lambda: vision.MobileNetV2(0.25, classes=3), [_rand(1, 3, 32, 32)]),
    "DenseNet": (lambda: vision.DenseNet(4, 2, [1, 1, 1, 1], classes=3),
                 [_rand(1, 3, 224, 224)]),
}

LOSSES = {
    "L2Loss": (gloss.L2Loss, 3, [_rand(3, 3)]),
    "L1Loss": (gloss.L1Loss, 3, [_rand(3, 3)]),
    "SoftmaxCELoss_sparse": (gloss.SoftmaxCELoss, 4, [np.array([0, 3, 1])]),
    "SoftmaxCELoss_dense": (lambda: gloss.SoftmaxCELoss(sparse_label=False), 4,
                            [np.full((3, 4), 0.25)]),
    "SoftmaxCELoss_axis": (lambda: gloss.SoftmaxCELoss(axis=0, from_logits=True), 4,
                           [np.array([0, 1, 2, 1])]),
    "SigmoidBCELoss": (gloss.SigmoidBCELoss, 1, [np.array([[0.], [1.], [1.]])]),
    "SigmoidBCELoss_from_sigmoid": (lambda: gloss.SigmoidBCELoss(from_sigmoid=True), 1,
                                    [np.array([[0.2], [0.9], [0.6]])], "sigmoid"),
    "KLDivLoss": (gloss.KLDivLoss, 4, [np.full((3, 4), 0.25)]),
    "HuberLoss": (lambda: gloss.HuberLoss(rho=0.5), 3, [_rand(3, 3)]),
    "HingeLoss": (gloss.HingeLoss, 1, [np.array([[-1.], [1.], [1.]])]),
    "SquaredHingeLoss": (gloss.SquaredHingeLoss, 1, [np.array([[-1.], [1.], [1.]])]),
    "LogisticLoss": (gloss.LogisticLoss, 1, [np.array([[-1.], [1.], [1.]])]),
    "PoissonNLLLoss": (lambda: gloss.PoissonNLLLoss(compute_full=True), 3,
                       [np.abs(_rand(3, 3)) * 3]),
    "TripletLoss": (gloss.TripletLoss, 3, [_rand(3, 3, seed=1), _rand(3, 3, seed=2)]),
    "CosineEmbeddingLoss": (gloss.CosineEmbeddingLoss, 3, [_rand(3, 3), np.array([1, -1, 1])]),
    "CTCLoss": (gloss.CTCLoss, 12, [np.array([[1, 0, -1], [2, 1, 1]])]),
    "SDMLLoss": (gloss.SDMLLoss, 3, [_rand(3, 3)]),
}


@pytest.mark.parametrize("name", sorted(LAYERS))
def test_hybridized_equals_imperative(name):
    make, xs = LAYERS[name]
    float_inputs = [x.dtype.kind == "f" for x in map(np.asarray, xs)]
    check_twins(make, xs, grad_inputs=float_inputs)


def test_model_zoo_squeezenet_one_step():
    """(VGG, AlexNet, ResNet-18/50 and Inception V3 give the same numbers too, but take
    seconds each: checked by hand, not here.)"""
    check_twins(lambda: vision.squeezenet1_1(classes=3), [_rand(1, 3, 224, 224)], steps=1)


@pytest.mark.parametrize("name", ["Dropout", "LeNet", "LSTMCell_unroll", "Nested",
                                  "GroupNorm", "SequentialRNNCell_dropout"])
def test_float32_adam_and_predict_mode(name):
    make, xs = LAYERS[name]
    check_twins(make, xs, opt="adam", dtype="float32")
    check_twins(make, xs, opt="adam", train=False)


@pytest.mark.parametrize("name", sorted(LOSSES))
def test_losses_hybridized(name):
    make_loss, units, labels, *act = LOSSES[name]
    x = _rand(2, 6, 5) if name == "CTCLoss" else _rand(3, 5)

    def make():
        return WithLoss(make_loss, units, *act)
    if name == "CTCLoss":
        class CTCNet(gluon.HybridBlock):       # (N, T, C) predictions from a Dense layer
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.dense = nn.Dense(4, flatten=False)
                    self.loss = gloss.CTCLoss()

            def hybrid_forward(self, F, x, label):
                return self.loss(self.dense(x), label)
        make = CTCNet
    check_twins(make, [x] + labels, grad_inputs=[True] + [False] * len(labels))
    # the loss block itself hybridized, its prediction a leaf
    mk = make_loss
    preds = nd.array(_rand(3, units, low=0.1, high=0.9), dtype="float64")
    if name == "CTCLoss":
        preds = nd.array(_rand(2, 6, 4), dtype="float64")
    results = []
    for hybrid in (False, True):
        fn = mk()
        if hybrid:
            fn.hybridize()
        for _ in range(2):
            p = preds.copy()
            p.attach_grad()
            with autograd.record():
                out = fn(p, *[nd.array(v, dtype="float64") for v in labels])
            out.backward()
        results.append((out.asnumpy(), p.grad.asnumpy()))
        assert (_plan_count(fn) == 1) == hybrid
    for u, v in zip(*results):
        np.testing.assert_allclose(v, u, **TOL)


# ------------------------------------------------------------------ hybridize() behaviours
def _mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(5, activation="tanh"), nn.Dropout(0.5), nn.Dense(2))
    return net


def _x(*shape):
    return nd.array(_rand(*shape), dtype="float64")


def test_dropout_same_masks_and_batchnorm_running_statistics():
    make = _seq(lambda: nn.Dense(6), lambda: nn.Dropout(0.5), nn.BatchNorm)
    a, b = check_twins(make, [_rand(8, 4)], steps=3)
    mean_a, mean_b = (n[2].running_mean.data().asnumpy() for n in (a, b))
    assert np.abs(mean_a).max() > 0.01          # the statistics moved ...
    np.testing.assert_allclose(mean_b, mean_a, **TOL)    # ... the same way
    np.testing.assert_allclose(b[2].running_var.data().asnumpy(),
                               a[2].running_var.data().asnumpy(), **TOL)
    x = _x(8, 4)
    with autograd.record():                     # the mask is not the identity
        mx.random.seed(3)
        y = b[1](x)
    zeros = (y.asnumpy() == 0).mean()
    assert 0.2 < zeros < 0.8
    mx.random.seed(3)
    with autograd.record():
        y2 = b[1](x)
    np.testing.assert_array_equal(y.asnumpy(), y2.asnumpy())


def test_grad_req_add_accumulates_the_same():
    xs = [_rand(3, 4)]
    a, b = _twins(_mlp, [nd.array(xs[0], dtype="float64")])
    grads = []
    for net in (a, b):
        net.collect_params().setattr("grad_req", "add")
        for step in range(3):
            mx.random.seed(step)
            with autograd.record():
                y = net(nd.array(xs[0], dtype="float64"))
            y.backward()
        grads.append([p.grad().asnumpy() for p in net.collect_params().values()])
    assert _plan_count(b) == 1
    for u, v in zip(*grads):
        np.testing.assert_allclose(v, u, **TOL)
    assert np.abs(grads[0][0]).max() > 0


def test_active_false_returns_to_imperative_and_hybridize_plans_again():
    a, b = _twins(_mlp, [_x(3, 4)])
    x = _x(3, 4)
    b(x)
    assert _plan_count(b) == 1
    b.hybridize(active=False)
    assert not b.__dict__.get("_plans")
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), **TOL)
    assert not b.__dict__.get("_plans")        # ran imperatively
    b.hybridize()
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), **TOL)
    assert _plan_count(b) == 1


def test_new_shape_dtype_or_mode_plans_anew():
    a, b = _twins(lambda: nn.Dense(3), [_x(2, 4)])
    for shape in ((2, 4), (5, 4), (2, 4)):
        x = _x(*shape)
        np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), **TOL)
    assert _plan_count(b) == 2
    with autograd.train_mode():
        b(_x(2, 4))
    assert _plan_count(b) == 3
    with autograd.record():
        b(_x(2, 4))                             # training: the plan made just before
    assert _plan_count(b) == 3


def test_train_and_predict_mode_switch_dropout_and_batchnorm():
    make = _seq(lambda: nn.Dense(6), nn.BatchNorm, lambda: nn.Dropout(0.5))
    a, b = _twins(make, [_x(4, 3)])
    x = _x(4, 3)
    for train in (True, False, True, False):
        outs = []
        for net in (a, b):
            mx.random.seed(5)
            with autograd.record(train_mode=train):
                y = net(x)
            outs.append(y.asnumpy())
        np.testing.assert_allclose(outs[1], outs[0], **TOL)
    for p, q in zip(a.collect_params().values(), b.collect_params().values()):
        np.testing.assert_allclose(q.data().asnumpy(), p.data().asnumpy(), **TOL)
    assert _plan_count(b) == 2


def test_parameters_changed_outside_are_seen():
    a, b = _twins(_mlp, [_x(3, 4)])
    x = _x(3, 4)
    b(x)
    for net in (a, b):                          # in place
        net[0].weight.set_data(nd.ones((5, 4), dtype="float64") * 0.1)
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), **TOL)
    for net in (a, b):                          # a new array
        net[2].initialize(mx.init.Constant(0.3), force_reinit=True)
    np.testing.assert_allclose(b(x).asnumpy(), a(x).asnumpy(), **TOL)
    assert np.allclose(b[2].weight.data().asnumpy(), 0.3)
    for net in (a, b):                          # cast: another dtype, planned anew
        net.cast("float32")
    x32 = x.astype("float32")
    np.testing.assert_allclose(b(x32).asnumpy(), a(x32).asnumpy(), **TOL)
    assert b(x32).dtype == np.float32


def test_deferred_initialization_hybridized_first():
    outs = []
    for hybrid in (False, True):
        mx.random.seed(1)
        net = nn.HybridSequential()
        net.add(nn.Dense(4, activation="relu"), nn.Dense(2))
        net.initialize()
        if hybrid:
            net.hybridize()
        x = nd.array(_rand(3, 6))
        outs.append([net(x).asnumpy(), net(x).asnumpy()])
        assert net[0].weight.shape == (4, 6)
    assert _plan_count(net) == 1
    np.testing.assert_allclose(outs[1][0], outs[0][0], **TOL)
    np.testing.assert_allclose(outs[1][1], outs[0][1], **TOL)


def test_export_after_hybridized_calls(tmp_path):
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu"), nn.BatchNorm(), nn.Dense(2))
    net.initialize()
    net.hybridize()
    x = nd.array(_rand(3, 5))
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
    for _ in range(2):
        with autograd.record():
            y = net(x)
        y.backward()
        trainer.step(3)
    assert _plan_count(net) >= 1
    path = str(tmp_path / "net")
    net.export(path)
    loaded = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"], path + "-0000.params")
    np.testing.assert_allclose(loaded(x).asnumpy(), net(x).asnumpy(), **TOL)
    loaded.hybridize()                          # the loaded graph, planned as well
    np.testing.assert_allclose(loaded(x).asnumpy(), net(x).asnumpy(), **TOL)


def test_python_branch_on_values_raises_at_first_call():
    class Branchy(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            if x.sum() > 0:
                return x * 2
            return x

    blk = Branchy()
    blk.hybridize()
    with pytest.raises(MXNetError, match='Function __bool__ \\(namely operator "bool"\\) is '
                       'not implemented for Symbol') as err:
        blk(nd.ones((2,)))
    assert isinstance(err.value, NotImplementedForSymbol)      # MXNet's class and message
    blk.hybridize(active=False)
    assert blk(nd.ones((2,))).asnumpy().tolist() == [2.0, 2.0]


def test_create_graph_through_hybridized_block():
    """Second order through Dropout (the call's mask) and BatchNorm (its statistics
    updated once, as imperatively)."""
    make = _seq(lambda: nn.Dense(4, activation="tanh"), lambda: nn.Dropout(0.5),
                nn.BatchNorm, lambda: nn.Dense(2, activation="sigmoid"))
    a, b = _twins(make, [_x(3, 4)])
    res = []
    for net in (a, b):
        x = _x(3, 4)
        x.attach_grad()
        mx.random.seed(4)
        with autograd.record():
            y = net(x)
            g = autograd.grad((y * y).sum(), [x], create_graph=True)[0]
            z = (g * g).sum() + y.sum()
        z.backward()
        res.append((y.asnumpy(), g.asnumpy(), x.grad.asnumpy(),
                    net[0].weight.grad().asnumpy(), net[2].running_mean.data().asnumpy()))
    assert _plan_count(b) == 1
    for u, v in zip(*res):
        np.testing.assert_allclose(v, u, **TOL)
    assert np.abs(res[0][2]).max() > 0


def test_hooks_see_arrays_of_every_call():
    a, b = _twins(lambda: nn.Dense(3), [_x(2, 4)])
    seen = {id(a): [], id(b): []}
    for net in (a, b):
        net.register_forward_pre_hook(lambda blk, args: seen[id(blk)].append(
            ("pre", args[0].asnumpy().sum())))
        net.register_forward_hook(lambda blk, args, out: seen[id(blk)].append(
            ("post", out.asnumpy().sum())))
        for k in range(3):
            net(_x(2, 4) * k)
    assert _plan_count(b) == 1
    assert len(seen[id(b)]) == 6
    for (ka, va), (kb, vb) in zip(seen[id(a)], seen[id(b)]):
        assert ka == kb
        np.testing.assert_allclose(vb, va, **TOL)


def test_parameters_shared_between_two_blocks():
    def pair():
        mx.random.seed(2)
        first = nn.Dense(4, in_units=4, activation="tanh")
        second = nn.Dense(4, in_units=4, params=first.collect_params())
        first.initialize()
        first.cast("float64")
        return first, second

    results = []
    for hybrid in (False, True):
        first, second = pair()
        if hybrid:
            first.hybridize()
            second.hybridize()
        trainer = gluon.Trainer(first.collect_params(), "sgd", {"learning_rate": 0.2})
        x = _x(3, 4)
        for _ in range(3):
            with autograd.record():
                y = second(first(x)) + first(x * 2)
            y.backward()
            trainer.step(3)
        results.append((y.asnumpy(), first.weight.data().asnumpy(),
                        second.weight.grad().asnumpy()))
        assert second.weight is first.weight
    assert _plan_count(first) == 1 and _plan_count(second) == 1
    for u, v in zip(*results):
        np.testing.assert_allclose(v, u, **TOL)


def test_rnn_layer_with_and_without_states_share_nothing_wrong():
    """The same input signature called with and without states: each call returns its
    own structure (the states are dropped outside the planned graph)."""
    layer = rnn.LSTM(3, input_size=4)
    layer.initialize()
    layer.hybridize()
    x = nd.array(_rand(2, 2, 4))
    for _ in range(2):
        out = layer(x)
        assert isinstance(out, nd.NDArray) and out.shape == (2, 2, 3)
        out, states = layer(x, layer.begin_state(2))
        assert out.shape == (2, 2, 3) and [s.shape for s in states] == [(1, 2, 3)] * 2
    assert _plan_count(layer) == 1           # states as a list of inputs: planned


class _NdOnly(gluon.HybridBlock):
    """Calls an mx.nd function mx.sym does not have (as MXNet's hybridize, no tracing)."""

    def hybrid_forward(self, F, x):
        return F.moveaxis(x, 0, 1) * 3


def test_untraceable_block_warns_at_second_call_and_stays_correct():
    blk = _NdOnly()
    blk.hybridize()
    x = nd.array([[1.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert blk(x).asnumpy().tolist() == [[3.0], [9.0]]
    with pytest.warns(UserWarning, match="runs this block imperatively .*moveaxis"):
        assert blk(x).asnumpy().tolist() == [[3.0], [9.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # said once
        assert blk(x).asnumpy().tolist() == [[3.0], [9.0]]


def test_reading_values_in_hybrid_forward_raises_mxnets_error():
    class ReadsValues(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return x * float(x.asnumpy().max())

    blk = ReadsValues()
    blk.hybridize()
    with pytest.raises(NotImplementedForSymbol, match="asnumpy is not implemented for Symbol"):
        blk(nd.array([1.0, 3.0]))


def test_hybrid_children_of_a_plain_block_and_of_an_unplannable_block():
    """net.hybridize() on a Sequential plans each HybridBlock child; a HybridBlock that
    cannot be traced runs imperatively (warned once) while its children run planned."""
    class Untraceable(gluon.HybridBlock):
        def __init__(self, **kwargs):
            super().__init__(**kwargs)
            with self.name_scope():
                self.body = nn.HybridSequential()
                self.body.add(nn.Dense(5, activation="relu"), nn.BatchNorm(), nn.Dropout(0.4))
                self.head = nn.Dense(2)

        def hybrid_forward(self, F, x):
            return self.head(F.moveaxis(F.moveaxis(self.body(x), 0, 1), 0, 1) * 2)

    def plain():
        net = nn.Sequential()
        net.add(nn.Dense(5, activation="tanh"), nn.BatchNorm(), nn.Dropout(0.4), nn.Dense(2))
        return net

    for make in (plain, Untraceable):
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", ".*hybridize.. runs this block imperatively")
            warnings.filterwarnings("ignore", "All children of this Sequential")
            a, b = check_twins(make, [_rand(4, 3)], steps=3, check_planned=False)
        planned = [blk for blk in _blocks(b) if _plan_count(blk)]
        assert _plan_count(b) == 0
        assert len(planned) == (4 if make is plain else 2)     # the layers / body and head


class _Outputs(gluon.HybridBlock):
    """Outputs that repeat, that are a parameter or an input as they are."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(3, in_units=4)
            self.p = self.params.get("p", shape=(3,), init="ones")

    def hybrid_forward(self, F, x, p):
        y = self.dense(x)
        return y, y, p, x, F.tanh(y)


def _outputs_twins():
    nets = []
    for _ in range(2):
        mx.random.seed(0)
        net = _Outputs()
        net.initialize()
        net.cast("float64")
        nets.append(net)
    nets[1].hybridize()
    return nets


def test_outputs_retain_graph_and_engine_errors_as_imperative():
    x0 = _x(2, 4)
    res = []
    for net in _outputs_twins():
        x = x0.copy()
        x.attach_grad()
        with autograd.record():
            y, y2, p, xx, t = net(x)
            loss = (y * 2 + y2 * 3).sum() + (p * p).sum() + (xx * xx).sum() + t.sum()
        loss.backward(retain_graph=True)
        first = x.grad.asnumpy().copy()
        loss.backward()
        res.append([first, x.grad.asnumpy(), net.dense.weight.grad().asnumpy(),
                    net.p.grad().asnumpy()])
        with pytest.raises(MXNetError, match="freed by an earlier backward"):
            loss.backward()
        with autograd.record():                   # only one output reaches the loss
            t = net(x)[4]
        t.backward()
        res[-1].append(x.grad.asnumpy())
        with autograd.record():
            loss = (net(x)[0] * x[:, :3]).sum()
        x += 1                                    # a saved input changed: refused
        with pytest.raises(MXNetError, match="modified in place"):
            loss.backward()
    assert _plan_count(net) == 1
    for u, v in zip(*res):
        np.testing.assert_allclose(v, u, **TOL)


def test_integer_indices_and_grad_req_changed_after_planning():
    for dtype in ("int32", "int64"):
        res = []
        for hybrid in (False, True):
            mx.random.seed(0)
            emb = nn.Embedding(10, 3)
            emb.initialize()
            if hybrid:
                emb.hybridize()
            idx = nd.array([[1, 2], [3, 9]], dtype=dtype)
            for _ in range(2):
                with autograd.record():
                    y = emb(idx) * 2
                y.backward()
            res.append((y.asnumpy(), emb.weight.grad().asnumpy()))
        assert _plan_count(emb) == 1
        for u, v in zip(*res):
            np.testing.assert_allclose(v, u, **TOL)
    make = _seq(lambda: nn.Dense(4, activation="tanh"), lambda: nn.Dense(2))
    a, b = _twins(make, [_x(3, 4)])
    res = []
    for net in (a, b):
        x = _x(3, 4)
        grads = []
        for req in ("write", "null", "add", "add", "write"):   # frozen, then unfrozen
            net[0].collect_params().setattr("grad_req", req)
            with autograd.record():
                y = net(x)
            y.backward()
            grads.extend(p.grad().asnumpy() for p in net.collect_params().values()
                         if p.grad_req != "null")
        res.append(grads)
    assert _plan_count(b) == 1
    for u, v in zip(*res):
        np.testing.assert_allclose(v, u, **TOL)


CELLS = {
    "LSTMCell": lambda: rnn.LSTMCell(3),
    "GRUCell": lambda: rnn.GRUCell(3),
    "SequentialRNNCell": _stacked_cell,
    "BidirectionalCell": lambda: rnn.BidirectionalCell(rnn.LSTMCell(3), rnn.GRUCell(2)),
    "ResidualCell": lambda: rnn.ResidualCell(rnn.GRUCell(3)),
    "LSTMPCell": lambda: contrib.rnn.LSTMPCell(4, 2),
    "ZoneoutCell": lambda: rnn.ZoneoutCell(rnn.LSTMCell(3), 0.3, 0.3),
    "VariationalDropoutCell": lambda: contrib.rnn.VariationalDropoutCell(
        rnn.GRUCell(3), 0.3, 0.3, 0.3),
}


@pytest.mark.parametrize("name", sorted(CELLS))
def test_cells_hybridized_themselves_and_unrolled(name):
    """A hybridized cell unrolled step by step (each step a planned call with the states
    as a list of inputs); cells that keep values between steps in Python (Zoneout's
    previous output, variational dropout's masks) run imperatively, said once."""
    xs = nd.array(_rand(2, 4, 3), dtype="float64")
    res = []
    for hybrid in (False, True):
        mx.random.seed(0)
        cell = CELLS[name]()
        cell.initialize()
        cell.cast("float64")
        with autograd.pause():
            cell.unroll(4, xs)
        if hybrid:
            for p, q in zip(first.collect_params().values(), cell.collect_params().values()):
                q.set_data(p.data())
            cell.hybridize()
        first = cell
        x = xs.copy()
        x.attach_grad()
        got = []
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            for step in range(2):
                mx.random.seed(10 + step)
                with autograd.record():
                    out, states = cell.unroll(4, x, merge_outputs=True)
                    loss = (out * out).sum() + sum((s * s).sum() for s in states)
                loss.backward()
                got += [out.asnumpy(), x.grad.asnumpy()]
                got += [p.grad().asnumpy() for p in cell.collect_params().values()]
        res.append(got)
    for u, v in zip(*res):
        np.testing.assert_allclose(v, u, **TOL)
    assert any(_plan_count(blk) for blk in _blocks(cell))
    kept = name in ("ZoneoutCell", "VariationalDropoutCell")
    if kept:
        assert _plan_count(cell) == 0
    assert [str(w.message) for w in caught if "imperatively" in str(w.message)] == (
        [f"{cell.name}: hybridize() runs this block imperatively (mxgrad could not plan "
         f"its graph: _Unplannable: {type(cell).__name__}: {cell._state_between_calls}); "
         f"results are the same, without the speed-up"] if kept else [])


class _ModeBranch(gluon.HybridBlock):
    """A Python branch on autograd.is_training() (not on values): traced per mode."""

    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.dense = nn.Dense(4)

    def hybrid_forward(self, F, x):
        h = self.dense(x)
        if autograd.is_training():
            h = F.Dropout(h, p=0.5) * 3
        return h


@pytest.mark.parametrize("train", [True, False])
def test_python_branch_on_training_mode(train):
    a, b = check_twins(_ModeBranch, [_rand(3, 5)], train=train)
    x = _x(3, 5)
    with autograd.train_mode():
        mx.random.seed(1)
        dropped = b(x).asnumpy()
    assert (dropped == 0).any() and not (b(x).asnumpy() == 0).any()


def test_export_does_not_call_the_blocks_hooks(tmp_path):
    net = nn.Dense(2)
    net.initialize()
    net.hybridize()
    seen = []
    net.register_forward_hook(lambda blk, args, out: seen.append(float(out.asnumpy().sum())))
    y = net(nd.ones((1, 3)))
    net.export(str(tmp_path / "net"))           # the hook reads values: not on Symbols
    assert seen == [float(y.asnumpy().sum())]
    net(nd.ones((1, 3)))
    assert len(seen) == 2                       # still registered


@pytest.mark.parametrize("lengths", ["pred", "label", "both"])
def test_ctc_loss_with_omitted_inputs(lengths):
    """``None`` among the inputs (CTCLoss without pred_lengths) is an omitted input of
    the planned graph, as in MXNet."""
    pred = nd.array(_rand(2, 6, 4), dtype="float64")
    label = nd.array([[1, 0, 2], [2, 1, 1]], dtype="float64")
    pl = nd.array([6, 4], dtype="float64") if lengths in ("pred", "both") else None
    ll = nd.array([2, 3], dtype="float64") if lengths in ("label", "both") else None
    args = (pl, ll) if ll is not None else (pl,)
    res = []
    for hybrid in (False, True):
        fn = gloss.CTCLoss()
        if hybrid:
            fn.hybridize()
        for _ in range(2):
            p = pred.copy()
            p.attach_grad()
            with autograd.record():
                y = fn(p, label, *args)
            y.backward()
        res.append((y.asnumpy(), p.grad.asnumpy()))
    assert _plan_count(fn) == 1
    for u, v in zip(*res):
        np.testing.assert_allclose(v, u, **TOL)


def test_child_added_after_a_hybridized_call_takes_part():
    """As MXNet (register_child clears the cached graph)."""
    net = nn.HybridSequential()
    net.add(nn.Dense(3, in_units=4))
    net.initialize()
    net.hybridize()
    x = nd.ones((2, 4))
    assert net(x).shape == (2, 3)
    head = nn.Dense(2, in_units=3)
    head.initialize()
    net.add(head)
    y = net(x)
    assert y.shape == (2, 2) and _plan_count(net) == 1
    np.testing.assert_allclose(y.asnumpy(), head(net[0](x)).asnumpy(), **TOL)
