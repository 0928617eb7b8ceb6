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
