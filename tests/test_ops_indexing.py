"""Indexing ops and NDArray []: forward vs NumPy, first/second-order gradients, tangents,
MXNet semantics (shape (1,) for full integer indexing, float32 one_hot, clip/wrap
modes, views), in-place/version behaviour of setitem, errors, property tests."""
import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import ShapeError, MXNetError, InPlaceError
from opcheck import OpCase, op_tests, randn, face_tests
from test_ops_shape import check_jvp

X = randn(3, 4)
X3 = randn(2, 3, 4, seed=1)
IDX = np.array([0, 2, 2, 1])
IDX2 = np.array([[1, 1], [3, 0]])


def _np_take(a, idx, axis=0, mode="clip"):
    idx = np.asarray(idx).astype(np.int64)
    n = a.shape[axis]
    idx = np.clip(idx, 0, n - 1) if mode == "clip" else np.mod(idx, n)
    return np.take(a, idx, axis=axis)


def _np_pick(a, idx, axis=-1, keepdims=False):
    idx = np.clip(np.asarray(idx).astype(np.int64), 0, a.shape[axis] - 1)
    r = np.take_along_axis(a, np.expand_dims(idx, axis), axis)
    return r if keepdims else np.squeeze(r, axis)


def _setitem_fn(key):
    """The setitem op through its out-of-place form (``x[key] = v`` with ``v`` recorded
    raises while recording, as in MXNet)."""
    def f(x, v):
        t = nd.array(np.arange(12).reshape(3, 4) * 0.1, dtype=x.dtype)
        return nd.index_assign(t, key, v) * x
    return f


def _setitem_ref(key):
    def f(x, v):
        t = np.arange(12).reshape(3, 4) * 0.1
        t = t.astype(x.dtype)
        t[key] = v
        return t * x
    return f


