"""Tests for gluon.data: datasets, samplers, DataLoader, vision datasets and transforms."""
import gzip
import os
import struct

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.gluon import data as gdata
from mxgrad.gluon.data import (ArrayDataset, BatchSampler, DataLoader, FilterSampler,
                               IntervalSampler, RandomSampler, SequentialSampler,
                               SimpleDataset, default_batchify_fn)
from mxgrad.gluon.data.vision import transforms as T
from mxgrad.gluon.data.vision import datasets as vdatasets


# ----------------------------------------------------------------------------- datasets
def test_simple_dataset_wraps_list():
    ds = SimpleDataset([3, 1, 4])
    assert len(ds) == 3 and ds[2] == 4
    assert list(ds) == [3, 1, 4]


def test_array_dataset_single_and_multiple():
    X = np.arange(12, dtype=np.float32).reshape(4, 3)
    y = np.array([1, 0, 1, 1])
    ds = ArrayDataset(X)
    np.testing.assert_array_equal(ds[1], X[1])
    ds2 = ArrayDataset(X, y, [10, 20, 30, 40])
    x1, y1, z1 = ds2[2]
    np.testing.assert_array_equal(x1, X[2])
    assert y1 == 1 and z1 == 30
    assert len(ds2) == 4


def test_array_dataset_ndarray_components():
    X = nd.array(np.arange(8).reshape(4, 2))
    y = nd.array([5, 6, 7, 8])
    x2, y2 = ArrayDataset(X, y)[2]
    assert isinstance(x2, nd.NDArray) and x2.shape == (2,)
    np.testing.assert_array_equal(x2.asnumpy(), [4, 5])
    # a 1-D NDArray is converted to NumPy, as in MXNet: its samples are NumPy scalars
    assert isinstance(y2, np.generic) and y2 == 7 and y2.dtype == np.float32


def test_array_dataset_length_mismatch_is_clear():
    with pytest.raises(ValueError, match="same length.*argument 0 has length 3.*argument 1 "
                                         "has length 2"):
        ArrayDataset([1, 2, 3], [1, 2])
    # MXNet raises AssertionError here: code catching it keeps working
    with pytest.raises(AssertionError):
        ArrayDataset(np.zeros(3), np.zeros(4))
    with pytest.raises(mx.MXNetError):
        ArrayDataset()


def test_transform_and_transform_first():
    ds = ArrayDataset([1, 2, 3], [10, 20, 30])
    assert list(ds.transform(lambda x, y: x * y)) == [10, 40, 90]
    assert list(ds.transform_first(lambda x: -x)) == [(-1, 10), (-2, 20), (-3, 30)]
    calls = []

    def f(x):
        calls.append(x)
        return x + 1
    eager = SimpleDataset([1, 2]).transform(f, lazy=False)
    assert calls == [1, 2] and isinstance(eager, SimpleDataset) and list(eager) == [2, 3]
    lazy = SimpleDataset([1, 2]).transform(f)
    assert len(calls) == 2 and lazy[0] == 2 and len(calls) == 3
    # transform_first on a non-tuple sample transforms the sample itself
    assert list(SimpleDataset([1, 2]).transform_first(lambda x: x * 5)) == [5, 10]


def test_filter_take_shard_sample():
    ds = SimpleDataset(list(range(10)))
    assert list(ds.filter(lambda x: x % 4 == 0)) == [0, 4, 8]
    assert list(ds.take(3)) == [0, 1, 2]
    assert len(ds.take(None)) == 10 and len(ds.take(50)) == 10
    shards = [list(ds.shard(3, i)) for i in range(3)]
    assert shards == [[0, 1, 2, 3], [4, 5, 6], [7, 8, 9]]
    with pytest.raises(ValueError, match="index 3 is out of range"):
        ds.shard(3, 3)
    assert list(ds.sample(SequentialSampler(2, start=5))) == [5, 6]
    with pytest.raises(mx.MXNetError, match="Sampler"):
        ds.sample([1, 2])


def test_record_file_dataset_missing_file_is_a_clear_error(tmp_path):
    # RecordFileDataset itself is tested in tests/test_recordio.py
    with pytest.raises(mx.MXNetError, match="x.rec"):
        gdata.RecordFileDataset(str(tmp_path / "x.rec"))


# ----------------------------------------------------------------------------- samplers
def test_sequential_sampler():
    assert list(SequentialSampler(4)) == [0, 1, 2, 3]
    assert list(SequentialSampler(2, 3)) == [3, 4] and len(SequentialSampler(2, 3)) == 2
    with pytest.raises(ValueError):
        SequentialSampler(-1)


