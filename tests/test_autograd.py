"""The engine: scopes, variables and grad_req, backward/grad, retain/create_graph,
version counters, in-place rules, deep chains, memory release, bad input."""
import gc
import threading
import weakref

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import MXNetError


# ------------------------------------------------------------------ scopes
def test_defaults_and_set_return_previous():
    assert not autograd.is_recording() and not autograd.is_training()
    assert autograd.set_recording(True) is False
    assert autograd.set_recording(False) is True
    assert autograd.set_training(True) is False
    assert autograd.set_training(False) is True


@pytest.mark.parametrize("scope, rec, train", [
    (lambda: autograd.record(), True, True),
    (lambda: autograd.record(train_mode=False), True, False),
    (lambda: autograd.pause(), False, False),
    (lambda: autograd.pause(train_mode=True), False, True),
    (lambda: autograd.train_mode(), False, True),
    (lambda: autograd.predict_mode(), False, False),
])
def test_scope_flags(scope, rec, train):
    with scope():
        assert autograd.is_recording() is rec
        assert autograd.is_training() is train
    assert not autograd.is_recording() and not autograd.is_training()


def test_nested_scopes_restore():
    with autograd.record():
        with autograd.pause():
            assert not autograd.is_recording() and not autograd.is_training()
            with autograd.train_mode():
                assert autograd.is_training() and not autograd.is_recording()
            assert not autograd.is_training()
        assert autograd.is_recording() and autograd.is_training()
        with autograd.predict_mode():
            assert autograd.is_recording() and not autograd.is_training()
    assert not autograd.is_recording()


def test_scope_restored_after_exception():
    with pytest.raises(KeyError):
        with autograd.record():
            with autograd.predict_mode():
                raise KeyError("boom")
    assert not autograd.is_recording() and not autograd.is_training()


def test_scope_as_decorator():
    @autograd.record()
    def f():
        return autograd.is_recording(), autograd.is_training()
    assert f() == (True, True)
    assert not autograd.is_recording()


def test_same_scope_object_reentrant():
    s = autograd.record()
    with s:
        with autograd.pause():
            with s:
                assert autograd.is_recording()
            assert not autograd.is_recording()
        assert autograd.is_recording()
    assert not autograd.is_recording()


def test_threads_start_fresh_and_are_isolated():
    seen = {}
    barrier = threading.Barrier(2)

    def worker(name, rec):
        seen[name + "_start"] = (autograd.is_recording(), autograd.is_training())
        if rec:
            with autograd.record():
                barrier.wait()
                seen[name] = autograd.is_recording()
                barrier.wait()
        else:
            barrier.wait()
            seen[name] = autograd.is_recording()
            barrier.wait()

    with autograd.record():
        ts = [threading.Thread(target=worker, args=("a", True)),
              threading.Thread(target=worker, args=("b", False))]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
    assert seen["a_start"] == (False, False) and seen["b_start"] == (False, False)
    assert seen["a"] is True and seen["b"] is False


