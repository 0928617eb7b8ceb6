"""Data-parallel training on MPI: 2 and 3 worker processes on this machine (loopback)
against the same training in one process.

The workers run ``tests/_dist_worker.py`` under the ``mpiexec`` of the ``dist`` extra
(mpi4py + the MPICH wheel); each launch has a timeout so a hang fails the test. Skipped
only when the ``dist`` extra is not installed.
"""
import copy
import json
import os
import subprocess
import sys

import numpy as np
import pytest

import mxgrad as mx

pytest.importorskip("mpi4py", reason="the 'dist' extra (mpi4py, mpich) is not installed: "
                                     "pip install -e '.[dist]'")
from mxgrad.launch import find_mpiexec, LaunchError  # noqa: E402

try:
    MPIEXEC = find_mpiexec()
except LaunchError:      # mpi4py without an MPI launcher: the extra is incomplete
    pytest.skip("mpiexec not found: pip install -e '.[dist]' brings MPICH's",
                allow_module_level=True)

import _dist_worker as W  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TIMEOUT = 120


@pytest.fixture(autouse=True)
def _keep_global_generator():
    """These tests seed mx.random: give later tests the generator they would have had."""
    saved = copy.deepcopy(mx.random._rng[0])
    yield
    mx.random._rng[0] = saved


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE, env.get("PYTHONPATH", "")])
    for var in ("PMI_RANK", "PMIX_RANK", "OMPI_COMM_WORLD_RANK"):
        env.pop(var, None)
    return env


def run_workers(n, mode, out, timeout=TIMEOUT, launcher=False):
    if launcher:
        cmd = [sys.executable, "-m", "mxgrad.launch", "-n", str(n)]
    else:
        cmd = [MPIEXEC, "-n", str(n), sys.executable]
    cmd += [os.path.join(HERE, "_dist_worker.py"), mode, str(out)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout,
                          env=_env(), cwd=ROOT)


def _check(proc):
    assert proc.returncode == 0, f"workers failed:\n{proc.stdout}\n{proc.stderr}"


def _reference(config, n):
    """One process, n contexts, one shard per context, Dropout masks drawn from the
    generator rank i would use (seed 7 -> rank 0: 7, rank i: (7, i))."""
    gens = [np.random.default_rng(7 if i == 0 else [7, i]) for i in range(n)]
    saved = mx.random._rng[0]
    try:
        return W.train(config, n, ctx=[mx.cpu(i) for i in range(n)],
                       dropout_gens=gens if config[3] == "dropout" else None)
    finally:
        mx.random._rng[0] = saved


@pytest.fixture(scope="module", params=[2, 3])
def trained(request, tmp_path_factory):
    n = request.param
    out = tmp_path_factory.mktemp(f"dist{n}") / "params"
    # the launcher for 3 workers, mpiexec directly for 2: both ways users start jobs
    _check(run_workers(n, "train", out, launcher=(n == 3)))
    ranks = [dict(np.load(f"{out}.rank{r}.npz")) for r in range(n)]
    return n, ranks


@pytest.mark.parametrize("config", W.CONFIGS, ids=[c[0] for c in W.CONFIGS])
def test_workers_match_one_process_with_devices(trained, config):
    """N workers x batch B == one process with N contexts (batch N*B split): the same
    sums in the same order, so bit for bit; BatchNorm statistics are per worker (per
    context), Dropout masks per rank."""
    n, ranks = trained
    ref = _reference(config, n)
    for name, copies in ref.items():
        key = f"{config[0]}/{name}"
        running = "running" in name
        for r in range(n):
            want = copies[r] if running else copies[0]
            np.testing.assert_array_equal(ranks[r][key], want, err_msg=f"{key} on rank {r}")
        if not running:   # every copy of the reference is the same
            for c in copies[1:]:
                np.testing.assert_array_equal(c, copies[0])
    # trainable weights identical on every rank, bit for bit
    for name in ref:
        if "running" not in name:
            for r in range(1, n):
                np.testing.assert_array_equal(ranks[r][f"{config[0]}/{name}"],
                                              ranks[0][f"{config[0]}/{name}"])


@pytest.mark.parametrize("config", [c for c in W.CONFIGS if c[3] in ("mlp", "deferred")],
                         ids=lambda c: c[0])
def test_workers_match_one_process_big_batch(trained, config):
    """Without BatchNorm/Dropout, N workers x batch B == one process, one context,
    batch N*B (1e-6 relative: only the order of float32 sums differs)."""
    n, ranks = trained
    ref = W.train(config, n)
    for name, (want,) in ref.items():
        got = ranks[0][f"{config[0]}/{name}"]
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6 * np.abs(want).max())


def test_kvstore_api_across_workers(tmp_path):
    for n in (2, 3):
        out = tmp_path / f"api{n}"
        _check(run_workers(n, "api", out))
        for r in range(n):
            with open(f"{out}.rank{r}.json") as f:
                res = json.load(f)
            assert (res["type"], res["rank"], res["num_workers"]) == \
                ("dist_device_sync", r, n)
            assert res["init"] == [[1.0] * 3] * 2                     # rank 0's value
            total = sum(k + 1 for k in range(n)) + n                 # devices and ranks
            assert res["push"] == [[[float(total)] * 3] * 2] * 2
            s = sum(k + 1 for k in range(n))
            assert res["pushpull"] == [[1.0 * s, 2.0 * s, 3.0 * s],
                                       [float(sum(range(n)))] * 5]
            assert res["broadcast"] == [0.0, 1.0, 2.0, 3.0]              # rank 0's
            assert res["optimizer"] == [i - 0.5 * n for i in range(4)]  # w -= 0.5 * sum


