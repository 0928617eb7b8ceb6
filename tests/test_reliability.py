"""Issue 11: no silent wrong results. NumPy views, concurrent 'add' accumulation,
autograd.grad's argument checks, BatchNorm on empty batches and in float16, custom
Function backward results."""
import threading

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError


# ------------------------------------------------------------- item 5: __array__
def test_np_array_of_an_ndarray_is_a_snapshot():
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize()
    snap = np.array(net.weight.data())
    before = snap.copy()
    net.weight.data()[:] += 1.0
    np.testing.assert_array_equal(snap, before)
    assert np.array(nd.array([1.0]), copy=True).flags.writeable


def test_writing_through_a_no_copy_view_is_impossible():
    # before: np.asarray(b) was the internal buffer; writing through it changed a value
    # saved for backward without bumping its version, and x.grad came out wrong silently
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    b = nd.array([3.0, 4.0])
    with autograd.record():
        y = (x * b).sum()
    view = np.asarray(b)
    with pytest.raises(ValueError):
        view[:] = 100.0
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 4.0])
    a = b.asnumpy()             # asnumpy() stays a writable copy, as in MXNet
    a[:] = 0.0
    np.testing.assert_array_equal(b.asnumpy(), [3.0, 4.0])


def test_array_protocol_dtype_and_copy_false():
    x = nd.array([1.5, 2.5])
    assert np.asarray(x, dtype=np.float64).dtype == np.float64
    assert np.asarray(x).dtype == np.float32
    with pytest.raises(ValueError):
        np.asarray(x, dtype=np.float64, copy=False)
    np.testing.assert_array_equal(np.asarray(x, copy=False), [1.5, 2.5])


# ------------------------------------------------------------- item 6: threads + 'add'
def test_concurrent_backward_into_one_add_variable_loses_nothing():
    # before: 13 of 18 runs lost additions (NumPy releases the GIL inside +=)
    n, rounds, threads = 400_000, 6, 8
    w = nd.zeros((n,))
    w.attach_grad(grad_req="add")
    start = threading.Barrier(threads)
    errors = []

    def work(k):
        try:
            start.wait()
            for _ in range(rounds):
                with autograd.record():
                    y = w * float(k + 1)
                y.backward()
        except BaseException as err:  # noqa: BLE001
            errors.append(err)

    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    assert not errors
    expected = rounds * sum(range(1, threads + 1))
    g = w.grad.asnumpy()
    assert g.min() == expected and g.max() == expected


# ------------------------------------------------------------- item 10: autograd.grad
def _recorded():
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    with autograd.record():
        y = (x * x).sum()
    return x, y


@pytest.mark.parametrize("call,words", [
    (lambda x, y: autograd.backward(None), "heads"),
    (lambda x, y: autograd.backward([]), "heads"),
    (lambda x, y: autograd.grad(None, x), "heads"),
    (lambda x, y: autograd.grad(y, None), "variables"),
    (lambda x, y: autograd.grad(y, []), "variables"),
    (lambda x, y: autograd.grad(y, [x, nd.ones(2)]), "variable 1"),
    (lambda x, y: autograd.grad(y, "x"), "variables"),
    (lambda x, y: y.backward(out_grad="a"), "head"),
], ids=["backward-None", "backward-empty", "grad-None-heads", "grad-None-vars",
        "grad-empty-vars", "grad-not-a-variable", "grad-str", "backward-str-head-grad"])
def test_autograd_rejects_bad_heads_and_variables(call, words):
    x, y = _recorded()
    with pytest.raises(MXNetError) as info:
        call(x, y)
    assert words in str(info.value)
    y.backward()     # nothing was consumed by the failed call
    np.testing.assert_array_equal(x.grad.asnumpy(), [2.0, 4.0])


def test_grad_with_a_variable_the_heads_do_not_depend_on():
    x, y = _recorded()
    w = nd.ones((3,))
    w.attach_grad()
    with pytest.raises(MXNetError, match="do not depend on variable 1"):
        autograd.grad(y, [x, w])


# ------------------------------------------------------------- item 11: custom Functions
def test_backward_returning_a_numpy_array_is_a_type_error_naming_the_function():
    class NumpyGrad(autograd.Function):
        def forward(self, x):
            return x * 2

        def backward(self, dy):
            return dy.asnumpy() * 2          # MXNet and PyTorch refuse a NumPy array

    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = NumpyGrad()(x)
    with pytest.raises(MXNetError) as info:
        y.backward()
    assert isinstance(info.value, TypeError)
    assert "NumpyGrad" in str(info.value) and "NDArray" in str(info.value)

    class TorchStyle(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, dy):
            return np.ones(2)

    with autograd.record():
        y = TorchStyle.apply(x)
    with pytest.raises(TypeError, match="TorchStyle"):
        y.backward()


def test_r_style_backward_may_name_arguments_left_at_their_default():
    # R torch's own `linear` example: backward returns grads for input, weight and bias,
    # with bias = NULL when it was not passed
    def forward(ctx, input, weight, bias=None):
        ctx.save_for_backward(input=input, weight=weight, bias=bias)
        out = nd.dot(input, weight.T)
        return out if bias is None else out + bias

    def backward(ctx, grad_output):
        s = ctx.saved_variables
        grads = {"input": nd.dot(grad_output, s.weight),
                 "weight": nd.dot(grad_output.T, s.input),
                 "bias": None}
        if s.bias is not None:
            grads["bias"] = grad_output.sum(axis=0)
        return grads

    linear = autograd.function(forward=forward, backward=backward)
    x = nd.array([[1.0, 2.0]])
    w = nd.array([[3.0, 4.0], [5.0, 6.0]])
    x.attach_grad()
    w.attach_grad()
    with autograd.record():
        y = linear(x, w)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [[8.0, 10.0]])
    np.testing.assert_array_equal(w.grad.asnumpy(), [[1.0, 2.0], [1.0, 2.0]])


def test_r_style_saved_objects_come_back_exactly_as_saved():
    seen = {}

    def forward(ctx, x):
        ctx.save_for_backward(sizes=[1, 2], opts={"a": 1}, pair=(3, 4), x=x)
        return x * 2

    def backward(ctx, dy):
        s = ctx.saved_variables
        seen.update(sizes=s.sizes, opts=s["opts"], pair=s.pair)
        return {"x": dy * 2}

    f = autograd.function(forward=forward, backward=backward)
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = f(x)
    y.backward()
    assert seen["sizes"] == [1, 2] and type(seen["sizes"]) is list
    assert seen["opts"] == {"a": 1} and seen["pair"] == (3, 4)


def test_mxnet_style_save_for_backward_outside_forward():
    # MXNet allows it (it only stores the values); MXNet code sets saved values after the
    # forward call, e.g. from __call__ or a helper
    class Scale(autograd.Function):
        def forward(self, x):
            return x * 3

        def backward(self, dy):
            k, = self.saved_tensors
            return dy * k

    f = Scale()
    f.save_for_backward(3.0)
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = f(x)
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3.0, 3.0])