def test_random_sampler_is_a_seeded_permutation():
    mx.random.seed(7)
    a = list(RandomSampler(50))
    b = list(RandomSampler(50))
    mx.random.seed(7)
    a2 = list(RandomSampler(50))
    assert sorted(a) == list(range(50)) and a != list(range(50))
    assert a == a2 and a != b
    assert all(type(i) is int for i in a)
    assert len(RandomSampler(5)) == 5


def test_random_sampler_new_order_each_pass():
    mx.random.seed(0)
    s = RandomSampler(30)
    assert list(s) != list(s)


def test_batch_sampler_modes():
    seq = SequentialSampler(7)
    keep = BatchSampler(seq, 3, "keep")
    assert list(keep) == [[0, 1, 2], [3, 4, 5], [6]] and len(keep) == 3
    discard = BatchSampler(seq, 3, "discard")
    assert list(discard) == [[0, 1, 2], [3, 4, 5]] and len(discard) == 2
    roll = BatchSampler(seq, 3, "rollover")
    assert len(roll) == 2
    assert list(roll) == [[0, 1, 2], [3, 4, 5]]
    assert len(roll) == 2   # (1 left over + 7) // 3
    assert list(roll) == [[6, 0, 1], [2, 3, 4]]
    assert len(roll) == 3   # (2 left over + 7) // 3
    assert list(roll) == [[5, 6, 0], [1, 2, 3], [4, 5, 6]]


def test_batch_sampler_errors():
    with pytest.raises(ValueError, match="last_batch must be one of"):
        BatchSampler(SequentialSampler(3), 2, "drop")
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(SequentialSampler(3), 0)
    with pytest.raises(ValueError, match="batch_size"):
        BatchSampler(SequentialSampler(3), 2.5)


def test_filter_and_interval_samplers():
    assert list(FilterSampler(lambda x: x > 1, [0, 5, 1, 7])) == [1, 3]
    assert len(FilterSampler(lambda x: x > 1, [0, 5, 1, 7])) == 2
    assert list(IntervalSampler(7, 3)) == [0, 3, 6, 1, 4, 2, 5]
    assert list(IntervalSampler(7, 3, rollover=False)) == [0, 3, 6]
    assert len(IntervalSampler(7, 3)) == 7 and len(IntervalSampler(7, 3, False)) == 3


# --------------------------------------------------------------------------- batchify
def test_default_batchify_dtypes():
    b = default_batchify_fn([nd.ones((2,), dtype="float64"), nd.zeros((2,), dtype="float64")])
    assert b.shape == (2, 2) and b.dtype == np.float64
    ints = default_batchify_fn([1, 2, 3])
    assert ints.dtype == np.int64 and ints.asnumpy().tolist() == [1, 2, 3]
    floats = default_batchify_fn([0.5, 1.5])
    assert floats.dtype == np.float64
    f32 = default_batchify_fn([np.float32(1), np.float32(2)])
    assert f32.dtype == np.float32
    arrs = default_batchify_fn([np.zeros((2, 3), np.uint8), np.ones((2, 3), np.uint8)])
    assert arrs.shape == (2, 2, 3) and arrs.dtype == np.uint8


def test_default_batchify_tuples_give_a_list():
    b = default_batchify_fn([(nd.ones((3,)), 1), (nd.zeros((3,)), 0)])
    assert isinstance(b, list) and len(b) == 2
    np.testing.assert_array_equal(b[0].asnumpy(), [[1, 1, 1], [0, 0, 0]])
    assert b[1].asnumpy().tolist() == [1, 0]


def test_default_batchify_ragged_is_a_clear_error():
    with pytest.raises(ValueError, match=r"different shapes.*\(2,\).*\(3,\)"):
        default_batchify_fn([nd.ones((2,)), nd.ones((3,))])
    with pytest.raises(ValueError, match="different shapes"):
        default_batchify_fn([np.ones(2), np.ones(3)])


def test_default_batchify_does_not_share_memory_with_an_array_input():
    a = np.zeros(3, np.float32)
    b = default_batchify_fn(a)
    a[0] = 5
    assert b.asnumpy()[0] == 0


# ---------------------------------------------------------------------------- DataLoader
def _xy(n=10):
    X = np.arange(n * 3, dtype=np.float32).reshape(n, 3)
    y = np.arange(n, dtype=np.int64) % 3
    return X, y


