"""Run the current "Dive into Deep Learning" (d2l-en 1.x, MXNet tab: ``mx.np``/``mx.npx`` +
Gluon in NumPy mode, and its ``d2l/mxnet.py`` helper) on mxgrad, and optionally on real
MXNet 1.9.1 side by side.

The companion of ``tools/run_d2l.py`` (the older d2l-zh ``mx.nd`` edition), whose ideas and
helpers it reuses. The book is not committed here (it is its authors' work): give the git dir
of a d2l-en clone (``--d2l-git``) and a tag (``--ref``, default ``v1.0.3``).

The book is Markdown with framework tabs, turned into notebooks by ``d2lbook``; this tool
takes each section's MXNet notebook as ``d2lbook`` builds it (``notebook.get_tab_notebook``
with the book's ``config.ini``: tabs ``pytorch, mxnet, jax, tensorflow``, the first one the
default):

* code cells are the ```` ```{.python .input} ```` fences (other fences are text);
* a cell's tabs are named by ``%%tab a, b`` or ``#@tab a, b`` anywhere in it; ``all`` is
  every tab; a cell naming no tab belongs to the *default* tab (``pytorch``), not to MXNet;
  the ``%load_ext d2lbook.tab`` cell is dropped; a section with no MXNet cell is skipped;
* inside a kept cell the tab line is dropped and ``if tab.selected('mxnet', ...):`` branches
  are resolved (a matching branch dedented, another one dropped), as ``d2lbook`` does;
  ``:begin_tab:`` marks only select Markdown text, never code;
* IPython magics (``%matplotlib inline``...) and ``!`` shell lines are dropped as in
  ``run_d2l.py``; a cell's last expression is printed (its ``repr``) as a notebook shows it; ``d2l.xxx`` aliases are left as written (``d2l/mxnet.py`` defines them; the
  book's build rewrites them for display only).

Each section becomes one script, run in a subprocess with a timeout from
``WORK/run-<side>/<chapter>/`` (as ``sec_<section>.py``: a script named ``pandas.py`` would
shadow pandas) (each side its own folder: sections write files in their
working folder), ``../data`` being the data folder and the book's ``d2l`` package on the path,
``import mxnet`` resolving to mxgrad (:func:`mxgrad.compat.install_as_mxnet`, mxgrad taken
from ``--mxgrad-root``, by default wherever this interpreter imports it from; a copy of it
taken at the start, so that a checkout being edited meanwhile does not change mid-run).

There is no internet here, so, the same on both sides:

* Fashion-MNIST is small synthetic files in its exact format (``--images`` training images,
  a quarter as many test ones) where ``gluon.data.vision.FashionMNIST`` looks
  (``$MXNET_HOME/datasets/fashion-mnist``); on MXNet their checksums are not checked;
* the small data files the book downloads and its own repository carried until v0.7
  (``timemachine.txt``, ``kaggle_house_pred_{train,test}.csv``, ``airfoil_self_noise.dat``)
  are taken from the git dir's history into ``../data`` where ``d2l.download`` looks, each
  checked against the SHA-1 the book gives it (``d2l.download`` checks it again); a section
  needing another download (``fra-eng.zip``...) is "needs download";
* ``max_epochs``/``num_epochs``/``epochs`` assignments become 1 (``--epochs``).

Results go to ``WORK/results-<side>.json`` (updated after each section, so runs of a few
sections, e.g. ``--mxgrad-only`` re-runs, merge into it); the table of both sides is printed
at the end, or alone with ``--table``; ``--failures FILE`` writes mxgrad's failures grouped by
first error line; ``--diff`` lists the sections whose printed output differs between the
sides once every number is masked (random draws differ; a repr, a dtype, a shape may not).

Usage::

    python tools/run_d2l_np.py --d2l-git /work/.mirror/d2l-ai+d2l-en/repo \\
        [--mxnet-python /tmp/mxvenv/bin/python] [--mxgrad-only | --mxnet-only] \\
        [--work /tmp/d2len] [--timeout 900] [chapter_x/section ...]
    python tools/run_d2l_np.py --work /tmp/d2len --table [--diff] [--failures FILE.md]

Each side runs on its interpreter's NumPy: MXNet 1.9.1 needs NumPy < 1.24, while mxgrad's
venv may have NumPy 2, which refuses ragged ``asarray`` input that 1.23 turns into an
object array with a warning (``chapter_optimization/sgd`` plots such a list through
matplotlib): run the mxgrad side with ``--python /tmp/mxvenv/bin/python`` to compare on the
same NumPy.

Needs what the book imports: matplotlib, matplotlib-inline, IPython, requests and
``pandas<3`` (see ``run_d2l.py`` for why not pandas 3).
"""
from __future__ import annotations

