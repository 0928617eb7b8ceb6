"""Hostile files for every reader (issue 24): each file is made here, small, and each
must be refused with an ``MXNetError`` subclass (also ``ValueError``, or
``FileNotFoundError`` for a missing file) whose message names the file, without a
crash, a hang, a bare Python error or an allocation sized by a number read from the
file. Readers: NDArray files, ``.npz``, symbol JSON, Trainer states, ``.rec``/``.idx``,
``.lst``, images, IDX (MNIST).
"""
import gzip
import io
import json
import os
import struct
import zipfile

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import gluon, nd
from mxgrad.base import MXNetError
from mxgrad.gluon.data.vision.datasets import read_idx


def _refused(call, path, builtin=ValueError, words=()):
    with pytest.raises(MXNetError) as info:
        call()
    assert isinstance(info.value, builtin), type(info.value).__mro__
    msg = str(info.value)
    assert os.path.basename(str(path)) in msg, msg
    for w in words:
        assert w in msg, (w, msg)
    return msg


# ------------------------------------------------------------------ NDArray files
def _v3_file(dim, name=b"w"):
    """A list file holding one V3 (np-shape) float32 record of shape ``(dim,)``."""
    rec = struct.pack("<Iiiq", 0xF993FACA, 0, 1, dim) + struct.pack("<iii", 1, 0, 0)
    if dim > 0:
        rec += np.arange(dim, dtype="<f4").tobytes()
    return (struct.pack("<QQQ", 0x112, 0, 1) + rec
            + struct.pack("<QQ", 1, len(name)) + name)


def test_v3_record_with_a_negative_dimension_is_refused(tmp_path):
    # before: dim -5 was taken as an empty array without consuming the record, the
    # rest misread, and nd.load returned {'': <empty>} (MXNet: "dim size must be >= -1")
    p = tmp_path / "neg.nd"
    p.write_bytes(_v3_file(-5))
    _refused(lambda: nd.load(str(p)), p, words=["-5", ">= -1"])
    ok = tmp_path / "ok.nd"
    ok.write_bytes(_v3_file(3))
    out = nd.load(str(ok))
    assert list(out) == ["w"]
    np.testing.assert_array_equal(out["w"].asnumpy(), [0.0, 1.0, 2.0])


@pytest.mark.parametrize("raw", [
    struct.pack("<QQQ", 0x112, 0, 2 ** 40),                         # 2^40 records
    struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Iii", 0xF993FAC9, 0, 2 ** 31 - 1),
    struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Iiiq", 0xF993FAC9, 0, 1, 2 ** 40)
    + struct.pack("<iii", 1, 0, 0),                                  # 2^40 float32
    struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Iiiq", 0xF993FAC9, 0, 1, 2)
    + struct.pack("<iii", 1, 0, 99) + b"\0" * 8,                     # dtype flag 99
    struct.pack("<QQQ", 0x112, 0, 1) + struct.pack("<Iiiq", 0xF993FAC9, 0, 1, 1)
    + struct.pack("<iii", 1, 0, 0) + b"\0" * 4 + struct.pack("<QQ", 1, 2 ** 50),  # name
    b"\x12\x01\x00\x00\x00\x00\x00\x00",                             # truncated
    os.urandom(48),
], ids=["records-2^40", "ndim-2^31", "elements-2^40", "dtype-99", "name-2^50",
        "truncated", "garbage"])
def test_hostile_ndarray_files(tmp_path, raw):
    p = tmp_path / "hostile.params"
    p.write_bytes(raw)
    _refused(lambda: nd.load(str(p)), p)
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize()
    _refused(lambda: net.load_parameters(str(p)), p)


# ------------------------------------------------------------------ .npz
def _npy(shape, data=b"", descr="<f4"):
    b = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        b, {"descr": descr, "fortran_order": False, "shape": shape})
    return b.getvalue() + data


def _npz(path, member, compression=zipfile.ZIP_STORED):
    kind = io.BytesIO()
    np.save(kind, np.array("dict"))
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        z.writestr("__kind__.npy", kind.getvalue())
        z.writestr("w.npy", member)


