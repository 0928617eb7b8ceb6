"""Helpers MXNet programs and MXNet's own tests import: mx.base's names, mx.attribute's
AttrScope (a working scope, per thread), mx.nd.op, mx.contrib.io.DataLoaderIter and the
test_utils additions (statistical checks, matrices, download, get_mnist)."""
import gzip
import json
import os
import pathlib
import struct
import threading
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import base, test_utils
from mxgrad.base import MXNetError


# ------------------------------------------------------------------------------ mx.base
def test_base_names():
    assert base._as_list(3) == [3] and base._as_list((1, 2)) == [1, 2]
    lst = [1]
    assert base._as_list(lst) is lst
    err = base.NotImplementedForSymbol(test_base_names, "op", 1, "a")
    assert isinstance(err, MXNetError)
    assert str(err) == ("Function test_base_names (namely operator \"op\") with arguments "
                        "(<class 'int'>, <class 'str'>) is not implemented for Symbol and "
                        "only available in NDArray.")
    import ctypes
    assert base.NDArrayHandle is ctypes.c_void_p
    assert base.c_str("ab").value == b"ab"
    base.check_call(0)
    with pytest.raises(MXNetError):
        base.check_call(-1)


def test_data_dir_follows_mxnet_home(monkeypatch, tmp_path):
    monkeypatch.setenv("MXNET_HOME", str(tmp_path))
    assert base.data_dir() == str(tmp_path)
    monkeypatch.delenv("MXNET_HOME")
    assert base.data_dir() == os.path.join(os.path.expanduser("~"), ".mxnet")


# ------------------------------------------------------------------------- mx.attribute
def test_attr_scope_applies_to_variables_and_operators_and_nests():
    data = mx.sym.var("data")
    with mx.AttrScope(__group__="4", __data__="great"):
        fc1 = mx.sym.Activation(data, act_type="relu")
        with mx.AttrScope(__init_bias__="0.0"):
            fc2 = mx.sym.FullyConnected(fc1, num_hidden=10, name="fc2")
        v = mx.sym.var("v", attr={"__group__": "1"})
    after = mx.sym.var("after")
    assert fc1.attr("__data__") == "great" and fc2.attr("__data__") == "great"
    assert fc2.attr("__init_bias__") == "0.0" and fc1.attr("__init_bias__") is None
    assert v.attr("__group__") == "1"           # the symbol's own attribute wins
    assert data.attr("__data__") is None and after.attr("__group__") is None


def test_attr_scope_is_per_thread_and_refuses_non_strings():
    from mxgrad.attribute import AttrScope
    seen = {}
    event = threading.Event()

    def worker():
        with mx.AttrScope(x="thread"):
            event.wait()
            seen["x"] = mx.sym.var("w").attr("x")

    t = threading.Thread(target=worker)
    t.start()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        AttrScope.current = AttrScope(x="main")
        try:
            event.set()
            t.join()
            assert mx.sym.var("m").attr("x") == "main"
        finally:
            AttrScope.current = AttrScope()
    assert seen["x"] == "thread"
    with pytest.raises(ValueError, match="string"):
        AttrScope(x=1)


# ---------------------------------------------------------------------------- nd.op
def test_nd_op_module_holds_the_nd_functions():
    from mxgrad.ndarray import op
    assert op.exp is mx.nd.exp and op.Convolution is mx.nd.Convolution
    assert "NDArray" not in op.__all__ and "exp" in op.__all__


# ---------------------------------------------------------------------- contrib.io
@pytest.mark.parametrize("last_batch, count", [("discard", 3), ("keep", 4), ("rollover", 3)])
def test_dataloader_iter_batches_and_padding(last_batch, count):
    ds = mx.gluon.data.ArrayDataset(mx.nd.arange(20).reshape((10, 2)), mx.nd.arange(10))
    loader = mx.gluon.data.DataLoader(ds, batch_size=3, last_batch=last_batch)
    it = mx.contrib.io.DataLoaderIter(loader, dtype="float16")
    assert it.provide_data[0].shape == (3, 2) and it.provide_label[0].name == "softmax_label"
    batches = list(it)
    assert len(batches) == count
    assert batches[0].data[0].dtype == np.float16
    if last_batch == "keep":
        assert batches[-1].pad == 2
        assert batches[-1].data[0].asnumpy()[0].tolist() == [18, 19]
        assert batches[-1].label[0].asnumpy().tolist() == [9, 0, 0]
    it.reset()
    assert len(list(it)) == count


def test_dataloader_iter_refuses_non_pairs():
    loader = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(mx.nd.arange(4)), 2)
    with pytest.raises(MXNetError, match="pairs"):
        mx.contrib.io.DataLoaderIter(loader)


