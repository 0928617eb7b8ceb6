"""The documentation builds with Sphinx with warnings as errors (API reference generated
from the docstrings, notebooks rendered, guides), and the Python examples in its pages run and
print what their comments say. The build runs on a copy of docs/ and notebooks/, so the
checkout is left as it was."""
import contextlib
import glob
import io
import os
import re
import shutil
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGES = sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"), recursive=True))


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("docs")
    shutil.copytree(os.path.join(ROOT, "docs"), tmp / "docs",
                    ignore=shutil.ignore_patterns("_build", "_generated", "notebooks"))
    shutil.copytree(os.path.join(ROOT, "notebooks"), tmp / "notebooks")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    out = subprocess.run([sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going",
                          "-q", str(tmp / "docs"), str(tmp / "html")],
                         capture_output=True, text=True, env=env, timeout=600)
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-4000:]
    return tmp / "html"


def _read(site, page):
    return (site / page).read_text(encoding="utf-8")


def test_index_links_every_part(site):
    html = _read(site, "index.html")
    for target in ("getting-started.html", "coming-from-mxnet.html",
                   "notebooks/00_ndarray_first_steps.html", "howto/multi-process.html",
                   "performance.html", "mxnet-tests.html", "api/index.html"):
        assert f'href="{target}' in html, target


def test_api_reference_is_generated_from_docstrings(site):
    pages = sorted(p.name for p in (site / "api" / "_generated").glob("*.html"))
    for name in ("nd", "autograd", "gluon", "gluon.nn", "gluon.rnn", "gluon.loss",
                 "gluon.data", "gluon.model_zoo", "gluon.contrib", "optimizer", "init",
                 "metric", "io", "image", "recordio", "kv", "sym", "viz", "test_utils"):
        assert any(p.endswith(f"_{name}.html") for p in pages), name
    nd = _read(site, next(f"api/_generated/{p}" for p in pages if p.endswith("_nd.html")))
    assert 'id="mxgrad.ndarray.NDArray"' in nd and 'id="mxgrad.ndarray.FullyConnected"' in nd
    assert "Fully connected" in nd or "fully connected" in nd
    top = _read(site, next(f"api/_generated/{p}" for p in pages if p.endswith("_mx.html")))
    assert 'id="mxgrad.set_num_threads"' in top


def test_notebooks_are_rendered_with_their_outputs(site):
    html = _read(site, "notebooks/00_ndarray_first_steps.html")
    assert "NDArray first steps" in html and "&lt;NDArray 2x3 @cpu(0)&gt;" in html
    assert "<img" in _read(site, "notebooks/03_training_dropout_batchnorm.html")


def test_thread_policy_table_is_in_the_docs(site):
    html = _read(site, "performance.html")
    assert "bench/bench_threads.py" in html and "2048^2 GEMM" in html


@pytest.mark.parametrize("page", PAGES, ids=[os.path.relpath(p, ROOT) for p in PAGES])
def test_python_examples_in_the_pages_run(page):
    text = open(page, encoding="utf-8").read()
    for code in re.findall(r"```python\n(.*?)```", text, flags=re.S):
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, page, "exec"), {})
        for expected in re.findall(r"print\(.*\)\s+#\s*(.+)", code):
            assert expected.split(":")[0].strip() in buf.getvalue(), (expected, buf.getvalue())
