"""Run MXNet 1.9.1's own Python tutorials (``docs/python_docs/python/tutorials`` of
apache/mxnet) on mxgrad, and on real MXNet 1.9.1 side by side: real programs as a second
test suite.

The companion of ``tools/run_d2l.py`` and ``tools/run_d2l_np.py``, whose helpers it reuses.
The tutorials are not committed here (they are MXNet's): give the git dir of an apache/mxnet
clone (``--mxnet-git``) and a tag (``--ref``, default ``1.9.1``).

Each tutorial page is Markdown; its code cells are the ```` ```python ```` and
```` ```{.python .input ...} ```` fences at the start of a line (MXNet's docs build, notedown
in strict mode, runs only the latter; many pages use the former for code too);
```` ```bash ````, ```` ```text ```` and bare fences are text or shown output, except on a
page written with bare fences only, where those that parse as Python are its code. IPython
magics and ``!`` shell lines are dropped, lines marked
``<!--notebook-skip-line-->`` too, and each cell's last expression is shown (its ``repr``, as
a notebook does: so that code runs too). A page becomes one script, run in a subprocess with
a timeout from ``WORK/run-<side>/<page's folder>/`` (each side its own folder: pages write
files), ``import mxnet`` resolving to mxgrad (:func:`mxgrad.compat.install_as_mxnet`; a
snapshot of the mxgrad package of the checkout holding this tool, or of ``--mxgrad-root``,
taken at the start, as ``run_d2l_np.py`` does).

There is no internet here, so, the same on both sides:

* MNIST, Fashion-MNIST and CIFAR-10 are small synthetic files in their exact formats (idx
  ``.gz`` files; CIFAR-10's binary batches) where ``gluon.data.vision`` looks
  (``$MXNET_HOME/datasets/{mnist,fashion-mnist,cifar10}``; ``--images`` training images, a
  quarter as many test ones), MNIST's also in the working folder of a page calling
  ``test_utils.get_mnist`` (which downloads there); on MXNet their checksums are not checked;
* assignments to ``epochs``/``num_epochs``/``max_epochs``/``epoch`` and loops
  ``for epoch in range(N)`` (or ``e``) use ``--epochs`` (1) so pages run in seconds, and
  the pages' checks of a trained model's accuracy (``assert metric.get()[1] > 0.94``),
  which hold for the real data and epochs only, print the value instead;
* a page needing another download (pretrained models, images, other datasets) is
  "needs download", one needing a GPU "needs GPU", one importing a package neither venv
  has (gluoncv, onnx, mxboard...) "needs package".

Usage::

    python tools/run_mxnet_tutorials.py --mxnet-git /work/.mirror/apache+mxnet/repo \\
        [--mxnet-python /tmp/mxvenv/bin/python] [--mxgrad-only | --mxnet-only] \\
        [--work /tmp/mxtut] [--timeout 600] [getting-started/crash-course/1-ndarray ...]
    python tools/run_mxnet_tutorials.py --work /tmp/mxtut --table

Results go to ``WORK/results-<side>.json`` (updated after each page); each run's output is
in ``WORK/run-<side>/<page>.log``. Needs what the pages import beyond MXNet: matplotlib,
IPython, pandas (see ``run_d2l.py``).
"""
from __future__ import annotations

import argparse
import ast
import gzip
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import List, Optional, Sequence, Tuple

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_d2l import PRELUDE_MXGRAD, PRELUDE_MXNET, ROOT, _MAGIC, fashion_mnist  # noqa: E402
from run_d2l_np import (DISPLAY, GPU_SIGNS, NET_SIGNS, add_side_arguments,  # noqa: E402
                        display_last, load_results, log_differences, save_results,
                        snapshot_mxgrad, table)

TUTORIALS = "docs/python_docs/python/tutorials"
_FENCE = re.compile(r"^```+\s*(.*?)\s*$")
_SKIP_LINE = "<!--notebook-skip-line-->"
_EPOCHS = re.compile(r"\b(max_epochs|num_epochs|epochs|epoch)(\s*=\s*)\d+\b")
_EPOCH_LOOP = re.compile(r"^(\s*for\s+(?:epoch|e)\s+in\s+range\()\s*\d+\s*\)", re.M)
# besides run_d2l_np's signs of a failed connection: MXNet's gluon.utils.download and
# test_utils.download give up with these, mxgrad's downloads with "could not download"
MORE_NET_SIGNS = ("Failed downloading url", "could not download", "HTTPSConnectionPool",
                  "urlopen error", "ConnectionError", "ModelFileNotFoundError")
