"""mx.operator: Python operators registered by name and run with nd.Custom, recorded by
autograd (gradients checked against central differences), parameters passed as strings,
several outputs, auxiliary states, clear errors."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError
from mxgrad.test_utils import check_numeric_gradient


class _Scaled(mx.operator.CustomOp):
    def __init__(self, k):
        super().__init__()
        self.k = k

    def forward(self, is_train, req, in_data, out_data, aux):
        x, y = in_data
        self.assign(out_data[0], req[0], self.k * x * y)
        self.assign(out_data[1], req[1], x + y)
        aux[0][:] += 1                      # counts calls, as an aux state may

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        x, y = in_data
        g0, g1 = out_grad
        self.assign(in_grad[0], req[0], self.k * y * g0 + g1)
        self.assign(in_grad[1], req[1], self.k * x * g0 + g1)


@mx.operator.register("test_scaled")
class _ScaledProp(mx.operator.CustomOpProp):
    def __init__(self, k="1"):
        super().__init__(need_top_grad=True)
        assert isinstance(k, str)            # MXNet passes every parameter as a string
        self.k = float(k)

    def list_arguments(self):
        return ["x", "y"]

    def list_outputs(self):
        return ["prod", "sum"]

    def list_auxiliary_states(self):
        return ["calls"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0], in_shape[0]], [(1,)]

    def create_operator(self, ctx, in_shapes, in_dtypes):
        assert in_shapes == [(2, 3), (2, 3)]
        return _Scaled(self.k)


def test_custom_forward_backward_and_aux():
    x, y = nd.array(np.arange(6).reshape(2, 3)), nd.ones((2, 3)) * 2
    x.attach_grad()
    y.attach_grad()
    calls = nd.zeros((1,))
    with mx.autograd.record():
        prod, total = nd.Custom(x, y, calls, op_type="test_scaled", k=3)
        (prod + total).sum().backward()
    np.testing.assert_allclose(prod.asnumpy(), 3 * x.asnumpy() * 2)
    np.testing.assert_allclose(total.asnumpy(), x.asnumpy() + 2)
    np.testing.assert_allclose(x.grad.asnumpy(), np.full((2, 3), 3 * 2 + 1.0))
    np.testing.assert_allclose(y.grad.asnumpy(), 3 * x.asnumpy() + 1)
    assert calls.asscalar() == 1


def test_custom_gradient_matches_central_differences():
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(2, 3)), rng.normal(size=(2, 3))
    calls = nd.zeros((1,), dtype="float64")

    def f(x, y):
        p, s = nd.Custom(x, y, calls, op_type="test_scaled", k=0.5)
        return p * s
    assert check_numeric_gradient(f, [nd.array(a, dtype="float64"),
                                      nd.array(b, dtype="float64")])


def test_custom_errors():
    with pytest.raises(MXNetError, match="no operator registered"):
        nd.Custom(nd.ones((1,)), op_type="not_registered_anywhere")
    with pytest.raises(MXNetError, match="expects 2 argument"):
        nd.Custom(nd.ones((2, 3)), op_type="test_scaled")
    with pytest.raises(TypeError):
        mx.operator.register("bad")(int)
    assert "test_scaled" in mx.operator.get_all_registered_operators()


class _Failing(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        assert False, "broken forward"


@mx.operator.register("test_failing")
class _FailingProp(mx.operator.CustomOpProp):
    def create_operator(self, ctx, in_shapes, in_dtypes):
        return _Failing()


def test_errors_in_user_code_are_mxnet_errors_naming_the_op():
    with pytest.raises(MXNetError, match="test_failing.*forward.*AssertionError"):
        nd.Custom(nd.ones((2,)), op_type="test_failing")
    ops = mx.operator.get_all_registered_operators()
    assert "Activation" in ops and "test_failing" in ops


def test_unknown_op_type_lists_the_registered_custom_operators():
    with pytest.raises(MXNetError, match="no operator registered") as err:
        nd.Custom(nd.ones((1,)), op_type="not_registered_anywhere")
    assert "'test_failing'" in str(err.value) and "Convolution" not in str(err.value)


def test_custom_inputs_by_name_as_mxnet():
    # MXNet's nd.Custom / sym.Custom take the inputs by the names the property lists
    # (MXNet 1.9.1's profiler tutorial: mx.sym.Custom(data=a, op_type=...))
    x, y = nd.array(np.arange(6).reshape(2, 3)), nd.ones((2, 3)) * 2
    by_name = nd.Custom(x, y=y, calls=nd.zeros((1,)), op_type="test_scaled", k=3)
    by_place = nd.Custom(x, y, nd.zeros((1,)), op_type="test_scaled", k=3)
    for a, b in zip(by_name, by_place):
        np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    np.testing.assert_array_equal(by_name[0].asnumpy(), 3 * x.asnumpy() * 2)
    with pytest.raises(MXNetError, match="not inputs"):
        nd.Custom(x, z=y, calls=nd.zeros((1,)), op_type="test_scaled")
    with pytest.raises(MXNetError, match=r"\['calls'\] are not given"):
        nd.Custom(x, y=y, op_type="test_scaled")
    s = mx.sym.Custom(x=mx.sym.var('a'), y=mx.sym.var('b'), op_type="test_scaled", k=3,
                      name='sc')
    assert s.list_arguments() == ['a', 'b'] and s.list_auxiliary_states() == ['sc_calls']
    ex = s.bind(mx.cpu(), {'a': x, 'b': y}, aux_states={'sc_calls': nd.zeros((1,))})
    np.testing.assert_array_equal(ex.forward()[0].asnumpy(), by_place[0].asnumpy())
