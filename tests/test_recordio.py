"""mx.recordio against files written by MXNet 1.9.1 (tools/make_image_fixtures.py):
mxgrad reads MXNet's .rec/.idx and writes byte-identical ones for the same records."""
import json
import os
import pickle

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "image")
with open(os.path.join(DATA, "records.json")) as _f:
    INFO = json.load(_f)
EXP = np.load(os.path.join(DATA, "expected.npz"))
PAYLOADS = [bytes.fromhex(h) for h in INFO["written"]]


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def test_reads_mxnet_files_sequentially_and_by_index():
    r = mx.recordio.MXRecordIO(os.path.join(DATA, "misc.rec"), "r")
    got = []
    while True:
        item = r.read()
        if item is None:
            break
        got.append(item)
    assert [g.hex() for g in got] == INFO["read"]
    assert got == PAYLOADS  # including the record split at its magic words, and b""
    r.reset()
    assert r.read() == PAYLOADS[0]
    r.close()
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "misc.idx"),
                                      os.path.join(DATA, "misc.rec"), "r")
    assert r.keys == INFO["keys"]
    for key, payload in zip(reversed(r.keys), reversed(PAYLOADS)):
        assert r.read_idx(key) == payload
    r.close()


@pytest.mark.parametrize("indexed", [True, False])
def test_writes_byte_identical_files(tmp_path, indexed):
    rec, idx = str(tmp_path / "out.rec"), str(tmp_path / "out.idx")
    if indexed:
        w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
        positions = []
        for key, payload in zip(INFO["keys"], PAYLOADS):
            positions.append(w.tell())
            w.write_idx(key, payload)
    else:
        w = mx.recordio.MXRecordIO(rec, "w")
        for payload in PAYLOADS:
            w.write(payload)
    w.close()
    assert _read(rec) == _read(os.path.join(DATA, "misc.rec"))
    if indexed:
        assert _read(idx) == _read(os.path.join(DATA, "misc.idx"))
        assert positions == [int(line.split("\t")[1]) for line in
                             _read(idx).decode().splitlines()]


def test_image_records_rewrite_identically(tmp_path):
    src = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "images.idx"),
                                        os.path.join(DATA, "images.rec"), "r")
    rec, idx = str(tmp_path / "i.rec"), str(tmp_path / "i.idx")
    with mx.recordio.MXIndexedRecordIO(idx, rec, "w") as w:
        for key in src.keys:
            w.write_idx(key, src.read_idx(key))
    assert _read(rec) == _read(os.path.join(DATA, "images.rec"))
    assert _read(idx) == _read(os.path.join(DATA, "images.idx"))


def test_pack_unpack_match_mxnet():
    flag, label, id_, id2, rest = INFO["unpack5"]
    header, s = mx.recordio.unpack(PAYLOADS[5])
    assert (header.flag, header.label, header.id, header.id2, s.hex()) == \
        (flag, label, id_, id2, rest)
    assert mx.recordio.pack(mx.recordio.IRHeader(0, 3.5, 42, 0), b"payload") == PAYLOADS[5]
    flag, label, id_, id2, rest = INFO["unpack6"]
    header, s = mx.recordio.unpack(PAYLOADS[6])
    assert header.flag == flag == 3 and header.label.tolist() == label
    assert header.label.dtype == np.float32 and (header.id, header.id2) == (id_, id2)
    assert s.hex() == rest
    assert mx.recordio.pack(mx.recordio.IRHeader(0, [1.0, 2.0, 3.0], 7, 1), b"arr") == \
        PAYLOADS[6]
    assert mx.recordio.pack((5, np.array([1.0, 2.0, 3.0]), 7, 1), b"arr") == PAYLOADS[6]


