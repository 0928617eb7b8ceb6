"""Run the MXNet edition of "Dive into Deep Learning" (d2l-zh 1.x: ``mx.nd`` + Gluon and its
``d2lzh`` helper package) on mxgrad, and optionally on real MXNet side by side.

The book is not committed here (it is its authors' work): give a git dir or a folder of a
d2l-zh 1.x checkout. Each chapter notebook's code cells become one script (IPython magics
and ``!`` shell lines dropped), run in a subprocess from the chapter's folder with a
timeout, ``import mxnet`` resolving to mxgrad (:func:`mxgrad.compat.install_as_mxnet`).
A table gives each section's result and first error line on each side.

There is no internet here, so two things differ from the book, the same on both sides:

* Fashion-MNIST is replaced by small synthetic files in its exact format (512 training
  and 128 test images by default, ``--images``; each class a fixed pattern plus noise) under a private ``HOME``
  (``~/.mxnet/datasets/fashion-mnist``, where ``d2lzh`` looks); on MXNet the files'
  checksums are not checked (``gluon.utils.check_sha1`` returns True) since they are not
  the real ones;
* ``num_epochs`` (and ``epochs``) assignments become 1 (``--epochs``) so sections run in
  seconds; sections that need other downloads (pretrained models, GloVe, IMDb, VOC,
  Pikachu...) fail alike on both sides and are reported as "needs download"; a data file of
  the book that the given copy lacks (a git mirror without its large blobs) is "missing data".

Usage::

    python tools/run_d2l.py --d2l-git PATH [--mxnet-python /tmp/mxvenv/bin/python]
                            [--work /tmp/d2l] [--timeout 900] [sections...]

Needs matplotlib, pandas and IPython (the book draws figures and reads CSV files); they are
the book's needs, not mxgrad's: ``pip install matplotlib 'pandas<3' ipython`` (pandas 3 reads
text columns as dtype ``str``, which the book's kaggle-house-price section, selecting the
numeric columns as those whose dtype is not ``'object'``, does not expect).
"""
from __future__ import annotations

import argparse
import gzip
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

PRELUDE_MXGRAD = """\
import sys, os
sys.path.insert(0, {root!r})
import mxgrad.compat
mxgrad.compat.install_as_mxnet()
import matplotlib
matplotlib.use('Agg')
try:                       # the book's use_svg_display calls an API IPython 8 removed
    import IPython.display as _ipd
    if not hasattr(_ipd, "set_matplotlib_formats"):
        _ipd.set_matplotlib_formats = lambda *a, **k: None
except ImportError:
    pass
"""
PRELUDE_MXNET = """\
import matplotlib
matplotlib.use('Agg')
try:                       # the book's use_svg_display calls an API IPython 8 removed
    import IPython.display as _ipd
    if not hasattr(_ipd, "set_matplotlib_formats"):
        _ipd.set_matplotlib_formats = lambda *a, **k: None
except ImportError:
    pass
import mxnet.gluon.utils as _gu
_gu.check_sha1 = lambda *a, **k: True      # synthetic Fashion-MNIST: not the real files
import mxnet.gluon.data.vision.datasets as _ds
_ds.check_sha1 = _gu.check_sha1
"""
DOWNLOAD_SIGNS = ("download", "urlopen", "URLError", "Max retries", "Name or service",
                  "Temporary failure in name resolution", "HTTPSConnection",
                  "No such file or directory: '../data/aclImdb",
                  "VOCdevkit", "pikachu", "glove", "fasttext", "aclImdb", "hotdog",
                  "ConnectionError", "Failed to download")


def extract_book(source: str, work: str) -> str:
    """The book's files in ``work/book`` (from a git dir or a folder). Each chapter folder
    gets a ``data`` link to the book's ``data`` folder: sections run from their chapter's
    folder, and some ``d2lzh`` helpers (``load_data_jay_lyrics``) open ``./data/...``."""
    book = os.path.join(work, "book")
    if not os.path.isdir(book):
        _copy_book(source, book)
    for name in os.listdir(book):
        link = os.path.join(book, name, "data")
        if name.startswith("chapter_") and not os.path.lexists(link):
            os.symlink(os.path.join("..", "data"), link)
    return book


