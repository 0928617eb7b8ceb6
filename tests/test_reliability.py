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


# ------------------------------------------------------------- item 4: empty batches
@pytest.mark.parametrize("layout", ["NC", "NCHW"])
@pytest.mark.filterwarnings("error")   # and no NumPy "Mean of empty slice" warnings
def test_batchnorm_on_an_empty_batch_keeps_its_running_statistics(layout):
    # before: NaN was written into running_mean/running_var (PyTorch leaves them)
    bn = gluon.nn.BatchNorm(in_channels=3)
    bn.initialize()
    x0 = nd.array(np.arange(12, dtype=np.float32).reshape(4, 3) if layout == "NC"
                  else np.arange(4 * 3 * 2 * 2, dtype=np.float32).reshape(4, 3, 2, 2))
    with autograd.record():
        bn(x0)
    mean, var = bn.running_mean.data().asnumpy(), bn.running_var.data().asnumpy()
    empty = nd.zeros((0,) + x0.shape[1:])
    empty.attach_grad()
    with autograd.record():
        out = bn(empty)
    out.backward()
    assert out.shape == empty.shape
    np.testing.assert_array_equal(bn.running_mean.data().asnumpy(), mean)
    np.testing.assert_array_equal(bn.running_var.data().asnumpy(), var)
    np.testing.assert_array_equal(bn.gamma.grad().asnumpy(), [0.0, 0.0, 0.0])
    # the op itself, also with output_mean_var
    rm, rv = nd.array([1.0, 2.0, 3.0]), nd.array([4.0, 5.0, 6.0])
    with autograd.train_mode():
        nd.BatchNorm(nd.zeros((0, 3)), nd.ones(3), nd.zeros(3), rm, rv)
        outs = nd.BatchNorm(nd.zeros((0, 3)), nd.ones(3), nd.zeros(3), rm, rv,
                            output_mean_var=True)
    assert rm.asnumpy().tolist() == [1.0, 2.0, 3.0] and rv.asnumpy().tolist() == [4, 5, 6]
    # the batch's own mean and variance are undefined: NaN
    assert outs[0].shape == (0, 3) and np.isnan(outs[1].asnumpy()).all()


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("norm", ["LayerNorm", "InstanceNorm"])
def test_other_normalisations_of_an_empty_batch(norm):
    x = nd.zeros((0, 2, 3))
    x.attach_grad()
    c = 3 if norm == "LayerNorm" else 2
    gamma = nd.ones(c)
    gamma.attach_grad()
    with autograd.record():
        y = getattr(nd, norm)(x, gamma, nd.zeros(c))
    y.backward()
    assert y.shape == x.grad.shape == (0, 2, 3)
    assert gamma.grad.asnumpy().tolist() == [0.0] * c


# ------------------------------------------------------------- item 9: float16
def test_batchnorm_keeps_the_input_dtype_after_cast_float16():
    # MXNet 1.9.1: BatchNorm's parameters stay float32 and its output is float16
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, in_units=3), gluon.nn.BatchNorm(in_channels=4),
            gluon.nn.Dense(2, in_units=4))
    net.initialize()
    net.cast("float16")
    assert net[1].gamma.data().dtype == np.float32
    x = nd.array([[1, 2, 3], [4, 5, 7], [0, 1, 0]], dtype="float16")
    x.attach_grad()
    for training in (True, False):
        with autograd.record(train_mode=training):
            hidden = net[1](net[0](x))
            y = net(x)
        assert hidden.dtype == np.float16 and y.dtype == np.float16
        y.backward()
        assert x.grad.dtype == np.float16 and net[1].gamma.grad().dtype == np.float32
    # statistics in float32: the float16 result matches a float32 computation
    x32 = np.array([[1, 2], [3, 4], [5, 7]], dtype=np.float32)
    g, b = nd.ones(2), nd.zeros(2)
    with autograd.train_mode():
        y16 = nd.BatchNorm(nd.array(x32, dtype="float16"), g, b, nd.zeros(2), nd.ones(2),
                           fix_gamma=False)
        y32 = nd.BatchNorm(nd.array(x32), g, b, nd.zeros(2), nd.ones(2), fix_gamma=False)
    assert y16.dtype == np.float16
    np.testing.assert_allclose(y16.asnumpy().astype(np.float32), y32.asnumpy(), atol=2e-3)