import argparse
import ast
import hashlib
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from typing import Dict, List, Optional, Sequence, Tuple

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from run_d2l import PRELUDE_MXGRAD, PRELUDE_MXNET, ROOT, _MAGIC, fashion_mnist  # noqa: E402

CHAPTERS = ("preliminaries", "linear-regression", "linear-classification",
            "multilayer-perceptrons", "builders-guide", "convolutional-neural-networks",
            "convolutional-modern", "recurrent-neural-networks", "recurrent-modern",
            "attention-mechanisms-and-transformers", "optimization",
            "computational-performance")
TABS = ("pytorch", "mxnet", "jax", "tensorflow")     # config.ini [build] tabs, default first
TAB = "mxnet"
# data files the book downloads into ../data: (where the repository carried them, SHA-1 the
# book's d2l.download checks)
DATA_FILES = {
    "timemachine.txt": ("v0.7.0", "090b5e7e70c295757f55df93cb0a180b9691891a"),
    "kaggle_house_pred_train.csv": ("v0.7.0", "585e9cc93e70b39160e7921475f9bcd7d31219ce"),
    "kaggle_house_pred_test.csv": ("v0.7.0", "fa19780a7b011d9b009e8bff8e99922a8ee2eb90"),
    "airfoil_self_noise.dat": ("v0.7.0", "76e5be1548fd8222e5074cf0faae75edff8cf93f"),
}
NET_SIGNS = ("Max retries exceeded", "Name or service not known", "NewConnectionError",
             "Temporary failure in name resolution", "Failed to resolve", "URLError",
             "requests.exceptions.ConnectionError", "Network is unreachable")
GPU_SIGNS = ("GPU is not enabled", "USE_CUDA", "no CUDA-capable device",
             "Cannot find GPU", "CUDA: ", "has no GPU support")
# sections written for several GPUs: they index or split over ``d2l.try_all_gpus()``, empty
# on a CPU-only machine, so they fail on MXNet 1.9.1's CPU build too (IndexError,
# ZeroDivisionError in split_and_load, "GPU is not enabled"): a failure there is "needs GPU"
GPU_SECTIONS = ("chapter_computational-performance/auto-parallelism",
                "chapter_computational-performance/multiple-gpus",
                "chapter_computational-performance/multiple-gpus-concise")

_FENCE = re.compile(r"^```+\s*(.*)$")
_TAB_MARKS = (re.compile(r"# *@tab +([\w\,\ ]+)"), re.compile(r"%%tab +([\w\,\ ]+)"))
_TEXT_TAB_MARK = re.compile(r":(begin_tab|end_tab):")
DISPLAY = """\
def _d2l_display(value):   # a notebook cell's value is shown: its repr
    if value is not None:
        print(repr(value))
"""
_EPOCHS = re.compile(r"\b(max_epochs|num_epochs|epochs)(\s*=\s*)\d+\b")
_EPOCHS_TUPLE = re.compile(r"^(\s*(?:max_|num_)?epochs\s*,[^=\n]*=\s*)\d+", re.M)


# ---------------------------------------------------------------- the book's MXNet cells
def code_cells(markdown: str) -> List[str]:
    """The sources of the ```` ```{.python .input ...} ```` cells of a d2l-en Markdown file
    (what ``notedown``'s strict reader makes code cells; other fences are text)."""
    cells: List[str] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        info = m.group(1).strip()
        j = i + 1
        while j < len(lines) and not lines[j].startswith("```"):
            j += 1
        if info.startswith("{") and ".python" in info and ".input" in info:
            cells.append("\n".join(lines[i + 1:j]))
        i = j + 1
    return cells


