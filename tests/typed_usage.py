"""A small typed program using mxgrad's public API, checked by mypy in test_typing.py.

``assert_type`` makes the checker fail when a public function's declared return type is
missing (``Any``) or different, so this file pins down what users' editors see. The
program also runs (``main()``), so the types it asserts are the real ones.
"""
from __future__ import annotations

from typing import Any, Iterator, List, Optional, Tuple, Union

import numpy as np
from typing_extensions import assert_type

import mxgrad as mx
from mxgrad import autograd, gluon, initializer, lr_scheduler, metric, nd, optimizer
from mxgrad.gluon import nn
from mxgrad.ndarray import NDArray


class Cube(autograd.Function):
    """A custom function: y = x ** 3."""

    def forward(self, x: NDArray) -> NDArray:
        self.save_for_backward(x)
        return x * x * x

    def backward(self, dy: NDArray) -> NDArray:
        (x,) = self.saved_tensors
        return dy * 3 * x * x


class TwoLayer(gluon.HybridBlock):
    def __init__(self, hidden: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        with self.name_scope():
            self.body = nn.Dense(hidden, activation="relu")
            self.out = nn.Dense(1)

    def hybrid_forward(self, F, x):  # F is nd or sym: left untyped, as in MXNet
        return self.out(self.body(x))


def batches(x: NDArray, y: NDArray, size: int) -> Iterator[Tuple[NDArray, NDArray]]:
    for i in range(0, x.shape[0], size):
        yield x[i:i + size], y[i:i + size]


def arrays() -> None:
    a = assert_type(nd.array([[1.0, 2.0], [3.0, 4.0]]), NDArray)
    b = assert_type(nd.ones((2, 2), dtype="float64"), NDArray)
    z = assert_type(nd.zeros((2,)), NDArray)
    assert_type(a.shape, Tuple[int, ...])
    assert_type(a.asnumpy(), np.ndarray)
    c = assert_type(a + 1, NDArray)
    c = assert_type(2.0 * c - a / 2, NDArray)
    c = assert_type(nd.exp(c) + nd.dot(a, a.T), NDArray)
    assert_type(nd.add(a, b.astype("float32")), NDArray)
    assert_type(c.sum(axis=1, keepdims=True), NDArray)
    assert_type(a.reshape((4,)).mean(), NDArray)
    assert_type(nd.concat(a, a, dim=0), NDArray)
    assert_type(nd.split(z.reshape((2, 1)), num_outputs=2, axis=0), List[NDArray])
    assert_type(nd.softmax(a, axis=-1), NDArray)
    assert_type(a[0], NDArray)
    assert_type(nd.random.uniform(0, 1, shape=(3,)), NDArray)
    assert_type(a.argmax(axis=1), NDArray)
    assert_type(a.topk(k=1), NDArray)
    # methods: NDArray's class bodies are what the checker reads (no stub file)
    assert_type(a.T, NDArray)
    assert_type(a.exp(), NDArray)
    assert_type(a.floor(out=nd.zeros((2, 2))), NDArray)
    assert_type(a.copy(), NDArray)
    assert_type(a == a, NDArray)
    assert_type(a.grad, Optional[NDArray])
    assert_type(a.softmax(axis=0), NDArray)
    layer = nn.Dense(3, in_units=2)
    layer.initialize()
    assert_type(layer(a), NDArray)
    assert_type(nn.Activation("relu")(a), NDArray)


def differentiate() -> None:
    x = nd.array([1.0, 2.0, 3.0])
    x.attach_grad(grad_req="write")
    with autograd.record():
        y = assert_type((x * x).sum(), NDArray)
    y.backward()
    g = x.grad
    assert_type(g, Optional[NDArray])
    assert g is not None and g.asnumpy().tolist() == [2.0, 4.0, 6.0]

    w = nd.ones((3,))
    gw = nd.zeros((3,))
    autograd.mark_variables([w], [gw], grad_reqs="add")
    with autograd.record():
        u: NDArray = Cube()(w)   # Function.__call__ returns what forward returns: Any
        v = (u * x).sum()
    grads = assert_type(autograd.grad([v], [w], create_graph=True), List[NDArray])
    assert grads[0].shape == (3,)
    with autograd.pause():
        assert not autograd.is_recording()
    assert_type(autograd.is_training(), bool)


def train() -> float:
    mx.random.seed(0)
    net = TwoLayer(8)
    net.initialize(initializer.Xavier(magnitude=2.0))
    net.hybridize()
    params = assert_type(net.collect_params(), gluon.ParameterDict)
    schedule = lr_scheduler.FactorScheduler(step=10, factor=0.5, base_lr=0.1)
    opt = optimizer.SGD(learning_rate=0.1, momentum=0.9, lr_scheduler=schedule)
    trainer = gluon.Trainer(params, opt)
    loss_fn = gluon.loss.L2Loss()
    mse = metric.MSE()
    x = nd.random.normal(shape=(16, 4))
    y = x.sum(axis=1, keepdims=True)
    total = 0.0
    for xb, yb in batches(x, y, 8):
        with autograd.record():
            pred: NDArray = net(xb)   # Block.__call__ returns Any (a block may return tuples)
            loss = assert_type(loss_fn(pred, yb), NDArray)
        loss.backward()
        trainer.step(xb.shape[0])
        mse.update([yb], [pred])
        total += float(loss.mean().asscalar())
    name, value = mse.get()
    assert_type(name, Union[str, List[str]])
    assert_type(value, Union[float, List[float]])
    p = assert_type(params[sorted(params.keys())[0]], gluon.Parameter)
    assert_type(p.data(), NDArray)
    assert_type(p.shape, Optional[Tuple[int, ...]])
    return total


def symbols() -> None:
    """Symbol's two class bodies are one class to the checker (its core's methods and
    SymbolMethods')."""
    x = assert_type(mx.sym.var("x"), mx.sym.Symbol)
    assert_type(x.list_arguments(), List[str])                      # the core's
    assert_type(x.tojson(), str)                                    # SymbolMethods'
    assert_type(mx.sym.load_json(x.tojson()), mx.sym.Symbol)
    assert_type(x.astype("float64").copy(), mx.sym.Symbol)
    out = assert_type(x.eval(x=nd.ones((2,))), List[NDArray])
    assert out[0].asnumpy().tolist() == [1.0, 1.0]


def main() -> None:
    arrays()
    differentiate()
    train()
    symbols()


if __name__ == "__main__":
    main()