CASES = [
    OpCase("take_axis0_repeated", lambda a, i: nd.take(a, i), [X, IDX], _np_take, grad_inputs=(0,)),
    OpCase("take_axis1", lambda a, i: nd.take(a, i, axis=1), [X, IDX],
           lambda a, i: _np_take(a, i, 1), grad_inputs=(0,)),
    OpCase("take_2d_indices", lambda a, i: a.take(i, axis=-1), [X3, IDX2],
           lambda a, i: _np_take(a, i, -1), grad_inputs=(0,)),
    OpCase("take_clip", lambda a, i: nd.take(a, i, mode="clip"), [X, np.array([-2, 5, 1])],
           lambda a, i: _np_take(a, i, 0, "clip"), grad_inputs=(0,)),
    OpCase("take_wrap", lambda a, i: nd.take(a, i, mode="wrap"), [X, np.array([-1, 4, 7])],
           lambda a, i: _np_take(a, i, 0, "wrap"), grad_inputs=(0,)),
    OpCase("take_float_indices", lambda a, i: nd.take(a, i), [X, np.array([0., 2., 1.])],
           lambda a, i: _np_take(a, i), grad_inputs=(0,)),
    OpCase("take_squared", lambda a, i: nd.take(a, i) ** 2, [X, IDX],
           lambda a, i: _np_take(a, i) ** 2, grad_inputs=(0,)),
    OpCase("pick_axis1", lambda a, i: nd.pick(a, i, axis=1), [X, np.array([0, 3, 1])],
           lambda a, i: _np_pick(a, i, 1), grad_inputs=(0,)),
    OpCase("pick_default_axis", lambda a, i: a.pick(i), [X3, np.array([[0, 1, 3], [2, 2, 0]])],
           _np_pick, grad_inputs=(0,)),
    OpCase("pick_axis0_keepdims", lambda a, i: nd.pick(a, i, axis=0, keepdims=True),
           [X, np.array([0, 2, 1, 1])], lambda a, i: _np_pick(a, i, 0, True), grad_inputs=(0,)),
    OpCase("pick_clip", lambda a, i: nd.pick(a, i, axis=1), [X, np.array([-1, 9, 2])],
           lambda a, i: _np_pick(a, i, 1), grad_inputs=(0,)),
    OpCase("pick_squared", lambda a, i: nd.pick(a, i, axis=1) ** 2, [X, np.array([0, 3, 1])],
           lambda a, i: _np_pick(a, i, 1) ** 2, grad_inputs=(0,)),
    OpCase("gather_nd", lambda a, i: nd.gather_nd(a, i), [X, np.array([[1, 1, 0], [0, 3, 0]])],
           lambda a, i: a[tuple(i)], grad_inputs=(0,)),
    OpCase("gather_nd_partial", lambda a, i: nd.gather_nd(a, i), [X3, np.array([[1, 0, 1]])],
           lambda a, i: a[tuple(i)], grad_inputs=(0,)),
    OpCase("scatter_nd", lambda d, i: nd.scatter_nd(d, i, shape=(3, 4)),
           [randn(3, seed=7), np.array([[1, 2, 0], [0, 3, 1]])],
           lambda d, i: _np_scatter(d, i, (3, 4)), grad_inputs=(0,)),
    OpCase("scatter_nd_rows", lambda d, i: nd.scatter_nd(d, i, shape=(3, 4)),
           [randn(2, 4, seed=8), np.array([[2, 0]])],
           lambda d, i: _np_scatter(d, i, (3, 4)), grad_inputs=(0,)),
    OpCase("where_same_shape", lambda c, x, y: nd.where(c, x, y),
           [np.array([[1, 0, 0, 1], [0, 0, 1, 1], [1, 1, 0, 0]], dtype=np.float64), X,
            randn(3, 4, seed=9)], lambda c, x, y: np.where(c != 0, x, y), grad_inputs=(1, 2)),
    OpCase("where_1d_condition", lambda c, x, y: nd.where(c, x, y),
           [np.array([0., 1., 1.]), X, randn(3, 4, seed=9)],
           lambda c, x, y: np.where(c[:, None] != 0, x, y), grad_inputs=(1, 2)),
    OpCase("where_squared", lambda c, x, y: nd.where(c, x * y, y * y),
           [np.array([[1, 0, 0, 1], [0, 0, 1, 1], [1, 1, 0, 0]], dtype=np.float64), X,
            randn(3, 4, seed=9)], lambda c, x, y: np.where(c != 0, x * y, y * y),
           grad_inputs=(1, 2)),
    OpCase("boolean_mask", lambda a, m: nd.boolean_mask(a, m), [X, np.array([1., 0., 1.])],
           lambda a, m: a[m != 0], grad_inputs=(0,)),
    OpCase("boolean_mask_axis1", lambda a, m: nd.boolean_mask(a, m, axis=1),
           [X, np.array([0., 1., 1., 0.])], lambda a, m: a[:, m != 0], grad_inputs=(0,)),
    OpCase("batch_take", lambda a, i: nd.batch_take(a, i), [X, np.array([3, 0, 1])],
           lambda a, i: a[np.arange(3), i], grad_inputs=(0,)),
]


def _np_scatter(d, i, shape):
    out = np.zeros(shape, d.dtype)
    out[tuple(i)] = d
    return out


GETITEM = [
    ("int", 1, lambda a: a[1]), ("neg_int", -1, lambda a: a[-1]),
    ("slice", np.s_[1:3], None), ("step", np.s_[::2, 1::2], None),
    ("neg_step", np.s_[::-1, 3:0:-2], None), ("ellipsis", np.s_[..., 1], None),
    ("ellipsis_mid", np.s_[0, ..., 2], None), ("newaxis", np.s_[None, 1, :, None], None),
    ("full_int", (1, 2, 3), lambda a: a[1, 2, 3].reshape(1)),
    ("int_slice_int", np.s_[1, 1:, 2], None),
]
for name, key, ref in GETITEM:
    CASES.append(OpCase(f"getitem_{name}", lambda a, k=key: a[k], [X3],
                        ref or (lambda a, k=key: a[k])))

ADV = [
    ("list", [0, 1, 1], None), ("list_neg", [-1, 0], None),
    ("numpy_2d", np.array([[0, 1], [1, 1]]), None),
    ("ndarray", "nd", lambda a: a[[1, 0, 1]]),
    ("mixed_slice_array", (slice(None), [2, 0, 2]), None),
    ("two_arrays", ([0, 1, 1], slice(None), [1, 1, 3]), None),
    ("separated_arrays_none", (slice(None), [0, 2], None, [1, 3]), None),
    ("int_and_array", (1, [0, 2, 2]), None),
    ("bool_numpy", np.array([True, False]), None),
    ("bool_2d", (np.array([[True, False, True], [False, True, False]]),), None),
]
for name, key, ref in ADV:
    if isinstance(key, str):
        fn = (lambda a: a[nd.array([1, 0, 1])])
    else:
        fn = (lambda a, k=key: a[k])
    CASES.append(OpCase(f"getitem_adv_{name}", fn, [X3], ref or (lambda a, k=key: a[k])))
