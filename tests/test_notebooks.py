"""Every notebook in notebooks/ runs top to bottom, and produces the kinds of outputs it
stores (the stored outputs are ones it produced)."""
import glob
import os

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))


def _kinds(cell):
    return sorted({o.get("output_type") for o in cell.get("outputs", [])} - {"error"})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[os.path.basename(p) for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path):
    nb = nbformat.read(path, as_version=4)
    stored = [_kinds(c) for c in nb.cells if c.cell_type == "code"]
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": os.path.dirname(path)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    produced = [_kinds(c) for c in nb.cells if c.cell_type == "code"]
    for i, (s, p) in enumerate(zip(stored, produced)):
        if s:
            assert p, f"code cell {i} of {os.path.basename(path)} stored outputs but produced none"
    size = os.path.getsize(path)
    assert size < 400_000, f"{os.path.basename(path)} is {size} bytes: keep outputs small"


def test_there_are_notebooks():
    assert len(NOTEBOOKS) >= 1
