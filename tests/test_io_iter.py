"""mx.io iterators against MXNet 1.9.1 (tests/data/mxnet/image/iters.json, written by
tools/make_image_fixtures.py): batches, pads, dtypes and provide_data/provide_label."""
import json
import os
import threading

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "image")
with open(os.path.join(DATA, "iters.json")) as _f:
    ITERS = json.load(_f)

X = np.arange(7 * 2).reshape(7, 2).astype(np.float32)
Y = np.arange(7).astype(np.int32)
CASES = {}
for _lbh in ("pad", "discard", "roll_over"):
    for _bs in (3, 7, 10):
        CASES[f"{_lbh}_bs{_bs}"] = lambda lbh=_lbh, bs=_bs: dict(
            data=X, label=Y, batch_size=bs, last_batch_handle=lbh)
CASES["shuffle_pad"] = lambda: dict(data=X, label=Y, batch_size=3, shuffle=True)
CASES["shuffle_roll"] = lambda: dict(data=X, label=Y, batch_size=3, shuffle=True,
                                     last_batch_handle="roll_over")
CASES["dict_sources"] = lambda: dict(data={"b": X, "a": X * 10}, label={"l": Y}, batch_size=4)
CASES["list_sources"] = lambda: dict(data=[X, X + 100], batch_size=4,
                                     last_batch_handle="discard")
CASES["nd_int_label"] = lambda: dict(data=mx.nd.array(X), label=mx.nd.array(Y, dtype="int32"),
                                     batch_size=4)
CASES["layout_tnc"] = lambda: dict(data=np.arange(2 * 5 * 3).reshape(2, 5, 3), batch_size=2,
                                   layout="TNC")


def _descs(descs):
    return [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout] for d in descs]


@pytest.mark.parametrize("name", sorted(CASES))
def test_ndarrayiter_matches_mxnet(name):
    want = ITERS["ndarrayiter_" + name]
    np.random.seed(0)
    it = mx.io.NDArrayIter(**CASES[name]())
    assert _descs(it.provide_data) == want["provide_data"]
    assert _descs(it.provide_label) == want["provide_label"]
    for epoch in range(3):
        got = []
        for b in it:
            assert isinstance(b, mx.io.DataBatch)
            got.append({"data": [d.asnumpy().tolist() for d in b.data],
                        "data_dtype": [np.dtype(d.dtype).name for d in b.data],
                        "label": [l.asnumpy().tolist() for l in b.label],
                        "label_dtype": [np.dtype(l.dtype).name for l in b.label],
                        "pad": b.pad})
        assert got == want["epochs"][epoch], f"epoch {epoch}"
        it.reset()


def test_ndarrayiter_protocol_and_hard_reset():
    it = mx.io.NDArrayIter(X, Y, batch_size=3, last_batch_handle="roll_over")
    assert it.iter_next() and it.getpad() == 0
    assert it.getdata()[0].asnumpy().tolist() == X[:3].tolist()
    assert it.getlabel()[0].asnumpy().tolist() == Y[:3].tolist()
    assert it.getindex() is None
    assert [b.pad for b in it] == [0]           # the batch at 3:6; 6 is cached for roll over
    it.hard_reset()                             # forget the cached sample
    assert [b.data[0].asnumpy()[0, 0] for b in it] == [0.0, 6.0]
    it = mx.io.NDArrayIter(X, batch_size=2)
    assert it.provide_label == [] and next(it).label == []
    assert len(list(iter(it))) == 3 and it.num_source == 1


def test_ndarrayiter_errors():
    with pytest.raises(ValueError, match="last_batch_handle"):
        mx.io.NDArrayIter(X, batch_size=2, last_batch_handle="wrap")
    with pytest.raises(ValueError, match="same"):
        mx.io.NDArrayIter(X, Y[:3], batch_size=2)
    with pytest.raises(TypeError, match="dict"):
        mx.io.NDArrayIter(5, batch_size=2)
    with pytest.raises(ValueError, match="batch_size"):
        mx.io.NDArrayIter(X, batch_size=0)
    with pytest.raises(MXNetError):
        mx.io.NDArrayIter(None)


def test_datadesc_and_databatch():
    d = mx.io.DataDesc("x", (4, 3), "int32", layout="NC")
    assert tuple(d) == ("x", (4, 3)) and d.dtype == "int32" and d.layout == "NC"
    assert repr(d) == "DataDesc[x,(4, 3),int32,NC]"
    assert mx.io.DataDesc.get_batch_axis(None) == 0
    assert mx.io.DataDesc.get_batch_axis("TNC") == 1
    lst = mx.io.DataDesc.get_list([("a", (1,)), ("b", (2,))], [("a", "int32"), ("b", "uint8")])
    assert [(x.name, x.dtype) for x in lst] == [("a", "int32"), ("b", "uint8")]
    b = mx.io.DataBatch([mx.nd.ones((2, 3))], pad=1, index=np.array([0, 1]))
    assert str(b) == "DataBatch: data shapes: [(2, 3)] label shapes: None"
    with pytest.raises(TypeError, match="list"):
        mx.io.DataBatch(mx.nd.ones((2, 3)))


def test_custom_dataiter_protocol():
    class Counter(mx.io.DataIter):
        def __init__(self):
            super().__init__(batch_size=2)
            self.i = 0

        def iter_next(self):
            self.i += 1
            return self.i <= 2

        def getdata(self):
            return [mx.nd.full((2,), self.i)]

        def getlabel(self):
            return []

        def getpad(self):
            return 0

    batches = list(Counter())
    assert [b.data[0].asnumpy().tolist() for b in batches] == [[1.0, 1.0], [2.0, 2.0]]


