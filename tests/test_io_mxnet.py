"""MXNet's binary NDArray format: byte-identity with files written by MXNet 1.9.1
(tests/data/mxnet/, made by tools/make_mxnet_fixtures.py) and loading them."""
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import FileFormatError, MXNetError
from mxgrad.ndarray import _format

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")
DTYPES = ["float16", "float32", "float64", "uint8", "int8", "int32", "int64", "bool"]


def values(dtype, shape):
    """The same deterministic values as tools/make_mxnet_fixtures.py."""
    n = int(np.prod(shape))
    base = (np.arange(n) * 7 % 11 - 3).astype(np.float64)
    if dtype == "bool":
        return (base > 0).reshape(shape)
    if dtype in ("float16", "float32", "float64"):
        return (base / 4).astype(dtype).reshape(shape)
    if dtype == "uint8":
        return (base + 3).astype(dtype).reshape(shape)
    return base.astype(dtype).reshape(shape)


def fixture(name):
    return os.path.join(DATA, name)


def raw(path):
    with open(path, "rb") as f:
        return f.read()


def nd(dtype, shape):
    return mx.nd.array(values(dtype, shape), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
def test_list_and_dict_byte_identical_to_mxnet(tmp_path, dtype):
    a, b = nd(dtype, (2, 3)), nd(dtype, (4,))
    assert a.dtype == np.dtype(dtype).type
    mx.nd.save(str(tmp_path / "l.nd"), [a, b])
    assert raw(tmp_path / "l.nd") == raw(fixture(f"list_{dtype}.nd"))
    mx.nd.save(str(tmp_path / "d.nd"), {"a": a, "b_é": b})
    assert raw(tmp_path / "d.nd") == raw(fixture(f"dict_{dtype}.nd"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_mxnet_files_load_with_values(dtype):
    got = mx.nd.load(fixture(f"list_{dtype}.nd"))
    assert isinstance(got, list) and len(got) == 2
    for arr, shape in zip(got, [(2, 3), (4,)]):
        assert arr.dtype == np.dtype(dtype).type and arr.shape == shape
        np.testing.assert_array_equal(arr.asnumpy(), values(dtype, shape))
    got = mx.nd.load(fixture(f"dict_{dtype}.nd"))
    assert sorted(got) == ["a", "b_é"]
    np.testing.assert_array_equal(got["b_é"].asnumpy(), values(dtype, (4,)))
    # arrays are writable and independent of each other
    got["a"][:] = 0
    assert got["b_é"].asnumpy().tolist() == values(dtype, (4,)).tolist()


def test_single_empty_and_odd_shapes_byte_identical(tmp_path):
    f = str(tmp_path / "x.nd")
    mx.nd.save(f, nd("float32", (3,)))
    assert raw(f) == raw(fixture("single.nd"))
    assert [a.shape for a in mx.nd.load(f)] == [(3,)]
    mx.nd.save(f, [])
    assert raw(f) == raw(fixture("empty_list.nd"))
    assert mx.nd.load(fixture("empty_list.nd")) == []
    mx.nd.save(f, {"w": nd("float32", (2, 0, 3)), "i": nd("int64", (1, 1, 1, 5))})
    assert raw(f) == raw(fixture("mixed.nd"))
    got = mx.nd.load(fixture("mixed.nd"))
    assert got["w"].shape == (2, 0, 3)
    np.testing.assert_array_equal(got["i"].asnumpy(), values("int64", (1, 1, 1, 5)))


def test_module_and_gluon_files_load():
    got = mx.nd.load(fixture("module-0003.params"))
    assert sorted(got) == ["arg:fc_bias", "arg:fc_weight", "aux:bn_moving_mean"]
    np.testing.assert_array_equal(got["arg:fc_weight"].asnumpy(), values("float32", (3, 4)))
    got = mx.nd.load(fixture("net.params"))
    assert sorted(got) == ["0.bias", "0.weight", "1.beta", "1.gamma", "1.running_mean",
                           "1.running_var"]


def test_sparse_records_load_as_dense():
    got = mx.nd.load(fixture("sparse.nd"))
    rsp = np.zeros((5, 3), np.float32)
    rsp[[1, 4]] = values("float32", (2, 3))
    np.testing.assert_array_equal(got["rsp"].asnumpy(), rsp)
    csr = np.zeros((3, 4), np.float32)
    csr[0, 0], csr[0, 2], csr[2, 1] = 1.5, -2.0, 3.0
    np.testing.assert_array_equal(got["csr"].asnumpy(), csr)
    np.testing.assert_array_equal(got["dense"].asnumpy(), values("float32", (2,)))


def test_load_frombuffer_matches_load():
    buf = raw(fixture("dict_float64.nd"))
    for b in (buf, bytearray(buf), memoryview(buf)):
        got = mx.nd.load_frombuffer(b)
        np.testing.assert_array_equal(got["a"].asnumpy(), values("float64", (2, 3)))
        got["a"][:] = 1          # writable copy
    with pytest.raises(FileFormatError, match="truncated"):
        mx.nd.load_frombuffer(buf[:-3])
    with pytest.raises(TypeError, match="buf"):
        mx.nd.load_frombuffer(12)


def test_older_record_versions_load():
    # V1 records (magic 0xF993FAC8, int64 dims, no storage type) and the oldest records
    # (the "magic" is ndim, uint32 dims), as MXNet's LegacyLoad reads them
    import struct
    data = np.arange(6, dtype=np.float32).reshape(2, 3)
    v1 = struct.pack("<IiqqiiI", 0xF993FAC8, 2, 2, 3, 1, 0, 0) + data.tobytes()
    old = struct.pack("<IIIiiI", 2, 2, 3, 1, 0, 0) + data.tobytes()
    for rec in (v1, old):
        blob = struct.pack("<QQQ", 0x112, 0, 1) + rec + struct.pack("<Q", 0)
        np.testing.assert_array_equal(mx.nd.load_frombuffer(blob)[0].asnumpy(), data)


def test_bfloat16_and_v3_records():
    import struct
    f32 = np.array([1.5, -2.0, 3.25], np.float32)
    bf = (f32.view(np.uint32) >> 16).astype("<u2")
    rec = struct.pack("<Iiiqiii", 0xF993FAC9, 0, 1, 3, 1, 0, 12) + bf.tobytes()
    blob = struct.pack("<QQQ", 0x112, 0, 1) + rec + struct.pack("<Q", 0)
    got = mx.nd.load_frombuffer(blob)[0]
    assert got.dtype == np.float32 and got.asnumpy().tolist() == f32.tolist()
    # a V3 (NumPy shape semantics) scalar becomes a (1,) array, as mxgrad has no 0-d arrays
    rec = struct.pack("<Iiiiii", 0xF993FACA, 0, 0, 1, 0, 6) + np.int64(7).tobytes()
    blob = struct.pack("<QQQ", 0x112, 0, 1) + rec + struct.pack("<Q", 0)
    assert mx.nd.load_frombuffer(blob)[0].asnumpy().tolist() == [7]


def test_every_prefix_of_a_file_is_refused_clearly(tmp_path):
    buf = raw(fixture("sparse.nd"))
    f = tmp_path / "t.nd"
    for n in range(len(buf)):
        f.write_bytes(buf[:n])
        with pytest.raises(FileFormatError):
            mx.nd.load(str(f))


@pytest.mark.parametrize("content, what", [
    (b"", "empty"),
    (b"\x93NUMPY\x01\x00v\x00{'descr': '<f4'}", "NumPy .npy"),
    (b"\x80\x04\x95garbage", "pickle"),
    (b"hello world, not an array file", "not an MXNet NDArray file"),
    (b"\x12\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
     b"\xff\xff\xff\xff\xff\xff\xff\x7f", "claims"),
])
def test_foreign_files_raise_file_format_error(tmp_path, content, what):
    f = tmp_path / "bad.params"
    f.write_bytes(content)
    with pytest.raises(FileFormatError, match=what) as info:
        mx.nd.load(str(f))
    assert isinstance(info.value, MXNetError) and isinstance(info.value, ValueError)
    assert "allow_pickle" not in str(info.value)


def test_corrupt_sparse_indices_refused():
    buf = bytearray(raw(fixture("sparse.nd")))
    # the row_sparse record's row indices are int64 [1, 4]; make one out of range
    pos = buf.find(np.array([1, 4], np.int64).tobytes())
    assert pos > 0
    buf[pos + 8:pos + 16] = np.int64(9).tobytes()
    with pytest.raises(FileFormatError, match="row_sparse"):
        mx.nd.load_frombuffer(bytes(buf))


def test_mxgrad_npz_files_still_load(tmp_path):
    f = str(tmp_path / "old.nd")
    with open(f, "wb") as fh:   # what mxgrad's nd.save wrote before the MXNet format
        np.savez(fh, __kind__=np.array("dict"), w=np.ones((2, 2), np.float32))
    assert mx.nd.load(f)["w"].asnumpy().tolist() == [[1, 1], [1, 1]]
    with open(f, "wb") as fh:
        np.savez(fh, __kind__=np.array("list"), **{"0": np.zeros(1), "1": np.ones(2)})
    assert [a.shape for a in mx.nd.load(f)] == [(1,), (2,)]
    with open(f, "wb") as fh:   # an object array inside is refused, never unpickled
        np.savez(fh, __kind__=np.array("list"), **{"0": np.array([{1: 2}], dtype=object)})
    with pytest.raises(FileFormatError):
        mx.nd.load(f)
    with open(f, "wb") as fh:
        np.savez(fh, x=np.zeros(1))
    with pytest.raises(FileFormatError, match="did not write"):
        mx.nd.load(f)


def test_numpy_semantics_file_from_mxnet_loads():
    # mx.npx.save writes V3 records; a 0-d scalar becomes shape (1,) (no 0-d arrays here)
    got = mx.nd.load(fixture("npx_v3.nd"))
    np.testing.assert_array_equal(got["a"].asnumpy(), values("float32", (1, 2)))
    assert got["s"].shape == (1,) and got["s"].asscalar() == 3.0
    assert got["z"].shape == (0, 2)


def test_random_corruption_never_escapes_as_another_error():
    rng = np.random.RandomState(0)
    for name in ("sparse.nd", "dict_float64.nd", "net.params", "npx_v3.nd"):
        buf = raw(fixture(name))
        for _ in range(300):
            b = bytearray(buf)
            for pos in rng.randint(0, len(b), size=rng.randint(1, 4)):
                b[pos] = rng.randint(0, 256)
            try:
                mx.nd.load_frombuffer(bytes(b))
            except FileFormatError:
                pass


def test_sparse_too_large_for_dense_names_the_key():
    buf = bytearray(raw(fixture("sparse.nd")))
    # the CSR record's shape (3, 4): make the column count enormous (still consistent)
    pos = buf.find(np.array([2, 3, 4], "<i4").tobytes()[:4] + np.array([3, 4], "<i8").tobytes())
    assert pos > 0
    buf[pos + 12:pos + 20] = np.int64(1 << 50).tobytes()
    with pytest.raises(FileFormatError, match="key 'csr'.*csr array of shape"):
        mx.nd.load_frombuffer(bytes(buf))
