"""MXNet 1.9's helper modules that users' programs and tests import: mx.test_utils with MXNet's
semantics, mx.base names, the legacy mx.contrib.autograd, mx.util, mx.runtime, mx.nd.sparse,
and mxgrad.compat.install_as_mxnet."""
import os
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd, test_utils as tu
from mxgrad.base import MXNetError


# ---- test_utils ----------------------------------------------------------------------------
def test_assert_almost_equal_uses_dtype_default_tolerances():
    a32 = nd.array([1.0, 2.0])
    tu.assert_almost_equal(a32, np.array([1.0005, 2.0], dtype=np.float32))   # atol 1e-3
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(a32, np.array([1.01, 2.0], dtype=np.float32))
    a64 = np.array([1.0, 2.0])
    with pytest.raises(AssertionError):       # float64 defaults: rtol 1e-5, atol 1e-20
        tu.assert_almost_equal(a64, a64 + 1e-4)
    tu.assert_almost_equal(a64, a64 + 1e-6)
    # the looser dtype wins when the two differ
    tu.assert_almost_equal(a64, np.array([1.0005, 2.0], dtype=np.float32))


def test_assert_almost_equal_explicit_and_dict_tolerances_and_message():
    a = np.array([1.0, 5.0, 3.0])
    b = np.array([1.0, 5.5, 3.0])
    tu.assert_almost_equal(a, b, rtol=0.2, atol=0)
    tu.assert_almost_equal(a, b, atol={np.dtype(np.float64): 1.0}, rtol=0)
    with pytest.raises(AssertionError) as err:
        tu.assert_almost_equal(a, b, rtol=1e-3, atol=0, names=("out", "ref"))
    msg = str(err.value)
    assert "(1,)" in msg and "out=5.00000000" in msg and "ref=5.50000000" in msg
    assert "mismatch 33.3" in msg


