"""The BLAS thread policy (mxgrad/_threads.py): one thread by default, more only for large
products on idle cores, MXNet's environment variables and set_num_threads respected, MPI
ranks sharing the cores. The BLAS's actual thread count is read back with threadpoolctl."""
import json
import os
import subprocess
import sys

import numpy as np
import pytest
from threadpoolctl import threadpool_info

import mxgrad as mx
from mxgrad import _threads

_VARS = _threads._BLAS_VARS + _threads._MXNET_VARS + _threads._LOCAL_RANK_VARS

_PROBE = """
import json, mxgrad as mx
from mxgrad import _threads
from threadpoolctl import threadpool_info
blas = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
print(json.dumps({"get": mx.get_num_threads(), "blas": blas, "share": _threads._share,
                  "cores": _threads._cores}))
"""


def _probe(**env):
    """Import mxgrad in a fresh process with only ``env`` of the thread variables set."""
    full = {k: v for k, v in os.environ.items() if k not in _VARS}
    full.update(env)
    full["PYTHONPATH"] = os.pathsep.join([os.getcwd(), full.get("PYTHONPATH", "")])
    out = subprocess.run([sys.executable, "-W", "error::RuntimeWarning", "-c", _PROBE],
                         env=full, capture_output=True, text=True, timeout=120)
    return out.returncode, out.stdout, out.stderr


def _blas_threads():
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


@pytest.fixture
def restore():
    previous = mx.get_num_threads()
    yield
    mx.set_num_threads(previous)


def test_default_is_one_thread_and_environment_knobs_are_respected():
    code, out, err = _probe()
    assert code == 0, err
    r = json.loads(out)
    assert r["get"] is None and r["blas"] and set(r["blas"]) == {1}
    assert r["share"] == r["cores"] == len(os.sched_getaffinity(0))
    # MXNet's OMP_NUM_THREADS: a fixed count per operator
    r = json.loads(_probe(OMP_NUM_THREADS="2")[1])
    assert r["get"] == 2 and set(r["blas"]) == {2}
    # MXNET_OMP_MAX_THREADS comes first (OpenMP's list syntax: the first number)
    r = json.loads(_probe(OMP_NUM_THREADS="2,1", MXNET_OMP_MAX_THREADS="1")[1])
    assert r["get"] == 1 and set(r["blas"]) == {1}
    # the BLAS's own variable: mxgrad leaves the pool as the BLAS set it
    r = json.loads(_probe(OPENBLAS_NUM_THREADS="2", OMP_NUM_THREADS="1")[1])
    assert r["get"] == 2 and set(r["blas"]) == {2}
    # MPI ranks on this machine share the cores
    r = json.loads(_probe(MPI_LOCALNRANKS=str(r["cores"]))[1])
    assert r["share"] == 1


def test_a_bad_environment_value_warns_naming_the_variable():
    code, out, err = _probe(OMP_NUM_THREADS="four")
    assert code != 0 and "RuntimeWarning" in err
    assert "OMP_NUM_THREADS='four'" in err and "positive number of threads" in err


def test_set_num_threads_sets_the_pool_and_returns_the_previous_setting(restore):
    first = mx.set_num_threads(2)
    assert mx.get_num_threads() == 2 and set(_blas_threads()) == {2}
    assert mx.set_num_threads(None) == 2
    assert mx.get_num_threads() is None and set(_blas_threads()) == {1}
    mx.set_num_threads(first)


@pytest.mark.parametrize("bad, exc, words", [
    (0, mx.base.StateError, ">= 1"), (-2, ValueError, ">= 1"),
    (2.0, mx.base.ArgumentTypeError, "float"), ("2", TypeError, "str"),
    (True, TypeError, "bool")])
def test_set_num_threads_refuses_bad_values(restore, bad, exc, words):
    with pytest.raises(exc, match=words):
        mx.set_num_threads(bad)
    assert isinstance(pytest.raises(exc, mx.set_num_threads, bad).value, mx.MXNetError)


def test_only_a_large_product_on_idle_cores_gets_more_threads(restore, monkeypatch):
    mx.set_num_threads(None)
    monkeypatch.setattr(_threads, "_cores", 4)
    monkeypatch.setattr(_threads, "_share", 4)
    calls = []
    monkeypatch.setattr(_threads, "_set", calls.append)
    big = _threads.BIG_PRODUCT
    for others, want in [(0.0, 4), (1.0, 3), (1.6, 2), (2.8, 1), (5.0, 1)]:
        monkeypatch.setattr(_threads._load, "other_cores", lambda o=others: o)
        assert _threads.threads_for(big) == want, others
        assert _threads.threads_for(big - 1) == 1
    # a product's size counts the batch of either operand
    monkeypatch.setattr(_threads._load, "other_cores", lambda: 1.0)
    a = np.ones((4, 64, 256), np.float32)      # 4 x (64 x 256) @ (256 x 128): 2**23 macs
    b = np.ones((256, 128), np.float32)
    np.testing.assert_array_equal(_threads.matmul(a, b), np.matmul(a, b))
    assert calls == [3, 1]                       # raised for the product, then back to 1
    calls.clear()
    np.testing.assert_array_equal(_threads.matmul(a[:, :32], b), np.matmul(a[:, :32], b))
    assert calls == []
    # MPI ranks: the share caps the count
    monkeypatch.setattr(_threads, "_share", 2)
    monkeypatch.setattr(_threads._load, "other_cores", lambda: 0.0)
    assert _threads.threads_for(big) == 2
    # a fixed setting is used for every product, small or large
    mx.set_num_threads(3)
    assert _threads.threads_for(1) == 3 and _threads.threads_for(big) == 3


def test_other_processes_load_is_measured_without_this_process(monkeypatch):
    load = _threads._Load()
    load.last = (10.0, 100.0, 3.0)     # (wall clock, busy seconds of the cores, own CPU time)
    monkeypatch.setattr(load, "_busy_seconds", lambda: 100.9)      # 0.9 s busy ...
    monkeypatch.setattr(_threads.time, "monotonic", lambda: 10.5)  # ... in 0.5 s
    monkeypatch.setattr(_threads.time, "process_time", lambda: 3.4)  # 0.4 s of it ours
    assert load.other_cores() == pytest.approx((0.9 - 0.4) / 0.5)
    monkeypatch.setattr(load, "_busy_seconds", lambda: 500.0)
    monkeypatch.setattr(_threads.time, "monotonic", lambda: 10.6)  # < 0.2 s later: reused
    assert load.other_cores() == pytest.approx(1.0)


def test_the_load_is_read_from_this_machine():
    load = _threads._Load()
    load.look()
    assert load.last is not None and load.last[1] > 0
    assert 0.0 <= load.other_cores() <= len(os.sched_getaffinity(0))


def test_products_are_unchanged_by_the_policy(restore):
    """The layer ops run through the policy's matmul: same numbers with 1 or 2 threads."""
    rng = np.random.default_rng(0)
    x = mx.nd.array(rng.standard_normal((512, 512)))
    w = mx.nd.array(rng.standard_normal((512, 512)))
    mx.set_num_threads(1)
    one = mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=512).asnumpy()
    mx.set_num_threads(2)
    two = mx.nd.FullyConnected(x, w, no_bias=True, num_hidden=512).asnumpy()
    np.testing.assert_allclose(one, two, rtol=1e-5, atol=1e-4)
    np.testing.assert_allclose(one, x.asnumpy() @ w.asnumpy().T, rtol=1e-4, atol=1e-3)
