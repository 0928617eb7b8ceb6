"""What mxgrad does not provide says so: an MXNetError subclass naming the feature, that it
is not supported and what to use instead (issue 23); a Python type mistake is an
ArgumentTypeError (a TypeError), not a DTypeError."""
import pytest

import mxgrad as mx
from mxgrad import gluon, nd
from mxgrad.base import (ArgumentTypeError, DTypeError, MXNetError, NotSupportedError,
                         UnsupportedFeatureError)


@pytest.mark.parametrize("name, words", [
    ("rtc", "GPU"), ("engine", "synchronously")])
def test_missing_mxnet_modules_name_the_feature_and_the_alternative(name, words):
    with pytest.raises(UnsupportedFeatureError) as info:
        getattr(mx, name)
    msg = str(info.value)
    assert msg.startswith(f"mx.{name} (") and "is not supported by mxgrad" in msg
    assert words in msg
    assert isinstance(info.value, (MXNetError, NotImplementedError, AttributeError))
    assert not hasattr(mx, name)                 # feature probes keep working


def test_registered_operators_list_builtin_and_numpy_names():
    ops = mx.operator.get_all_registered_operators()
    assert "FullyConnected" in ops and "_np_dot" in ops and "_npx_softmax" in ops


def test_unsupported_module_use_and_from_import():
    with pytest.raises(NotSupportedError, match="mxgrad computes synchronously"):
        mx.engine.bulk(10)
    with pytest.raises(ImportError):             # `from mxgrad import rtc` is an ImportError
        from mxgrad import rtc  # noqa: F401
    with pytest.raises(AttributeError, match="no attribute 'nosuchthing'"):
        mx.nosuchthing


def test_mxnet_aliases_of_present_modules():
    assert mx.rnd is mx.random and mx.visualization is mx.viz


@pytest.mark.parametrize("call", [
    lambda: nd.sparse.zeros("csr", (2, 3)),
    lambda: mx.nd.sparse.csr_matrix(([1.0], [0], [0, 1]), shape=(1, 2)),
    lambda: mx.nd.sparse.row_sparse_array(([[1.0]], [0]), shape=(2, 1)),
    lambda: nd.ones((2, 2)).tostype("csr"),
    lambda: nd.ones((2, 2)).tostype("row_sparse"),
    lambda: nd.zeros((2, 2), stype="csr"),
])
def test_sparse_storage(call):
    with pytest.raises(NotSupportedError) as info:
        call()
    msg = str(info.value)
    assert "sparse storage (row_sparse, csr) is not supported by mxgrad" in msg
    assert "dense" in msg
    assert nd.ones((2,)).tostype("default").asnumpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("call, where", [
    (lambda: nd.zeros((2,), ctx=mx.gpu()), "nd.zeros: ctx is gpu(0)"),
    (lambda: nd.array([1, 2], ctx="gpu(1)"), "nd.array: ctx is gpu(1)"),
    (lambda: nd.ones((2,)).as_in_context(mx.gpu(0)), "as_in_context: context is gpu(0)"),
    (lambda: nd.ones((2,)).copyto(mx.gpu(0)), "copyto: the target context is gpu(0)"),
    (lambda: gluon.nn.Dense(2, in_units=2).initialize(ctx=mx.gpu()), "initialize: ctx"),
    (lambda: gluon.utils.split_and_load(nd.ones((4, 2)), [mx.gpu(0), mx.gpu(1)]),
     "split_and_load: ctx_list is gpu(0)"),
    (lambda: nd.random.uniform(shape=(2,), ctx=mx.gpu()), "random.uniform: ctx is gpu(0)"),
])
def test_gpu_use(call, where):
    with pytest.raises(NotSupportedError) as info:
        call()
    assert str(info.value).startswith(where)
    assert "mxgrad has no GPU support" in str(info.value) and "use mx.cpu()" in str(info.value)


def test_gpu_context_names_still_work():
    """Naming a GPU is fine (MXNet too): code that picks one only when present runs."""
    ctx = mx.gpu(1)
    assert str(ctx) == "gpu(1)" and mx.context.num_gpus() == 0
    with ctx:
        assert mx.current_context() == mx.gpu(1)
        with pytest.raises(NotSupportedError, match="nd.ones: ctx is gpu"):
            nd.ones((2,))
    ctx = mx.gpu() if mx.context.num_gpus() else mx.cpu()
    assert nd.ones((2,), ctx=ctx).shape == (2,)


def test_check_numeric_gradient_with_a_symbol():
    sym = mx.sym.sin(mx.sym.var("x"))
    # MXNet's Symbol form (issue 25 item 2) and the function form both work
    assert mx.test_utils.check_numeric_gradient(sym, [nd.array([0.5])]) is None
    with pytest.raises(AssertionError, match="NUMERICAL_x"):
        mx.test_utils.check_numeric_gradient(mx.sym.BlockGrad(sym), [nd.array([0.5])])
    net = gluon.SymbolBlock(sym, [mx.sym.var(n) for n in sym.list_arguments()])
    assert mx.test_utils.check_numeric_gradient(net, [nd.array([0.5, 1.5])])
    with pytest.raises(ArgumentTypeError, match="fn must be a function of NDArrays"):
        mx.test_utils.check_numeric_gradient(3, [nd.array([0.5])])


def test_type_mistakes_are_argument_type_errors_not_dtype_errors():
    sym = mx.sym.var("data") * 2
    with pytest.raises(NotSupportedError, match="Symbol form is not supported.*SymbolBlock"):
        mx.viz.print_summary(sym)
    for call in (lambda: mx.viz.print_summary(nd.ones((2,))),
                 lambda: mx.viz.plot_network(42)):
        with pytest.raises(ArgumentTypeError) as info:
            call()
        assert isinstance(info.value, TypeError) and not isinstance(info.value, DTypeError)


@pytest.mark.parametrize("name, words", [("onnx", "SymbolBlock.imports"),
                                         ("quantization", "INT8"), ("tensorrt", "GPU")])
def test_missing_contrib_modules_name_the_feature(name, words):
    with pytest.raises(UnsupportedFeatureError, match=f"mx.contrib.{name} is not supported"):
        getattr(mx.contrib, name)
    assert words in str(pytest.raises(UnsupportedFeatureError,
                                      getattr, mx.contrib, name).value)
    assert not hasattr(mx.contrib, name)