CASES += [
    OpCase("getitem_1d_int", lambda a: a[2], [randn(5)], lambda a: a[2:3]),
    OpCase("getitem_squared", lambda a: a[:, [0, 0, 2]] * a[:, [1, 1, 1]], [X3],
           lambda a: a[:, [0, 0, 2]] * a[:, [1, 1, 1]]),
    OpCase("setitem_slice", _setitem_fn(np.s_[1:, ::2]), [X, randn(2, 2, seed=3)],
           _setitem_ref(np.s_[1:, ::2])),
    OpCase("setitem_broadcast_row", _setitem_fn(np.s_[:, 1]), [X, randn(3, seed=3)],
           _setitem_ref(np.s_[:, 1])),
    OpCase("setitem_broadcast_value", _setitem_fn(np.s_[0:2]), [X, randn(1, 4, seed=3)],
           _setitem_ref(np.s_[0:2])),
    OpCase("setitem_int", _setitem_fn(1), [X, randn(4, seed=3)], _setitem_ref(1)),
    OpCase("setitem_full_int", _setitem_fn((2, 3)), [X, randn(1, seed=3)],
           lambda x, v: _setitem_ref((2, 3))(x, v[0])),
    OpCase("setitem_advanced", _setitem_fn(([0, 2], [1, 3])), [X, randn(2, seed=3)],
           _setitem_ref(([0, 2], [1, 3]))),
    OpCase("setitem_ellipsis_none", _setitem_fn(np.s_[..., None, 2]), [X, randn(3, 1, seed=3)],
           lambda x, v: _setitem_ref(np.s_[..., 2])(x, v[:, 0])),
]

test_forward, test_grad, test_second_order = op_tests(CASES)
test_np_face = face_tests(CASES)


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_jvp(case):
    check_jvp(case.fn, case.inputs, case.grad_inputs)


# ------------------------------------------------------------- MXNet semantics
def test_full_integer_index_has_shape_1():
    x = nd.arange(24).reshape((2, 3, 4))
    assert x[1, 2, 3].shape == (1,)
    assert x[1, 2, 3].asscalar() == 23
    assert x[-1, -1, -1].asscalar() == 23
    v = nd.arange(5)
    assert v[3].shape == (1,) and v[3].asscalar() == 3
    assert [e.shape for e in v] == [(1,)] * 5
    assert x[0].shape == (3, 4) and x[0, 1].shape == (4,)
    assert x[()].shape == (2, 3, 4)


def test_getitem_views_like_mxnet():
    x = nd.arange(8).reshape((2, 2, 2))
    y = x[0]  # contiguous: a view
    y[:] = -1
    assert x.asnumpy()[0].sum() == -4
    x = nd.arange(8).reshape((2, 2, 2))
    y = x[1, :1, :]  # contiguous
    y[:] = -1
    np.testing.assert_array_equal(x.asnumpy()[1], [[-1, -1], [6, 7]])
    x = nd.arange(8).reshape((2, 2, 2))
    y = x[:, :, 1]  # not contiguous: a copy
    y[:] = -1
    np.testing.assert_array_equal(x.asnumpy(), np.arange(8).reshape(2, 2, 2))
    z = x[[0, 1]]  # advanced: a copy
    z[:] = 0
    assert x.asnumpy().sum() == 28
    w = nd.arange(4)[1]
    assert w._data.flags.writeable


def test_getitem_view_shares_version():
    x = nd.arange(6).reshape((2, 3))
    y = x[1]
    assert y._ver is x._ver
    v = x._ver[0]
    y[0] = 7
    assert x._ver[0] == v + 1 and x[1, 0].asscalar() == 7