def cell_tabs(source: str, default_tab: str = TABS[0]) -> List[str]:
    """The tabs a code cell belongs to (``d2lbook.notebook.get_cell_tab``)."""
    for pat in _TAB_MARKS:
        m = pat.search(source)
        if m:
            return [t.strip() for t in m.group(1).split(",")]
    return [default_tab]


def clean_if_branches(lines: List[str], tab: str) -> List[str]:
    """Resolve ``if tab.selected(...):`` branches for ``tab`` (``d2lbook``'s
    ``_clean_if_branches``: a matching branch is dedented by 4, another one dropped)."""
    if not any("tab.selected" in ln for ln in lines):
        return lines
    mode, indent, out = 0, 0, []     # mode 1: in a matching branch, 2: in another one

    def lead(ln: str) -> int:
        return len(ln) - len(ln.lstrip())
    for ln in lines:
        if "if" in ln and "tab.selected" in ln:
            mode = 1 if (f'"{tab}"' in ln or f"'{tab}'" in ln) else 2
            indent = lead(ln)
            continue
        if mode and ln.strip() and lead(ln) <= indent:
            mode = 0
        if mode == 0:
            out.append(ln)
        elif mode == 1:
            out.append(ln[4:])
    return out


def tab_cells(markdown: str, tab: str = TAB) -> Optional[List[str]]:
    """The code of ``markdown``'s cells in ``tab``'s notebook, tab marks removed and
    branches resolved; None when the section has code but no cell naming ``tab`` (for a
    tab other than the default one, ``d2lbook`` does not build that notebook then)."""
    cells = code_cells(markdown)
    if tab != TABS[0] and cells and not any(tab in cell_tabs(c) for c in cells):
        return None              # "all" cells alone do not make a tab's notebook
    out, matched = [], False
    for src in cells:
        tabs = cell_tabs(src)
        if tabs != ["all"] and tab not in tabs:
            continue
        if "%load_ext d2lbook.tab" in src:
            continue
        matched = True
        lines = [ln for ln in src.split("\n")
                 if not (any(p.search(ln) for p in _TAB_MARKS) or _TEXT_TAB_MARK.search(ln))]
        out.append("\n".join(clean_if_branches(lines, tab)))
    if cells and not matched:
        return None
    return out


