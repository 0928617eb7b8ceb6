"""mx.test_utils' operator checks on Symbols (issue 25 item 2): check_symbolic_forward,
check_symbolic_backward, check_numeric_gradient(sym, ...), check_consistency, simple_forward,
as MXNet 1.9.1 has them, built on Symbol.bind. Each is shown to pass on a right answer and to
fail on a wrong one."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import test_utils as tu
from mxgrad.base import MXNetError

A = np.array([[1.0, -2.0, 0.5], [3.0, 0.25, -1.0]])
B = np.array([[0.5, 1.5, 2.0], [-1.0, 2.0, 0.75]])


def _ab():
    return mx.sym.var("a"), mx.sym.var("b")


def test_check_symbolic_forward_list_and_dict():
    a, b = _ab()
    outs = tu.check_symbolic_forward(a * b, [A, B], [A * B])
    assert isinstance(outs[0], mx.nd.NDArray) and outs[0].dtype == np.float32
    prod = a * b
    tu.check_symbolic_forward(prod, {"a": A, "b": B}, {prod.list_outputs()[0]: A * B},
                              dtype=np.float64)
    with pytest.raises(AssertionError, match="EXPECTED_.*FORWARD_"):
        tu.check_symbolic_forward(a * b, [A, B], [A * B + 0.1])
    with pytest.raises(ValueError, match="do not match"):
        tu.check_symbolic_forward(a * b, {"a": A}, [A])


def test_check_symbolic_forward_aux_states():
    x = mx.sym.var("x")
    bn = mx.sym.BatchNorm(x, fix_gamma=False, name="bn")
    mean, var = np.array([1.0, 2.0]), np.array([4.0, 9.0])
    xv = np.arange(4.0).reshape(2, 2)
    want = (xv - mean) / np.sqrt(var + 1e-3)
    tu.check_symbolic_forward(bn, [xv, np.ones(2), np.zeros(2)], [want],
                              aux_states=[mean, var], rtol=1e-4, atol=1e-5)


def test_check_symbolic_backward_write_add_null():
    a, b = _ab()
    og = np.ones_like(A) * 2
    grads = tu.check_symbolic_backward(a * b, [A, B], [og], [og * B, og * A])
    np.testing.assert_allclose(grads["a"].asnumpy(), og * B, rtol=1e-6)
    tu.check_symbolic_backward(a * b, [A, B], [og], [og * B, og * A], grad_req="add")
    tu.check_symbolic_backward(a * b, [A, B], [og], {"a": og * B, "b": og * A},
                               grad_req={"a": "write", "b": "null"})
    with pytest.raises(AssertionError, match="BACKWARD_a"):
        tu.check_symbolic_backward(a * b, [A, B], [og], [og * A, og * A])


def test_check_symbolic_backward_loss_output_needs_no_head_gradient():
    x, y = mx.sym.var("x"), mx.sym.var("y")
    out = mx.sym.LinearRegressionOutput(x, y)
    # MXNet's LinearRegressionOutput: gradient (x - y) / (number of outputs per sample)
    tu.check_symbolic_backward(out, [A, B], None, {"x": (A - B) / 3.0},
                               grad_req={"x": "write", "y": "null"})


def test_check_numeric_gradient_on_symbols():
    a, b = _ab()
    tu.check_numeric_gradient(mx.sym.sin(a) * b, [A, B], numeric_eps=1e-3, rtol=1e-2,
                              atol=1e-3)
    tu.check_numeric_gradient(mx.sym.tanh(a) + b, {"a": A, "b": B}, grad_nodes=["a"],
                              dtype=np.float64)
    tu.check_numeric_gradient(a * b, [A, B], grad_nodes={"a": "add", "b": "null"},
                              dtype=np.float64)
    # a wrong gradient is caught: BlockGrad's is zero, the function's is not
    with pytest.raises(AssertionError, match="NUMERICAL_a"):
        tu.check_numeric_gradient(mx.sym.BlockGrad(a * a), [A], dtype=np.float64)


def test_check_numeric_gradient_with_aux_states_and_train_mode():
    x = mx.sym.var("x")
    bn = mx.sym.BatchNorm(x, fix_gamma=False, name="bn")
    xv = np.random.RandomState(0).normal(size=(4, 3))
    tu.check_numeric_gradient(bn, [xv, np.ones(3), np.zeros(3)],
                              aux_states=[np.zeros(3), np.ones(3)], numeric_eps=1e-3,
                              rtol=5e-2, atol=1e-2, dtype=np.float64)


def test_check_consistency_dtypes_and_contexts():
    x = mx.sym.var("x")
    sym = mx.sym.FullyConnected(x, num_hidden=3, name="fc")
    ctx_list = [{"ctx": mx.cpu(0), "x": (2, 4), "type_dict": {"x": np.float64}},
                {"ctx": mx.cpu(0), "x": (2, 4), "type_dict": {"x": np.float32}}]
    gt = tu.check_consistency(sym, ctx_list)
    assert set(gt) >= {"fc_output", "fc_weight", "x"}
    assert gt["fc_output"].dtype == np.float64
    cpu = {"ctx": mx.cpu(0), "x": (3,)}
    tu.check_consistency([mx.sym.abs(x, name="f"), mx.sym.abs(x, name="f")], [cpu, cpu])
    with pytest.raises(AssertionError):
        tu.check_consistency([mx.sym.sin(x, name="f"), mx.sym.cos(x, name="f")], [cpu, cpu],
                             grad_req="null")


def test_simple_forward():
    a, b = _ab()
    out = tu.simple_forward(a + b, a=A, b=B)
    np.testing.assert_allclose(out, A + B, rtol=1e-6)
    outs = tu.simple_forward(mx.sym.SliceChannel(a, num_outputs=3), a=A)
    assert len(outs) == 3 and outs[1].shape == (2, 1)


def test_dtype_argument_is_checked():
    a, _ = _ab()
    with pytest.raises(MXNetError, match="dtype must be"):
        tu.check_symbolic_forward(a, [A], [A], dtype=np.int32)