def test_dataloader_batches_in_order():
    X, y = _xy()
    loader = DataLoader(ArrayDataset(nd.array(X), y), batch_size=4)
    assert len(loader) == 3
    batches = list(loader)
    assert [b[0].shape for b in batches] == [(4, 3), (4, 3), (2, 3)]
    assert all(isinstance(b, list) for b in batches)
    np.testing.assert_array_equal(np.concatenate([b[0].asnumpy() for b in batches]), X)
    np.testing.assert_array_equal(np.concatenate([b[1].asnumpy() for b in batches]), y)
    assert batches[0][0].dtype == np.float32 and batches[0][1].dtype == np.int64


def test_dataloader_label_dtype_follows_numpy_dtype():
    X, _ = _xy(4)
    for lab, dt in ((np.array([0, 1, 2, 3], np.int32), np.int32),
                    (nd.array([0, 1, 2, 3]), np.float32),
                    (np.array([0., 1., 2., 3.]), np.float64)):
        (_, yb), = DataLoader(ArrayDataset(X, lab), batch_size=4)
        assert yb.dtype == dt and yb.asnumpy().tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("last_batch,expect", [
    ("keep", [4, 4, 2]), ("discard", [4, 4]), (None, [4, 4, 2])])
def test_dataloader_last_batch(last_batch, expect):
    X, y = _xy()
    loader = DataLoader(ArrayDataset(X, y), batch_size=4, last_batch=last_batch)
    assert [len(b[1]) for b in loader] == expect and len(loader) == len(expect)


def test_dataloader_rollover():
    X, _ = _xy()
    loader = DataLoader(ArrayDataset(X), batch_size=4, last_batch="rollover")
    first = [b.asnumpy()[:, 0].tolist() for b in loader]
    assert first == [[0, 3, 6, 9], [12, 15, 18, 21]]
    second = [b.asnumpy()[:, 0].tolist() for b in loader]
    assert second[0] == [24, 27, 0, 3] and len(second) == 3


def test_dataloader_shuffle_seeded_and_complete():
    X, y = _xy(20)
    ds = ArrayDataset(X, y)
    mx.random.seed(3)
    e1 = np.concatenate([xb.asnumpy()[:, 0] for xb, _ in DataLoader(ds, 6, shuffle=True)])
    e2 = np.concatenate([xb.asnumpy()[:, 0] for xb, _ in DataLoader(ds, 6, shuffle=True)])
    mx.random.seed(3)
    e1b = np.concatenate([xb.asnumpy()[:, 0] for xb, _ in DataLoader(ds, 6, shuffle=True)])
    assert sorted(e1.tolist()) == sorted(X[:, 0].tolist())
    assert not np.array_equal(e1, X[:, 0]) and not np.array_equal(e1, e2)
    np.testing.assert_array_equal(e1, e1b)


def test_dataloader_shuffle_pairs_stay_together():
    X, y = _xy(15)
    for xb, yb in DataLoader(ArrayDataset(X, y), batch_size=4, shuffle=True):
        np.testing.assert_array_equal(yb.asnumpy(), (xb.asnumpy()[:, 0] / 3).astype(int) % 3)


def test_dataloader_argument_errors():
    ds = ArrayDataset(np.zeros((4, 2)))
    with pytest.raises(ValueError, match="batch_size must be specified"):
        DataLoader(ds)
    with pytest.raises(ValueError, match="shuffle must not be specified"):
        DataLoader(ds, 2, shuffle=True, sampler=SequentialSampler(4))
    bs = BatchSampler(SequentialSampler(4), 2)
    for kw in ({"batch_size": 2}, {"shuffle": True}, {"sampler": SequentialSampler(4)},
               {"last_batch": "keep"}):
        with pytest.raises(ValueError, match="must not be specified if batch_sampler"):
            DataLoader(ds, batch_sampler=bs, **kw)
    with pytest.raises(ValueError, match="last_batch"):
        DataLoader(ds, 2, last_batch="all")


def test_dataloader_with_sampler_and_batch_sampler():
    ds = SimpleDataset([10, 11, 12, 13, 14])
    got = [b.asnumpy().tolist() for b in DataLoader(ds, 2, sampler=SequentialSampler(3, 2))]
    assert got == [[12, 13], [14]]
    bs = BatchSampler(SequentialSampler(5), 5)
    (b,), = [[x.asnumpy().tolist()] for x in DataLoader(ds, batch_sampler=bs)]
    assert b == [10, 11, 12, 13, 14]