def display_last(source: str) -> str:
    """``source`` with its last statement, when an expression (not ended by ``;``) at the
    cell's top level, given to ``_d2l_display`` (defined in the prelude): as a notebook shows
    a cell's value (the array's ``repr``...), so the script runs that code too."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return source
    if not tree.body or not isinstance(tree.body[-1], ast.Expr):
        return source
    node = tree.body[-1]
    lines = source.splitlines()
    tail = lines[node.end_lineno - 1][node.end_col_offset:].split("#")[0].strip()
    if node.col_offset or tail.startswith(";") or node.end_lineno < len(lines) and any(
            ln.strip() and not ln.strip().startswith("#") for ln in lines[node.end_lineno:]):
        return source
    expr = lines[node.lineno - 1:node.end_lineno]
    expr[-1] = expr[-1][:node.end_col_offset]
    return "\n".join(lines[:node.lineno - 1] + ["_d2l_display(("] + expr + ["))"])


def script_of(markdown: str, epochs: int, tab: str = TAB,
              display: bool = False) -> Optional[str]:
    """``markdown``'s ``tab`` cells as one script: magics and shell lines dropped, epoch
    counts set to ``epochs``, each cell's value shown (:func:`display_last`) if
    ``display``; None when the section has no code for ``tab``."""
    cells = tab_cells(markdown, tab)
    if not cells:
        return None
    cells = ["\n".join(ln for ln in c.splitlines() if not _MAGIC.match(ln)) for c in cells]
    if display:
        cells = [display_last(c) for c in cells]
    body = "\n\n".join(cells) + "\n"
    body = _EPOCHS.sub(rf"\g<1>\g<2>{epochs}", body)
    return _EPOCHS_TUPLE.sub(rf"\g<1>{epochs}", body)


# ---------------------------------------------------------------- the book's files
def _git(git_dir: str, *args: str, binary: bool = False):
    res = subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True,
                         check=False)
    if res.returncode:
        return None
    return res.stdout if binary else res.stdout.decode("utf-8")


def extract_book(git_dir: str, ref: str, work: str) -> str:
    """The chapters' Markdown, ``d2l/`` and ``config.ini`` of ``ref`` in ``work/book``
    (file by file: a mirror may lack the large image blobs), and the data files of
    :data:`DATA_FILES` in ``work/data``. Built in a temporary folder then renamed, so two
    runners started together do not race."""
    book = os.path.join(work, "book")
    if not os.path.isdir(book):
        tmp = tempfile.mkdtemp(prefix="book.", dir=work)
        names = (_git(git_dir, "ls-tree", "-r", "--name-only", ref) or "").splitlines()
        if not names:
            raise SystemExit(f"--d2l-git {git_dir!r} has no tag or commit {ref!r}")
        for name in names:
            if not (name.startswith("d2l/") or name == "config.ini"
                    or re.match(r"chapter_[^/]+/[^/]+\.md$", name)):
                continue
            blob = _git(git_dir, "show", f"{ref}:{name}", binary=True)
            if blob is None:
                continue
            dest = os.path.join(tmp, name)
            os.makedirs(os.path.dirname(dest), exist_ok=True)
            with open(dest, "wb") as f:
                f.write(blob)
        try:
            os.rename(tmp, book)
        except OSError:          # another runner got there first
            shutil.rmtree(tmp)
    data = os.path.join(work, "data")
    os.makedirs(data, exist_ok=True)
    for name, (tag, sha1) in DATA_FILES.items():
        dest = os.path.join(data, name)
        if os.path.exists(dest):
            continue
        blob = _git(git_dir, "show", f"{tag}:data/{name}", binary=True)
        if blob is None or hashlib.sha1(blob).hexdigest() != sha1:
            continue             # absent or not the book's file: its sections need a download
        fd, tmpf = tempfile.mkstemp(dir=data)
        with os.fdopen(fd, "wb") as f:
            f.write(blob)
        os.replace(tmpf, dest)
    return book


def fake_fashion_mnist(mxnet_home: str, n_train: int, n_test: int) -> None:
    """Synthetic Fashion-MNIST (``run_d2l.fashion_mnist``) in ``mxnet_home/datasets``,
    written once (in a temporary folder, then moved)."""
    root = os.path.join(mxnet_home, "datasets", "fashion-mnist")
    if os.path.isdir(root):
        return
    tmp = tempfile.mkdtemp(prefix="fmnist.", dir=os.path.dirname(mxnet_home) or ".")
    fashion_mnist(tmp, n_train, n_test)          # writes tmp/.mxnet/datasets/fashion-mnist
    os.makedirs(os.path.dirname(root), exist_ok=True)
    try:
        os.rename(os.path.join(tmp, ".mxnet", "datasets", "fashion-mnist"), root)
    except OSError:
        pass
    shutil.rmtree(tmp, ignore_errors=True)


def toc(book: str, chapter: str) -> List[str]:
    """The sections of ``chapter_<chapter>`` in its index's order (then any others)."""
    folder = os.path.join(book, f"chapter_{chapter}")
    names = sorted(f[:-3] for f in os.listdir(folder) if f.endswith(".md"))
    order: List[str] = []
    index = os.path.join(folder, "index.md")
    if os.path.exists(index):
        text = open(index, encoding="utf-8").read()
        m = re.search(r"```toc\n(.*?)```", text, re.S)
        if m:
            order = [ln.strip() for ln in m.group(1).splitlines()
                     if ln.strip() and not ln.strip().startswith(":")]
    order = [n for n in order if n in names]
    return ["index"] + order + [n for n in names if n not in order and n != "index"]


def sections_of(book: str, chapters: Sequence[str] = CHAPTERS, epochs: int = 1) -> List[str]:
    """``chapter_x/name`` of every section of ``chapters`` with MXNet code."""
    out = []
    for ch in chapters:
        for name in toc(book, ch):
            path = os.path.join(book, f"chapter_{ch}", name + ".md")
            if os.path.exists(path) and script_of(open(path, encoding="utf-8").read(),
                                                  epochs) is not None:
                out.append(f"chapter_{ch}/{name}")
    return out


