"""The distributions: `python -m build` (isolated, the newest setuptools) builds an sdist and
a wheel from it without warnings; the sdist carries what its test suite needs, the wheel the
package data, the license and the metadata."""
import os
import shutil
import subprocess
import sys
import tarfile
import zipfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP = shutil.ignore_patterns(".git", "build", "dist", "*.egg-info", "__pycache__", "_build",
                               ".ipynb_checkpoints", ".pytest_cache", ".mypy_cache")


@pytest.fixture(scope="module")
def dists(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("build")
    src = tmp / "src"
    shutil.copytree(ROOT, src, ignore=_SKIP)          # the build writes into its source tree
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    out = subprocess.run([sys.executable, "-m", "build", "--outdir", str(tmp / "dist"), str(src)],
                         capture_output=True, text=True, env=env, timeout=300)
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    names = sorted(os.listdir(tmp / "dist"))
    assert len(names) == 2, names
    sdist = next(tmp / "dist" / n for n in names if n.endswith(".tar.gz"))
    wheel = next(tmp / "dist" / n for n in names if n.endswith(".whl"))
    with tarfile.open(sdist) as t:
        sdist_files = [n.split("/", 1)[1] for n in t.getnames() if "/" in n]
    with zipfile.ZipFile(wheel) as z:
        wheel_files = z.namelist()
        metadata = z.read(next(n for n in wheel_files if n.endswith(".dist-info/METADATA")))
    return out.stdout + out.stderr, sdist_files, wheel_files, metadata.decode()


def test_build_prints_no_warning(dists):
    log = dists[0]
    bad = [line for line in log.splitlines() if "warning" in line.lower() or "!!" in line]
    assert not bad, "\n".join(bad)


def test_sdist_carries_the_test_suite_license_notebooks_and_examples(dists):
    files = set(dists[1])
    for name in ("LICENSE", "README.md", "setup.cfg", "setup.py", "MANIFEST.in", "conftest.py",
                 "tests/conftest.py", "tests/opcheck.py", "tests/test_packaging.py",
                 "mxgrad/data/digits.csv.gz", "examples/train_dist.py",
                 "notebooks/00_ndarray_first_steps.ipynb",
                 "notebooks/04_coming_from_mxnet.ipynb", "tools/make_notebooks.py",
                 "bench/bench_threads.py", "docs/conf.py", "docs/index.md",
                 "docs/howto/multi-process.md"):
        assert name in files, name
    # every test fixture of the checkout is in the archive
    data = {os.path.relpath(os.path.join(d, f), ROOT).replace(os.sep, "/")
            for d, _, fs in os.walk(os.path.join(ROOT, "tests", "data")) for f in fs}
    assert data and data <= files, sorted(data - files)[:5]
    assert not [f for f in files if "__pycache__" in f or f.endswith(".pyc")]


def test_wheel_carries_package_data_license_and_metadata(dists):
    _, _, files, meta = dists
    for name in ("mxgrad/__init__.py", "mxgrad/_threads.py", "mxgrad/py.typed",
                 "mxgrad/data/digits.csv.gz", "mxgrad/data/__init__.py",
                 "mxgrad/data/mxnet_cnn-symbol.json", "mxgrad/data/mxnet_cnn-0000.params",
                 "mxgrad/data/mxnet_cnn-io.npz", "mxgrad/ndarray/_methods.py"):
        assert name in files, name
    assert any(f.endswith(".dist-info/licenses/LICENSE") for f in files)
    assert not [f for f in files if f.startswith(("tests/", "notebooks/", "bench/"))]
    assert "Apache-2.0" in meta and "Requires-Dist: threadpoolctl" in meta
    assert "Project-URL: MXNet API reference, https://mxnet.apache.org/" in meta
    assert "Requires-Python: >=3.9" in meta