def test_threads_differentiate_concurrently():
    results = {}

    def worker(k):
        x = nd.array([float(k)] * 3, dtype="float64")
        x.attach_grad()
        for _ in range(50):
            with autograd.record():
                y = (x * x * k).sum()
            y.backward()
        results[k] = x.grad.asnumpy()

    ts = [threading.Thread(target=worker, args=(k,)) for k in range(1, 5)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    for k in range(1, 5):
        np.testing.assert_allclose(results[k], [2.0 * k * k] * 3)


# --------------------------------------------------------------- variables
def test_write_overwrites_same_buffer():
    x = nd.array([1., 2.]); x.attach_grad()
    g = x.grad
    for _ in range(2):
        with autograd.record():
            y = x * 3
        y.backward()
    assert x.grad is g
    assert g.asnumpy().tolist() == [3.0, 3.0]


def test_add_accumulates_until_zeroed():
    x = nd.array([1., 2.]); x.attach_grad(grad_req="add")
    for _ in range(3):
        with autograd.record():
            y = x * x
        y.backward()
    assert x.grad.asnumpy().tolist() == [6.0, 12.0]
    x.grad[:] = 0
    with autograd.record():
        y = x * x
    y.backward()
    assert x.grad.asnumpy().tolist() == [2.0, 4.0]


def test_null_computes_nothing_and_alone_is_an_error():
    x = nd.array([1., 2.]); x.attach_grad(grad_req="null")
    w = nd.array([3., 4.]); w.attach_grad()
    with autograd.record():
        y = x * w
    y.backward()
    assert w.grad.asnumpy().tolist() == [1.0, 2.0]
    assert x.grad_req == "null"
    with autograd.record():
        z = x * 2
    with pytest.raises(mx.MXNetError):
        z.backward()


def test_mark_variables_buffers_and_reqs():
    x = nd.array([1., 2., 3., 4.], dtype="float64")
    g = nd.zeros((4,), dtype="float64")
    autograd.mark_variables(x, g)
    with autograd.record():
        y = x * x + 1
    autograd.backward(y)
    assert g.asnumpy().tolist() == [2.0, 4.0, 6.0, 8.0]
    assert x.grad is g
    a, b = nd.ones((2,)), nd.ones((2,))
    ga, gb = nd.ones((2,)), nd.ones((2,))
    autograd.mark_variables([a, b], [ga, gb], ["add", "write"])
    with autograd.record():
        y = a * 2 + b * 5
    y.backward()
    assert ga.asnumpy().tolist() == [3.0, 3.0]
    assert gb.asnumpy().tolist() == [5.0, 5.0]


def test_mark_variables_bad_input():
    with pytest.raises(ValueError, match="one gradient buffer"):
        autograd.mark_variables([nd.ones((2,)), nd.ones((2,))], [nd.ones((2,))])
    with pytest.raises(ValueError, match="grad_req"):
        autograd.mark_variables([nd.ones((2,))], [nd.ones((2,))], "sometimes")
    with pytest.raises(ValueError, match="grad_req"):
        nd.ones((2,)).attach_grad("bogus")
    with pytest.raises(ValueError, match="shape"):
        autograd.mark_variables(nd.ones((2,)), nd.ones((3,)))


def test_attach_grad_again_resets_and_changes_req():
    x = nd.array([1.]); x.attach_grad("add")
    with autograd.record():
        y = x * 2
    y.backward()
    assert x.grad.asscalar() == 2.0
    x.attach_grad()
    assert x.grad.asscalar() == 0.0 and x.grad_req == "write"


def test_attach_grad_on_intermediate_makes_new_leaf():
    x = nd.array([2.]); x.attach_grad()
    with autograd.record():
        y = x * 3
        y.attach_grad()
        z = y * y
    z.backward()
    assert y.grad.asscalar() == 12.0
    assert x.grad.asscalar() == 0.0


def test_detach_and_stop_gradient():
    x = nd.array([2.]); x.attach_grad()
    with autograd.record():
        y = x * x.detach() + nd.stop_gradient(x * 5) * x
    y.backward()
    assert x.grad.asscalar() == 2.0 + 10.0


# ---------------------------------------------------------------- backward
def test_head_without_gradient_uses_ones_any_shape():
    x = nd.array([[1., 2.], [3., 4.]]); x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward()
    assert x.grad.asnumpy().tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_head_gradient_used_and_shape_checked():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = x * 3
    with pytest.raises(ValueError, match=r"\(3,\)"):
        y.backward(nd.ones((3,)))
    # the failed call left the graph usable
    y.backward(nd.array([1., 10.]))
    assert x.grad.asnumpy().tolist() == [3.0, 30.0]


def test_multiple_heads_and_head_grads():
    x = nd.array([1.]); x.attach_grad()
    a = nd.array([1.]); a.attach_grad()
    with autograd.record():
        y = 2 * x
        b = 3 * a
    autograd.backward([y, b], [nd.array([1.]), nd.array([2.])])
    assert x.grad.asscalar() == 2.0 and a.grad.asscalar() == 6.0


def test_backward_inside_record():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = (x * x).sum()
        y.backward()
    assert x.grad.asnumpy().tolist() == [2.0, 4.0]


def test_not_recorded_error():
    x = nd.array([1.]); x.attach_grad()
    y = x * 2  # not recording
    with pytest.raises(mx.MXNetError, match="record"):
        y.backward()
    with pytest.raises(mx.MXNetError):
        nd.ones((2,)).backward()


def test_freed_graph_error_and_retain_graph():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = (x.exp() * x).sum()
    y.backward(retain_graph=True)
    first = x.grad.asnumpy().copy()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), first)
    with pytest.raises(mx.MXNetError, match="retain_graph"):
        y.backward()


