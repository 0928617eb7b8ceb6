"""Sphinx configuration of mxgrad's documentation (``python -m sphinx -W docs docs/_build``).

The API reference is generated from the docstrings at build time (:func:`_write_api_pages`
writes one page per module into ``docs/api/_generated``); the notebooks are rendered from
``notebooks/`` with their stored outputs (they are executed by the test suite, not here).
"""
import inspect
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, ROOT)

import mxgrad  # noqa: E402

project = "mxgrad"
author = "the mxgrad developers"
copyright = "the mxgrad developers, Apache-2.0"
release = version = mxgrad.__version__

extensions = ["sphinx.ext.autodoc", "sphinx.ext.napoleon", "myst_nb"]
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "**.ipynb_checkpoints"]
nb_execution_mode = "off"            # the test suite runs the notebooks; render stored outputs
myst_enable_extensions = ["colon_fence"]
myst_heading_anchors = 3
html_theme = "furo"
smartquotes = False                # keep `--epochs` and quotes as typed
add_module_names = False           # `abs(x)` on the mx.nd page, not `mxgrad.ndarray.abs(x)`
html_title = f"mxgrad {release}"
html_static_path = []
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_member_order = "bysource"
autodoc_typehints = "signature"
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_rtype = False
napoleon_use_param = False     # parameters as one list (no per-type cross-references)

#: (page name, title, module): one API page per module, in this order.
API = [
    ("mx", "mx (top level)", "mxgrad"),
    ("nd", "mx.nd: NDArray and operators", "mxgrad.ndarray"),
    ("autograd", "mx.autograd", "mxgrad.autograd"),
    ("functional", "mx.autograd.functional", "mxgrad.autograd.functional"),
    ("forward_ad", "mx.autograd.forward_ad", "mxgrad.autograd.forward_ad"),
    ("gluon", "mx.gluon", "mxgrad.gluon"),
    ("gluon.nn", "mx.gluon.nn", "mxgrad.gluon.nn"),
    ("gluon.rnn", "mx.gluon.rnn", "mxgrad.gluon.rnn"),
    ("gluon.loss", "mx.gluon.loss", "mxgrad.gluon.loss"),
    ("gluon.data", "mx.gluon.data", "mxgrad.gluon.data"),
    ("gluon.data.vision", "mx.gluon.data.vision", "mxgrad.gluon.data.vision"),
    ("gluon.model_zoo", "mx.gluon.model_zoo.vision", "mxgrad.gluon.model_zoo.vision"),
    ("gluon.contrib", "mx.gluon.contrib", "mxgrad.gluon.contrib"),
    ("gluon.contrib.estimator", "mx.gluon.contrib.estimator", "mxgrad.gluon.contrib.estimator"),
    ("gluon.utils", "mx.gluon.utils", "mxgrad.gluon.utils"),
    ("optimizer", "mx.optimizer", "mxgrad.optimizer"),
    ("lr_scheduler", "mx.lr_scheduler", "mxgrad.lr_scheduler"),
    ("init", "mx.init", "mxgrad.initializer"),
    ("metric", "mx.metric", "mxgrad.metric"),
    ("io", "mx.io", "mxgrad.io"),
    ("image", "mx.image", "mxgrad.image"),
    ("recordio", "mx.recordio", "mxgrad.recordio"),
    ("kv", "mx.kv", "mxgrad.kvstore"),
    ("sym", "mx.sym", "mxgrad.symbol"),
    ("viz", "mx.viz", "mxgrad.viz"),
    ("random", "mx.random", "mxgrad.random"),
    ("context", "mx.context", "mxgrad.context"),
    ("test_utils", "mx.test_utils", "mxgrad.test_utils"),
    ("base", "mx.base: errors", "mxgrad.base"),
]


def _public(mod):
    """The documented names of ``mod``: its ``__all__``, or else its public functions and
    classes defined inside mxgrad."""
    names = getattr(mod, "__all__", None)
    if names is None:
        names = [n for n in dir(mod) if not n.startswith("_")]
    out = []
    for n in names:
        obj = getattr(mod, n, None)
        if inspect.ismodule(obj) or obj is None:
            continue
        if not (inspect.isclass(obj) or callable(obj)):
            continue
        if not getattr(obj, "__module__", "").startswith("mxgrad"):
            continue
        out.append((n, obj))
    return out


def _write_api_pages(app):
    """One page per module of :data:`API`; an object is described once, on the first page
    that lists it (its home: ``NDArray`` on mx.nd, not again on mx.autograd)."""
    import importlib
    out_dir = os.path.join(HERE, "api", "_generated")
    shutil.rmtree(out_dir, ignore_errors=True)
    os.makedirs(out_dir)
    seen = set()
    for i, (page, title, modname) in enumerate(API):
        mod = importlib.import_module(modname)
        lines = [f".. _api-{page}:", "", title, "=" * len(title), ""]
        if inspect.getdoc(mod):
            lines += [f".. automodule:: {modname}", "   :no-members:", ""]
        elsewhere = []
        for name, obj in sorted(_public(mod), key=lambda t: t[0].lower()):
            if id(obj) in seen:
                elsewhere.append(name)
                continue
            seen.add(id(obj))
            kind = "autoclass" if inspect.isclass(obj) else "autofunction"
            lines += [f".. {kind}:: {modname}.{name}"]
            if kind == "autoclass":
                lines += ["   :members:", "   :no-index:" if name != obj.__name__ else ""]
            else:
                lines += ["   :no-index:" if name != getattr(obj, "__name__", name) else ""]
            lines += [""]
        if elsewhere:
            lines += ["Also here, described on an earlier page: "
                      + ", ".join(f"``{n}``" for n in elsewhere) + ".", ""]
        with open(os.path.join(out_dir, f"{i:02d}_{page}.rst"), "w", encoding="utf-8") as f:
            f.write("\n".join(lines))


def _copy_notebooks(app):
    out_dir = os.path.join(HERE, "notebooks")
    os.makedirs(out_dir, exist_ok=True)
    for name in sorted(os.listdir(os.path.join(ROOT, "notebooks"))):
        if name.endswith(".ipynb"):
            shutil.copyfile(os.path.join(ROOT, "notebooks", name), os.path.join(out_dir, name))


def setup(app):
    app.connect("builder-inited", _write_api_pages)
    app.connect("builder-inited", _copy_notebooks)