def test_dataloader_custom_batchify_fn():
    ds = SimpleDataset(["a", "b", "c"])
    assert list(DataLoader(ds, 2, batchify_fn=lambda items: "".join(items))) == ["ab", "c"]


def test_dataloader_fast_path_matches_sample_by_sample():
    X, y = _xy(9)
    cases = [ArrayDataset(nd.array(X), y), ArrayDataset(X, nd.array(y.astype(np.float32))),
             ArrayDataset(nd.array(X, dtype="uint8")), nd.array(X), nd.array(y), X, y,
             ArrayDataset(X, y).take(7), ArrayDataset(X, y).shard(2, 1)]

    def slow(items):
        return default_batchify_fn(items)
    for ds in cases:
        fast = list(DataLoader(ds, 4))
        ref = list(DataLoader(ds, 4, batchify_fn=slow))
        assert len(fast) == len(ref)
        for f, r in zip(fast, ref):
            f, r = (f, r) if isinstance(f, list) else ([f], [r])
            assert len(f) == len(r)
            for a, b in zip(f, r):
                assert a.shape == b.shape and a.dtype == b.dtype, (ds, a.shape, b.shape)
                np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())


def test_dataloader_over_1d_ndarray_gives_column_batches():
    # samples of a 1-D NDArray have shape (1,) (no 0-d arrays), so batches are (B, 1)
    (b,) = list(DataLoader(nd.array([1, 2, 3]), batch_size=3))
    assert b.shape == (3, 1)


def test_dataloader_num_workers_run_in_process():
    X, y = _xy(8)
    ds = ArrayDataset(X, y).transform_first(lambda x: x * 2)
    a = [xb.asnumpy() for xb, _ in DataLoader(ds, 3, num_workers=2, thread_pool=True,
                                              prefetch=4, pin_memory=True)]
    b = [xb.asnumpy() for xb, _ in DataLoader(ds, 3)]
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(np.concatenate(a), X * 2)


def test_dataloader_iterator_len_and_reiteration():
    loader = DataLoader(SimpleDataset(list(range(5))), 2)
    it = iter(loader)
    assert len(it) == 3
    assert [b.asnumpy().tolist() for b in it] == [[0, 1], [2, 3], [4]]
    assert len(list(loader)) == 3


def test_dataloader_batches_are_not_recorded_and_trainable():
    X, y = _xy(4)
    (xb, yb), = DataLoader(ArrayDataset(nd.array(X), y), 4)
    w = nd.ones((3,))
    w.attach_grad()
    with mx.autograd.record():
        loss = (xb * w).sum()
    loss.backward()
    np.testing.assert_allclose(w.grad.asnumpy(), X.sum(axis=0))