def test_shared_subgraph_accumulates():
    x = nd.array([3.]); x.attach_grad()
    with autograd.record():
        a = x * x
        y = a + a * 2 + x
    y.backward()
    assert x.grad.asscalar() == 3 * 2 * 3 + 1


def test_failed_backward_leaves_gradients_untouched():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = x * x
    y.backward(retain_graph=True)
    before = x.grad.asnumpy().copy()
    with autograd.record():
        z = x * nd.array([5., 5.])
    with pytest.raises(ValueError):
        autograd.backward([y, z], [nd.ones((2,)), nd.ones((7,))])
    np.testing.assert_array_equal(x.grad.asnumpy(), before)


def test_version_counter_detects_inplace_change_of_saved_input():
    x = nd.array([1., 2.]); x.attach_grad()
    c = nd.array([3., 4.])
    with autograd.record():
        y = x * c
    c += 1
    with pytest.raises(mx.MXNetError, match="multiply") as e:
        y.backward()
    assert "in place" in str(e.value)
    assert x.grad.asnumpy().tolist() == [0.0, 0.0]


def test_version_counter_output_and_setitem():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = x.exp()
        z = y * 2
    y[:] = 0
    with pytest.raises(mx.MXNetError, match="exp"):
        z.backward()


def test_inplace_on_graph_array_while_recording_raises():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = x * 2
        with pytest.raises(mx.MXNetError, match="record"):
            y += 1
        with pytest.raises(mx.MXNetError):
            x += 1
        with pytest.raises(mx.MXNetError):
            y[0] = 5
    # outside recording it is allowed and bumps the version
    v = y._ver[0]
    y += 1
    assert y._ver[0] == v + 1


def test_inplace_constant_with_recorded_rhs_takes_history():
    w = nd.array([2., 3.]); w.attach_grad()
    acc = nd.zeros((2,))
    with autograd.record():
        acc += w * w
    acc.backward()
    assert w.grad.asnumpy().tolist() == [4.0, 6.0]


def test_grad_returns_list_and_leaves_grad_untouched():
    x = nd.array([1., 2.]); x.attach_grad()
    with autograd.record():
        y = (x ** 3).sum()
    gs = autograd.grad(y, x)
    assert isinstance(gs, list) and len(gs) == 1
    assert gs[0].asnumpy().tolist() == [3.0, 12.0]
    assert x.grad.asnumpy().tolist() == [0.0, 0.0]
    with pytest.raises(mx.MXNetError):
        y.backward()  # retain_graph defaulted to create_graph=False


def test_grad_of_unused_variable_is_an_error_as_in_mxnet():
    # MXNet 1.9.1: "Check failed: output_grads.find(xs[i].node.get()) != ..." (issue 11)
    x = nd.array([1., 2.]); x.attach_grad()
    w = nd.array([5.]); w.attach_grad()
    with autograd.record():
        y = (x * 2).sum()
    with pytest.raises(MXNetError, match="do not depend on variable 1"):
        autograd.grad(y, [x, w], retain_graph=True)
    gx, = autograd.grad(y, [x])
    assert gx.asnumpy().tolist() == [2.0, 2.0]


def test_second_and_third_derivatives():
    x = nd.array([2.], dtype="float64"); x.attach_grad()
    with autograd.record():
        y = x ** 4
        d1 = autograd.grad(y, x, create_graph=True)[0]
        d2 = autograd.grad(d1, x, create_graph=True)[0]
    d2.backward()
    assert d1.asscalar() == 32.0 and d2.asscalar() == 48.0
    assert x.grad.asscalar() == 48.0


def test_second_order_two_variables():
    x = nd.array([1., 2.], dtype="float64"); x.attach_grad()
    w = nd.array([3., 4.], dtype="float64"); w.attach_grad()
    with autograd.record():
        y = (nd.sin(x * w) * x).sum()
        gx = autograd.grad(y, x, create_graph=True)[0]
        z = gx.sum()
    z.backward()
    xv, wv = x.asnumpy(), w.asnumpy()
    # gx = w cos(xw) x + sin(xw); dz/dw = cos(xw) x - x^2 w sin(xw) + x cos(xw)
    np.testing.assert_allclose(w.grad.asnumpy(),
                               2 * xv * np.cos(xv * wv) - xv ** 2 * wv * np.sin(xv * wv))