@pytest.mark.parametrize("member, compression", [
    (_npy((2 ** 40,), b"\0" * 16), zipfile.ZIP_STORED),
    (_npy((2 ** 40,), b"\0" * 16), zipfile.ZIP_DEFLATED),
    (_npy((65536,) * 4, b"\0" * 16), zipfile.ZIP_STORED),
    (b"not a npy header at all", zipfile.ZIP_STORED),
    (_npy((2,), b"\0" * 8, descr="|O"), zipfile.ZIP_STORED),
], ids=["2^40-stored", "2^40-deflated", "65536^4", "no-header", "object"])
def test_hostile_npz_members_are_refused_before_allocation(tmp_path, member, compression):
    # before: the 2^40 member raised a raw MemoryError
    p = tmp_path / "hostile.npz"
    _npz(str(p), member, compression)
    _refused(lambda: nd.load(str(p)), p)


def test_a_good_npz_still_loads(tmp_path):
    p = tmp_path / "good.npz"
    _npz(str(p), _npy((3,), np.arange(3, dtype="<f4").tobytes()), zipfile.ZIP_DEFLATED)
    np.testing.assert_array_equal(nd.load(str(p))["w"].asnumpy(), [0.0, 1.0, 2.0])


# ------------------------------------------------------------------ IDX (MNIST)
def _idx(dims, payload=b"", code=8):
    return struct.pack(">BBBB", 0, 0, code, len(dims)) + struct.pack(
        f">{len(dims)}I", *dims) + payload


@pytest.mark.parametrize("raw, gz, words", [
    (_idx((65536,) * 4, b"\0" * 8), False, ["announces"]),      # np.prod wrapped to 0
    (_idx((65536,) * 4, b"\0" * 8), True, ["announces"]),
    (_idx((2 ** 31,), b"\0" * 8), True, ["announces"]),
    (_idx((3,), b"\1\2"), False, ["truncated"]),
    (_idx((2,), b"\1\2" + b"\0" * 4096), True, ["after"]),    # trailing zeros
    (b"\0\0\x08", False, ["magic"]),
    (b"\1\2\3\4rubbish", True, ["magic"]),
    (_idx((2, 2)), False, ["truncated"]),
], ids=["65536^4", "65536^4-gz", "2^31-gz", "short", "trailing-gz", "short-magic",
        "bad-magic", "header-only"])
def test_hostile_idx_files(tmp_path, raw, gz, words):
    p = tmp_path / ("hostile-idx1-ubyte" + (".gz" if gz else ""))
    p.write_bytes(gzip.compress(raw) if gz else raw)
    _refused(lambda: read_idx(str(p)), p, words=words)


def test_idx_with_gigabytes_of_trailing_zeros_is_refused_without_reading_them(tmp_path):
    # before: a .gz with 3 GiB of trailing zeros was decompressed whole; now reading
    # stops one byte after the announced data (the file here stands for any size)
    p = tmp_path / "bomb-idx1-ubyte.gz"
    with gzip.open(str(p), "wb") as f:
        f.write(_idx((2,), b"\1\2"))
        zeros = b"\0" * (1 << 20)
        for _ in range(64):
            f.write(zeros)
    _refused(lambda: read_idx(str(p)), p, words=["after"])


def test_idx_missing_file(tmp_path):
    _refused(lambda: read_idx(str(tmp_path / "none-idx1-ubyte")), "none-idx1-ubyte",
             FileNotFoundError)


def test_good_idx_still_reads(tmp_path):
    p = tmp_path / "ok-idx3-ubyte.gz"
    p.write_bytes(gzip.compress(_idx((2, 1, 2), bytes([1, 2, 3, 4]))))
    np.testing.assert_array_equal(read_idx(str(p)), [[[1, 2]], [[3, 4]]])


# ------------------------------------------------------------------ Trainer states
def _trainer():
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize()
    tr = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "momentum": 0.9})
    with mx.autograd.record():
        loss = net(nd.ones((1, 2))).sum()
    loss.backward()
    tr.step(1)
    return net, tr


def _edited_states(tmp_path, edit):
    """A states file saved by a Trainer, with its JSON description changed by ``edit``."""
    from mxgrad.ndarray import _format
    _, tr = _trainer()
    p = tmp_path / "hostile.states"
    tr.save_states(str(p))
    names, arrays = _format.read_file(str(p))
    i = names.index("__mxgrad_states__")
    doc = json.loads(arrays[i].tobytes().decode("utf-8"))
    text = edit(doc)
    arrays[i] = np.frombuffer(text.encode("utf-8"), np.uint8)
    _format.write_arrays(str(p), arrays, names)
    return p