# ---------------------------------------------------------------- running
def mxgrad_root() -> str:
    """The folder holding the ``mxgrad`` this interpreter imports (PYTHONPATH, an editable
    install...), else this repository."""
    spec = importlib.util.find_spec("mxgrad")
    if spec is not None and spec.origin:
        return os.path.dirname(os.path.dirname(spec.origin))
    return ROOT


def snapshot_mxgrad(root: str, work: str, python: str, tries: int = 10,
                    wait: float = 30.0) -> str:
    """A frozen copy of ``root``'s ``mxgrad`` package in ``work`` (a checkout being edited
    meanwhile must not change the code mid-run), taken again while it does not import
    (a file caught half-edited); the folder holding the copy."""
    for attempt in range(tries):
        dest = os.path.join(work, "mxgrad-snapshot")
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(os.path.join(root, "mxgrad"), os.path.join(dest, "mxgrad"),
                        ignore=shutil.ignore_patterns("__pycache__"))
        res = subprocess.run([python, "-c", "import mxgrad, mxgrad.numpy"], cwd=dest,
                             capture_output=True, text=True, env={**os.environ,
                                                                  "PYTHONPATH": dest})
        if res.returncode == 0:
            return dest
        print(f"mxgrad from {root} does not import (try {attempt + 1}): "
              f"{res.stderr.strip().splitlines()[-1:]}", flush=True)
        time.sleep(wait)
    raise SystemExit(f"mxgrad from {root} did not import in {tries} tries")


def classify(returncode: int, stderr: str, section: str = "") -> Tuple[str, str]:
    """(status, first error line) of a finished section."""
    if returncode == 0:
        return "pass", ""
    err = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    last = err[-1].strip() if err else f"exit code {returncode}"
    if any(s in stderr for s in NET_SIGNS):
        return "needs download", last
    if section in GPU_SECTIONS or any(s in stderr for s in GPU_SIGNS):
        return "needs GPU", last
    return "fail", last


def run_section(python: str, prelude: str, book: str, section: str, work: str, side: str,
                epochs: int, timeout: int) -> Tuple[str, float, str]:
    """Run one section on one side: (status, seconds, first error line)."""
    chapter, name = section.split("/")
    body = script_of(open(os.path.join(book, chapter, name + ".md"), encoding="utf-8").read(),
                     epochs, display=True)
    if body is None:
        return "no mxnet code", 0.0, ""
    run = os.path.join(work, f"run-{side}")
    cwd = os.path.join(run, chapter)
    os.makedirs(cwd, exist_ok=True)
    if not os.path.lexists(os.path.join(run, "data")):
        os.symlink(os.path.join(work, "data"), os.path.join(run, "data"))
    path = os.path.join(cwd, f"sec_{name}.py")   # not pandas.py: the book imports pandas
    with open(path, "w", encoding="utf-8") as f:
        f.write(prelude + DISPLAY + "\n" + body)
    env = dict(os.environ)
    env.update({"HOME": os.path.join(run, "home"), "MPLBACKEND": "Agg",
                "PYTHONPATH": book, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                "MXNET_HOME": os.path.join(work, "mxnet-home")})
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
    status, first = classify(res.returncode, res.stderr, section)
    return status, secs, first


def _results_path(work: str, side: str) -> str:
    return os.path.join(work, f"results-{side}.json")


def load_results(work: str, side: str) -> Dict[str, list]:
    path = _results_path(work, side)
    if not os.path.exists(path):
        return {}
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save_results(work: str, side: str, results: Dict[str, list]) -> None:
    path = _results_path(work, side)
    fd, tmp = tempfile.mkstemp(dir=work)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    os.replace(tmp, path)