# ------------------------------------------------------------------------ vision: MNIST
def _write_idx(path, arr, gz):
    arr = np.asarray(arr, dtype=np.uint8)
    head = struct.pack(">BBBB", 0, 0, 8, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    opener = gzip.open if gz else open
    with opener(path, "wb") as f:
        f.write(head + arr.tobytes())


def _fake_mnist(root, gz=True, n_train=5, n_test=3, side=28):
    rng = np.random.default_rng(0)
    out = {}
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        imgs = rng.integers(0, 256, size=(n, side, side), dtype=np.uint8)
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        suffix = ".gz" if gz else ""
        _write_idx(os.path.join(root, f"{prefix}-images-idx3-ubyte{suffix}"), imgs, gz)
        _write_idx(os.path.join(root, f"{prefix}-labels-idx1-ubyte{suffix}"), labels, gz)
        out[prefix] = (imgs, labels)
    return out


@pytest.fixture
def no_download(monkeypatch):
    def refuse(url, path, sha1_hash=None):
        raise AssertionError(f"test tried to download {url}")
    monkeypatch.setattr(vdatasets, "_download", refuse)


@pytest.mark.parametrize("gz", [True, False])
def test_mnist_reads_idx_files(tmp_path, gz, no_download):
    ref = _fake_mnist(str(tmp_path), gz=gz)
    train = gdata.vision.MNIST(root=str(tmp_path), train=True)
    test = gdata.vision.MNIST(root=str(tmp_path), train=False)
    assert len(train) == 5 and len(test) == 3
    img, label = train[2]
    assert isinstance(img, nd.NDArray) and img.shape == (28, 28, 1) and img.dtype == np.uint8
    np.testing.assert_array_equal(img.asnumpy()[:, :, 0], ref["train"][0][2])
    assert label == ref["train"][1][2] and label.dtype == np.int32
    img_t, label_t = test[1]
    np.testing.assert_array_equal(img_t.asnumpy()[:, :, 0], ref["t10k"][0][1])
    assert label_t == ref["t10k"][1][1]


def test_mnist_transform_and_dataloader(tmp_path, no_download):
    ref = _fake_mnist(str(tmp_path))
    ds = gdata.vision.MNIST(root=str(tmp_path),
                            transform=lambda d, l: (d.astype("float32") / 255, l))
    x, l = ds[0]
    assert x.dtype == np.float32
    np.testing.assert_allclose(x.asnumpy()[:, :, 0], ref["train"][0][0] / 255, rtol=1e-6)
    raw = gdata.vision.MNIST(root=str(tmp_path))
    xb, yb = next(iter(DataLoader(raw, batch_size=4)))
    assert xb.shape == (4, 28, 28, 1) and xb.dtype == np.uint8
    assert yb.dtype == np.int32 and yb.asnumpy().tolist() == ref["train"][1][:4].tolist()
    t = T.Compose([T.ToTensor(), T.Normalize(0.13, 0.31)])
    xb, yb = next(iter(DataLoader(raw.transform_first(t), batch_size=5)))
    assert xb.shape == (5, 1, 28, 28) and xb.dtype == np.float32
    np.testing.assert_allclose(xb.asnumpy()[:, 0], (ref["train"][0] / 255 - 0.13) / 0.31,
                               rtol=1e-5, atol=1e-5)


def test_fashion_mnist_same_format(tmp_path, no_download):
    _fake_mnist(str(tmp_path), n_train=2, n_test=2, side=4)
    ds = gdata.vision.FashionMNIST(root=str(tmp_path), train=False)
    assert len(ds) == 2 and ds[0][0].shape == (4, 4, 1)


def test_mnist_bad_files_are_clear_errors(tmp_path, no_download):
    _fake_mnist(str(tmp_path), n_train=3)
    with open(os.path.join(str(tmp_path), "train-labels-idx1-ubyte.gz"), "wb") as f:
        f.write(gzip.compress(b"\x01\x02\x03\x04rubbish"))
    with pytest.raises(mx.MXNetError, match="not an IDX file"):
        gdata.vision.MNIST(root=str(tmp_path))
    _write_idx(os.path.join(str(tmp_path), "train-labels-idx1-ubyte.gz"), [1, 2], True)
    with pytest.raises(mx.MXNetError, match="3 images but .* 2 labels"):
        gdata.vision.MNIST(root=str(tmp_path))
    path = os.path.join(str(tmp_path), "t10k-images-idx3-ubyte.gz")
    with gzip.open(path, "wb") as f:
        f.write(struct.pack(">BBBBIII", 0, 0, 8, 3, 3, 28, 28) + bytes(100))
    with pytest.raises(mx.MXNetError, match="truncated"):
        gdata.vision.MNIST(root=str(tmp_path), train=False)


def test_mnist_missing_file_tries_mirror_url(tmp_path, monkeypatch):
    seen = []

    def fake_download(url, path, sha1_hash=None):
        seen.append((url, os.path.basename(path), sha1_hash))
        raise mx.MXNetError("offline")
    monkeypatch.setattr(vdatasets, "_download", fake_download)
    with pytest.raises(mx.MXNetError, match="offline"):
        gdata.vision.MNIST(root=str(tmp_path / "new"))
    url, name, sha = seen[0]
    assert url.endswith("gluon/dataset/mnist/train-images-idx3-ubyte.gz")
    assert name == "train-images-idx3-ubyte.gz" and len(sha) == 40
    assert os.path.isdir(str(tmp_path / "new"))


def test_cifar10_reads_binary_batches(tmp_path, no_download):
    rng = np.random.default_rng(1)
    root = str(tmp_path)
    ref = {}
    for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
        rec = rng.integers(0, 256, size=(2, 3073), dtype=np.uint8)
        rec[:, 0] %= 10
        rec.tofile(os.path.join(root, name))
        ref[name] = rec
    train = gdata.vision.CIFAR10(root=root)
    test = gdata.vision.CIFAR10(root=root, train=False)
    assert len(train) == 10 and len(test) == 2
    img, label = test[1]
    assert img.shape == (32, 32, 3) and img.dtype == np.uint8 and label.dtype == np.int32
    rec = ref["test_batch.bin"][1]
    np.testing.assert_array_equal(img.asnumpy(), rec[1:].reshape(3, 32, 32).transpose(1, 2, 0))
    assert label == rec[0]


# ----------------------------------------------------------------------- vision: Digits
def test_digits_bundled_split():
    train = gdata.vision.Digits()
    test = gdata.vision.Digits(train=False)
    assert len(train) == 1442 and len(test) == 355
    img, label = train[0]
    assert img.shape == (8, 8, 1) and img.dtype == np.uint8 and label.dtype == np.int32
    table = np.loadtxt(gzip.open(vdatasets._bundled_digits_path(), "rt"), delimiter=",")
    labels = table[:, 64].astype(int)
    np.testing.assert_array_equal(img.asnumpy().ravel(), table[0, :64])
    # the test set is every fifth image of each digit, in file order
    expect = np.concatenate([np.flatnonzero(labels == c)[4::5] for c in range(10)])
    expect.sort()
    xb, yb = next(iter(DataLoader(test, batch_size=400)))
    assert xb.shape == (355, 8, 8, 1) and xb.dtype == np.uint8
    np.testing.assert_array_equal(xb.asnumpy().reshape(355, 64), table[expect, :64])
    np.testing.assert_array_equal(yb.asnumpy(), labels[expect])
    assert np.bincount(yb.asnumpy()).min() >= 34
    xt, _ = next(iter(DataLoader(train, batch_size=2000)))
    rest = np.setdiff1d(np.arange(len(table)), expect)
    np.testing.assert_array_equal(xt.asnumpy().reshape(-1, 64), table[rest, :64])


def test_digits_transform_and_root(tmp_path):
    ds = gdata.vision.Digits(train=False, transform=lambda d, l: (d.astype("float32") / 16, l))
    x, _ = ds[0]
    assert x.dtype == np.float32 and x.asnumpy().max() <= 1.0
    small = tmp_path / "digits.csv.gz"
    labels = [0, 1, 0, 0, 1, 0, 0, 1, 1, 1, 1]
    rows = np.hstack([np.arange(11)[:, None].repeat(64, 1), np.array(labels)[:, None]])
    with gzip.open(str(small), "wt") as f:
        np.savetxt(f, rows, fmt="%d", delimiter=",")
    test = gdata.vision.Digits(train=False, root=str(tmp_path))
    # fifth 0 is row 6, fifth 1 is row 9
    assert [int(img.asnumpy()[0, 0, 0]) for img, _ in test] == [6, 9]
    train = gdata.vision.Digits(train=True, root=str(small))
    assert len(train) == 9 and int(train[6][0].asnumpy()[0, 0, 0]) == 7
    with pytest.raises(mx.MXNetError, match="not found"):
        gdata.vision.Digits(root=str(tmp_path / "nope.csv.gz"))


# --------------------------------------------------------------------------- transforms
def test_to_tensor_hwc_and_batch():
    img = np.arange(2 * 3 * 3, dtype=np.uint8).reshape(2, 3, 3) * 10
    out = T.ToTensor()(nd.array(img, dtype="uint8"))
    assert out.shape == (3, 2, 3) and out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), img.transpose(2, 0, 1) / 255.0, rtol=1e-6)
    batch = np.stack([img, 255 - img])
    out = T.ToTensor()(nd.array(batch, dtype="uint8"))
    assert out.shape == (2, 3, 2, 3)
    np.testing.assert_allclose(out.asnumpy(), batch.transpose(0, 3, 1, 2) / 255.0, rtol=1e-6)
    assert T.ToTensor()(nd.full((1, 1, 1), 255, dtype="uint8")).asscalar() == 1.0
    with pytest.raises(ValueError, match="expected an image"):
        T.ToTensor()(nd.ones((4, 4)))