def test_failure_on_one_rank_aborts_all(tmp_path):
    """An exception in forward on rank 1 stops every rank with the error shown (rank 0
    is waiting in the gradient allreduce and must not hang)."""
    proc = run_workers(2, "fail", tmp_path / "fail", timeout=60)
    assert proc.returncode != 0
    assert "boom in forward on rank 1" in proc.stderr
    assert "aborting all ranks" in proc.stderr


def test_early_failure_under_the_launcher_aborts_all(tmp_path):
    """With python -m mxgrad.launch, MPI starts before the script: a rank failing before
    it creates a kvstore still stops the job (plain mpiexec would wait for it)."""
    proc = run_workers(2, "early", tmp_path / "early", timeout=60, launcher=True)
    assert proc.returncode != 0
    assert "early failure on rank 1" in proc.stderr
    assert "aborting all ranks" in proc.stderr


def test_dist_kvstore_without_mpiexec_is_one_worker():
    proc = subprocess.run([sys.executable, os.path.join(HERE, "_dist_worker.py"), "single"],
                          capture_output=True, text=True, timeout=TIMEOUT, env=_env(),
                          cwd=ROOT)
    _check(proc)
    res = json.loads(proc.stdout.strip().splitlines()[-1])
    assert res == {"rank": 0, "num_workers": 1, "type": "dist_sync",
                   "w": [[0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]}


def _example_numbers(stdout):
    rows = [line.split() for line in stdout.splitlines() if line.startswith("epoch")]
    return np.array([[float(r[3]), float(r[6])] for r in rows])


def test_example_script_one_and_two_processes_agree():
    """examples/train_dist.py prints the same losses and accuracies on 1 and 2 workers."""
    script = [os.path.join(ROOT, "examples", "train_dist.py"), "--epochs", "2"]
    one = subprocess.run([sys.executable] + script, capture_output=True, text=True,
                         timeout=TIMEOUT, env=_env(), cwd=ROOT)
    two = subprocess.run([sys.executable, "-m", "mxgrad.launch", "-n", "2"] + script,
                         capture_output=True, text=True, timeout=TIMEOUT, env=_env(),
                         cwd=ROOT)
    _check(one)
    _check(two)
    assert "1 worker(s)" in one.stdout and "2 worker(s)" in two.stdout
    a, b = _example_numbers(one.stdout), _example_numbers(two.stdout)
    assert a.shape == (2, 2) and a[1, 1] > 0.85
    np.testing.assert_allclose(a, b, atol=2e-6)


# ------------------------------------------------------------- issue 24: mismatches
def test_mismatched_kvstore_calls_fail_on_every_rank_naming_rank_and_key(tmp_path):
    """Before: different keys were summed silently, shapes (2,3)/(3,2) summed, sizes
    gave a raw mpi4py error. Now each raises CollectiveMismatchError on both ranks, and
    the ranks stay in step (a later push sums normally)."""
    out = tmp_path / "mismatch"
    _check(run_workers(2, "mismatch", out, timeout=60))
    for r in range(2):
        with open(f"{out}.rank{r}.json") as f:
            res = json.load(f)
        assert "rank 0 has key 0 (4,) float32 but rank 1 has key 1 (4,)" in res["keys"]
        assert "key 2 (2, 3) float32 but rank 1 has key 2 (3, 2)" in res["shapes"]
        assert "init: rank 0 has key 's' (2,) float32 but rank 1 has key 's' (3,)" \
            in res["sizes"]
        assert "pushpull with 1 value(s), rank 1 with 2" in res["count"]
        assert "key 1 (4,)" in res["count"]
        assert "rank 0 calls push (key 0 (4,) float32) but rank 1 calls barrier" \
            in res["call"]
        assert "float32 but rank 1 has key 0 (4,) float64" in res["dtype"]
        assert res["after"] == [3.0] * 4


def test_an_unmatched_push_times_out_naming_rank_and_key(tmp_path):
    """One extra push on rank 0 (rank 1 is elsewhere): MXNet hangs forever; here rank 0
    fails after MXGRAD_KVSTORE_TIMEOUT seconds and the job stops."""
    env = _env()
    env["MXGRAD_KVSTORE_TIMEOUT"] = "1.5"
    cmd = [MPIEXEC, "-n", "2", sys.executable, os.path.join(HERE, "_dist_worker.py"),
           "extra", str(tmp_path / "extra")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=25, env=env,
                          cwd=ROOT)
    assert proc.returncode != 0
    assert "kvstore.push on rank 0 of 2 (key 'w' (3,) float32) waited 1.5 s" in proc.stderr
    assert "MXGRAD_KVSTORE_TIMEOUT" in proc.stderr and "Aborting all ranks" in proc.stderr
