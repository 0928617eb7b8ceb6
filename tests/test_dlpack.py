"""DLPack: mx.nd.to_dlpack_for_read/_for_write, mx.nd.from_dlpack, __dlpack__."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import DTypeError, InPlaceError, MXNetError, StateError


@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.float64, np.uint8])
@pytest.mark.parametrize("shape", [(3, 4, 5, 6), (2, 10), (15,)])
def test_round_trips_as_mxnet_tests_them(dtype, shape):
    # MXNet 1.9.1's test_ndarray.test_dlpack, with every export form and the values checked
    a = nd.array(np.random.default_rng(0).uniform(0, 100, shape), dtype=dtype)
    want = a.asnumpy().copy()
    outs = [nd.from_dlpack(a.to_dlpack_for_read()),
            nd.from_dlpack(a.copy().to_dlpack_for_write()),
            nd.from_dlpack(nd.to_dlpack_for_read(a)),
            nd.from_dlpack(nd.to_dlpack_for_write(a.copy()))]
    del a
    for b in outs:
        assert b.shape == shape and b.dtype == dtype
        np.testing.assert_array_equal(b.asnumpy(), want)


def test_memory_is_shared_both_ways():
    x = nd.array([[1, 2, 3], [4, 5, 6]])
    y = nd.from_dlpack(x.to_dlpack_for_write())
    y[0, 0] = 70
    x[1, 2] = -6
    assert x.asnumpy().tolist() == [[70, 2, 3], [4, 5, -6]]
    assert y.asnumpy().tolist() == [[70, 2, 3], [4, 5, -6]]
    # the protocol: any object with __dlpack__ (here NumPy's arrays), both directions
    a = np.arange(4.0)
    z = nd.from_dlpack(a)
    z += 1
    assert a.tolist() == [1.0, 2.0, 3.0, 4.0]
    v = np.from_dlpack(x)
    x[0, 1] = 20
    assert v[0, 1] == 20


def test_a_strided_source_stays_shared():
    a = np.arange(12.0).reshape(3, 4)
    t = a.T                                    # not C-contiguous
    z = nd.from_dlpack(t)
    assert z.asnumpy().tolist() == t.tolist()
    z[3, 0] = -1.0
    assert a[0, 3] == -1.0


def test_export_for_write_counts_as_a_write():
    # another library may write through the capsule: a backward that saved the array
    # must not use it silently
    x = nd.array([1.0, 2.0])
    x.attach_grad()
    w = nd.array([3.0, 4.0])
    with autograd.record():
        y = (x * w).sum()
    nd.to_dlpack_for_write(w)
    with pytest.raises(InPlaceError, match="modified in place"):
        y.backward()
    # reading does not: the backward runs
    w2 = nd.array([3.0, 4.0])
    with autograd.record():
        y = (x * w2).sum()
    nd.to_dlpack_for_read(w2)
    y.backward()
    assert x.grad.asnumpy().tolist() == [3.0, 4.0]


def test_read_only_views():
    x = nd.ones((3,)).broadcast_to((2, 3))
    x._data.flags.writeable = False             # as a broadcast view of NumPy's is
    y = nd.from_dlpack(x.to_dlpack_for_read())  # exported as a copy
    assert y.asnumpy().tolist() == [[1.0] * 3] * 2
    with pytest.raises(StateError, match="read-only view"):
        x.to_dlpack_for_write()


def test_errors_name_the_problem():
    c = nd.array([1.0]).to_dlpack_for_read()
    nd.from_dlpack(c)
    with pytest.raises(StateError, match="already imported") as err:
        nd.from_dlpack(c)
    assert isinstance(err.value, ValueError)
    with pytest.raises(DTypeError, match="got int") as err:
        nd.from_dlpack(3)
    assert isinstance(err.value, TypeError)
    with pytest.raises(MXNetError, match="data must be an NDArray"):
        nd.to_dlpack_for_read(np.zeros(2))
    with pytest.raises(StateError, match="no streams"):
        nd.array([1.0]).__dlpack__(stream=1)


def test_device_is_the_cpu():
    assert nd.zeros((2,)).__dlpack_device__() == (1, 0)
    assert mx.nd.from_dlpack is nd.from_dlpack