def test_resizeiter_matches_mxnet():
    it = mx.io.ResizeIter(mx.io.NDArrayIter(X, Y, batch_size=3), 5)
    assert it.provide_data[0].shape == (3, 2) and it.batch_size == 3
    for epoch in range(2):
        got = [[b.data[0].asnumpy().tolist(), b.pad] for b in it]
        assert got == ITERS["resizeiter"][epoch]
        it.reset()


def test_prefetchingiter():
    a = mx.io.NDArrayIter(X, Y, batch_size=3, data_name="a", label_name="la")
    b = mx.io.NDArrayIter(X * 2, Y, batch_size=3, data_name="b", label_name="lb")
    it = mx.io.PrefetchingIter([a, b], rename_data=[{"a": "x"}, {"b": "y"}])
    assert [d.name for d in it.provide_data] == ["x", "y"]
    assert [d.name for d in it.provide_label] == ["la", "lb"]
    for _ in range(2):
        got = [(batch.data[0].asnumpy(), batch.data[1].asnumpy(), batch.pad) for batch in it]
        assert [g[2] for g in got] == [0, 0, 2]
        for d0, d1, _ in got:
            np.testing.assert_array_equal(d1, 2 * d0)
        np.testing.assert_array_equal(got[2][0], np.concatenate([X[6:], X[:2]]))
        it.reset()
    single = mx.io.PrefetchingIter(mx.io.NDArrayIter(X, batch_size=7))
    assert len(list(single)) == 1
    threads = list(single.prefetch_threads)
    single.close()
    assert not any(t.is_alive() for t in threads)
    it.close()
    mismatched = mx.io.PrefetchingIter([mx.io.NDArrayIter(X, batch_size=3),
                                        mx.io.NDArrayIter(X[:3], batch_size=3)])
    next(mismatched)
    with pytest.raises(ValueError, match="different numbers"):
        next(mismatched)
    mismatched.close()


def test_prefetchingiter_passes_errors_to_the_caller():
    class Broken(mx.io.NDArrayIter):
        def next(self):
            raise RuntimeError("disk on fire")

    it = mx.io.PrefetchingIter(Broken(X, batch_size=2))
    with pytest.raises(RuntimeError, match="disk on fire"):
        next(it)
    it.close()
    assert threading.active_count() >= 1


CSV_CASES = {"csv_round": dict(batch_size=2, round_batch=True),
             "csv_noround": dict(batch_size=2, round_batch=False),
             "csv_nolabel_shape": dict(batch_size=3, data_shape=(2, 3), label_csv=None),
             "csv_labelshape": dict(batch_size=4, label_shape=(1,))}


@pytest.mark.parametrize("name", sorted(CSV_CASES))
def test_csviter_matches_mxnet(name):
    args = dict(data_csv=os.path.join(DATA, "x.csv"), data_shape=(6,),
                label_csv=os.path.join(DATA, "y.csv"))
    args.update(CSV_CASES[name])
    it = mx.io.CSVIter(**args)
    want = ITERS[name]
    assert [[d.name, list(d.shape)] for d in it.provide_data] == want["provide_data"]
    assert [[d.name, list(d.shape)] for d in it.provide_label] == want["provide_label"]
    for epoch in range(3):
        got = [[b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(), b.pad,
                b.index.tolist()] for b in it]
        assert got == want["epochs"][epoch], f"epoch {epoch}"
        it.reset()


def test_csviter_label_shape_and_errors(tmp_path):
    path = tmp_path / "l.csv"
    path.write_text("1,2\n3,4\n")
    it = mx.io.CSVIter(data_csv=str(path), data_shape=(2,), label_csv=str(path),
                       label_shape=(2,), batch_size=2, dtype="int32")
    b = next(it)
    assert b.label[0].shape == (2, 2) and b.data[0].dtype == np.int32
    with pytest.raises(ValueError, match="row 1 has 2 values"):
        mx.io.CSVIter(data_csv=str(path), data_shape=(3,), batch_size=1)
    with pytest.raises(MXNetError, match="cannot read"):
        mx.io.CSVIter(data_csv=str(tmp_path / "missing.csv"), data_shape=(3,), batch_size=1)
    bad = tmp_path / "bad.csv"
    bad.write_text("1,x\n")
    with pytest.raises(ValueError, match="line 1"):
        mx.io.CSVIter(data_csv=str(bad), data_shape=(2,), batch_size=1)
    with pytest.raises(ValueError, match="dtype"):
        mx.io.CSVIter(data_csv=str(path), data_shape=(2,), batch_size=1, dtype="float16")


def test_prefetchingiter_threads_end_when_it_is_dropped():
    import gc
    import weakref
    it = mx.io.PrefetchingIter([mx.io.NDArrayIter(X, batch_size=2),
                                mx.io.NDArrayIter(X, batch_size=2)])
    next(it)
    threads = list(it.prefetch_threads)
    ref = weakref.ref(it)
    del it
    gc.collect()
    assert ref() is None
    for t in threads:
        t.join(timeout=5)
    assert not any(t.is_alive() for t in threads)


def test_ndarray_iter_reads_the_first_samples_of_a_longer_label():
    # MXNet's NDArrayIter sizes the epoch by the data and reads the first samples of a
    # longer label source (MXNet 1.9.1's test_loss relies on it); shorter ones are refused
    it = mx.io.NDArrayIter(mx.nd.arange(4).reshape((4, 1)), {"label": mx.nd.arange(8)},
                           batch_size=2)
    labels = [b.label[0].asnumpy().tolist() for b in it]
    assert labels == [[0.0, 1.0], [2.0, 3.0]]
    with pytest.raises(mx.MXNetError, match="'label' has 3 samples"):
        mx.io.NDArrayIter(mx.nd.zeros((4, 1)), {"label": mx.nd.zeros(3)}, batch_size=2)