MORE_GPU_SIGNS = ("is not implemented for GPU", "GPU support is disabled")
# the pages' checks of a trained model's accuracy (``assert metric.get()[1] > 0.94``) hold
# for the real data and epochs only: on synthetic data and one epoch the value is printed
_QUALITY = re.compile(r"^(\s*)assert\s+(metric\.get\(\)\[1\])\s*[<>]=?\s*[\d.]+\b.*$", re.M)
_FUTURE = re.compile(r"^from __future__ import [\w, ]+$", re.M)
_NO_MODULE = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")


# ---------------------------------------------------------------- the pages' code
def code_cells(markdown: str) -> List[str]:
    """The sources of the code cells of a tutorial page: fences opened at a line's start
    by ```` ```python ```` or ```` ```{.python .input ...} ````; one-line spans
    (```` ```x``` ````) are text. A page with no such fence whose bare fences hold Python
    that imports mxnet (``packages/autograd/index``...) has those bare fences as cells."""
    cells: List[str] = []
    bare: List[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m or lines[i].rstrip().endswith("```") and len(lines[i].strip()) > 3 \
                and lines[i].strip().count("```") > 1:
            i += 1
            continue
        info = m.group(1)
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        src = "\n".join(ln for ln in lines[i + 1:j] if _SKIP_LINE not in ln)
        if info == "python" or (info.startswith("{") and ".python" in info
                                and ".input" in info):
            cells.append(src)
        elif not info and _is_python(src):
            bare.append(src)
        i = j + 1
    if not cells and any(re.search(r"^(import mxnet|from mxnet)", c, re.M) for c in bare):
        return bare              # a page written with bare fences only
    return cells


def _is_python(src: str) -> bool:
    try:
        ast.parse(src)
    except SyntaxError:
        return False
    return bool(src.strip())


def script_of(markdown: str, epochs: int, display: bool = True) -> Optional[str]:
    """A page's code cells as one script (magics and shell lines dropped, epoch counts
    set to ``epochs``, each cell's value shown if ``display``); None without code."""
    cells = ["\n".join(ln for ln in c.splitlines() if not _MAGIC.match(ln))
             for c in code_cells(markdown)]
    cells = [c for c in cells if c.strip()]
    if not cells:
        return None
    if display:
        cells = [display_last(c) for c in cells]
    body = "\n\n".join(cells) + "\n"
    future = sorted(set(_FUTURE.findall(body)))     # must open the script: moved up
    body = "".join(ln + "\n" for ln in future) + _FUTURE.sub("", body)
    body = _EPOCHS.sub(rf"\g<1>\g<2>{epochs}", body)
    body = _QUALITY.sub(r"\1print('metric (not checked on synthetic data):', \2)", body)
    return _EPOCH_LOOP.sub(rf"\g<1>{epochs})", body)


def extract_pages(git_dir: str, ref: str, work: str) -> str:
    """The tutorials' Markdown pages of ``ref`` in ``work/pages`` (built in a temporary
    folder, then renamed)."""
    pages = os.path.join(work, "pages")
    if os.path.isdir(pages):
        return pages
    git = ["git", "--git-dir", git_dir]
    res = subprocess.run(git + ["ls-tree", "-r", "--name-only", ref, TUTORIALS],
                         capture_output=True, text=True)
    names = [n for n in res.stdout.splitlines() if n.endswith(".md")]
    if not names:
        raise SystemExit(f"--mxnet-git {git_dir!r} has no {TUTORIALS} at {ref!r}")
    tmp = tempfile.mkdtemp(prefix="pages.", dir=work)
    for name in names:
        blob = subprocess.run(git + ["show", f"{ref}:{name}"], capture_output=True)
        if blob.returncode:
            continue
        dest = os.path.join(tmp, os.path.relpath(name, TUTORIALS))
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        with open(dest, "wb") as f:
            f.write(blob.stdout)
    try:
        os.rename(tmp, pages)
    except OSError:
        shutil.rmtree(tmp)
    return pages


def pages_of(pages: str, epochs: int = 1) -> List[str]:
    """Every page (path without ``.md``) that has Python code, sorted."""
    out = []
    for folder, _, files in os.walk(pages):
        for f in files:
            path = os.path.join(folder, f)
            if f.endswith(".md") and script_of(open(path, encoding="utf-8").read(),
                                                epochs) is not None:
                out.append(os.path.relpath(path, pages)[:-3])
    return sorted(out)


# ---------------------------------------------------------------- synthetic datasets
def cifar10(root: str, per_batch: int, n_test: int) -> None:
    """Synthetic CIFAR-10 in its binary format (``data_batch_1..5.bin``,
    ``test_batch.bin``: records of a label byte then 3x32x32 image bytes) in ``root``."""
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(1)
    patterns = rng.integers(0, 256, size=(10, 3, 32, 32))
    names = [(f"data_batch_{i}.bin", per_batch) for i in range(1, 6)]
    for name, n in names + [("test_batch.bin", n_test)]:
        labels = rng.integers(0, 10, size=n)
        noise = rng.integers(-60, 60, size=(n, 3, 32, 32))
        images = np.clip(patterns[labels] + noise, 0, 255).astype(np.uint8)
        records = np.concatenate([labels.astype(np.uint8)[:, None],
                                  images.reshape(n, -1)], axis=1)
        with open(os.path.join(root, name), "wb") as f:
            f.write(records.tobytes())


def fake_datasets(mxnet_home: str, n_train: int, n_test: int) -> None:
    """MNIST, Fashion-MNIST (``run_d2l.fashion_mnist``'s files; the same synthetic images
    serve as MNIST) and CIFAR-10 under ``mxnet_home/datasets``, written once."""
    datasets = os.path.join(mxnet_home, "datasets")
    if os.path.isdir(os.path.join(datasets, "cifar10")):
        return
    tmp = tempfile.mkdtemp(prefix="datasets.", dir=os.path.dirname(mxnet_home) or ".")
    fashion_mnist(tmp, n_train, n_test)          # writes tmp/.mxnet/datasets/fashion-mnist
    made = os.path.join(tmp, ".mxnet", "datasets")
    shutil.copytree(os.path.join(made, "fashion-mnist"), os.path.join(made, "mnist"))
    cifar10(os.path.join(made, "cifar10"), max(n_train // 5, 1), n_test)
    os.makedirs(datasets, exist_ok=True)
    for name in ("mnist", "fashion-mnist", "cifar10"):
        if not os.path.exists(os.path.join(datasets, name)):
            os.rename(os.path.join(made, name), os.path.join(datasets, name))
    shutil.rmtree(tmp, ignore_errors=True)


# ---------------------------------------------------------------- running
def classify(returncode: int, stderr: str) -> Tuple[str, str]:
    """(status, first error line) of a finished page."""
    if returncode == 0:
        return "pass", ""
    err = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    last = err[-1].strip() if err else f"exit code {returncode}"
    if any(s in stderr for s in NET_SIGNS + MORE_NET_SIGNS):
        return "needs download", last
    if any(s in stderr for s in GPU_SIGNS + MORE_GPU_SIGNS):
        return "needs GPU", last
    m = _NO_MODULE.search(stderr)
    if m and not m.group(1).startswith(("mxnet", "mxgrad")):
        return "needs package", last
    return "fail", last


def _with_prelude(body: str, prelude: str) -> str:
    """``body`` with ``prelude`` after its ``from __future__`` lines (which must come
    first in a script)."""
    lines = body.split("\n")
    n = 0
    while n < len(lines) and lines[n].startswith("from __future__ import"):
        n += 1
    return "\n".join(lines[:n] + [prelude] + lines[n:])


def run_page(python: str, prelude: str, pages: str, page: str, work: str, side: str,
             epochs: int, timeout: int) -> Tuple[str, float, str]:
    """Run one page on one side: (status, seconds, first error line)."""
    body = script_of(open(os.path.join(pages, page + ".md"), encoding="utf-8").read(),
                     epochs)
    if body is None:
        return "no code", 0.0, ""
    run = os.path.join(work, f"run-{side}")
    cwd = os.path.join(run, os.path.dirname(page))
    os.makedirs(cwd, exist_ok=True)
    if "get_mnist" in body:      # test_utils.get_mnist downloads into the working folder
        mnist = os.path.join(work, "mxnet-home", "datasets", "mnist")
        for f in os.listdir(mnist):
            if not os.path.exists(os.path.join(cwd, f)):
                shutil.copy(os.path.join(mnist, f), cwd)
    path = os.path.join(cwd, f"page_{os.path.basename(page)}.py")
    with open(path, "w", encoding="utf-8") as f:
        f.write(_with_prelude(body, prelude + DISPLAY))
    env = dict(os.environ)
    env.update({"HOME": os.path.join(run, "home"), "MPLBACKEND": "Agg",
                "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "MXNET_HOME": os.path.join(work, "mxnet-home")})
    env.pop("PYTHONPATH", None)
    os.makedirs(env["HOME"], exist_ok=True)
    t0 = time.perf_counter()
    try:
        res = subprocess.run([python, path], cwd=cwd, env=env, capture_output=True,
                             text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, f"over {timeout} s"
    secs = time.perf_counter() - t0
    with open(path[:-3] + ".log", "w", encoding="utf-8") as f:
        f.write(res.stdout[-20000:] + "\n---- stderr ----\n" + res.stderr[-20000:])
    status, first = classify(res.returncode, res.stderr)
    return status, secs, first


def output_differences(work: str, per_page: int = 3) -> str:
    """Pages passing on both sides whose printed output differs beyond numbers
    (``run_d2l_np.normalized_output``): the first ``per_page`` differing lines of each."""
    out = []
    mx = load_results(work, "mxnet")
    for page, r in load_results(work, "mxgrad").items():
        if r[0] != "pass" or mx.get(page, [""])[0] != "pass":
            continue
        folder, name = os.path.split(page)
        logs = [os.path.join(work, f"run-{side}", folder, f"page_{name}.log")
                for side in ("mxgrad", "mxnet")]
        out.extend(log_differences(page, logs, per_page))
    return "\n".join(out)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--mxnet-git", help="git dir of an apache/mxnet clone")
    ap.add_argument("--ref", default="1.9.1", help="tag or commit of MXNet")
    ap.add_argument("--work", default="/tmp/mxtut")
    add_side_arguments(ap, timeout=600,
                       images="synthetic training images per dataset (a quarter as many test)",
                       default_root="the checkout this tool is in")
    ap.add_argument("--table", action="store_true", help="print the saved results' table only")
    ap.add_argument("--list", action="store_true", help="list the pages and stop")
    ap.add_argument("--diff", action="store_true",
                    help="also print the pages whose output differs beyond numbers")
    ap.add_argument("pages", nargs="*", help="page paths without .md (default: all)")
    args = ap.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    if not args.table:
        if not args.mxnet_git:
            ap.error("--mxnet-git is needed to run pages")
        pages = extract_pages(args.mxnet_git, args.ref, args.work)
        names = args.pages or pages_of(pages, args.epochs)
        if args.list:
            print("\n".join(names))
            return 0
        fake_datasets(os.path.join(args.work, "mxnet-home"), args.images,
                      max(args.images // 4, 1))
        sides = []
        if not args.mxnet_only:
            root = args.mxgrad_root or ROOT
            if not args.live:
                root = snapshot_mxgrad(root, args.work, args.python)
            sides.append(("mxgrad", args.python, PRELUDE_MXGRAD.format(root=root)))
        if not args.mxgrad_only:
            sides.append(("mxnet", args.mxnet_python, PRELUDE_MXNET))
        for page in names:
            for name, python, prelude in sides:
                r = run_page(python, prelude, pages, page, args.work, name, args.epochs,
                             args.timeout)
                results = load_results(args.work, name)
                results[page] = list(r)
                save_results(args.work, name, results)
                print(json.dumps({"page": page, "side": name, "result": list(r)}),
                      flush=True)
    print(table(args.work))
    if args.diff:
        print("\nOutput differences (numbers aside):\n" + output_differences(args.work))
    return 0


if __name__ == "__main__":
    sys.exit(main())
