"""Writers are atomic and validate before writing; any key round-trips."""
import os
import signal
import stat
import subprocess
import sys
import time

import numpy as np
import pytest

import mxgrad as mx
from mxgrad._fileio import atomic_write
from mxgrad.base import MXNetError

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ALL_DTYPES = ["float16", "float32", "float64", "uint8", "int8", "int16", "uint16", "int32",
              "uint32", "int64", "uint64", "bool"]


@pytest.mark.parametrize("dtype", ALL_DTYPES)
def test_all_dtypes_round_trip(tmp_path, dtype):
    f = str(tmp_path / "x.nd")
    rng = np.random.RandomState(0)
    data = rng.randn(3, 5) * 50
    if dtype == "bool":
        data = data > 0
    elif np.dtype(dtype).kind == "u":
        data = np.abs(data)
    src = {"a": mx.nd.array(data.astype(dtype), dtype=dtype),
           "b": mx.nd.array(np.arange(7).astype(dtype), dtype=dtype)}
    mx.nd.save(f, src)
    got = mx.nd.load(f)
    for k in src:
        assert got[k].dtype == np.dtype(dtype).type
        np.testing.assert_array_equal(got[k].asnumpy(), src[k].asnumpy())
    # non-contiguous and big-endian sources are written as their values
    mx.nd.save(f, [mx.nd.NDArray(data.astype(dtype).T)])
    np.testing.assert_array_equal(mx.nd.load(f)[0].asnumpy(), data.astype(dtype).T)
    if np.dtype(dtype).itemsize > 1:
        be = mx.nd.NDArray(data.astype(np.dtype(dtype).newbyteorder(">")))
        mx.nd.save(f, [be])
        le = str(tmp_path / "le.nd")
        mx.nd.save(le, [mx.nd.NDArray(data.astype(dtype))])
        assert open(f, "rb").read() == open(le, "rb").read()


@pytest.mark.parametrize("key", ["file", "allow_pickle", "__kind__", "", "0", "a/b\\c",
                                 "ünïcødé ✓ 中文", "nul\x00byte", "x" * 5000, "arg:w"])
def test_any_string_key_round_trips(tmp_path, key):
    f = str(tmp_path / "k.nd")
    mx.nd.save(f, {key: mx.nd.ones((2,)), "other": mx.nd.zeros((1,))})
    got = mx.nd.load(f)
    assert sorted(got) == sorted([key, "other"])
    assert got[key].asnumpy().tolist() == [1.0, 1.0]


@pytest.mark.parametrize("data, arg", [
    ([1, 2], r"data\[0\]"), (None, "data"), ({1: mx.nd.ones(1)}, "keys"),
    ({"a": mx.nd.ones(1), "b": np.ones(1)}, r"data\['b'\]"), ("text", "data"),
    ([mx.nd.ones(1), mx.nd.array([1.0]), 3], r"data\[2\]"),
    ((mx.nd.ones(1), "x"), r"data\[1\]"),
])
def test_bad_arguments_raise_before_writing(tmp_path, data, arg):
    f = tmp_path / "x.nd"
    f.write_bytes(b"old")
    with pytest.raises(TypeError, match=arg) as info:
        mx.nd.save(str(f), data)
    assert isinstance(info.value, MXNetError)
    assert f.read_bytes() == b"old" and os.listdir(tmp_path) == ["x.nd"]


def test_bad_fname_and_unstorable_dtype(tmp_path):
    with pytest.raises(TypeError, match="fname"):
        mx.nd.save(None, [mx.nd.ones(1)])
    with pytest.raises(TypeError, match="fname"):
        mx.nd.load(3)
    f = tmp_path / "x.nd"
    f.write_bytes(b"old")
    bad = mx.nd.NDArray(np.ones(2, np.complex64))
    with pytest.raises(TypeError, match=r"data\['z'\].*complex64"):
        mx.nd.save(str(f), {"ok": mx.nd.ones(1), "z": bad})
    assert f.read_bytes() == b"old" and os.listdir(tmp_path) == ["x.nd"]
    with pytest.raises(FileNotFoundError, match="missing.nd") as info:
        mx.nd.load(str(tmp_path / "missing.nd"))
    assert isinstance(info.value, MXNetError)
    tr = mx.gluon.Trainer([mx.gluon.Parameter("p", shape=(1,))], "sgd")
    with pytest.raises(MXNetError, match="missing.states"):
        tr.load_states(str(tmp_path / "missing.states"))


def test_atomic_write_permissions_and_cleanup(tmp_path):
    f = tmp_path / "p.bin"
    with atomic_write(str(f)) as fh:
        fh.write(b"1")
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(os.stat(f).st_mode) == 0o666 & ~umask
    with pytest.raises(RuntimeError):
        with atomic_write(str(f)) as fh:
            fh.write(b"2")
            raise RuntimeError("boom")
    assert f.read_bytes() == b"1" and os.listdir(tmp_path) == ["p.bin"]
    with atomic_write(str(tmp_path / "t.txt"), "w") as fh:
        fh.write("héllo")
    assert (tmp_path / "t.txt").read_text(encoding="utf-8") == "héllo"


_WRITER = r"""
import sys, time
sys.path.insert(0, {root!r})
import numpy as np
import mxgrad as mx
from mxgrad.ndarray import _format
encode = _format.encode
def slow_encode(*args, **kw):
    chunks = encode(*args, **kw)
    def gen():
        for i, c in enumerate(chunks):
            yield c
            if i == 2:    # some arrays are on disk: tell the parent, then keep writing slowly
                print("writing", flush=True)
                time.sleep(60)
    return gen()
_format.encode = slow_encode
big = {{"w%d" % i: mx.nd.ones((1 << 18,)) * i for i in range(8)}}
mx.nd.save({path!r}, big)
"""


def test_sigkill_during_save_leaves_the_old_file_intact(tmp_path):
    path = str(tmp_path / "model.params")
    old = {"w": mx.nd.arange(10)}
    mx.nd.save(path, old)
    old_bytes = open(path, "rb").read()
    proc = subprocess.Popen([sys.executable, "-c", _WRITER.format(root=ROOT, path=path)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        line = proc.stdout.readline()
        assert line.strip() == b"writing", proc.stderr.read()
        tmps = [n for n in os.listdir(tmp_path) if n.endswith(".tmp")]
        assert len(tmps) == 1 and os.path.getsize(tmp_path / tmps[0]) > (1 << 20)
        proc.send_signal(signal.SIGKILL)
        proc.wait(10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert open(path, "rb").read() == old_bytes
    np.testing.assert_array_equal(mx.nd.load(path)["w"].asnumpy(), np.arange(10))


_LOOP = r"""
import sys
sys.path.insert(0, {root!r})
import mxgrad as mx
i = 0
print("go", flush=True)
while True:
    i += 1
    mx.nd.save({path!r}, {{"w": mx.nd.ones((1 << 20,)) * i, "n": mx.nd.array([i])}})
"""


def test_sigkill_at_random_times_never_leaves_a_broken_file(tmp_path):
    path = str(tmp_path / "loop.params")
    mx.nd.save(path, {"w": mx.nd.zeros((1 << 20,)), "n": mx.nd.array([0])})
    for delay in (0.05, 0.2, 0.45):
        proc = subprocess.Popen([sys.executable, "-c", _LOOP.format(root=ROOT, path=path)],
                                stdout=subprocess.PIPE)
        try:
            proc.stdout.readline()
            time.sleep(delay)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        got = mx.nd.load(path)          # always a complete file: the old or a new one
        n = got["n"].asscalar()
        assert (got["w"].asnumpy() == n).all()
