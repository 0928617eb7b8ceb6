"""MXNet's custom-operator example (example/numpy-ops/custom_softmax.py: a softmax loss
written in NumPy) trained with Module.fit and in a Gluon loop: the same numbers as the
built-in SoftmaxOutput, whose gradient (softmax - one_hot) the custom backward computes."""
import numpy as np

import mxgrad as mx
from mxgrad import autograd, gluon, nd


class _Softmax(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        x = in_data[0].asnumpy()
        y = np.exp(x - x.max(axis=1).reshape((x.shape[0], 1)))
        y /= y.sum(axis=1).reshape((x.shape[0], 1))
        self.assign(out_data[0], req[0], mx.nd.array(y))

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        lab = in_data[1].asnumpy().ravel().astype(int)
        y = out_data[0].asnumpy()
        y[np.arange(lab.shape[0]), lab] -= 1.0
        self.assign(in_grad[0], req[0], mx.nd.array(y))


@mx.operator.register("np_softmax_example")
class _SoftmaxProp(mx.operator.CustomOpProp):
    def __init__(self):
        super().__init__(need_top_grad=False)

    def list_arguments(self):
        return ["data", "label"]

    def list_outputs(self):
        return ["output"]

    def infer_shape(self, in_shape):
        return [in_shape[0], (in_shape[0][0],)], [in_shape[0]], []

    def infer_type(self, in_type):
        return in_type, [in_type[0]], []

    def create_operator(self, ctx, shapes, dtypes):
        return _Softmax()


def _mlp(head):
    data = mx.sym.var("data")
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=16, name="fc1"), "relu")
    fc = mx.sym.FullyConnected(h, num_hidden=4, name="fc2")
    if head == "custom":
        return mx.sym.Custom(data=fc, name="softmax", op_type="np_softmax_example")
    return mx.sym.SoftmaxOutput(fc, name="softmax")


def _data():
    rng = np.random.RandomState(3)
    x = rng.rand(40, 6).astype(np.float32)
    y = (x[:, :4].argmax(axis=1)).astype(np.float32)
    return x, y


def _fit(head):
    x, y = _data()
    mx.random.seed(0)
    mod = mx.mod.Module(_mlp(head), data_names=["data"], label_names=["softmax_label"])
    it = mx.io.NDArrayIter(x, y, batch_size=10)
    mod.fit(it, num_epoch=3, optimizer="sgd", optimizer_params={"learning_rate": 0.3},
            initializer=mx.init.Xavier(rnd_type="gaussian", magnitude=2))
    return mod


def test_custom_softmax_trains_in_module_as_softmax_output():
    custom, builtin = _fit("custom"), _fit("builtin")
    a, b = custom.get_params()[0], builtin.get_params()[0]
    assert sorted(a) == sorted(b)
    for k in a:
        np.testing.assert_allclose(a[k].asnumpy(), b[k].asnumpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=k)
    x, y = _data()
    acc = custom.score(mx.io.NDArrayIter(x, y, batch_size=10), "acc")[0][1]
    assert acc > 0.5


def test_custom_softmax_trains_in_gluon_as_softmax_output():
    x, y = _data()
    results = []
    for head in ("custom", "builtin"):
        net = gluon.nn.HybridSequential()
        net.add(gluon.nn.Dense(16, activation="relu", in_units=6), gluon.nn.Dense(4, in_units=16))
        net.initialize(mx.init.Constant(0.1))
        net[0].weight.set_data(nd.array(np.linspace(-1, 1, 96).reshape(16, 6)))
        trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.3})
        for i in range(0, 40, 10):
            data, label = nd.array(x[i:i + 10]), nd.array(y[i:i + 10])
            with autograd.record():
                z = net(data)
                if head == "custom":
                    out = nd.Custom(z, label, op_type="np_softmax_example")
                else:
                    out = nd.SoftmaxOutput(z, label)
            out.backward()
            trainer.step(1)
        results.append([p.data().asnumpy() for p in net.collect_params().values()])
    for a, b in zip(*results):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