def test_normalize_scalar_and_per_channel():
    x = np.random.default_rng(0).random((3, 2, 2)).astype(np.float32)
    out = T.Normalize(0.5, 0.25)(nd.array(x))
    np.testing.assert_allclose(out.asnumpy(), (x - 0.5) / 0.25, rtol=1e-6)
    mean, std = (0.1, 0.2, 0.3), (0.5, 1.0, 2.0)
    out = T.Normalize(mean, std)(nd.array(x))
    ref = (x - np.array(mean)[:, None, None]) / np.array(std)[:, None, None]
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=1e-6)
    assert out.dtype == np.float32
    batch = np.stack([x, x * 2])
    out = T.Normalize(mean, std)(nd.array(batch))
    np.testing.assert_allclose(out.asnumpy()[1], (2 * x - np.array(mean)[:, None, None])
                               / np.array(std)[:, None, None], rtol=1e-6)
    with pytest.raises(ValueError, match="mean has 2 values but the input has 3 channels"):
        T.Normalize((0.1, 0.2), 1.0)(nd.array(x))
    with pytest.raises(ValueError, match="apply ToTensor first"):
        T.Normalize()(nd.ones((2, 2)))


def test_normalize_is_differentiable():
    x = nd.ones((2, 1, 1))
    x.attach_grad()
    with mx.autograd.record():
        y = T.Normalize((0., 0.), (2., 4.))(x).sum()
    y.backward()
    np.testing.assert_allclose(x.grad.asnumpy().ravel(), [0.5, 0.25])


