"""Symbol.infer_shape / infer_shape_partial / infer_type from partial information, equal to
MXNet 1.9.1's (fixture by tools/make_infer_shape_fixtures.py from tests/infer_shape_cases.py)."""
import json
import os

import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

import infer_shape_cases

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                  "infer_shape.json")))
CASES = infer_shape_cases.cases(mx)
TYPE_CASES = infer_shape_cases.type_cases(mx)


@pytest.mark.parametrize("name", sorted(TYPE_CASES))
def test_infer_type_partial_equals_mxnet(name):
    sym, types = TYPE_CASES[name]
    want = FIX[name]
    assert sym.list_arguments() == want["arguments"]
    got = sym.infer_type_partial(**types)
    assert [[None if t is None else t.__name__ for t in part] for part in got] == \
        want["partial_types"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_infer_shape_partial_equals_mxnet(name):
    sym, shapes = CASES[name]
    want = FIX[name]
    assert sym.list_arguments() == want["arguments"]
    got = sym.infer_shape_partial(**shapes)
    assert [[list(s) for s in part] for part in got] == want["shapes"]
    if want["types"] is not None:
        types = sym.infer_type(**{k: "float32" for k in shapes})
        assert [[t.__name__ for t in part] for part in types] == want["types"]


def _complete(shapes):
    return all(s and all(d > 0 for d in s) for part in shapes for s in part)


@pytest.mark.parametrize("name", sorted(n for n in CASES if _complete(FIX[n]["shapes"])))
def test_infer_shape_complete_and_positional(name):
    sym, shapes = CASES[name]
    full = sym.infer_shape(**shapes)
    assert [[list(s) for s in part] for part in full] == FIX[name]["shapes"]
    positional = [shapes.get(a) for a in sym.list_arguments()]
    if all(s is not None for s in positional[:1]) and len(shapes) == 1:
        assert sym.infer_shape(positional[0]) == full


@pytest.mark.parametrize("name", sorted(n for n in CASES if not _complete(FIX[n]["shapes"])))
def test_infer_shape_incomplete_warns(name):
    sym, shapes = CASES[name]
    with pytest.warns(UserWarning, match="Cannot decide shape"):
        assert sym.infer_shape(**shapes) == (None, None, None)


def test_infer_shape_names_what_it_cannot_find():
    # MXNet warns, naming the arguments, and returns (None, None, None)
    sym, _ = CASES["partial_nothing"]
    with pytest.warns(UserWarning, match="fc3_weight"):
        assert sym.infer_shape() == (None, None, None)


def test_infer_shape_contradiction_names_the_operator():
    sym, _ = CASES["partial_nothing"]
    with pytest.raises(MXNetError, match="fc3.*Shape inconsistent"):
        sym.infer_shape(data=(2, 3), fc3_weight=(2, 4))
