"""Every notebook in notebooks/ runs top to bottom from any folder (as from an installed
package: nothing read relative to the checkout), and produces the kinds of outputs it stores
(the stored outputs are ones it produced); stored figures are sharp enough to read."""
import base64
import glob
import os
import struct

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NOTEBOOKS = sorted(glob.glob(os.path.join(ROOT, "notebooks", "*.ipynb")))


def _kinds(cell):
    return sorted({o.get("output_type") for o in cell.get("outputs", [])} - {"error"})


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[os.path.basename(p) for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    stored = [_kinds(c) for c in nb.cells if c.cell_type == "code"]
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name="python3",
                                     resources={"metadata": {"path": str(tmp_path)}})
    client.execute()  # raises CellExecutionError on the first failing cell
    produced = [_kinds(c) for c in nb.cells if c.cell_type == "code"]
    for i, (s, p) in enumerate(zip(stored, produced)):
        if s:
            assert p, f"code cell {i} of {os.path.basename(path)} stored outputs but produced none"
    size = os.path.getsize(path)
    assert size < 400_000, f"{os.path.basename(path)} is {size} bytes: keep outputs small"


def test_there_are_notebooks():
    names = [os.path.basename(p) for p in NOTEBOOKS]
    assert names[0] == "00_ndarray_first_steps.ipynb" and len(names) >= 6, names


def _png_sizes(path):
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            png = out.get("data", {}).get("image/png")
            if png:
                head = base64.b64decode(png)[:24]
                assert head[:8] == b"\x89PNG\r\n\x1a\n"
                yield cell.source, struct.unpack(">II", head[16:24])


def test_figures_are_stored_at_a_readable_resolution():
    sizes = [(src, wh) for p in NOTEBOOKS for src, wh in _png_sizes(p)]
    assert len(sizes) >= 5
    for src, (w, h) in sizes:
        assert w >= 300 and h >= 100, (w, h, src[:80])
    strip = [wh for src, wh in sizes if "img.reshape(8, 8)" in src]   # notebook 03's digits
    assert strip and strip[0][0] >= 600, strip   # was ~300 px at 60 dpi