def test_unpack_img_matches_mxnet_and_pack_img_round_trips():
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "images.idx"),
                                      os.path.join(DATA, "images.rec"), "r")
    for i in r.keys:
        header, img = mx.recordio.unpack_img(r.read_idx(i))
        np.testing.assert_array_equal(img, EXP[f"unpack_img_{i}"])  # BGR, as cv2
        assert header.label == float(EXP[f"unpack_img_{i}_label"])
        again = mx.recordio.pack_img(header, img, quality=3, img_fmt=".png")
        h2, img2 = mx.recordio.unpack_img(again)
        np.testing.assert_array_equal(img2, img)
        assert h2 == header
    r.close()
    bgr = EXP["unpack_img_0"]
    _, gray = mx.recordio.unpack_img(mx.recordio.pack_img((0, 0.0, 0, 0), bgr, img_fmt=".png"),
                                     iscolor=0)
    assert gray.shape == bgr.shape[:2]
    _, jpg = mx.recordio.unpack_img(mx.recordio.pack_img((0, 0.0, 0, 0),
                                                         np.full((8, 8, 3), 77, np.uint8)))
    assert np.abs(jpg.astype(int) - 77).max() <= 2  # JPEG is lossy
    with pytest.raises(ValueError, match="img_fmt"):
        mx.recordio.pack_img((0, 0.0, 0, 0), bgr, img_fmt=".gif")


def test_split_records_round_trip(tmp_path):
    magic = (0xced7230a).to_bytes(4, "little")
    records = [magic * 3, b"a" + magic * 2, b"abcd" + magic, magic + b"xyz", b"q" * 1001]
    path = str(tmp_path / "s.rec")
    w = mx.recordio.MXRecordIO(path, "w")
    for rec in records:
        w.write(rec)
    w.close()
    data = _read(path)
    assert len(data) % 4 == 0
    r = mx.recordio.MXRecordIO(path, "r")
    assert [r.read() for _ in records] == records and r.read() is None


def test_errors(tmp_path):
    with pytest.raises(ValueError, match="flag"):
        mx.recordio.MXRecordIO(str(tmp_path / "x.rec"), "a")
    with pytest.raises(MXNetError, match="cannot open"):
        mx.recordio.MXRecordIO(str(tmp_path / "missing.rec"), "r")
    w = mx.recordio.MXRecordIO(str(tmp_path / "x.rec"), "w")
    with pytest.raises(TypeError, match="encode"):
        w.write("text")
    with pytest.raises(MXNetError, match="writing"):
        w.read()
    w.write(b"abc")
    w.close()
    with pytest.raises(MXNetError, match="closed"):
        w.write(b"x")
    r = mx.recordio.MXRecordIO(str(tmp_path / "x.rec"), "r")
    with pytest.raises(MXNetError, match="reading"):
        r.write(b"x")
    (tmp_path / "bad.rec").write_bytes(b"\x00" * 12)
    with pytest.raises(ValueError, match="magic"):
        mx.recordio.MXRecordIO(str(tmp_path / "bad.rec"), "r").read()
    (tmp_path / "short.rec").write_bytes(_read(os.path.join(DATA, "misc.rec"))[:10])
    with pytest.raises(ValueError, match="truncated"):
        mx.recordio.MXRecordIO(str(tmp_path / "short.rec"), "r").read()
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "misc.idx"),
                                      os.path.join(DATA, "misc.rec"), "r")
    with pytest.raises(KeyError, match="no record with key 3"):
        r.read_idx(3)
    with pytest.raises(ValueError, match="at least"):
        mx.recordio.unpack(b"short")


def test_pickle_reopens(tmp_path):
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "misc.idx"),
                                      os.path.join(DATA, "misc.rec"), "r")
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.read_idx(50) == PAYLOADS[5] and r2.keys == r.keys


def test_record_file_dataset():
    ds = mx.gluon.data.RecordFileDataset(os.path.join(DATA, "misc.rec"))
    assert len(ds) == len(PAYLOADS)
    assert [ds[i] for i in range(len(ds))] == PAYLOADS


def test_read_idx_is_safe_across_threads():
    from concurrent.futures import ThreadPoolExecutor
    r = mx.recordio.MXIndexedRecordIO(os.path.join(DATA, "misc.idx"),
                                      os.path.join(DATA, "misc.rec"), "r")
    keys = r.keys * 50
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(r.read_idx, keys))
    assert got == PAYLOADS * 50
    loader = mx.gluon.data.DataLoader(mx.gluon.data.vision.ImageRecordDataset(
        os.path.join(DATA, "images.rec"), transform=lambda d, l: (d[:5], l)),
        batch_size=2, num_workers=2, thread_pool=True)
    assert [l.asnumpy().tolist() for _, l in loader] == [[0.5, 1.5], [2.5]]