def test_assert_almost_equal_broadcast_bool_and_nan():
    tu.assert_almost_equal(np.ones((2, 3)), np.ones((3,)))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.ones((2, 3)), np.ones((3,)), use_broadcast=False)
    tu.assert_almost_equal(np.array([True, False]), np.array([True, False]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([True]), np.array([False]))
    with pytest.raises(AssertionError):
        tu.assert_almost_equal(np.array([np.nan]), np.array([np.nan]))
    tu.assert_almost_equal(np.array([np.nan]), np.array([np.nan]), equal_nan=True)
    tu.assert_almost_equal_ignore_nan(np.array([np.nan, 1.0]), np.array([3.0, 1.0]))
    assert tu.almost_equal(np.array([1.0]), np.array([1.0 + 1e-4])) is False  # float64 defaults
    assert tu.almost_equal(np.array([1.0]), np.array([1.0 + 1e-4]), rtol=1e-3) is True


def test_environment_sets_and_restores_even_on_error():
    os.environ["MXG_T1"] = "old"
    os.environ.pop("MXG_T2", None)
    with pytest.raises(ZeroDivisionError):
        with tu.environment({"MXG_T1": "new", "MXG_T2": "x"}):
            assert os.environ["MXG_T1"] == "new" and os.environ["MXG_T2"] == "x"
            1 / 0
    assert os.environ["MXG_T1"] == "old" and "MXG_T2" not in os.environ
    with tu.environment("MXG_T1", None):
        assert "MXG_T1" not in os.environ
    assert os.environ.pop("MXG_T1") == "old"

    @tu.environment("MXG_T3", "deco")
    def f():
        return os.environ["MXG_T3"]
    assert f() == "deco" and "MXG_T3" not in os.environ
    with pytest.raises(MXNetError):
        with tu.environment("a", "b", "c"):
            pass


def test_random_helpers_shapes_dtypes():
    np.random.seed(1)
    assert tu.rand_ndarray((3, 4)).shape == (3, 4)
    assert tu.rand_ndarray((2,), dtype="float64").dtype == np.float64
    with pytest.raises(MXNetError, match="sparse"):
        tu.rand_ndarray((2, 2), stype="csr")
    s = tu.rand_shape_nd(4, dim=3)
    assert len(s) == 4 and all(1 <= d <= 3 for d in s)
    assert any(0 in tu.rand_shape_nd(6, dim=1, allow_zero_size=True) for _ in range(50))
    a, b = tu.random_arrays((2, 3), (4,))
    assert a.shape == (2, 3) and b.dtype == np.float32
    u, = tu.random_uniform_arrays((100,), low=2.0, high=3.0)
    assert u.min() >= 2.0 and u.max() < 3.0
    assert sorted(tu.random_sample([1, 2, 3, 4], 4)) == [1, 2, 3, 4]


def test_np_reduce_and_collapse_sum_like_match_numpy():
    x = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(tu.np_reduce(x, (0, 2), True, np.sum),
                                  x.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_array_equal(tu.np_reduce(x, 1, False, np.max), x.max(axis=1))
    np.testing.assert_array_equal(tu.np_reduce(x, None, False, np.sum), x.sum())
    np.testing.assert_array_equal(tu.collapse_sum_like(x, (3, 1)), x.sum(0).sum(-1, keepdims=True))


def test_same_same_array_assert_exception_retry():
    x = nd.array([1, 2])
    assert tu.same(x, np.array([1.0, 2.0])) and not tu.same(x, np.array([1.0, 3.0]))
    assert tu.same_array(x, x) and not tu.same_array(x, x.copy())
    tu.assert_exception(lambda: 1 / 0, ZeroDivisionError)
    with pytest.raises(AssertionError):
        tu.assert_exception(lambda: 1, ZeroDivisionError)
    calls = []

    @tu.retry(3)
    def flaky():
        calls.append(1)
        assert len(calls) == 3
    flaky()
    assert len(calls) == 3


def test_compare_optimizer_and_default_context():
    tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
                         mx.optimizer.SGD(learning_rate=0.1, momentum=0.9), (3, 4), np.float32)
    with pytest.raises(AssertionError):
        tu.compare_optimizer(mx.optimizer.SGD(learning_rate=0.1),
                             mx.optimizer.SGD(learning_rate=0.5), (3, 4), np.float32)
    assert tu.default_context() == mx.cpu(0)
    assert tu.default_rtols()[np.dtype(np.float16)] == 1e-2
    assert tu.get_atol(None, np.float32) == 1e-3 and tu.get_rtol(0.5) == 0.5


def test_star_import_gives_what_mxnet_tests_use():
    ns = {}
    exec("from mxgrad.test_utils import *", ns)
    for name in ("mx", "np", "assert_almost_equal", "environment", "array", "default_context",
                 "rand_ndarray", "same"):
        assert name in ns, name
    assert ns["mx"] is mx


def test_base_names():
    from mxgrad.base import py_str, integer_types, string_types, numeric_types
    assert py_str(b"caf\xc3\xa9") == "café" and py_str("x") == "x"
    assert isinstance(np.int64(3), integer_types) and isinstance("s", string_types)
    assert isinstance(np.float32(1), numeric_types)


# ---- legacy contrib.autograd -----------------------------------------------------------------
def test_contrib_autograd_sections_and_grad():
    from mxgrad.contrib import autograd as legacy
    assert not mx.autograd.is_recording()
    with legacy.train_section():
        assert mx.autograd.is_recording() and mx.autograd.is_training()
        with legacy.test_section():
            assert not mx.autograd.is_recording() and not mx.autograd.is_training()
        assert mx.autograd.is_recording()
    assert not mx.autograd.is_recording() and not mx.autograd.is_training()

    x = nd.array([1.0, 2.0, 3.0])
    y = nd.array([0.5, 0.5, 2.0])
    grads, loss = legacy.grad_and_loss(lambda a, b: (a * a * b).sum())(x, y)
    np.testing.assert_allclose(grads[0].asnumpy(), 2 * x.asnumpy() * y.asnumpy())
    np.testing.assert_allclose(grads[1].asnumpy(), x.asnumpy() ** 2)
    np.testing.assert_allclose(loss.asnumpy(), [1 * 0.5 + 4 * 0.5 + 9 * 2])
    g = legacy.grad(lambda a, b: (a * b).sum(), argnum=1)(x, y)
    assert len(g) == 1
    np.testing.assert_allclose(g[0].asnumpy(), x.asnumpy())


def test_contrib_autograd_mark_variables_backward_and_errors():
    from mxgrad.contrib import autograd as legacy
    x = nd.array([3.0])
    gx = nd.zeros((1,))
    legacy.mark_variables([x], [gx])
    with legacy.train_section():
        y = x * x
    legacy.backward([y], [nd.array([2.0])])
    np.testing.assert_allclose(gx.asnumpy(), [12.0])
    with pytest.raises(MXNetError, match="list or tuple"):
        legacy.backward(y)
    with pytest.raises(MXNetError, match="NDArray"):
        legacy.grad(lambda a: a)(1.0)


# ---- util, runtime, sparse, install_as_mxnet ---------------------------------------------
def test_util_runtime_sparse():
    assert mx.util.is_np_array() is False and mx.util.set_np_shape(False) is False
    with pytest.raises(MXNetError, match="float64"):
        mx.util.set_np(dtype=True)
    with pytest.raises(MXNetError, match="shape=True"):
        mx.util.set_np(shape=False, array=True)
    assert mx.util.is_np_array() is False
    f = mx.runtime.Features()
    assert not f.is_enabled("cuda") and f.is_enabled("INT64_TENSOR_SIZE")
    with pytest.raises(MXNetError, match="unknown"):
        f.is_enabled("NOPE")
    from mxgrad.ndarray import sparse
    with pytest.raises(NotImplementedError, match="dense"):
        sparse.row_sparse_array(([1.0], [0]), shape=(2,))


def test_install_as_mxnet_resolves_submodules_and_undoes():
    import mxgrad.compat as compat
    compat.install_as_mxnet()
    try:
        import mxnet
        from mxnet.gluon import nn
        from mxnet.test_utils import assert_almost_equal
        import mxnet.ndarray as mnd
        assert mxnet is mx and nn is mx.gluon.nn and mnd is mx.nd
        assert assert_almost_equal is tu.assert_almost_equal
        with pytest.raises(ModuleNotFoundError):
            import mxnet.no_such_module  # noqa: F401
    finally:
        compat.uninstall_as_mxnet()
    assert "mxnet" not in sys.modules


def test_initializers_compare_by_class_and_arguments_so_shared_params_work():
    assert mx.init.Normal(0.1) == mx.init.Normal(0.1)
    assert mx.init.Normal(0.1) != mx.init.Normal(0.2)
    assert mx.init.Normal(0.1) != mx.init.Uniform(0.1)
    assert (mx.init.Xavier() == "xavier") is False
    params = mx.gluon.ParameterDict("net_")
    p1 = params.get("w", shape=(2,), init=mx.init.Normal(0.1))
    p2 = params.get("w", shape=(2,), init=mx.init.Normal(0.1))   # equal, not identical
    assert p1 is p2
    with pytest.raises(MXNetError, match="init"):
        params.get("w", init=mx.init.Normal(0.5))


def test_context_default_ctx_and_device_type_numbers_as_mxnet():
    # MXNet 1.9.1: Context.default_ctx is a deprecated class property (per thread);
    # devtype2str / device_typeid are its device numbers (its test_thread_local uses them)
    import threading
    seen = []

    def spawned():
        mx.test_utils.set_default_context(mx.gpu(11))
        with pytest.warns(DeprecationWarning, match="default_ctx"):
            seen.append(mx.Context.default_ctx)
    t = threading.Thread(target=spawned)
    t.start()
    t.join()
    with pytest.warns(DeprecationWarning):
        here = mx.Context.default_ctx
    assert here == mx.cpu(0) and seen == [mx.gpu(11)]
    assert mx.Context.devtype2str[seen[0].device_typeid] == "gpu"
    assert mx.Context.devtype2str[here.device_typeid] == "cpu"