def _set_attr(doc, key, value):
    for pair in doc["optimizer"]["attrs"]["dict"]:
        if pair[0] == key:
            pair[1] = value
    return json.dumps(doc)


@pytest.mark.parametrize("edit, words", [
    (lambda d: _set_attr(d, "lr", "fast"), ["'lr'", "fast"]),
    (lambda d: _set_attr(d, "momentum", {"list": [1, 2]}), ["'momentum'"]),
    (lambda d: _set_attr(d, "wd", {"float": "nan"}), ["'wd'"]),
    (lambda d: _set_attr(d, "num_update", -3), ["'num_update'"]),
    (lambda d: _set_attr(d, "rescale_grad", None), ["'rescale_grad'"]),
    (lambda d: json.dumps(dict(d, states={"list": []})), ["states"]),
    (lambda d: '{"format": "mxgrad.optimizer_states", "version": 1, "states": '
     + '{"list": [' * 50_000 + "]}" * 50_000 + "}", ["nested"]),
    (lambda d: "[" * 100_000, ["JSON"]),
    (lambda d: json.dumps(dict(d, version=99)), ["version"]),
], ids=["lr-str", "momentum-list", "wd-nan", "num_update-neg", "rescale-None",
        "states-list", "deep-nesting", "broken-json", "version-99"])
def test_hostile_states_files(tmp_path, edit, words):
    # before: lr "fast" loaded and the next step failed with an unrelated DTypeError;
    # deep nesting raised RecursionError
    p = _edited_states(tmp_path, edit)
    net, tr = _trainer()
    before = net.weight.data().asnumpy().copy()
    _refused(lambda: tr.load_states(str(p)), p, words=words)
    with mx.autograd.record():
        loss = net(nd.ones((1, 2))).sum()
    loss.backward()
    tr.step(1)                              # the Trainer still works with its own states
    assert not np.array_equal(net.weight.data().asnumpy(), before)


def test_states_that_are_not_states(tmp_path):
    _, tr = _trainer()
    for i, raw in enumerate([b"", os.urandom(64), b"\x80\x04K\x01."]):   # last: a pickle
        p = tmp_path / f"bad{i}.states"
        p.write_bytes(raw)
        _refused(lambda: tr.load_states(str(p)), p)
    _refused(lambda: tr.load_states(str(tmp_path / "none.states")), "none.states",
             FileNotFoundError)


# ------------------------------------------------------------------ .rec / .idx
def _rec(tmp_path, n=3):
    idx, rec = str(tmp_path / "d.idx"), str(tmp_path / "d.rec")
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i in range(n):
        w.write_idx(i, b"record_%d" % i)
    w.close()
    return idx, rec


@pytest.mark.parametrize("index, words", [
    ("0\t0\n1\t-8\n", ["line 2", "-8"]),                  # before: bare OSError Errno 22
    ("0\t0\n1\t48\n", ["line 2", "48"]),                  # at the end: no record there
    ("0\t0\n1\t4096\n", ["line 2", "4096"]),              # past the end
    ("0\t0\n1 16\n", ["line 2", "key<TAB>offset"]),
    ("0\tx\n", ["line 1"]),
], ids=["negative", "at-end", "past-end", "space", "not-int"])
def test_hostile_idx_index(tmp_path, index, words):
    idx, rec = _rec(tmp_path)
    open(idx, "w").write(index)
    _refused(lambda: mx.recordio.MXIndexedRecordIO(idx, rec, "r"), idx, words=words)
    # before: ImageRecordDataset said "a record must be bytes, got NoneType"
    _refused(lambda: gluon.data.vision.ImageRecordDataset(rec)[1], "d.idx")


def test_hostile_idx_binary_and_missing(tmp_path):
    idx, rec = _rec(tmp_path)
    open(idx, "wb").write(b"\xff\xfe\x00garbage")
    _refused(lambda: mx.recordio.MXIndexedRecordIO(idx, rec, "r"), idx)
    os.remove(idx)
    _refused(lambda: mx.recordio.MXIndexedRecordIO(idx, rec, "r"), idx, FileNotFoundError)
    _refused(lambda: mx.recordio.MXRecordIO(str(tmp_path / "none.rec"), "r"), "none.rec",
             FileNotFoundError)


