"""``Block.save(prefix)`` / ``Block.load(prefix)`` as MXNet 1.9.1 has them: the
architecture's names in ``<prefix>-model.json`` and the parameters in
``<prefix>-model.params`` (the ``save_parameters`` file).

The JSON is MXNet's layout: one entry per block keyed by its lower-cased class name and
its position in a depth-first walk (``"dense1"``; the counter runs over the whole tree, as
MXNet's), holding ``orig_name``, ``hybridized``, ``children`` (child name -> attribute
name) and the children's entries; a hybridized block that has run also holds its traced
graph (``symbol``, ``inputs``, ``in_format``, ``out_format``). ``load`` gives the blocks
of an identically built model their saved names (and parameter keys), marks the saved
hybridized blocks hybridized (mxgrad runs them imperatively; the graph is not needed)
and loads the parameters. Files of either program load in the other.
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List

from .._fileio import atomic_write
from ..base import FileFormatError, FileMissingError


def _is_hybrid(blk: Any) -> bool:
    return hasattr(blk, "hybrid_forward") and hasattr(blk, "_in_specs")


def _entry(blk: Any, index: List[int], structure: Dict[str, Any], inside: bool) -> None:
    """``inside``: an ancestor's graph holds this block (MXNet keeps no graph of its own
    for a block that ran only inside a hybridized parent)."""
    mdl: Dict[str, Any] = {"orig_name": blk.name}
    structure[type(blk).__name__.lower() + str(index[0])] = mdl
    if _is_hybrid(blk):
        if blk._active and blk._in_specs is not None and not inside:
            inside = True
            from .. import symbol as _sym
            sym = blk._trace()
            n = len(blk._in_specs)
            names = ["data"] if n == 1 else [f"data{i}" for i in range(n)]
            mdl["in_format"] = [0] * n
            outs = len(sym.list_outputs())
            mdl["out_format"] = 0 if outs == 1 else [0] * outs
            mdl["inputs"] = [_sym.var(v).tojson() for v in names]
            mdl["symbol"] = sym.tojson()
            mdl["hybridized"] = True
        else:
            mdl["hybridized"] = False
    children: Dict[str, str] = {}
    mdl["children"] = children
    for ch_name, child in blk._children.items():
        index[0] += 1
        children[child.name] = ch_name
        _entry(child, index, mdl, inside)


def save_model(block: Any, prefix: str) -> None:
    """Write ``<prefix>-model.json`` and ``<prefix>-model.params`` (see the module)."""
    model: Dict[str, Any] = {}
    _entry(block, [0], model, False)
    with atomic_write(prefix + "-model.json", "w") as fp:
        json.dump(model, fp)
    block.save_parameters(prefix + "-model.params")


def _restore(blk: Any, index: List[int], structure: Dict[str, Any], fname: str) -> None:
    key = type(blk).__name__.lower() + str(index[0])
    mdl = structure.get(key)
    if not isinstance(mdl, dict) or not isinstance(mdl.get("orig_name"), str) \
            or not isinstance(mdl.get("children"), dict):
        raise FileFormatError(f"Block.load: {fname} has no valid entry {key!r} for block "
                              f"{blk.name!r}; build the model exactly as when it was saved")
    blk._name = mdl["orig_name"]
    if _is_hybrid(blk) and mdl.get("hybridized"):
        blk._active = True
    params = blk.params._params
    for p in list(params.keys()):
        param = params.pop(p)
        params[blk.name + "_" + p[len(blk.params._prefix):]] = param
    for child in blk._children.values():
        index[0] += 1
        _restore(child, index, mdl, fname)
    saved = mdl["children"]
    for ch_name in list(blk._children.keys()):
        child = blk._children.pop(ch_name)
        orig = saved.get(child.name)
        if not isinstance(orig, str):
            raise FileFormatError(f"Block.load: {fname} does not list child {child.name!r} "
                                  f"of {blk.name!r}; build the model exactly as when it was "
                                  f"saved")
        blk._children[orig] = child


def load_model(block: Any, prefix: str) -> None:
    """Read what :func:`save_model` wrote into an identically built ``block``."""
    fname = prefix + "-model.json"
    if not os.path.isfile(fname):
        raise FileMissingError(f"Block.load: {fname} does not exist; pass the prefix given "
                               f"to Block.save")
    try:
        with open(fname) as fp:
            model = json.load(fp)
    except (ValueError, UnicodeDecodeError) as err:
        raise FileFormatError(f"Block.load: {fname} is not JSON ({err})") from None
    if not isinstance(model, dict):
        raise FileFormatError(f"Block.load: {fname} does not hold a model description")
    _restore(block, [0], model, fname)
    block.load_parameters(prefix + "-model.params")