# ------------------------------------------------------------------------- test_utils
def test_chi_square_and_verify_generator():
    import mxgrad._test_stats as ts
    # p-values equal SciPy's chi2.sf (values from scipy 1.17)
    assert ts.chi2_sf(10, 5) == pytest.approx(0.07523524614651217, rel=1e-12)
    assert ts.chi2_sf(100, 80) == pytest.approx(0.064570368921133, rel=1e-10)
    assert ts.chi2_sf(50, 10) == pytest.approx(2.669083424904495e-07, rel=1e-10)
    rng = np.random.default_rng(1)
    buckets, probs = test_utils.gen_buckets_probs_with_ppf(lambda p: p, 4)
    assert buckets[1] == (0.25, 0.5) and probs == [0.25] * 4
    pvals = test_utils.verify_generator(lambda n: rng.random(n), buckets, probs, nsamples=4000)
    assert len(pvals) == 5
    with pytest.raises(AssertionError, match="Generator test fails"):
        test_utils.verify_generator(lambda n: rng.random(n) ** 2, buckets, probs,
                                    nsamples=4000)
    p, obs, exp = test_utils.chi_square_check(lambda n: rng.integers(0, 3, n), [0, 1, 2],
                                              [1 / 3] * 3, nsamples=3000)
    assert obs.sum() == 3000 and exp.tolist() == [1000] * 3
    assert test_utils.mean_check(lambda n: rng.normal(2, 1, n), 2, 1, 20000)
    assert not test_utils.mean_check(lambda n: rng.normal(2.2, 1, n), 2, 1, 20000)
    assert test_utils.var_check(lambda n: rng.normal(0, 3, n), 3, 20000)


def test_matrix_helpers():
    m = test_utils.new_sym_matrix_with_real_eigvals_nd((2, 4, 4))
    np.testing.assert_allclose(m, np.swapaxes(m, -1, -2), atol=1e-12)
    m = test_utils.new_matrix_with_real_eigvals_nd((3, 3))
    assert np.abs(np.linalg.eigvals(m).imag).max() < 1e-8
    assert test_utils.effective_dtype(mx.nd.ones((1,), dtype="float16")) == np.float16
    assert test_utils.create_2d_tensor(3, 2).asnumpy().tolist() == [[0, 0], [1, 1], [2, 2]]
    assert test_utils.assign_each2(np.ones(2), np.arange(2), lambda a, b: a + b).tolist() == \
        [1.0, 2.0]
    assert list(test_utils.list_gpus()) == [] and test_utils.is_op_runnable()


def _idx(path, arr):
    head = struct.pack(">4B", 0, 0, 8, arr.ndim) + struct.pack(f">{arr.ndim}I", *arr.shape)
    with gzip.open(path, "wb") as f:
        f.write(head + arr.astype(np.uint8).tobytes())


def test_download_file_url_and_clear_error_without_network(tmp_path):
    src = tmp_path / "src.bin"
    src.write_bytes(b"abc")
    out = test_utils.download(src.as_uri(), dirname=str(tmp_path / "d"))
    assert open(out, "rb").read() == b"abc"
    src.write_bytes(b"new")
    assert open(test_utils.download(src.as_uri(), dirname=str(tmp_path / "d")),
                "rb").read() == b"abc"                       # an existing file is kept
    with pytest.raises(MXNetError, match="could not download"):
        test_utils.download((tmp_path / "missing.bin").as_uri(), dirname=str(tmp_path),
                            retries=0)


def test_download_model_fetches_a_checkpoint_pair(tmp_path):
    # the MXNet tutorials (performance/backend/amp) call test_utils.download_model
    src = tmp_path / "src"
    src.mkdir()
    (src / "s.json").write_text('{"nodes": []}')
    (src / "p.params").write_bytes(b"weights")
    meta = {"tiny": {"symbol": (src / "s.json").as_uri(), "params": (src / "p.params").as_uri()}}
    prefix, epoch = test_utils.download_model("tiny", dst_dir=str(tmp_path / "m"),
                                              meta_info=meta)
    assert (prefix, epoch) == (str(tmp_path / "m" / "tiny"), 0)
    assert open(prefix + "-symbol.json").read() == '{"nodes": []}'
    assert open(prefix + "-0000.params", "rb").read() == b"weights"
    assert test_utils.download_model("other", meta_info=meta) == (None, 0)
    with pytest.raises(MXNetError, match="no 'params' URL"):
        test_utils.download_model("bad", dst_dir=str(tmp_path),
                                  meta_info={"bad": {"symbol": meta["tiny"]["symbol"]}})


def test_download_model_default_table_is_mxnets():
    from mxgrad._test_data import _model_zoo_urls
    path = os.path.join(os.path.dirname(__file__), "data", "mxnet", "download_model_urls.json")
    with open(path) as f:                        # tools/make_download_model_fixture.py
        assert _model_zoo_urls() == json.load(f)


def test_get_mnist_reads_the_local_files(tmp_path, monkeypatch):
    rng = np.random.default_rng(0)
    for part, n in (("train", 3), ("t10k", 2)):
        _idx(tmp_path / f"{part}-labels-idx1-ubyte.gz", rng.integers(0, 10, n))
        _idx(tmp_path / f"{part}-images-idx3-ubyte.gz", rng.integers(0, 256, (n, 28, 28)))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("MXNET_HOME", str(tmp_path / "home"))
    d = test_utils.get_mnist()
    assert d["train_data"].shape == (3, 1, 28, 28) and d["test_label"].dtype == np.int8
    assert d["train_data"].dtype == np.float32 and d["train_data"].max() <= 1.0
    train, val = test_utils.get_mnist_iterator(2, (1, 28, 28))
    assert next(train).data[0].shape == (2, 1, 28, 28)
