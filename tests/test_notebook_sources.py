"""Every code cell of every notebook compiles as plain Python.

This is independent of the IPython version that runs the notebooks: IPython releases differ in
how forgiving they are (IPython < 9 silently removed a leading indent, 9 does not), so a cell
that runs on one machine can fail with ``IndentationError`` on a fresh one. Compiling the cells
ourselves, with IPython's line and cell magics stripped, catches that class of failure in
milliseconds, before any kernel starts.
"""
import glob
import json
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))


def _python_source(cell_source):
    """The cell's source as plain Python: magics and shell escapes become ``pass``.

    Lines are replaced rather than dropped so line numbers in errors still match the cell.
    A cell magic (``%%time``...) makes the whole cell non-Python except for its body, which is
    what the magic runs; we keep the body.
    """
    lines = cell_source.splitlines()
    if lines and lines[0].lstrip().startswith("%%"):
        lines = ["pass"] + lines[1:]
    out = []
    for line in lines:
        stripped = line.lstrip()
        if stripped.startswith(("%", "!")):
            out.append(line[: len(line) - len(stripped)] + "pass")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def _code_cells(path):
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    for i, cell in enumerate(nb["cells"]):
        if cell["cell_type"] == "code":
            src = cell["source"]
            yield i, "".join(src) if isinstance(src, list) else src


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[os.path.basename(p) for p in NOTEBOOKS])
def test_every_code_cell_compiles(path):
    name = os.path.basename(path)
    cells = list(_code_cells(path))
    assert cells, f"{name} has no code cells"
    for i, src in cells:
        try:
            compile(_python_source(src), f"{name}[cell {i}]", "exec")
        except SyntaxError as e:  # name the cell and line so the fix is obvious
            pytest.fail(f"{name}, cell {i}, line {e.lineno}: {e.msg}\n{e.text}")


def test_magics_are_stripped_and_indentation_is_checked():
    assert compile(_python_source("%matplotlib inline\nx = 1"), "<t>", "exec")
    assert compile(_python_source("%%time\nx = 1"), "<t>", "exec")
    with pytest.raises(SyntaxError):
        compile(_python_source("    import numpy\nx = 1"), "<t>", "exec")


def test_test_extra_pins_no_versions():
    """The ``test`` extra installs what a new user would get today: no upper bounds or pins
    that could hide a failure with the newest releases."""
    import configparser
    cfg = configparser.ConfigParser()
    cfg.read(os.path.join(ROOT, "setup.cfg"))
    reqs = [r.strip() for r in cfg["options.extras_require"]["test"].splitlines() if r.strip()]
    assert reqs
    for req in reqs:
        assert not any(op in req for op in ("==", "<", "~=")), f"test extra pins {req!r}"


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 5