def test_getitem_mxnet_doc_examples():
    x = nd.arange(0, 6).reshape((2, 3))
    np.testing.assert_array_equal(x[0, :2].asnumpy(), [0, 1])
    np.testing.assert_array_equal(x[:, :-1].asnumpy(), [[0, 1], [3, 4]])
    np.testing.assert_array_equal(x[1:].asnumpy(), [[3, 4, 5]])
    x = nd.arange(0, 16).reshape((2, 2, 2, 2))
    np.testing.assert_array_equal(x[0, ..., 1].asnumpy(), [[1, 3], [5, 7]])
    x = nd.arange(0, 8).reshape((2, 2, 2))
    np.testing.assert_array_equal(x[1:, np.array([0, 1], dtype="int32")].asnumpy(),
                                  [[[4, 5], [6, 7]]])
    np.testing.assert_array_equal(x[1:, nd.array([0, 1], dtype="int32")].asnumpy(),
                                  [[[4, 5], [6, 7]]])


def test_getitem_float_ndarray_indexes_like_integers():
    x = nd.array([10., 20., 30.])
    mask = x > 15  # 0/1 floats, as in MXNet: integer indices 0 and 1
    np.testing.assert_array_equal(x[mask].asnumpy(), [10., 20., 20.])
    np.testing.assert_array_equal(x[np.array([False, True, True])].asnumpy(), [20., 30.])
    np.testing.assert_array_equal(x[nd.array([0, 1, 1], dtype="bool")].asnumpy(), [20., 30.])


def test_getitem_errors():
    x = nd.zeros((2, 3))
    with pytest.raises(IndexError, match="out of bounds"):
        x[2]
    with pytest.raises(IndexError, match="out of bounds"):
        x[0, -4]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]
    with pytest.raises(IndexError):
        x[[0, 5]]
    with pytest.raises(IndexError, match="single ellipsis"):
        x[..., ...]
    with pytest.raises(IndexError):
        x["a"]


def test_getitem_gradient_accumulates_repeats():
    x = nd.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y = x[[0, 0, 2, 0]].sum()
    y.backward()
    np.testing.assert_array_equal(x.grad.asnumpy(), [3., 0., 1.])