def _copy_book(source: str, book: str) -> None:
    os.makedirs(book)
    if os.path.isdir(os.path.join(source, "objects")) or source.endswith(".git"):
        git = ["git", "--git-dir", source]
        names = subprocess.run(git + ["ls-tree", "-r", "--name-only", "HEAD"], check=True,
                               capture_output=True, text=True).stdout.splitlines()
        for name in names:
            if not name.startswith(("chapter_", "d2lzh/", "data/", "img/")):
                continue
            blob = subprocess.run(git + ["show", f"HEAD:{name}"], capture_output=True)
            if blob.returncode:       # a blob the mirror does not hold (large data)
                continue
            dest = os.path.join(book, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(blob.stdout)
    else:
        for name in os.listdir(source):
            if name.startswith(("chapter_", "d2lzh", "data", "img")):
                src = os.path.join(source, name)
                (shutil.copytree if os.path.isdir(src) else shutil.copy)(
                    src, os.path.join(book, name))


_MAGIC = re.compile(r"^\s*(%{1,2}[A-Za-z]|![A-Za-z./])")


def script_of(notebook: str, epochs: int) -> str:
    """The code cells of ``notebook`` as one script (magics and shell lines dropped,
    epoch counts set to ``epochs``)."""
    nb = json.load(open(notebook, encoding="utf-8"))
    lines = []
    for cell in nb.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        src = cell["source"]
        src = "".join(src) if isinstance(src, list) else src
        for line in src.splitlines():
            if _MAGIC.match(line):      # %matplotlib inline, %%time, !pip ... (not "% (x)")
                continue
            lines.append(line)
        lines.append("")
    code = "\n".join(lines)
    code = re.sub(r"\b(num_epochs|epochs)(\s*=\s*)\d+\b", rf"\g<1>\g<2>{epochs}", code)
    # tuple assignments: num_epochs, lr = 5, 0.1 -> the first value
    code = re.sub(r"^(\s*num_epochs\s*,[^=\n]*=\s*)\d+", rf"\g<1>{epochs}", code, flags=re.M)
    return code


def fashion_mnist(home: str, n_train: int = 512, n_test: int = 128) -> None:
    """Synthetic Fashion-MNIST in the real files' format under ``home/.mxnet``."""
    root = os.path.join(home, ".mxnet", "datasets", "fashion-mnist")
    os.makedirs(root, exist_ok=True)
    rng = np.random.default_rng(0)
    patterns = rng.integers(0, 256, size=(10, 28, 28))
    for prefix, n in (("train", n_train), ("t10k", n_test)):
        labels = rng.integers(0, 10, size=n).astype(np.uint8)
        noise = rng.integers(-60, 60, size=(n, 28, 28))
        images = np.clip(patterns[labels] + noise, 0, 255).astype(np.uint8)
        with gzip.open(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">IIII", 2051, n, 28, 28) + images.tobytes())
        with gzip.open(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz"), "wb") as f:
            f.write(struct.pack(">II", 2049, n) + labels.tobytes())


_GPU = re.compile(r"mx\.gpu\(\d\)")


def run_section(python: str, prelude: str, book: str, section: str, work: str, side: str,
                epochs: int, timeout: int):
    """Run one section; (status, seconds, first error line). Sections that name a GPU
    (``mx.gpu(0)``) are not run: "needs GPU" (MXNet's CPU build stops at once there;
    mxgrad would run them on the CPU, slowly)."""
    chapter, name = section.split("/")
    body = script_of(os.path.join(book, chapter, name + ".ipynb"), epochs)
    if _GPU.search(body):
        return "needs GPU", 0.0, "the section uses mx.gpu(i)"
    code = prelude + "\n" + body
    path = os.path.join(work, side, chapter, name + ".py")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        f.write(code)
    env = dict(os.environ)
    env.update({"HOME": os.path.join(work, "home"), "MPLBACKEND": "Agg",
                "PYTHONPATH": book, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "MXNET_HOME": os.path.join(work, "home", ".mxnet")})
    t0 = time.perf_counter()
    try:
        res = subprocess.run([python, path], cwd=os.path.join(book, chapter), env=env,
                             capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0, f"over {timeout} s"
    secs = time.perf_counter() - t0
    if res.returncode == 0:
        return "pass", secs, ""
    err = [ln for ln in res.stderr.strip().splitlines() if ln.strip()]
    last = err[-1] if err else f"exit code {res.returncode}"
    if any(s.lower() in res.stderr.lower() for s in DOWNLOAD_SIGNS):
        return "needs download", secs, last
    if "No such file or directory: '../data/" in res.stderr:
        return "missing data", secs, last   # a book data file the given copy lacks
    return "fail", secs, last


def sections_of(book: str):
    out = []
    for chapter in sorted(os.listdir(book)):
        if not chapter.startswith("chapter_"):
            continue
        for f in sorted(os.listdir(os.path.join(book, chapter))):
            if f.endswith(".ipynb"):
                src = open(os.path.join(book, chapter, f), encoding="utf-8").read()
                if '"cell_type": "code"' in src:
                    out.append(f"{chapter}/{f[:-len('.ipynb')]}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d2l-git", required=True, help="git dir or folder of d2l-zh 1.x")
    ap.add_argument("--work", default="/tmp/d2l")
    ap.add_argument("--mxnet-python", default=None,
                    help="an interpreter with MXNet 1.x: run each section there too")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=900)
    ap.add_argument("--images", type=int, default=512,
                    help="synthetic Fashion-MNIST training images (a quarter as many test)")
    ap.add_argument("--no-mxgrad", action="store_true",
                    help="run only the MXNet side (e.g. in a second process)")
    ap.add_argument("sections", nargs="*", help="chapter_x/name (default: all)")
    args = ap.parse_args(argv)
    book = extract_book(args.d2l_git, args.work)
    fashion_mnist(os.path.join(args.work, "home"), args.images, max(args.images // 4, 1))
    sections = args.sections or sections_of(book)
    sides = [] if args.no_mxgrad else [("mxgrad", args.python,
                                         PRELUDE_MXGRAD.format(root=ROOT))]
    if args.mxnet_python:
        sides.append(("mxnet", args.mxnet_python, PRELUDE_MXNET))
    results = {}
    for sec in sections:
        row = {}
        for side, python, prelude in sides:
            row[side] = run_section(python, prelude, book, sec, args.work, side,
                                    args.epochs, args.timeout)
        results[sec] = row
        print(json.dumps({"section": sec, **{s: list(r) for s, r in row.items()}}),
              flush=True)
    print()
    head = " | ".join(f"{s} | {s} s" for s, _, _ in sides)
    print(f"| section | {head} | first error ({sides[0][0]}) |")
    print("|---|" + "---|---|" * len(sides) + "---|")
    for sec, row in results.items():
        cells = " | ".join(f"{row[s][0]} | {row[s][1]:.0f}" for s, _, _ in sides)
        first = row[sides[0][0]][2][:100]
        print(f"| {sec} | {cells} | {first} |")
    for s, _, _ in sides:
        counts: dict = {}
        for row in results.values():
            counts[row[s][0]] = counts.get(row[s][0], 0) + 1
        total = sum(row[s][1] for row in results.values())
        print(f"{s}: {counts}, {total:.0f} s")
    with open(os.path.join(args.work, f"results-{'-'.join(s for s, _, _ in sides)}.json"),
              "w") as f:
        json.dump(results, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