def table(work: str, sections: Optional[Sequence[str]] = None) -> str:
    """Markdown table of both sides' saved results."""
    sides = {s: load_results(work, s) for s in ("mxgrad", "mxnet")}
    names = list(sections or [])
    for res in sides.values():
        names += [n for n in res if n not in names]
    rows = ["| section | mxgrad | s | MXNet 1.9.1 | s | first error (mxgrad) |",
            "|---|---|---|---|---|---|"]
    for sec in names:
        cells = []
        for s in ("mxgrad", "mxnet"):
            r = sides[s].get(sec)
            cells += [r[0], f"{r[1]:.1f}"] if r else ["-", "-"]
        r = sides["mxgrad"].get(sec)
        first = (r[2] if r else "").replace("|", "\\|")[:140]
        rows.append(f"| {sec} | " + " | ".join(cells) + f" | {first} |")
    for s, res in sides.items():
        if not res:
            continue
        counts: Dict[str, int] = {}
        for r in res.values():
            counts[r[0]] = counts.get(r[0], 0) + 1
        total = sum(r[1] for r in res.values())
        rows.append(f"\n{s}: {len(res)} sections, {counts}, {total:.0f} s")
    both = [n for n in names if n in sides["mxgrad"] and n in sides["mxnet"]
            and sides["mxnet"][n][0] == "pass"]
    if both:
        t_g = sum(sides["mxgrad"][n][1] for n in both)
        t_m = sum(sides["mxnet"][n][1] for n in both)
        ok = sum(sides["mxgrad"][n][0] == "pass" for n in both)
        rows.append(f"sections passing on MXNet: {len(both)}; of them passing on mxgrad: {ok}; "
                    f"time over them: mxgrad {t_g:.0f} s, MXNet {t_m:.0f} s")
    return "\n".join(rows)


def failures(work: str) -> str:
    """mxgrad's failing sections grouped by first error line (most frequent first)."""
    res = load_results(work, "mxgrad")
    mx = load_results(work, "mxnet")
    groups: Dict[str, List[str]] = {}
    for sec, (status, _, first) in res.items():
        if status in ("pass", "needs download", "needs GPU", "no mxnet code"):
            continue
        key = f"[{status}] {first}"
        groups.setdefault(key, []).append(sec)
    out = ["# d2l-en (v1.0.3, MXNet tab) on mxgrad: failures by first error line", "",
           "Made by `tools/run_d2l_np.py --table --failures` from "
           f"`{_results_path(work, 'mxgrad')}` (logs: `{work}/run-mxgrad/<chapter>/sec_<section>.log`).",
           ""]
    for key, secs in sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"- **{len(secs)}** × `{key}`")
        for s in secs:
            side = mx.get(s)
            note = f" (MXNet: {side[0]})" if side else ""
            out.append(f"  - {s}{note}")
    return "\n".join(out) + "\n"


