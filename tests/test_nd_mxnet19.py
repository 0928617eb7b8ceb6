"""mx.nd behaviours of MXNet 1.9 that its users and its own tests rely on (each checked on the
real 1.9.1 wheel): 0-d arrays from 0-d sources, moveaxis with lists, the flat random names,
onehot_encode / choose_element_0index / fill_element_0index / reset_arrays."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError


def test_array_from_a_0d_source_is_0d_as_in_mxnet():
    for src in (np.float32(1.5), np.ones([]), 3.5):
        a = nd.array(src)
        assert a.shape == () and a.dtype == np.float32
        assert float(a.asscalar()) == float(src)
    a = nd.array(np.array(2.0))
    a.attach_grad()
    with mx.autograd.record():
        y = a * a * 3
    y.backward()
    assert a.grad.shape == () and float(a.grad.asnumpy()) == 12.0
    assert nd.array([1.0]).shape == (1,)          # 1-element lists stay 1-D
    assert nd.ones((3,)).sum().shape == (1,)      # ops still never make 0-d results


def test_moveaxis_with_lists_matches_numpy():
    x = np.arange(120.0).reshape(2, 3, 4, 5)
    for s, d in [([0, 1], [2, 0]), ([3, 0], [0, 3]), (1, -1), ([0, 1, 2], [-1, -2, -3]),
                 (range(4), [3, 2, 1, 0])]:
        np.testing.assert_array_equal(nd.moveaxis(nd.array(x), s, d).asnumpy(),
                                      np.moveaxis(x, s, d))
    with pytest.raises(MXNetError, match="same number"):
        nd.moveaxis(nd.array(x), [0, 1], [2])
    with pytest.raises(MXNetError, match="repeated"):
        nd.moveaxis(nd.array(x), [0, 0], [1, 2])


def test_broadcast_like_with_empty_axes_raises_as_mxnet():
    with pytest.raises(MXNetError, match="empty"):
        nd.broadcast_like(nd.ones((1, 2)), nd.ones((3, 2)), lhs_axes=(), rhs_axes=())
    assert nd.broadcast_like(nd.ones((1, 2)), nd.ones((3, 2)), lhs_axes=0,
                             rhs_axes=0).shape == (3, 2)


@pytest.mark.parametrize("make,expect", [
    (lambda o: nd.zeros((2,), out=o), [0.0, 0.0]), (lambda o: nd.ones((2,), out=o), [1.0, 1.0]),
    (lambda o: nd.full((2,), 3, out=o), [3.0, 3.0]), (lambda o: nd.arange(2, out=o), [0.0, 1.0]),
    (lambda o: nd.zeros_like(nd.ones((2,)), out=o), [0.0, 0.0]),
    (lambda o: nd.ones_like(nd.zeros((2,)), out=o), [1.0, 1.0]),
    (lambda o: nd.sum(nd.ones((2, 1)), axis=1, out=o), [1.0, 1.0]),
    (lambda o: nd.exp(nd.zeros((2,)), out=o), [1.0, 1.0])])
def test_creation_and_arithmetic_honour_out(make, expect):
    out = nd.full((2,), -7.0)
    assert make(out) is out
    np.testing.assert_array_equal(out.asnumpy(), expect)


def test_unknown_keyword_arguments_rejected_where_mxnet_rejects_them():
    # MXNet 1.9.1: ops with parameters (reductions, creation) reject unknown keys
    with pytest.raises(MXNetError, match="foo"):
        nd.sum(nd.ones((2,)), foo=1)
    for red in (nd.mean, nd.prod, nd.max, nd.min, nd.nansum, nd.nanprod):
        with pytest.raises(MXNetError, match="foo"):
            red(nd.ones((2,)), foo=1)
    with pytest.raises(MXNetError, match="foo"):
        nd.zeros((2,), foo=1)
    with pytest.raises(MXNetError, match="sparse"):
        nd.ones((2,), stype="csr")
    assert nd.zeros((2,), stype="default").shape == (2,)


def test_get_symbol_says_what_to_use_instead():
    from mxgrad.base import GraphError
    x = nd.ones((2,))
    x.attach_grad()
    with mx.autograd.record():
        y = x * x
    with pytest.raises(GraphError, match="HybridBlock"):
        mx.autograd.get_symbol(y)
    assert y.grad_fn.name == "multiply"


def test_from_numpy_zero_copy_as_mxnet():
    a = np.array([[1, 2], [3, 4], [5, 6]], dtype="float32")
    x = nd.from_numpy(a)
    with pytest.raises(ValueError):
        a[2, 1] = 0            # MXNet: the NDArray owns the memory now
    x[2, 1] = 100
    assert a[2, 1] == 100 and x.dtype == np.float32
    b = np.arange(4.0)
    y = nd.from_numpy(b, zero_copy=False)
    b[0] = 9
    assert y.asnumpy()[0] == 0 and b.flags.writeable
    assert nd.from_numpy(np.array(2.0)).shape == ()
    assert nd.from_numpy(np.zeros((1, 0, 2))).shape == (1, 0, 2)
    with pytest.raises(MXNetError, match="C-contiguous"):
        nd.from_numpy(np.ones((2, 3)).T)
    x2 = nd.from_numpy(a)      # again on the array the first call took: shared, writable
    x2[0, 0] = -1
    assert a[0, 0] == -1 and x[0, 0].asscalar() == -1 and not a.flags.writeable
    ro = np.arange(3.0)[::1]
    ro.flags.writeable = False  # a read-only view of memory it does not own: copied
    z = nd.from_numpy(ro)
    z[0] = 5
    assert ro[0] == 0 and z[0].asscalar() == 5


@pytest.mark.parametrize("name,expect", [
    ("add", 5), ("subtract", 1), ("multiply", 6), ("divide", 1.5), ("power", 9),
    ("maximum", 3), ("minimum", 2), ("modulo", 1), ("equal", 0), ("not_equal", 1),
    ("greater", 1), ("greater_equal", 1), ("lesser", 0), ("lesser_equal", 0),
    ("logical_and", 1), ("logical_or", 1), ("logical_xor", 0)])
def test_binary_functions_on_two_scalars_return_python_numbers(name, expect):
    # MXNet 1.9.1's nd.add(3, 2) ... compute in Python (e.g. PyLAMB's nd.power(beta1, t))
    got = getattr(nd, name)(3, 2)
    assert got == expect and type(got) is type(expect)
    assert nd.power(0.9, 2) == pytest.approx(0.81)


def test_setstate_takes_mxnet_pickled_state():
    """MXNet pickles an NDArray as {'handle': its raw NDArray record}; the records below
    were printed by real MXNet 1.9.1:
    ``bytes(mx.nd.array([[1.5, 2], [3, -4]], dtype='float64').__getstate__()['handle'])``
    and the same for ``mx.nd.array([7, 8], dtype='int32')``."""
    f64 = (b'\xc9\xfa\x93\xf9\x00\x00\x00\x00\x02\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'
           b'\x02\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x01\x00\x00\x00'
           b'\x00\x00\x00\x00\x00\x00\xf8?\x00\x00\x00\x00\x00\x00\x00@\x00\x00\x00\x00\x00\x00'
           b'\x08@\x00\x00\x00\x00\x00\x00\x10\xc0')
    i32 = (b'\xc9\xfa\x93\xf9\x00\x00\x00\x00\x01\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00'
           b'\x01\x00\x00\x00\x00\x00\x00\x00\x04\x00\x00\x00\x07\x00\x00\x00\x08\x00\x00\x00')
    a = nd.zeros(1)
    a.__setstate__({"handle": bytearray(f64)})
    assert a.dtype == np.float64 and a.asnumpy().tolist() == [[1.5, 2.0], [3.0, -4.0]]
    a.__setstate__({"handle": i32})
    assert a.dtype == np.int32 and a.asnumpy().tolist() == [7, 8]
    with pytest.raises(mx.base.FileFormatError):
        a.__setstate__({"handle": f64[:30]})           # truncated
    with pytest.raises(mx.base.FileFormatError):
        a.__setstate__({"other": 1})