def test_take_modes_and_accumulation():
    a = nd.array([[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_array_equal(nd.take(a, nd.array([-1, 5])).asnumpy(), [[1, 2], [5, 6]])
    np.testing.assert_array_equal(nd.take(a, nd.array([-1, 4]), mode="wrap").asnumpy(),
                                  [[5, 6], [3, 4]])
    with pytest.raises(IndexError, match="raise"):
        nd.take(a, nd.array([3]), mode="raise")
    with pytest.raises(MXNetError, match="unknown mode"):
        nd.take(a, nd.array([0]), mode="bogus")
    a.attach_grad()
    with mx.autograd.record():
        y = nd.take(a, nd.array([1, 1, 1, 0]))
    y.backward()
    np.testing.assert_array_equal(a.grad.asnumpy(), [[1, 1], [3, 3], [0, 0]])
    assert nd.take(a, nd.array([[0, 1], [2, 2]]), axis=0).shape == (2, 2, 2)
    assert nd.take(a, nd.array([[0, 1], [1, 1]]), axis=1).shape == (3, 2, 2)


def test_pick_semantics():
    x = nd.array([[1., 2.], [3., 4.], [5., 6.]])
    np.testing.assert_array_equal(nd.pick(x, nd.array([0, 1]), 0).asnumpy(), [1., 4.])
    np.testing.assert_array_equal(nd.pick(x, nd.array([1, 0, 2]), 1).asnumpy(), [2., 3., 6.])
    np.testing.assert_array_equal(nd.pick(x, nd.array([1, 0, 2]), 1, mode="wrap").asnumpy(),
                                  [2., 3., 5.])
    assert nd.pick(x, nd.array([[1], [0], [1]]), 1, keepdims=True).shape == (3, 1)
    with pytest.raises(ShapeError, match="pick"):
        nd.pick(x, nd.array([0, 1, 1, 0]), 1)


def test_one_hot_float32_and_values():
    y = nd.one_hot(nd.array([1, 0, 2, 5, -1]), 3)
    assert y.dtype == np.float32 and y.shape == (5, 3)
    np.testing.assert_array_equal(y.asnumpy(), [[0, 1, 0], [1, 0, 0], [0, 0, 1], [0, 0, 0],
                                                [0, 0, 0]])
    z = nd.one_hot(nd.array([[1, 0]]), 2, on_value=5, off_value=-1, dtype="int32")
    assert z.dtype == np.int32 and z.shape == (1, 2, 2)
    np.testing.assert_array_equal(z.asnumpy(), [[[-1, 5], [5, -1]]])
    assert nd.array([2, 0]).one_hot(4).shape == (2, 4)
    assert nd.one_hot(nd.array([1], dtype="int64"), 2).dtype == np.float32


def test_one_hot_not_recorded():
    i = nd.array([0., 1.])
    i.attach_grad()
    with mx.autograd.record():
        y = nd.one_hot(i, 2)
    assert y._node is None


def test_where_gradients_and_errors():
    c = nd.array([1., 0., 1.])
    x, y = nd.array([1., 2., 3.]), nd.array([4., 5., 6.])
    x.attach_grad()
    y.attach_grad()
    c.attach_grad()
    with mx.autograd.record():
        z = nd.where(c, x, y)
    z.backward()
    np.testing.assert_array_equal(z.asnumpy(), [1., 5., 3.])
    np.testing.assert_array_equal(x.grad.asnumpy(), [1., 0., 1.])
    np.testing.assert_array_equal(y.grad.asnumpy(), [0., 1., 0.])
    np.testing.assert_array_equal(c.grad.asnumpy(), [0., 0., 0.])
    with pytest.raises(ShapeError, match="condition"):
        nd.where(nd.array([1., 0.]), nd.ones((3, 2)), nd.ones((3, 2)))


def test_gather_scatter_nd_doc_examples():
    data = nd.array([[0, 1], [2, 3]])
    np.testing.assert_array_equal(
        nd.gather_nd(data, nd.array([[1, 1, 0], [0, 1, 0]])).asnumpy(), [2, 3, 0])
    data = nd.array([[[1, 2], [3, 4]], [[5, 6], [7, 8]]])
    np.testing.assert_array_equal(
        nd.gather_nd(data, nd.array([[0, 1], [1, 0]])).asnumpy(), [[3, 4], [5, 6]])
    s = nd.scatter_nd(nd.array([[1, 2], [3, 4]]), nd.array([[1, 1], [0, 1]]), shape=(2, 2, 2))
    np.testing.assert_array_equal(s.asnumpy(), [[[0, 0], [0, 0]], [[1, 2], [3, 4]]])
    with pytest.raises(ShapeError, match="scatter_nd"):
        nd.scatter_nd(nd.array([1, 2]), nd.array([[0, 1, 1]]), shape=(3,))


# ---------------------------------------------------------------- setitem
def test_setitem_mxnet_doc_examples():
    x = nd.zeros((2, 3))
    x[:] = 1
    x[:, 1:2] = 2
    x[1:2, 1:] = 3
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2, 1], [1, 3, 3]])
    x[1:, 0:2] = nd.zeros((1, 2))
    x[1, 2] = 4
    np.testing.assert_array_equal(x.asnumpy(), [[1, 2, 1], [0, 0, 4]])
    x[[0], [1, 2]] = 5
    np.testing.assert_array_equal(x.asnumpy(), [[1, 5, 5], [0, 0, 4]])
    x[::-1, 0:2:2] = [6]
    np.testing.assert_array_equal(x.asnumpy(), [[6, 5, 5], [6, 0, 4]])


def test_setitem_value_kinds():
    x = nd.zeros((3, 3))
    x[0] = nd.ones((1, 1, 3))  # leading 1-dims are trimmed, as MXNet does
    x[1] = np.array([1., 2., 3.])
    x[2, 1] = nd.array([7.])
    x[:, 2] = [9, 9, 9]
    np.testing.assert_array_equal(x.asnumpy(), [[1, 1, 9], [1, 2, 9], [0, 7, 9]])
    v = nd.zeros((4,))
    v[2] = 3
    v[nd.array([0, 1])] = nd.array([5., 6.])
    v[np.array([False, False, False, True])] = -1
    np.testing.assert_array_equal(v.asnumpy(), [5, 6, 3, -1])
    x = nd.zeros((2, 2), dtype="int32")
    x[0] = 2.7
    assert x.dtype == np.int32 and x.asnumpy()[0, 0] == 2
    with pytest.raises(ShapeError, match="broadcast"):
        nd.zeros((2, 3))[0] = nd.ones((2,))


def test_setitem_outside_record_bumps_version_and_breaks_saved():
    x = nd.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    v = x._ver[0]
    x[1] = 10
    assert x._ver[0] == v + 1
    with pytest.raises(InPlaceError, match="modified in place"):
        y.backward()


