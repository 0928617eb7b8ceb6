"""Run MXNet 1.9.1's own unit tests against mxgrad (``import mxnet`` resolves to mxgrad).

MXNet's tests are a second, independent test suite for mxgrad. They are not committed here (they
are MXNet's code); this script takes them from a local clone of apache/mxnet, puts them in a
scratch folder beside a ``conftest.py`` that calls :func:`mxgrad.compat.install_as_mxnet`, and
runs pytest over them. The old ``nose.tools`` helpers MXNet's ``common.py`` imports are provided
by a few lines of our own (nose does not install on Python 3.10+).

Usage::

    python tools/run_mxnet_tests.py --mxnet-git /path/to/mxnet.git            # the default set
    python tools/run_mxnet_tests.py --mxnet-git DIR test_autograd test_loss    # some files
    python tools/run_mxnet_tests.py --mxnet-git DIR --pytest-args "-x -k save"
    python tools/run_mxnet_tests.py --compare BASE/report.txt OURS/report.txt  # the table
    /tmp/mxvenv/bin/python tools/run_mxnet_tests.py --mxnet-git DIR --real-mxnet  # baseline

``--real-mxnet`` runs the same files on the real MXNet installed in the running interpreter
(no shim): the reference pass counts. ``--timeout S`` stops a file after S seconds (some of
MXNet's tests take minutes on a NumPy engine).

MXNet's test files import SciPy (``test_gluon``, ``test_metric``): ``pip install scipy`` first
(a need of MXNet's tests, not of mxgrad's).

``--mxnet-git`` is a clone or bare git dir of apache/mxnet (tag ``1.9.1`` by default). It prints
pytest's summary per file and the total, and writes ``report.txt`` with every failure's last line.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

FIRST_FILES = ["test_autograd", "test_contrib_autograd", "test_gluon", "test_gluon_trainer",
               "test_higher_order_grad", "test_init", "test_loss", "test_metric",
               "test_ndarray", "test_optimizer"]
# issue 26: the rest of what mxgrad provides (gluon, data, image, io, kvstore, random,
# operators, contrib, symbols)
MORE_FILES = ["test_" + n for n in (
    "gluon_rnn", "gluon_data", "gluon_data_vision", "gluon_contrib", "gluon_estimator",
    "gluon_event_handler", "gluon_batch_processor", "gluon_save", "gluon_utils",
    "gluon_model_zoo", "image", "recordio", "io", "contrib_io", "kvstore", "kvstore_custom",
    "random", "thread_local", "exc_handling", "base", "runtime", "test_utils", "dlpack",
    "operator", "contrib_operator", "contrib_control_flow", "contrib_hawkesll",
    "contrib_krprod", "contrib_stes_op", "contrib_optimizer", "contrib_text", "symbol", "attr",
    "infer_shape", "infer_type", "viz", "module", "executor", "rnn")]
# issue 21: MXNet's NumPy interface (mx.np / mx.npx)
NUMPY_FILES = ["test_numpy_ndarray", "test_numpy_op", "test_numpy_gluon",
               "test_numpy_interoperability"]
DEFAULT_FILES = FIRST_FILES + MORE_FILES + NUMPY_FILES

CONFTEST = '''
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_shim"))
sys.path.insert(0, os.path.dirname(__file__))
import mxgrad.compat
mxgrad.compat.install_as_mxnet()
'''

CONFTEST_REAL = '''
import os, sys
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "_shim"))
sys.path.insert(0, os.path.dirname(__file__))
'''

NOSE_TOOLS = '''
"""The few nose.tools helpers MXNet 1.9's tests import (nose itself is dead on Python 3.10+)."""
import functools


def assert_raises(exc, func=None, *args, **kwargs):
    import pytest
    if func is None:
        return pytest.raises(exc)
    with pytest.raises(exc):
        func(*args, **kwargs)


def raises(*excs):
    def deco(f):
        @functools.wraps(f)
        def wrapper(*a, **k):
            try:
                f(*a, **k)
            except excs:
                return
            raise AssertionError(f"{f.__name__} did not raise {excs}")
        return wrapper
    return deco


def make_decorator(func):
    def deco(newfunc):
        return functools.wraps(func)(newfunc)
    return deco


def ok_(expr, msg=None):
    assert expr, msg


def eq_(a, b, msg=None):
    assert a == b, msg or f"{a!r} != {b!r}"


def with_setup(setup=None, teardown=None):
    def deco(f):
        return f
    return deco