def test_compose_and_cast():
    t = T.Compose([T.Cast("float64"), lambda x: x + 1])
    out = t(nd.array([[[1]]], dtype="uint8"))
    assert out.dtype == np.float64 and out.asscalar() == 2.0
    assert len(t) == 2
    # a transform returning a tuple passes the extra values along
    t2 = T.Compose([lambda x: (x, 7), lambda x, y: (x * y, y)])
    out, extra = t2(nd.array([2.]))
    assert out.asscalar() == 14.0 and extra == 7
    with pytest.raises(TypeError, match="callable"):
        T.Compose([1])


def test_resize_nearest_bilinear_keep_ratio():
    img = np.array([[0, 10], [20, 30]], dtype=np.uint8)[:, :, None]
    near = T.Resize(4, interpolation=0)(nd.array(img, dtype="uint8")).asnumpy()[:, :, 0]
    np.testing.assert_array_equal(near, np.repeat(np.repeat(img[:, :, 0], 2, 0), 2, 1))
    bil = T.Resize(4)(nd.array(img, dtype="float32")).asnumpy()[:, :, 0]
    np.testing.assert_allclose(bil[0], [0, 2.5, 7.5, 10])
    np.testing.assert_allclose(bil[:, 0], [0, 5, 15, 20])
    np.testing.assert_allclose(bil[1], [5, 7.5, 12.5, 15])
    assert T.Resize((6, 3))(nd.ones((2, 2, 3))).shape == (3, 6, 3)      # (w, h)
    assert T.Resize(4, keep_ratio=True)(nd.ones((2, 6, 1))).shape == (4, 12, 1)
    assert T.Resize(4, keep_ratio=True)(nd.ones((6, 2, 1))).shape == (12, 4, 1)
    assert T.Resize(3)(nd.ones((5, 4, 4, 1))).shape == (5, 3, 3, 1)
    u8 = T.Resize(4)(nd.array(img, dtype="uint8"))
    assert u8.dtype == np.uint8


def test_center_crop_random_crop_and_flips():
    img = np.arange(36, dtype=np.float32).reshape(6, 6, 1)
    cc = T.CenterCrop((4, 2))(nd.array(img)).asnumpy()[:, :, 0]
    np.testing.assert_array_equal(cc, img[2:4, 1:5, 0])
    assert T.CenterCrop(8)(nd.array(img)).shape == (8, 8, 1)      # resized up
    mx.random.seed(0)
    rc = T.RandomCrop(3)(nd.array(img)).asnumpy()[:, :, 0]
    assert rc.shape == (3, 3)
    r0, c0 = np.argwhere(img[:, :, 0] == rc[0, 0])[0]
    np.testing.assert_array_equal(rc, img[r0:r0 + 3, c0:c0 + 3, 0])
    assert T.RandomResizedCrop(4)(nd.array(img)).shape == (4, 4, 1)
    flip = T.RandomFlipLeftRight(p=1.0)(nd.array(img)).asnumpy()
    np.testing.assert_array_equal(flip, img[:, ::-1])
    same = T.RandomFlipLeftRight(p=0.0)(nd.array(img)).asnumpy()
    np.testing.assert_array_equal(same, img)
    tb = T.RandomFlipTopBottom(p=1.0)(nd.array(img)).asnumpy()
    np.testing.assert_array_equal(tb, img[::-1])
    mx.random.seed(5)
    flips = [T.RandomFlipLeftRight()(nd.array(img)).asnumpy()[0, 0, 0] for _ in range(40)]
    assert 5 < sum(f == 5 for f in flips) < 35


