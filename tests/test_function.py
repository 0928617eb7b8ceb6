"""autograd.Function in MXNet's, PyTorch's and R torch's styles, on one engine node."""
import gc
import threading
import weakref

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import GraphError, InPlaceError, MXNetError, ShapeError
from mxgrad.test_utils import assert_almost_equal, check_numeric_gradient, check_second_order
from mxgrad.autograd.forward_ad import ForwardModeError


def var(values, dtype="float32", req="write"):
    x = nd.array(values, dtype=dtype)
    x.attach_grad(req)
    return x


def softplus_np(x):
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0)


def sigmoid_np(x):
    return 1 / (1 + np.exp(-x))


# ----------------------------------------------------------------- the three styles
class MXSigmoid(autograd.Function):
    def forward(self, x):
        y = 1 / (1 + nd.exp(-x))
        self.save_for_backward(y)
        return y

    def backward(self, dy):
        y, = self.saved_tensors
        return dy * y * (1 - y)


class TorchSoftplus(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return nd.log1p(nd.exp(-nd.abs(x))) + nd.relu(x)

    @staticmethod
    def backward(ctx, dy):
        x, = ctx.saved_tensors
        return dy * nd.sigmoid(x)


def _r_forward(ctx, i):
    result = i.exp()
    ctx.save_for_backward(result=result)
    return result


def _r_backward(ctx, grad_output):
    return {"i": grad_output * ctx.saved_variable.result}


exp2 = autograd.function(forward=_r_forward, backward=_r_backward)

X = np.array([-2.0, -0.3, 0.4, 1.7])


def test_mxnet_style_forward_and_gradient():
    x = var(X)
    with autograd.record():
        y = MXSigmoid()(x)
    assert_almost_equal(y, sigmoid_np(X), rtol=1e-6)
    y.backward()
    assert_almost_equal(x.grad, sigmoid_np(X) * (1 - sigmoid_np(X)), rtol=1e-5)
    # MXNet's documented usage: backward inside record()
    x2 = var(X)
    with autograd.record():
        m = MXSigmoid()(x2)
        m.backward()
    assert_almost_equal(x2.grad, x.grad)


def test_pytorch_style_forward_and_gradient():
    x = var(X)
    with autograd.record():
        y = TorchSoftplus.apply(x)
    assert_almost_equal(y, softplus_np(X), rtol=1e-6)
    y.backward(nd.array([1., 2., 3., 4.]))
    assert_almost_equal(x.grad, sigmoid_np(X) * [1, 2, 3, 4], rtol=1e-5)


def test_r_style_seed_example():
    x = var(X)
    with autograd.record():
        y = exp2(x)
    assert_almost_equal(y, np.exp(X), rtol=1e-6)
    y.backward()
    assert_almost_equal(x.grad, np.exp(X), rtol=1e-6)
    # keyword call, bound to forward's parameter name
    x2 = var(X)
    with autograd.record():
        y2 = exp2(i=x2)
    y2.backward()
    assert_almost_equal(x2.grad, np.exp(X), rtol=1e-6)
    assert exp2.apply(nd.array([0.])).asnumpy()[0] == 1.0


@pytest.mark.parametrize("fn", [lambda x: MXSigmoid()(x), TorchSoftplus.apply, exp2],
                         ids=["mxnet", "torch", "r"])
def test_numeric_gradients_all_styles(fn):
    assert check_numeric_gradient(fn, [X])


@pytest.mark.parametrize("fn", [lambda x: MXSigmoid()(x), TorchSoftplus.apply, exp2],
                         ids=["mxnet", "torch", "r"])
def test_second_order_through_custom_ops(fn):
    assert check_second_order(fn, [X])


def test_second_derivative_by_hand():
    x = var([0.5, -1.0], dtype="float64")
    with autograd.record():
        y = exp2(x * x)                       # exp(x^2)
        (dy,) = autograd.grad(y, [x], create_graph=True)   # 2x exp(x^2)
    dy.backward()                             # (2 + 4x^2) exp(x^2)
    xv = np.array([0.5, -1.0])
    assert_almost_equal(dy, 2 * xv * np.exp(xv ** 2), rtol=1e-12)
    assert_almost_equal(x.grad, (2 + 4 * xv ** 2) * np.exp(xv ** 2), rtol=1e-12)


def test_backward_with_create_graph_records_custom_backward():
    x = var([1.5], dtype="float64")
    with autograd.record():
        y = TorchSoftplus.apply(x)
    autograd.backward(y, create_graph=True, retain_graph=True)
    g = x.grad
    assert g._node is not None
    assert_almost_equal(g, sigmoid_np(1.5), rtol=1e-12)


# -------------------------------------------------------------- MXNet semantics
def test_mxnet_outside_record_returns_forward_output_and_records_nothing():
    seen = []

    class Ident(autograd.Function):
        def forward(self, x):
            self.out = x * 2
            seen.append(autograd.is_recording())
            return self.out

        def backward(self, dy):
            return dy * 2

    x = var([1., 2.])
    f = Ident()
    y = f(x)
    assert y is f.out and y._node is None
    assert f.node is None and f.next_functions == ()
    assert seen == [False]


def test_mxnet_forward_recording_off_training_kept():
    seen = []

    class Spy(autograd.Function):
        def forward(self, x):
            seen.append((autograd.is_recording(), autograd.is_training()))
            return x + 1

        def backward(self, dy):
            seen.append((autograd.is_recording(), autograd.is_training()))
            return dy

    x = var([1.])
    with autograd.record():
        y = Spy()(x)
        assert autograd.is_recording()
    y.backward()
    with autograd.record(train_mode=False):
        z = Spy()(x)
    z.backward(train_mode=False)
    assert seen == [(False, True), (False, True), (False, False), (False, False)]


def test_mxnet_instance_serves_one_call():
    f = MXSigmoid()
    f(nd.array([1.]))
    with pytest.raises(AssertionError, match="only be called once"):
        f(nd.array([1.]))
    with pytest.raises(MXNetError):
        f(nd.array([1.]))


def test_mxnet_instance_without_super_init():
    class NoInit(autograd.Function):
        def __init__(self, k):
            self.k = k

        def forward(self, x):
            return x * self.k

        def backward(self, dy):
            return dy * self.k

    x = var([1., 2.])
    with autograd.record():
        y = NoInit(3.0)(x)
    y.backward()
    assert_almost_equal(x.grad, [3., 3.])


def test_mxnet_style_apply_and_list_outputs():
    class Two(autograd.Function):
        def forward(self, a, b):
            return [a + b, a * b]

        def backward(self, g1, g2):
            return g1 + g2 * 2.0, g1 + g2 * 3.0   # b=2 is not read: checks wiring only

    a, b = var([3.]), var([2.])
    with autograd.record():
        outs = Two.apply(a, b)
    assert isinstance(outs, list) and len(outs) == 2
    autograd.backward(outs)
    assert_almost_equal(a.grad, [3.])
    assert_almost_equal(b.grad, [4.])
    with pytest.raises(TypeError, match="apply"):
        TorchSoftplus()(nd.array([1.]))


@pytest.mark.parametrize("req", ["write", "add"])
def test_grad_req_write_add_for_every_input(req):
    class Mul(autograd.Function):
        def forward(self, a, b):
            self.save_for_backward(a, b)
            return a * b

        def backward(self, g):
            a, b = self.saved_tensors
            return g * b, g * a

    a, b = nd.array([2.]), nd.array([5.])
    ga, gb = nd.array([10.]), nd.array([100.])
    autograd.mark_variables([a, b], [ga, gb], req)
    for _ in range(2):
        with autograd.record():
            y = Mul()(a, b)
        y.backward()
    if req == "write":
        assert ga.asnumpy()[0] == 5 and gb.asnumpy()[0] == 2
    else:
        assert ga.asnumpy()[0] == 20 and gb.asnumpy()[0] == 104


def test_grad_req_null_input_is_skipped():
    calls = []

    class Mul(autograd.Function):
        def forward(self, a, b):
            self.save_for_backward(a, b)
            return a * b

        def backward(self, g):
            calls.append(self.needs_input_grad)
            a, b = self.saved_tensors
            return g * b, g * a

    a, b = nd.array([2.]), nd.array([5.])
    ga, gb = nd.array([7.]), nd.array([7.])
    autograd.mark_variables([a, b], [ga, gb], ["null", "write"])
    with autograd.record():
        y = Mul()(a, b)
    y.backward()
    assert ga.asnumpy()[0] == 7 and gb.asnumpy()[0] == 2
    assert calls == [(False, True)]
    # only 'null' variables: nothing to differentiate
    c = nd.array([1.])
    autograd.mark_variables([c], [nd.array([0.])], "null")
    with autograd.record():
        z = Mul()(c, c)
    assert z._node is None
    with pytest.raises(GraphError):
        z.backward()


# ------------------------------------------------------------ PyTorch ctx API
def test_needs_input_grad_tuple_and_names():
    seen = {}

    class F(autograd.Function):
        @staticmethod
        def forward(ctx, x, w, n, flag=True):
            seen["fwd"] = ctx.needs_input_grad
            return x * w * n

        @staticmethod
        def backward(ctx, g):
            seen["bwd"] = ctx.needs_input_grad
            return g, g, None, None

    x, w = var([1.]), nd.array([2.])
    with autograd.record():
        y = F.apply(x, w, 3)
    y.backward()
    nig = seen["bwd"]
    assert nig == (True, False, False) and isinstance(nig, tuple)   # flag not given
    assert nig.x is True and nig["w"] is False and nig[2] is False
    assert seen["fwd"] == nig
    with pytest.raises(AttributeError):
        nig.nope
    F.apply(x, w, 3)                     # outside record(): still says what requires a grad
    assert seen["fwd"] == (True, False, False)
    with autograd.record():
        y = F.apply(x, w, 3, flag=False)     # a given default is an argument
    y.backward()
    assert seen["bwd"] == (True, False, False, False) and seen["bwd"].flag is False


def test_untouched_defaults_are_not_arguments():
    class Scale(autograd.Function):
        @staticmethod
        def forward(ctx, x, k=2.0):
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k                  # one gradient: apply(x) has one argument

    x = var([1.])
    with autograd.record():
        y = Scale.apply(x)
    y.backward()
    assert x.grad.asnumpy()[0] == 2
    with autograd.record():
        y = Scale.apply(x, 3.0)
    with pytest.raises(ValueError, match="Scale.*1 gradient but forward took 2"):
        y.backward()


def test_kwargs_bound_to_forward_signature():
    class Affine(autograd.Function):
        @staticmethod
        def forward(ctx, x, scale=1.0, *, shift):
            ctx.scale = scale
            return x * scale + shift

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None, g.sum()

    x, s = var([1., 2.]), var([0.5])
    with autograd.record():
        y = Affine.apply(x, shift=s, scale=4.0)
    y.backward()
    assert_almost_equal(x.grad, [4., 4.])
    assert_almost_equal(s.grad, [2.])
    with pytest.raises(TypeError, match="Affine"):
        Affine.apply(x)                       # missing 'shift'


def test_setup_context_style():
    class Cube(autograd.Function):
        @staticmethod
        def forward(x, k):
            return x ** 3 * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, k = inputs
            ctx.save_for_backward(x)
            ctx.k = k

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 3 * ctx.k * g * x * x, None

    x = var([1., 2.], dtype="float64")
    with autograd.record():
        y = Cube.apply(x, 2.0)
    y.backward()
    assert_almost_equal(x.grad, [6., 24.])
    assert check_second_order(lambda t: Cube.apply(t, 2.0), [np.array([0.5, -1.5])])


def test_vjp_alias_and_both_defined_error():
    class V(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 5

        @staticmethod
        def vjp(ctx, g):
            return g * 5

    x = var([1.])
    with autograd.record():
        y = V.apply(x)
    y.backward()
    assert x.grad.asnumpy()[0] == 5
    assert autograd.Function.vjp is autograd.Function.backward

    class Both(V):
        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="both backward and vjp"):
        Both.apply(x)


def test_non_array_inputs_and_ctx_attributes():
    class Pow(autograd.Function):
        @staticmethod
        def forward(ctx, x, p, tag):
            ctx.p, ctx.tag = p, tag
            ctx.save_for_backward(x)
            return x ** p

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            assert ctx.tag == {"k": 1}
            return g * ctx.p * x ** (ctx.p - 1), None, None

    x = var([2., 3.])
    with autograd.record():
        y = Pow.apply(x, 3, {"k": 1})
    y.backward()
    assert_almost_equal(x.grad, [12., 27.])


def test_several_outputs_and_partial_gradients():
    class SinCos(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return nd.sin(x), nd.cos(x)

        @staticmethod
        def backward(ctx, gs, gc):
            x, = ctx.saved_tensors
            return gs * nd.cos(x) - gc * nd.sin(x)

    x = var([0.3, 1.1], dtype="float64")
    with autograd.record():
        s, c = SinCos.apply(x)
    s.backward()                               # c got no gradient: zeros are materialized
    assert_almost_equal(x.grad, np.cos([0.3, 1.1]))
    assert check_numeric_gradient(SinCos.apply, [np.array([0.3, 1.1])])
    assert check_second_order(SinCos.apply, [np.array([0.3, 1.1])])


def test_set_materialize_grads_false_gives_none():
    seen = []

    class Two(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(False)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen.append((g1 is None, g2 is None))
            out = None
            for g, k in ((g1, 2), (g2, 3)):
                if g is not None:
                    out = g * k if out is None else out + g * k
            return out

    x = var([1.])
    with autograd.record():
        a, b = Two.apply(x)
    b.backward()
    assert seen == [(True, False)] and x.grad.asnumpy()[0] == 3
    assert not Two.apply(nd.array([1.]))[0]._node  # outside record: nothing recorded


def test_mark_non_differentiable_gets_zero_gradient():
    seen = []

    class MaxIdx(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            i = int(np.argmax(x.asnumpy()))
            idx = nd.array([i])
            ctx.mark_non_differentiable(idx)
            ctx.i = i
            return x.max(), idx

        @staticmethod
        def backward(ctx, g, gidx):
            seen.append((gidx.shape, gidx.asnumpy().tolist()))
            return nd.array(np.eye(3)[ctx.i]) * g

    x = var([1., 5., 2.])
    with autograd.record():
        m, idx = MaxIdx.apply(x)
    assert idx._node is None and m._node is not None
    with pytest.raises(GraphError):
        idx.backward()
    m.backward()
    assert seen == [((1,), [0.0])]
    assert_almost_equal(x.grad, [0., 1., 0.])


def test_integer_outputs_are_not_differentiable():
    class WithCount(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, nd.array([x.size], dtype="int32")

        @staticmethod
        def backward(ctx, g, gcount):
            assert gcount.dtype == np.int32 and gcount.asnumpy()[0] == 0
            return g * 2

    x = var([1., 2.])
    with autograd.record():
        y, n = WithCount.apply(x)
    assert n._node is None
    y.backward()
    assert_almost_equal(x.grad, [2., 2.])


def test_mark_dirty_inplace_forward():
    class AddOneInplace(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    w = var([1., 2.])
    with autograd.record():
        h = w * 3                                # not a leaf
        v0 = h._ver[0]
        out = AddOneInplace.apply(h)
        loss = (out * out).sum()
    assert out is h and h._ver[0] > v0
    assert out._node.name == "AddOneInplace"
    assert_almost_equal(h, [4., 7.])
    loss.backward()                              # d/dw (3w+1)^2 = 6(3w+1)
    assert_almost_equal(w.grad, [24., 42.])


def test_mark_dirty_invalidates_earlier_saved_value():
    class Square(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x *= x
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    w = var([1., 2.])
    with autograd.record():
        h = w * 3
        e = nd.sin(h)                # saves h
        Square.apply(h)              # changes h in place
        loss = (e + h).sum()
    with pytest.raises(InPlaceError):
        loss.backward()
    assert_almost_equal(w.grad, [0., 0.])   # nothing half-done


def test_mark_dirty_errors():
    class DirtyLeaf(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    x = var([1.])
    with autograd.record():
        with pytest.raises(InPlaceError, match="DirtyLeaf.*'x'.*gradient"):
            DirtyLeaf.apply(x)
    assert not autograd.is_recording()
    DirtyLeaf.apply(x)                           # outside record(): allowed, as in PyTorch

    class DirtyOther(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x + 1
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError, match="DirtyOther.*not an input"):
        DirtyOther.apply(nd.array([1.]))

    class DirtyNotReturned(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x + 1

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError, match="not returned"):
        DirtyNotReturned.apply(nd.array([1.]))


def test_mark_non_differentiable_error():
    class Bad(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(ValueError, match="Bad.*not an output"):
        Bad.apply(nd.array([1.]))


def test_save_for_backward_outside_forward():
    class Late(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            ctx.save_for_backward(g)
            return g

    x = var([1.])
    with autograd.record():
        y = Late.apply(x)
    with pytest.raises(RuntimeError, match="Late.*inside its forward"):
        y.backward()
    # MXNet style: MXNet 1.9.1 allows it (it only stores the values; issue 11)
    f = MXSigmoid()
    f.save_for_backward(nd.array([1.]))


def test_pytorch_ctx_saves_only_arrays():
    class SaveInt(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="SaveInt.*value 1 is a int"):
        SaveInt.apply(nd.array([1.]))


def test_forward_returning_output_is_input():
    class Ident(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = var([1., 2.])
    with autograd.record():
        y = Ident.apply(x)
    assert y is not x and type(x._node).__name__ == "Leaf"
    y.backward()
    assert_almost_equal(x.grad, [2., 2.])


# ------------------------------------------------------------------ saved values
def test_saved_input_modified_in_place_names_function_and_argument():
    x = var([1., 2.])
    with autograd.record():
        h = x * 1
        y = TorchSoftplus.apply(h)
    h += 1                           # outside record: allowed, bumps the version
    with pytest.raises(InPlaceError, match=r"TorchSoftplus.*argument 'x'.*modified in place"):
        y.backward()
    assert_almost_equal(x.grad, [0., 0.])


def test_saved_output_modified_in_place():
    x = var([0.5])
    with autograd.record():
        y = MXSigmoid()(x)
        z = y * 1
    y += 1
    with pytest.raises(InPlaceError, match="MXSigmoid.*output 0"):
        z.backward()


def test_r_style_named_saves_and_objects():
    seen = {}

    def fwd(ctx, x, y):
        ctx.save_for_backward(x, prod=x * y, factor=2.0, info={"a": 1})
        return x * y * 2.0

    def bwd(ctx, g):
        sv = ctx.saved_variables
        seen["names"] = sv.keys()
        seen["nig"] = (ctx.needs_input_grad.x, ctx.needs_input_grad["y"])
        assert sv["info"] == {"a": 1} and sv.factor == 2.0
        assert sv[0] is not None
        assert_almost_equal(ctx.saved_variable.prod, [6.])
        return {"x": g * sv.factor * 3.0}        # no key 'y': no gradient

    f = autograd.function(fwd, bwd)
    x, y = var([2.]), var([3.])
    with autograd.record():
        z = f(x, y=y)
    z.backward()
    assert seen["names"] == ["prod", "factor", "info"]
    assert seen["nig"] == (True, True)
    assert x.grad.asnumpy()[0] == 6 and y.grad.asnumpy()[0] == 0

    bad = autograd.function(fwd, lambda ctx, g: {"z": g}, name="badkeys")
    with autograd.record():
        z = bad(x, y)
    with pytest.raises(ValueError, match="badkeys.*'z'.*not an argument"):
        z.backward()


def test_r_style_modified_saved_value_error_names_it():
    x = var([1.])
    with autograd.record():
        h = x * 1
        y = exp2(h)
        z = y * 1
    y += 1                     # changes the saved 'result'
    with pytest.raises(InPlaceError, match=r"saved value 'result'"):
        z.backward()


def test_retain_graph_and_freed_graph():
    x = var([0.3])
    with autograd.record():
        y = TorchSoftplus.apply(x)
    y.backward(retain_graph=True)
    g1 = x.grad.asnumpy().copy()
    y.backward()
    assert_almost_equal(x.grad, g1)
    with pytest.raises(GraphError, match="freed"):
        y.backward()


def test_graph_released_with_outputs():
    class Keep(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    class Inplace(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            x *= 2
            ctx.mark_dirty(x)
            ctx.save_for_backward(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    gc.disable()
    try:
        x = var([1.])
        with autograd.record():
            y = Keep.apply(x)
            h = x * 1
            z = Inplace.apply(h)
        assert len(autograd.Function.grad_fn(z).dirty_tensors) == 1
        refs = [weakref.ref(y._node), weakref.ref(z._node)]
        del y, z, h
        assert [r() for r in refs] == [None, None]   # no cycle: freed without the collector
    finally:
        gc.enable()


# -------------------------------------------------------------- bad backward results
def _op_with_backward(bwd, nin=1, name="Op"):
    def forward(ctx, *xs):
        out = xs[0] * 1
        for x in xs[1:]:
            out = out + (x * 1 if isinstance(x, mx.nd.NDArray) else 0)
        return out
    return type(name, (autograd.Function,), {"forward": staticmethod(forward),
                                             "backward": staticmethod(bwd)})


def test_wrong_number_of_gradients():
    Two = _op_with_backward(lambda ctx, g: g, name="TwoIn")
    a, b = var([1.]), var([2.])
    with autograd.record():
        y = Two.apply(a, b)
    with pytest.raises(ValueError, match=r"TwoIn.*returned 1 gradient but forward took 2"):
        y.backward()

    Extra = _op_with_backward(lambda ctx, g: (g, g), name="Extra")
    with autograd.record():
        y = Extra.apply(a)
    with pytest.raises(ValueError, match="Extra.*returned 2 gradients"):
        y.backward()

    Trailing = _op_with_backward(lambda ctx, g: (g, None, None), name="Trailing")
    with autograd.record():
        y = Trailing.apply(a)
    y.backward()                                  # extra trailing None accepted
    assert a.grad.asnumpy()[0] == 1

    class MXWrong(autograd.Function):
        def forward(self, x, y):
            return x + y

        def backward(self, g):
            return g

    with autograd.record():
        y = MXWrong()(a, b)
    with pytest.raises(ValueError, match="MXWrong.*1 gradient.*2 arguments"):
        y.backward()


def test_non_array_argument_must_get_none():
    Op = _op_with_backward(lambda ctx, g: (g, g), name="NumArg")
    a = var([1.])
    with autograd.record():
        y = Op.apply(a, 3)
    with pytest.raises(TypeError, match="NumArg.*argument 'xs\\[1\\]'.*not an NDArray"):
        y.backward()


def test_gradient_shape_checks_and_broadcast_sum():
    Bcast = _op_with_backward(lambda ctx, g: nd.ones((4, 2, 3)), name="Bcast")
    x = var(np.ones((2, 3)))
    with autograd.record():
        y = Bcast.apply(x)
    y.backward()
    assert_almost_equal(x.grad, np.full((2, 3), 4.))      # summed down, as PyTorch does

    Bad = _op_with_backward(lambda ctx, g: nd.ones((3, 2)), name="BadShape")
    with autograd.record():
        y = Bad.apply(x)
    with pytest.raises(ShapeError, match=r"BadShape.*\(3, 2\).*'xs\[0\]'.*\(2, 3\)"):
        y.backward()

    Smaller = _op_with_backward(lambda ctx, g: nd.ones((3,)), name="Smaller")
    with autograd.record():
        y = Smaller.apply(x)
    with pytest.raises(ValueError, match="Smaller"):
        y.backward()


def test_gradient_dtype_checks():
    IntGrad = _op_with_backward(lambda ctx, g: nd.array([1, 2], dtype="int32"),
                                name="IntGrad")
    x = var([1., 2.])
    with autograd.record():
        y = IntGrad.apply(x)
    with pytest.raises(TypeError, match="IntGrad.*int32.*float32"):
        y.backward()

    F64 = _op_with_backward(lambda ctx, g: nd.array([1.5, 2.5], dtype="float64"), name="F64")
    with autograd.record():
        y = F64.apply(x)
    y.backward()                                   # another float precision is cast
    assert x.grad.dtype == np.float32
    assert_almost_equal(x.grad, [1.5, 2.5])

    Num = _op_with_backward(lambda ctx, g: 3.0, name="NumGrad")
    with autograd.record():
        y = Num.apply(x)
    with pytest.raises(TypeError, match="NumGrad"):
        y.backward()


@pytest.mark.parametrize("bad", [3.0, np.ones(2), [nd.ones((2,)), 1], (), None])
def test_forward_must_return_ndarrays(bad):
    class BadOut(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return bad

        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(TypeError, match="BadOut.*forward must return an NDArray"):
        BadOut.apply(nd.array([1., 2.]))
    with autograd.record():
        with pytest.raises(TypeError):
            BadOut.apply(var([1., 2.]))
    assert not autograd.is_recording()


def test_error_in_backward_leaves_other_gradients_untouched():
    class Boom(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise KeyError("boom")

    a, b = var([1.]), var([2.])
    with autograd.record():
        ok = (a * 5).sum() + (b * 7).sum()
    ok.backward()
    with autograd.record():
        loss = (a * 5 * 3).sum() + Boom.apply(b).sum()
    with pytest.raises(KeyError, match="boom"):
        loss.backward()
    assert a.grad.asnumpy()[0] == 5 and b.grad.asnumpy()[0] == 7   # as they were
    assert not autograd.is_recording() and not autograd.is_training()


def test_error_in_forward_keeps_type_and_restores_scopes():
    class Fails(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            assert not autograd.is_recording()
            raise ValueError("bad input")

        @staticmethod
        def backward(ctx, g):
            return g

    class MXFails(autograd.Function):
        def forward(self, x):
            raise ZeroDivisionError

        def backward(self, g):
            return g

    x = var([1.])
    with autograd.record():
        with pytest.raises(ValueError, match="bad input"):
            Fails.apply(x)
        assert autograd.is_recording() and autograd.is_training()
        with pytest.raises(ZeroDivisionError):
            MXFails()(x)
        assert autograd.is_recording()
    assert not autograd.is_recording()


# --------------------------------------------------------------- once_differentiable
class NumpyTanh(autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = nd.array(np.tanh(x.asnumpy()), dtype=x.dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    @autograd.once_differentiable
    def backward(ctx, g):
        y, = ctx.saved_tensors
        assert not autograd.is_recording()
        return nd.array(g.asnumpy() * (1 - y.asnumpy() ** 2), dtype=g.dtype)


def test_once_differentiable_first_order_ok_second_order_error():
    assert check_numeric_gradient(NumpyTanh.apply, [X])
    x = var([0.4], dtype="float64")
    with autograd.record():
        y = NumpyTanh.apply(x)
        (g,) = autograd.grad(y, [x], create_graph=True)
    assert_almost_equal(g, 1 - np.tanh(0.4) ** 2)
    with pytest.raises(GraphError, match="NumpyTanh.*once_differentiable"):
        g.backward()


def test_once_differentiable_mxnet_style():
    class MXTanh(autograd.Function):
        def forward(self, x):
            y = nd.tanh(x)
            self.save_for_backward(y)
            return y

        @autograd.once_differentiable
        def backward(self, g):
            y, = self.saved_tensors
            return g * (1 - y * y)

    x = var([0.4], dtype="float64")
    with autograd.record():
        y = MXTanh()(x)
        (g,) = autograd.grad(y, [x], create_graph=True)
    with pytest.raises(GraphError, match="MXTanh"):
        autograd.grad(g, [x])


# ------------------------------------------------------------------ node face
def test_node_face_name_next_functions_metadata():
    seen = {}

    class Named(autograd.Function):
        @staticmethod
        def forward(ctx, x, w, k):
            seen["ctx"] = ctx
            ctx.metadata["note"] = "hi"
            return x * w * k

        @staticmethod
        def backward(ctx, g):
            return g, g, None

    x = var([1.])
    with autograd.record():
        h = x * 2
        y = Named.apply(h, nd.array([3.]), 4)
    ctx = seen["ctx"]
    assert ctx.name == "Named" and ctx.name() == "Named"
    node = y._node
    assert ctx.node is node and node.name == "Named"
    assert node.metadata is ctx.metadata and node.metadata["note"] == "hi"
    nf = ctx.next_functions
    assert len(nf) == 2                         # one per array input
    assert nf[0] == (h._node, 0) and nf[1] == (None, 0)
    assert nf[0][0].next_functions[0][0] is x._node


def test_hooks_observe_and_replace_gradients():
    seen = []

    class Double(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            seen.append(ctx)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = var([1., 2.])
    with autograd.record():
        y = Double.apply(x)
    ctx = seen[0]
    log = []
    h1 = ctx.register_prehook(lambda gouts: log.append(("pre", gouts[0].asnumpy().tolist())))
    h2 = ctx.register_hook(lambda gin, gout: log.append(("post", gin[0].asnumpy().tolist(),
                                                         gout[0].asnumpy().tolist())))
    y.backward(nd.array([1., 10.]), retain_graph=True)
    assert log == [("pre", [1., 10.]), ("post", [2., 20.], [1., 10.])]
    assert_almost_equal(x.grad, [2., 20.])
    h1.remove()
    h2.remove()
    ctx.register_prehook(lambda gouts: (gouts[0] * 0 + 1,))
    ctx.register_hook(lambda gin, gout: (gin[0] + 100,))
    y.backward(nd.array([5., 5.]), retain_graph=True)
    assert_almost_equal(x.grad, [102., 102.])
    with pytest.raises(ValueError, match="Double"):
        ctx.register_hook(lambda gin, gout: (gin[0], gin[0]))
        y.backward()


def test_hooks_registered_in_forward_and_create_graph():
    class Sq(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            ctx.register_hook(lambda gin, gout: (gin[0] * 10,))
            return x * x

        @staticmethod
        def backward(ctx, g):
            x, = ctx.saved_tensors
            return 2 * g * x

    x = var([3.], dtype="float64")
    with autograd.record():
        y = Sq.apply(x)
        (g,) = autograd.grad(y, [x], create_graph=True)
    assert g.asnumpy()[0] == 60
    g.backward()
    assert x.grad.asnumpy()[0] == 20


# ----------------------------------------------------------------- forward mode
def _dual(x, t):
    from mxgrad.autograd import forward_ad as fwAD
    if hasattr(fwAD, "make_dual"):
        return fwAD.make_dual(x, t)
    d = nd.array(x.asnumpy(), dtype=x.dtype)
    d._tan = t
    return d


def _level():
    from mxgrad.autograd import forward_ad as fwAD
    if hasattr(fwAD, "dual_level"):
        return fwAD.dual_level()
    return autograd.pause()


def test_jvp_with_save_for_forward():
    class Exp(autograd.Function):
        @staticmethod
        def forward(ctx, x, k):
            y = nd.exp(x * k)
            ctx.save_for_backward(y)
            ctx.save_for_forward(y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y * ctx.k, None

        @staticmethod
        def jvp(ctx, tx, tk):
            assert tk is None
            y, = ctx.saved_tensors
            return tx * y * ctx.k

    with _level():
        x = _dual(nd.array([0., 1.]), nd.array([1., 2.]))
        y = Exp.apply(x, 2.0)
        assert_almost_equal(y._tan, np.array([1., 2.]) * 2 * np.exp([0., 2.]), rtol=1e-6)


def test_jvp_missing_raises_forward_mode_error():
    with _level():
        x = _dual(nd.array([1.]), nd.array([1.]))
        with pytest.raises(ForwardModeError, match="TorchSoftplus"):
            TorchSoftplus.apply(x)
        with pytest.raises(NotImplementedError, match="custom_function|jvp"):
            exp2(x)


def test_r_style_jvp():
    def fwd(ctx, a, b):
        ctx.save_for_forward(a, b)
        return a * b

    def bwd(ctx, g):
        return {}

    def jvp(ctx, ta, tb):
        a, b = ctx.saved_tensors
        out = None
        if ta is not None:
            out = ta * b
        if tb is not None:
            out = tb * a if out is None else out + tb * a
        return out

    mul = autograd.function(fwd, bwd, jvp=jvp)
    with _level():
        a = _dual(nd.array([2.]), nd.array([1.]))
        y = mul(a, nd.array([5.]))
        assert y._tan.asnumpy()[0] == 5


# ----------------------------------------------------------- training and threads
def test_custom_op_in_training_loop():
    rng = np.random.default_rng(0)
    xs = nd.array(rng.standard_normal((64, 3)))
    true_w = np.array([[1.5], [-2.0], [0.5]])
    ys = nd.array(softplus_np(xs.asnumpy() @ true_w))
    w = nd.zeros((3, 1))
    w.attach_grad()
    losses = []
    for _ in range(30):
        with autograd.record():
            pred = TorchSoftplus.apply(nd.dot(xs, w))
            loss = ((pred - ys) ** 2).mean()
        loss.backward()
        losses.append(float(loss.asscalar()))
        w -= 0.5 * w.grad
    assert losses[-1] < 0.2 * losses[0]


def test_threads_run_custom_ops_concurrently():
    errors, results = [], {}

    def work(tid):
        try:
            for rep in range(20):
                v = np.linspace(-1, 1, 5) + tid
                x = var(v, dtype="float64")
                with autograd.record():
                    y = (TorchSoftplus.apply(x) * MXSigmoid()(x)).sum() + exp2(x).sum()
                y.backward()
                s = sigmoid_np(v)
                expect = s * s + softplus_np(v) * s * (1 - s) + np.exp(v)
                np.testing.assert_allclose(x.grad.asnumpy(), expect, rtol=1e-10)
            results[tid] = True
        except Exception as err:  # pragma: no cover - reported below
            errors.append(err)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert len(results) == 4


# ----------------------------------------------------------------- more engine parity
def test_autograd_grad_prunes_unneeded_inputs():
    seen = []

    class Mul(autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            ctx.save_for_backward(a, b)
            return a * b

        @staticmethod
        def backward(ctx, g):
            a, b = ctx.saved_tensors
            seen.append(ctx.needs_input_grad)
            return g * b, nd.ones((7,))          # b's gradient is not needed: not checked

    a, b = var([2.]), var([3.])
    with autograd.record():
        y = Mul.apply(a, b)
    (ga,) = autograd.grad(y, [a])
    assert ga.asnumpy()[0] == 3 and seen == [(True, True)]
    assert b.grad.asnumpy()[0] == 0


def test_same_array_returned_twice():
    class Dup(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return y, y

        @staticmethod
        def backward(ctx, g1, g2):
            return (g1 + 10 * g2) * 2

    x = var([1.])
    with autograd.record():
        y1, y2 = Dup.apply(x)
        loss = y1 + y2 * 3
    assert y1 is not y2
    loss.backward()
    assert x.grad.asnumpy()[0] == 62


def test_mxnet_instance_is_node_face_and_saved_freed_after_backward():
    x = var([0.5])
    f = MXSigmoid()
    with autograd.record():
        y = f(x)
    assert autograd.Function.grad_fn(y) is f and f.node is y._node
    assert f.name == "MXSigmoid" and f.next_functions == ((x._node, 0),)
    log = []
    f.register_prehook(lambda gouts: log.append(len(gouts)))
    y.backward()
    assert log == [1]
    with pytest.raises(GraphError, match="MXSigmoid.*freed"):
        f.saved_tensors


def test_grad_fn_accessor():
    x = var([1.])
    assert autograd.Function.grad_fn(x) is None
    assert autograd.Function.grad_fn(nd.array([1.])) is None
    with autograd.record():
        y = x * 2
        z = TorchSoftplus.apply(y)
    assert autograd.Function.grad_fn(y) is y._node
    fn = autograd.Function.grad_fn(z)
    assert isinstance(fn, autograd.FunctionCtx) and fn.name == "TorchSoftplus"
    assert "TorchSoftplus" in repr(fn)


def test_jvp_tangent_broadcast_and_errors():
    class Sum(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x.sum() * nd.ones(x.shape)

        @staticmethod
        def backward(ctx, g):
            return g.sum() * nd.ones(g.shape)

        @staticmethod
        def jvp(ctx, t):
            return t.sum()                    # shape (1,): broadcast to the output

    class BadJvp(Sum):
        @staticmethod
        def jvp(ctx, t):
            return t, t

    with _level():
        x = _dual(nd.array([1., 2., 3.]), nd.array([1., 1., 2.]))
        y = Sum.apply(x)
        assert_almost_equal(y._tan, [4., 4., 4.])
        with pytest.raises(ValueError, match="BadJvp.*2 tangents"):
            BadJvp.apply(x)