def test_setitem_inside_record_on_graph_array_raises():
    x = nd.array([1., 2., 3.])
    x.attach_grad()
    with mx.autograd.record():
        y = x * 2
        with pytest.raises(InPlaceError):
            y[0] = 1
        with pytest.raises(InPlaceError):
            x[0] = 1
    np.testing.assert_array_equal(x.asnumpy(), [1., 2., 3.])


def test_setitem_recorded_value_into_part_raises_as_mxnet():
    """MXNet 1.9.1: x[i] = y while recording, y in a graph, raises (an in-place op)."""
    v = nd.array([1., 2.])
    v.attach_grad()
    buf = nd.zeros((2, 3))
    with mx.autograd.record():
        w = v * 3
        for key in ((slice(None), 1), 0, slice(0, 2), (Ellipsis, 0)):
            with pytest.raises(InPlaceError, match=r"Inplace operations \(\+=, -=, x\[:\]=, "
                                                   r"etc\) are not supported when recording"):
                buf[key] = w if key != 0 else nd.concat(w, w[:1], dim=0)
    assert buf._node is None and buf.asnumpy().tolist() == [[0, 0, 0], [0, 0, 0]]
    with mx.autograd.pause():
        buf[:, 1] = v * 3           # not recording: a plain write
    assert buf.asnumpy()[:, 1].tolist() == [3, 6]


def test_setitem_recorded_value_into_whole_gives_history():
    v = nd.array([[1., 2., 3.], [4., 5., 6.]])
    v.attach_grad()
    for key in (slice(None), Ellipsis, None, ()):
        buf = nd.zeros((2, 3))
        with mx.autograd.record():
            buf[key] = v * 3
            z = (buf * nd.array([[1, 2, 3], [4, 5, 6]])).sum()
        assert buf._node is not None
        np.testing.assert_array_equal(buf.asnumpy(), 3 * v.asnumpy())
        z.backward()
        np.testing.assert_array_equal(v.grad.asnumpy(), [[3, 6, 9], [12, 15, 18]])


def test_setitem_recorded_broadcast_value_sums_gradient():
    v = nd.array([2.])
    v.attach_grad()
    buf = nd.ones((2, 2))
    with mx.autograd.record():
        buf[:] = v * 1
        z = buf.sum()
    z.backward()
    assert v.grad.asscalar() == 4.


def test_setitem_unrecorded_value_while_recording_is_plain_write():
    buf = nd.zeros((2,))
    with mx.autograd.record():
        buf[0] = nd.array([3.])
    assert buf._node is None and buf.asnumpy()[0] == 3


def test_setitem_through_view_reaches_base():
    x = nd.zeros((2, 3))
    row = x[1]
    row[:] = 4
    assert x.asnumpy()[1].tolist() == [4, 4, 4]
    x.reshape((-1,))[0] = 1
    assert x.asnumpy()[0, 0] == 1


def test_copyto_uses_setitem():
    b = nd.zeros((2,))
    nd.array([1., 2.]).copyto(b)
    np.testing.assert_array_equal(b.asnumpy(), [1., 2.])


def test_setitem_forward_mode_tangent():
    from mxgrad.ndarray.ndarray import wrap
    v = nd.array([1., 2.], dtype="float64")
    v._tan = wrap(np.array([1., 1.]))
    buf = nd.zeros((3,), dtype="float64")
    buf[1:] = v * 2
    np.testing.assert_array_equal(buf._tan.asnumpy(), [0., 2., 2.])


# ------------------------------------------------------------ property tests
_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=3).map(tuple)


def _key_strategy(shape):
    def one(n):
        return st.one_of(
            st.integers(-n, n - 1),
            st.builds(slice, st.one_of(st.none(), st.integers(-n, n)),
                      st.one_of(st.none(), st.integers(-n, n)),
                      st.sampled_from([None, 1, 2, -1, -3])),
            st.lists(st.integers(-n, n - 1), min_size=1, max_size=3))
    return st.tuples(*[one(n) for n in shape])