def test_vision_namespace():
    from mxgrad.gluon.data import vision
    for name in ("MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "Digits"):
        assert hasattr(vision, name)
    for name in ("Compose", "Cast", "ToTensor", "Normalize", "Resize", "CenterCrop",
                 "RandomFlipLeftRight"):
        assert hasattr(vision.transforms, name)


def test_transforms_are_gluon_blocks():
    from mxgrad import gluon
    assert isinstance(T.ToTensor(), gluon.HybridBlock)
    assert isinstance(T.Normalize(), gluon.HybridBlock)
    assert isinstance(T.CenterCrop(2), gluon.Block)
    t = T.Compose([T.Resize(4), T.ToTensor(), lambda x: x * 2])
    assert isinstance(t, gluon.Block) and len(t._children) == 2
    t.hybridize()
    out = t(nd.full((2, 2, 1), 255, dtype="uint8"))
    assert out.shape == (1, 4, 4) and float(out.asnumpy().max()) == 2.0
    assert repr(T.Normalize(0.1, 0.3)) == "Normalize(mean=0.1, std=0.3)"
    assert "(1): ToTensor()" in repr(t)


def test_deterministic_transforms_run_once_per_batch(tmp_path, no_download):
    ref = _fake_mnist(str(tmp_path), n_train=7)
    raw = gdata.vision.MNIST(root=str(tmp_path))

    class Counting(T.ToTensor):
        calls = 0

        def forward(self, x, *args):
            Counting.calls += 1
            return super().forward(x)
    t = T.Compose([T.Resize(14, interpolation=0), Counting(), T.Normalize(0.1, 0.3)])
    fast = list(DataLoader(raw.transform_first(t), batch_size=3))
    assert Counting.calls == 3                     # one call per batch
    Counting.calls = 0
    slow = list(DataLoader(raw.transform_first(t), batch_size=3,
                           batchify_fn=lambda items: default_batchify_fn(items)))
    assert Counting.calls == 7                     # one call per sample
    for (xf, yf), (xs, ys) in zip(fast, slow):
        assert xf.shape == xs.shape and xf.dtype == xs.dtype == np.float32
        np.testing.assert_allclose(xf.asnumpy(), xs.asnumpy(), rtol=1e-6)
        np.testing.assert_array_equal(yf.asnumpy(), ys.asnumpy())
    np.testing.assert_allclose(fast[0][0].asnumpy()[:, 0],
                               (ref["train"][0][:3, ::2, ::2] / 255 - 0.1) / 0.3, rtol=1e-5)
    # a random transform or a hook makes every sample go through the transform alone
    Counting.calls = 0
    list(DataLoader(raw.transform_first(T.Compose([Counting(), T.RandomFlipLeftRight()])), 3))
    assert Counting.calls == 7
    Counting.calls = 0
    hooked = Counting()
    hooked.register_forward_hook(lambda blk, inp, out: None)
    list(DataLoader(raw.transform_first(hooked), 3))
    assert Counting.calls == 7
    # transform (not transform_first) of tuple samples is fn(*sample): per sample
    Counting.calls = 0
    list(DataLoader(ArrayDataset(np.zeros((4, 2, 2, 1), np.uint8)).transform(Counting()), 2))
    assert Counting.calls == 2


def test_batches_of_1d_ndarray_labels_train():
    """d2l's train_ch7: ArrayDataset(features, 1-D labels) batches into plain arrays (the
    labels were once held as asnumpy()'s ndarray subclass, which then leaked into the
    gradients and broke backward)."""
    rng = np.random.default_rng(3)
    features = mx.nd.array(rng.random((40, 3)))
    labels = mx.nd.array(rng.random(40))
    w = mx.nd.zeros((3, 1))
    w.attach_grad()
    loader = gdata.DataLoader(gdata.ArrayDataset(features, labels), 10, shuffle=False)
    for X, y in loader:
        assert type(X._data) is np.ndarray and type(y._data) is np.ndarray
        with mx.autograd.record():
            yh = mx.nd.dot(X, w)
            loss = ((yh - y.reshape(yh.shape)) ** 2 / 2).mean()
        loss.backward()
        expect = X.asnumpy().T @ (X.asnumpy() @ w.asnumpy() - y.asnumpy()[:, None]) / 10
        np.testing.assert_allclose(w.grad.asnumpy(), expect, rtol=1e-5, atol=1e-7)
    held = mx.nd.NDArray(np.asarray(features.asnumpy()))
    sub = features.asnumpy()                         # asnumpy(): an ndarray subclass
    assert type(sub) is not np.ndarray
    for a in (mx.nd.NDArray(sub), mx.nd.from_numpy(sub, zero_copy=False)):
        assert type(a._data) is np.ndarray
    assert type((held + mx.nd.array(sub))._data) is np.ndarray