@pytest.mark.parametrize("raw", [
    b"\0" * 16,                                                     # no magic
    struct.pack("<II", 0xCED7230A, 100) + b"abc",                   # truncated record
    struct.pack("<II", 0xCED7230A, (1 << 29) | 4) + b"abcd",        # split, never ends
    struct.pack("<II", 0xCED7230A, 8)[:6],                          # truncated header
], ids=["no-magic", "truncated", "open-split", "short-header"])
def test_hostile_rec_files(tmp_path, raw):
    p = tmp_path / "hostile.rec"
    p.write_bytes(raw)
    r = mx.recordio.MXRecordIO(str(p), "r")
    _refused(r.read, p)
    r.close()


def test_good_rec_still_reads(tmp_path):
    idx, rec = _rec(tmp_path)
    r = mx.recordio.MXIndexedRecordIO(idx, rec, "r")
    assert [r.read_idx(i) for i in (2, 0, 1)] == [b"record_2", b"record_0", b"record_1"]
    r.close()


# ------------------------------------------------------------------ images and .lst
def _png(path, color=(10, 20, 30)):
    from PIL import Image
    Image.new("RGB", (6, 5), color).save(str(path))


def _iter(lst):
    return mx.image.ImageIter(1, (3, 4, 4), path_imglist=str(lst),
                              path_root=str(lst.parent))


@pytest.mark.parametrize("text, words", [
    ("0\t1\ta.png\n1\tb.png\n", ["line 2", "3"]),         # before: line 2 dropped
    ("0 1 a.png\n1 0 a.png\n", ["line 1", "tab"]),         # before: empty iterator
    ("x\t1\ta.png\n", ["line 1"]),
    ("0\tcat\ta.png\n", ["line 1"]),
    ("\n\n", ["no images"]),
], ids=["two-fields", "spaces", "index-str", "label-str", "empty"])
def test_hostile_lst_files(tmp_path, text, words):
    _png(tmp_path / "a.png")
    lst = tmp_path / "hostile.lst"
    lst.write_text(text)
    _refused(lambda: _iter(lst), lst, words=words)


def test_lst_naming_a_missing_image_or_list(tmp_path):
    lst = tmp_path / "missing-image.lst"
    lst.write_text("0\t1\tnone.png\n")
    it = _iter(lst)
    _refused(it.next, "none.png", FileNotFoundError)
    _refused(lambda: _iter(tmp_path / "none.lst"), "none.lst", FileNotFoundError)


def test_good_lst_still_reads(tmp_path):
    _png(tmp_path / "a.png")
    _png(tmp_path / "b.png", (200, 0, 0))
    lst = tmp_path / "good.lst"
    lst.write_text("0\t1\ta.png\n\n5\t0\tb.png\n")
    it = _iter(lst)
    labels = [it.next().label[0].asnumpy().tolist() for _ in range(2)]
    assert labels == [[1.0], [0.0]]


def _big_png():
    import zlib

    def chunk(tag, data):
        return struct.pack(">I", len(data)) + tag + data + struct.pack(
            ">I", zlib.crc32(tag + data))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 100_000, 100_000,
                                                               8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(b"\0" * 100)) + chunk(b"IEND", b""))


@pytest.mark.parametrize("make", [
    lambda: b"",
    lambda: os.urandom(100),
    lambda: b"\x89PNG\r\n\x1a\n" + b"\0" * 30,
    _big_png,
    lambda: b"GIF89a" + b"\xff" * 20,
], ids=["empty", "garbage", "truncated-png", "decompression-bomb", "broken-gif"])
def test_hostile_image_files(tmp_path, make):
    p = tmp_path / "hostile.png"
    p.write_bytes(make())
    _refused(lambda: mx.image.imread(str(p)), p)
    lst = tmp_path / "one.lst"
    lst.write_text("0\t1\thostile.png\n")
    _refused(_iter(lst).next, p)
    with pytest.raises(MXNetError) as info:
        mx.image.imdecode(p.read_bytes())
    assert isinstance(info.value, ValueError)


# ------------------------------------------------------------------ symbol JSON
_SYM_X = {"op": "null", "name": "data", "inputs": []}