def test_backward_create_graph_records_grad():
    x = nd.array([3.], dtype="float64"); x.attach_grad()
    with autograd.record():
        y = x ** 3
    autograd.backward(y, create_graph=True)
    g = x.grad
    assert g.asscalar() == 27.0
    assert g._node is not None
    h = autograd.grad(g, x)[0]
    assert h.asscalar() == 18.0


def test_deep_chain_is_iterative():
    x = nd.array([1.]); x.attach_grad()
    with autograd.record():
        y = x
        for _ in range(100_000):
            y = y * 1.0
    y.backward()
    assert x.grad.asscalar() == 1.0


def test_graph_freed_when_outputs_dropped():
    x = nd.ones((1000,)); x.attach_grad()
    with autograd.record():
        y = (x * 2).exp()
    ref = weakref.ref(y._node)
    del y
    gc.collect()
    assert ref() is None


def test_saved_values_released_during_backward():
    x = nd.ones((10,)); x.attach_grad()
    with autograd.record():
        h = x * 3
        y = h.exp()
        z = y.sum()
    node = y._node
    z.backward()
    assert node.freed and node.out is None


def test_backward_train_mode_flag():
    seen = []

    class Spy(autograd.Function):
        def forward(self, x):
            return x * 1

        def backward(self, g):
            seen.append(autograd.is_training())
            return g

    x = nd.ones((1,)); x.attach_grad()
    with autograd.record():
        y = Spy()(x)
    y.backward(train_mode=False)
    assert seen == [False]


def test_heads_must_be_ndarrays():
    with pytest.raises(TypeError):
        autograd.backward([1.0])


def test_non_numeric_data_error():
    with pytest.raises(TypeError, match="numeric"):
        nd.array(["a", "b"])


def test_float64_gradient_dtype():
    x = nd.array([1., 2.], dtype="float64"); x.attach_grad()
    assert x.grad.dtype == np.float64
    with autograd.record():
        y = x * 2
    y.backward()
    assert x.grad.dtype == np.float64


def test_null_variable_keeps_its_buffer_untouched():
    x = nd.array([1., 2.])
    buf = nd.array([7., 7.])
    w = nd.array([3., 4.]); w.attach_grad()
    autograd.mark_variables([x], [buf], "null")
    assert x.grad is buf and x.grad_req == "null"
    with autograd.record():
        y = x * w
    y.backward()
    assert buf.asnumpy().tolist() == [7.0, 7.0]
    assert w.grad.asnumpy().tolist() == [1.0, 2.0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_debug_mode_records_stack_and_catches_non_finite():
    prev = autograd.set_debug(True)
    try:
        x = nd.array([1., 0.]); x.attach_grad()
        with autograd.record():
            y = x * 2
        assert "stack" in y._node.metadata
        assert y._node.metadata["stack"][-1].name == \
            "test_debug_mode_records_stack_and_catches_non_finite"
        with autograd.record():
            z = nd.sqrt(x)  # finite forward, infinite gradient at 0
        with pytest.raises(autograd.NonFiniteError, match="sqrt"):
            z.backward()
        assert x.grad.asnumpy().tolist() == [0.0, 0.0]
    finally:
        autograd.set_debug(prev)
    with autograd.record():
        y = x * 2
    assert y._node.metadata is None  # off: nothing recorded


def test_buffer_reuse_never_touches_visible_arrays():
    # raw rules may write into a gradient nobody else holds; these are all held elsewhere
    x = nd.array([0.5, -1.0, 2.0], dtype="float64"); x.attach_grad()
    hg = nd.array([1., 2., 3.], dtype="float64")
    with autograd.record():
        y = -nd.exp(-x)
    y.backward(hg)
    assert hg.asnumpy().tolist() == [1.0, 2.0, 3.0]
    np.testing.assert_allclose(x.grad.asnumpy(), np.exp(-x.asnumpy()) * [1, 2, 3])
    with autograd.record():
        a = x * 3
        b = -a
        c = nd.relu(nd.exp(b * 1.0)).sum()
    ga, gb = autograd.grad(c, [a, b])
    np.testing.assert_allclose(ga.asnumpy(), -gb.asnumpy())
    np.testing.assert_allclose(gb.asnumpy(), np.exp(-3 * x.asnumpy()))


def test_allocator_tuning_can_be_switched_off():
    import subprocess
    import sys
    code = "import mxgrad._allocator as a, mxgrad; print(a.tuned)"
    env = dict(__import__("os").environ, MXGRAD_MALLOC_TUNING="0")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.strip()
    assert out == "False"