assert_equal = eq_
assert_true = ok_
'''


def _git_show(git_dir: str, tag: str, path: str) -> bytes:
    return subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:{path}"],
                          check=True, capture_output=True).stdout


def _git_ls(git_dir: str, tag: str, folder: str) -> list:
    out = subprocess.run(["git", "--git-dir", git_dir, "ls-tree", "--name-only", f"{tag}:{folder}"],
                         check=True, capture_output=True, text=True).stdout
    return [line for line in out.splitlines() if line]


def prepare(git_dir: str, tag: str, work: str, real_mxnet: bool = False) -> str:
    """Write MXNet's unittest folder (and tests/python/common, and tests/python/train that
    test_module imports) under ``work``; return it."""
    unit = os.path.join(work, "tests", "python", "unittest")
    common = os.path.join(work, "tests", "python", "common")
    train = os.path.join(work, "tests", "python", "train")
    for folder, dest in (("tests/python/unittest", unit), ("tests/python/common", common),
                         ("tests/python/train", train)):
        os.makedirs(dest, exist_ok=True)
        for name in _git_ls(git_dir, tag, folder):
            try:
                data = _git_show(git_dir, tag, f"{folder}/{name}")
            except subprocess.CalledProcessError:  # a sub-folder
                continue
            with open(os.path.join(dest, name), "wb") as f:
                f.write(data)
    os.makedirs(os.path.join(unit, "_shim", "nose"), exist_ok=True)
    with open(os.path.join(unit, "_shim", "nose", "__init__.py"), "w") as f:
        f.write("")
    with open(os.path.join(unit, "_shim", "nose", "tools.py"), "w") as f:
        f.write(NOSE_TOOLS)
    with open(os.path.join(unit, "conftest.py"), "w") as f:
        f.write(CONFTEST_REAL if real_mxnet else CONFTEST)
    return unit


def _passed(report: str) -> dict:
    """file -> (passed, summary) from a report.txt."""
    out = {}
    with open(report) as f:
        for line in f:
            if line.startswith("== "):
                name, summary = line[3:].rstrip("\n").split(": ", 1)
                bits = [b.strip().split() for b in summary.replace("=", "").split(",")]
                passed = sum(int(b[0]) for b in bits if len(b) >= 2 and b[0].isdigit()
                             and b[1] == "passed")
                out[name] = (passed, summary)
    return out


def compare(base: str, ours: str) -> str:
    """A Markdown table: per file, tests passing on MXNet and on mxgrad."""
    a, b = _passed(base), _passed(ours)
    rows = ["| file | pass on MXNet 1.9.1 | pass on mxgrad |", "|---|---:|---:|"]
    for name in sorted(set(a) | set(b)):
        rows.append(f"| {name} | {a.get(name, ('-',))[0]} | {b.get(name, ('-',))[0]} |")
    rows.append(f"| **total** | {sum(v[0] for v in a.values())} | "
                f"{sum(v[0] for v in b.values())} |")
    return "\n".join(rows)


def main(argv=None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    if argv[:1] == ["--compare"]:
        if len(argv) != 3:
            print("usage: run_mxnet_tests.py --compare BASE_REPORT OURS_REPORT")
            return 2
        print(compare(argv[1], argv[2]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="*", default=DEFAULT_FILES, help="test file names, no .py")
    p.add_argument("--mxnet-git", required=True, help="clone or bare git dir of apache/mxnet")
    p.add_argument("--tag", default="1.9.1")
    p.add_argument("--work", default=None, help="scratch folder (default: a new temp folder)")
    p.add_argument("--pytest-args", default="", help="extra pytest arguments, one string")
    p.add_argument("--real-mxnet", action="store_true",
                   help="run on the MXNet installed in this interpreter (the baseline)")
    p.add_argument("--timeout", type=float, default=None, help="seconds per file")
    args = p.parse_args(argv)
    work = args.work or tempfile.mkdtemp(prefix="mxnet-tests-")
    unit = prepare(args.mxnet_git, args.tag, work, args.real_mxnet)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    if not args.real_mxnet:
        env["PYTHONPATH"] = repo + os.pathsep + os.environ.get("PYTHONPATH", "")
    totals = {}
    lines = []
    for name in args.files:
        cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-rfE",
               "--tb=line", "-o", "addopts=", f"{name}.py"] + args.pytest_args.split()
        try:
            res = subprocess.run(cmd, cwd=unit, env=env, capture_output=True, text=True,
                                 timeout=args.timeout)
            out = res.stdout.strip().splitlines()
            summary = out[-1] if out else res.stderr.strip().splitlines()[-1:]
        except subprocess.TimeoutExpired as err:
            text = err.stdout.decode() if isinstance(err.stdout, bytes) else (err.stdout or "")
            out = text.strip().splitlines()
            summary = f"timed out after {args.timeout:.0f} s"
        print(f"{name:28s} {summary}", flush=True)
        lines.append(f"== {name}: {summary}")
        lines.extend(l for l in out if l.startswith(("FAILED", "ERROR")))
        for part in str(summary).replace("=", "").split(","):
            bits = part.strip().split()
            if len(bits) >= 2 and bits[0].isdigit():
                totals[bits[1]] = totals.get(bits[1], 0) + int(bits[0])
    print("total:", ", ".join(f"{v} {k}" for k, v in sorted(totals.items())))
    with open(os.path.join(work, "report.txt"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("report:", os.path.join(work, "report.txt"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