@pytest.mark.parametrize("text", [
    '{"nodes": 5, "heads": []}',
    json.dumps({"nodes": ["abc"], "heads": [[0, 0, 0]]}),
    json.dumps({"nodes": [_SYM_X, {"op": "relu", "name": "r", "inputs": [[0, 0, 0]]}],
                "heads": [[1, 5, 0]]}),
    '{"nodes": [{"op":"null","name":"data","inputs":[]}], "heads": [[1e999, 0, 0]]}',
    "[" * 100_000 + "]" * 100_000,
    "",
    "\xff\xfe not json",
], ids=["nodes-int", "node-str", "head-output-5", "head-inf", "deep", "empty", "binary"])
def test_hostile_symbol_files(tmp_path, text):
    p = tmp_path / "hostile-symbol.json"
    p.write_bytes(text.encode("latin-1"))
    _refused(lambda: mx.sym.load(str(p)), p)
    _refused(lambda: gluon.SymbolBlock.imports(str(p), ["data"]), p)


def test_rec_record_length_checked_before_reading(tmp_path):
    # before: a header announcing 2^29 bytes made read() allocate 512 MB first
    import tracemalloc
    p = tmp_path / "huge-record.rec"
    p.write_bytes(struct.pack("<II", 0xCED7230A, (1 << 29) - 1) + b"abc")
    r = mx.recordio.MXRecordIO(str(p), "r")
    tracemalloc.start()
    try:
        _refused(r.read, p, words=["536870911"])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        r.close()
    assert peak < 1 << 20


def test_rec_image_header_with_too_many_labels(tmp_path):
    # before (and in MXNet): a bare "ValueError: buffer is smaller than requested size"
    idx, rec = str(tmp_path / "labels.idx"), str(tmp_path / "labels.rec")
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    w.write_idx(0, struct.pack("IfQQ", 2 ** 31, 0.0, 1, 0) + b"abcd")
    w.close()
    r = mx.recordio.MXIndexedRecordIO(idx, rec, "r")
    with pytest.raises(MXNetError) as info:
        mx.recordio.unpack(r.read_idx(0))
    r.close()
    assert isinstance(info.value, ValueError) and "2147483648 float labels" in str(info.value)


# ------------------------------------------------------------------ CIFAR archives
def _tar(path, members):
    import tarfile
    with tarfile.open(str(path), "w:gz") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))


@pytest.mark.parametrize("old_python", [False, True], ids=["filter", "no-filter"])
def test_cifar_archive_escaping_its_folder_is_refused(tmp_path, monkeypatch, old_python):
    import tarfile
    root = tmp_path / "root"
    root.mkdir()
    _tar(root / "cifar-10-binary.tar.gz", [("../evil.bin", b"x" * 10)])
    if old_python:     # Python without extraction filters: mxgrad checks by hand
        real = tarfile.TarFile.extractall

        def extractall(self, path=".", members=None, *, numeric_owner=False, **kw):
            if "filter" in kw:
                raise TypeError("extractall() got an unexpected keyword argument 'filter'")
            return real(self, path, members, numeric_owner=numeric_owner)
        monkeypatch.setattr(tarfile.TarFile, "extractall", extractall)
    _refused(lambda: gluon.data.vision.CIFAR10(root=str(root)), "cifar-10-binary.tar.gz")
    assert not (tmp_path / "evil.bin").exists()


def test_cifar_corrupt_archive_and_batch(tmp_path):
    root = tmp_path / "root"
    root.mkdir()
    (root / "cifar-10-binary.tar.gz").write_bytes(gzip.compress(b"not a tar file" * 40))
    _refused(lambda: gluon.data.vision.CIFAR10(root=str(root)), "cifar-10-binary.tar.gz")
    for i in range(1, 6):
        (root / f"data_batch_{i}.bin").write_bytes(b"\0" * 3073)
    (root / "data_batch_3.bin").write_bytes(b"\0" * 3000)        # not whole records
    _refused(lambda: gluon.data.vision.CIFAR10(root=str(root)), "data_batch_3.bin")


def test_states_pickles_that_would_run_code_are_refused_naming_the_file(tmp_path):
    import pickle
    import warnings

    class Evil:
        def __reduce__(self):
            return (os.system, ("echo pwned > " + str(tmp_path / "pwned"),))

    _, tr = _trainer()
    for i, payload in enumerate([pickle.dumps(Evil()), pickle.dumps({0: (Evil(), None)}),
                                 b"\x80\x04\x95" + b"\xff" * 20]):
        p = tmp_path / f"evil{i}.states"
        p.write_bytes(payload)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _refused(lambda: tr.load_states(str(p), allow_pickle=True), p)
    assert not (tmp_path / "pwned").exists()