_NUMBER = re.compile(r"(?<![A-Za-z_\d])[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def normalized_output(log: str) -> List[str]:
    """A section log's stdout lines with every number as ``#`` and spaces collapsed, so
    that random draws and column widths do not count as differences; a whole array's
    repr (``array([...])`` over several lines) becomes one line first."""
    text = log.split("\n---- stderr ----\n")[0]
    out: List[str] = []
    depth = 0
    for ln in text.splitlines():
        if "Figure size" in ln or ln.strip() in ("", "\x1b[2K"):
            continue
        norm = " ".join(_NUMBER.sub("#", ln).split())
        if depth and out:
            out[-1] += " " + norm
        else:
            out.append(norm)
        depth = max(0, depth + ln.count("(") + ln.count("[") - ln.count(")") - ln.count("]"))
    out = [re.sub(r"(# ?,? ?)+", "#, ", ln) for ln in out]
    return [re.sub(r"([\[(]) | ([\])])", r"\1\2", ln) for ln in out]


def output_differences(work: str, per_section: int = 3) -> str:
    """Sections whose printed output differs between the sides beyond numbers: the
    first ``per_section`` differing lines of each side (lines compared by position)."""
    out = []
    for sec in load_results(work, "mxgrad"):
        chapter, name = sec.split("/")
        logs = [os.path.join(work, f"run-{side}", chapter, f"sec_{name}.log")
                for side in ("mxgrad", "mxnet")]
        if not all(os.path.exists(p) for p in logs):
            continue
        out.extend(log_differences(sec, logs, per_section))
    return "\n".join(out)


def log_differences(what: str, logs: Sequence[str], most: int) -> List[str]:
    """The first ``most`` lines (by position) where the two sides' logs differ once numbers
    are masked, as Markdown items naming ``what``."""
    a, b = (normalized_output(open(p, encoding="utf-8").read()) for p in logs)
    out: List[str] = []
    for i in range(max(len(a), len(b))):
        la = a[i] if i < len(a) else "(nothing)"
        lb = b[i] if i < len(b) else "(nothing)"
        if la != lb and len(out) < most:
            out.append(f"- {what}: line {i + 1}\n  - mxgrad: `{la[:200]}`\n"
                       f"  - MXNet:  `{lb[:200]}`")
    return out


def add_side_arguments(ap: argparse.ArgumentParser, timeout: int, images: str,
                       default_root: str = "this interpreter's mxgrad") -> None:
    """The options every real-program runner takes: the two interpreters, which mxgrad
    to run, which side, epochs, the timeout and the synthetic data's size."""
    ap.add_argument("--mxnet-python", default="/tmp/mxvenv/bin/python",
                    help="an interpreter with MXNet 1.9.1")
    ap.add_argument("--python", default=sys.executable, help="interpreter for mxgrad")
    ap.add_argument("--mxgrad-root", default=None,
                    help=f"folder holding the mxgrad package to run (default: "
                         f"{default_root})")
    ap.add_argument("--live", action="store_true",
                    help="run mxgrad from --mxgrad-root itself, not a snapshot of it")
    side = ap.add_mutually_exclusive_group()
    side.add_argument("--mxgrad-only", action="store_true")
    side.add_argument("--mxnet-only", action="store_true")
    ap.add_argument("--epochs", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=timeout)
    ap.add_argument("--images", type=int, default=512, help=images)


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--d2l-git", help="git dir of a d2l-en clone")
    ap.add_argument("--ref", default="v1.0.3", help="tag or commit of the book")
    ap.add_argument("--work", default="/tmp/d2len")
    add_side_arguments(ap, timeout=900,
                       images="synthetic Fashion-MNIST training images (a quarter as many "
                              "test)")
    ap.add_argument("--chapters", default=",".join(CHAPTERS),
                    help="comma-separated chapter names (without chapter_)")
    ap.add_argument("--table", action="store_true", help="print the saved results' table only")
    ap.add_argument("--failures", default=None,
                    help="also write mxgrad's failures grouped by first error to this file")
    ap.add_argument("--list", action="store_true", help="list the sections and stop")
    ap.add_argument("--diff", action="store_true",
                    help="also print the sections whose output differs beyond numbers")
    ap.add_argument("sections", nargs="*", help="chapter_x/name (default: all of --chapters)")
    args = ap.parse_args(argv)
    os.makedirs(args.work, exist_ok=True)
    if not args.table:
        if not args.d2l_git:
            ap.error("--d2l-git is needed to run sections")
        book = extract_book(args.d2l_git, args.ref, args.work)
        chapters = [c.strip() for c in args.chapters.split(",") if c.strip()]
        sections = args.sections or sections_of(book, chapters, args.epochs)
        if args.list:
            print("\n".join(sections))
            return 0
        fake_fashion_mnist(os.path.join(args.work, "mxnet-home"), args.images,
                           max(args.images // 4, 1))
        sides = []
        if not args.mxnet_only:
            root = args.mxgrad_root or mxgrad_root()
            if not args.live:
                rev = subprocess.run(["git", "-C", root, "rev-parse", "--short", "HEAD"],
                                     capture_output=True, text=True).stdout
                root = snapshot_mxgrad(root, args.work, args.python)
                print(f"mxgrad: snapshot of {args.mxgrad_root or mxgrad_root()} "
                      f"(HEAD {(rev or '?').strip()} + working tree) in {root}", flush=True)
            sides.append(("mxgrad", args.python, PRELUDE_MXGRAD.format(root=root)))
        if not args.mxgrad_only:
            sides.append(("mxnet", args.mxnet_python, PRELUDE_MXNET))
        for sec in sections:
            for name, python, prelude in sides:
                r = run_section(python, prelude, book, sec, args.work, name, args.epochs,
                                args.timeout)
                results = load_results(args.work, name)
                results[sec] = list(r)
                save_results(args.work, name, results)
                print(json.dumps({"section": sec, "side": name, "result": list(r)}),
                      flush=True)
    print(table(args.work))
    if args.diff:
        print("\nOutput differences (numbers aside):\n" + output_differences(args.work))
    if args.failures:
        text = failures(args.work)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(args.failures)))
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, args.failures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