@settings(max_examples=80, deadline=None)
@given(shape=_shapes, data=st.data())
def test_property_getitem_matches_numpy(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    key = data.draw(_key_strategy(shape))
    if data.draw(st.booleans()):
        key = key[:data.draw(st.integers(1, len(key)))]
    try:
        ref = a[key]
    except IndexError:
        with pytest.raises(IndexError):
            nd.array(a)[key]
        return
    if ref.ndim == 0:
        ref = ref.reshape(1)
    x = nd.array(a, dtype="float64")
    out = x[key]
    assert out.shape == ref.shape
    np.testing.assert_array_equal(out.asnumpy(), ref)
    # gradient: scatter-add of the head gradient
    x.attach_grad()
    w = np.random.default_rng(0).uniform(0.5, 1.5, ref.shape)
    with mx.autograd.record():
        y = x[key]
    y.backward(nd.array(w, dtype="float64"))
    expect = np.zeros_like(a)
    np.add.at(expect, key, w.reshape(a[key].shape))
    np.testing.assert_allclose(x.grad.asnumpy(), expect)


@settings(max_examples=80, deadline=None)
@given(shape=_shapes, data=st.data())
def test_property_setitem_matches_numpy(shape, data):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    key = data.draw(_key_strategy(shape))
    # keep advanced keys free of repeats (assignment order is unspecified)
    key = tuple(k if not isinstance(k, list) or len({i % n for i in k}) == len(k) else k[0]
                for k, n in zip(key, shape))
    try:
        a[key]
    except IndexError:
        with pytest.raises(IndexError):
            nd.array(a)[key] = 0
        return
    target_shape = a[key].shape
    val = np.random.default_rng(0).standard_normal(target_shape)
    ref = a.copy()
    ref[key] = val
    x = nd.array(a, dtype="float64")
    x[key] = val if val.ndim else val.reshape(1)
    np.testing.assert_array_equal(x.asnumpy(), ref)


def test_ravel_unravel_roundtrip():
    a = np.array([[3, 6, 6, 0], [4, 5, 1, 2], [0, 1, 2, 3]])
    r = nd.ravel_multi_index(nd.array(a), shape=(7, 6, 4))
    np.testing.assert_array_equal(r.asnumpy(), np.ravel_multi_index(a, (7, 6, 4)))
    u = nd.unravel_index(r, shape=(7, 6, 4))
    np.testing.assert_array_equal(u.asnumpy(), a)
    u = nd.unravel_index(r, shape=(-1, 6, 4))
    np.testing.assert_array_equal(u.asnumpy(), a)
    assert r.dtype == np.float32


def test_results_of_read_only_buffers_are_writable():
    from mxgrad.ndarray.ndarray import wrap
    x = wrap(np.broadcast_to(np.ones(3, np.float32), (2, 3)))
    y = x[0]
    y[:] = 5
    np.testing.assert_array_equal(y.asnumpy(), [5, 5, 5])
    r = x.reshape((-1,))
    r[0] = 2
    assert r.asnumpy()[0] == 2


def test_internal_slice_assign_as_mxnet():
    """mx.nd._internal._slice_assign/_crop_assign(_scalar): new arrays, out= writes in place
    (MXNet's test_ndarray_crop), recorded: gradients reach both inputs."""
    x = nd.ones((2, 3, 4))
    z = nd.zeros((2, 1, 3))
    nd._internal._crop_assign(x, z, begin=(0, 0, 0), end=(2, 1, 3), out=x)
    ref = np.ones((2, 3, 4))
    ref[0:2, 0:1, 0:3] = 0
    np.testing.assert_array_equal(x.asnumpy(), ref)
    y = nd._internal._slice_assign_scalar(nd.ones((2, 3, 4)), scalar=5, begin=(0, 1),
                                          end=(None, 3), step=(1, 2))
    ref = np.ones((2, 3, 4))
    ref[0:, 1:3:2] = 5
    np.testing.assert_array_equal(y.asnumpy(), ref)
    a = nd.array(np.arange(6.0).reshape(2, 3))
    v = nd.array([[10.0, 20.0]])
    a.attach_grad()
    v.attach_grad()
    with mx.autograd.record():
        r = nd._internal._slice_assign(a, v, begin=(1, 0), end=(2, 2))
        (r * nd.array([[1, 2, 3], [4, 5, 6]])).sum().backward()
    np.testing.assert_array_equal(r.asnumpy(), [[0, 1, 2], [10, 20, 5]])
    np.testing.assert_array_equal(a.grad.asnumpy(), [[1, 2, 3], [0, 0, 6]])
    np.testing.assert_array_equal(v.grad.asnumpy(), [[4, 5]])
