"""Op application is generated from one template (issue 20 item 2): the record decision
asked in one place, the record functions looked up where plan capture swaps them."""
import ast
import os
import traceback

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import ShapeError
from mxgrad.ops import _apply

OPS_DIR = os.path.dirname(_apply.__file__)


def test_records_is_the_one_question():
    leaf = mx.nd.ones((2,))
    leaf.attach_grad()
    free = mx.nd.ones((2,))
    assert not _apply.records(leaf)                   # not recording
    with mx.autograd.record():
        assert _apply.records(leaf)
        assert _apply.records(free, leaf)
        assert not _apply.records(free)
        assert not _apply.records(None, np.ones(2), 3.0)  # non-arrays are not in a graph
        with mx.autograd.pause():
            assert not _apply.records(leaf)


def test_no_op_module_reads_the_recording_switch():
    """Op modules ask ``records``; only the template itself reads ``st.recording``."""
    readers = []
    for name in sorted(os.listdir(OPS_DIR)):
        if not name.endswith(".py") or name == "_apply.py":
            continue
        with open(os.path.join(OPS_DIR, name), encoding="utf-8") as f:
            tree = ast.parse(f.read())
        readers += [f"{name}:{n.lineno}" for n in ast.walk(tree)
                    if isinstance(n, ast.Attribute) and n.attr == "recording"]
    assert readers == []


def test_generated_appliers_look_record_functions_up_at_call_time():
    """Plan capture swaps ``_record1``/``_record2``/``record`` in _apply's namespace: every
    generated path must see the swap."""
    seen = []
    orig = {n: getattr(_apply, n) for n in ("_record1", "_record2", "record")}

    def hook(name):
        def f(op, *rest):
            seen.append((name, op.name))
            return orig[name](op, *rest)
        return f
    x = mx.nd.array([1., 2.])
    x.attach_grad()
    try:
        for n in orig:
            setattr(_apply, n, hook(n))
        with mx.autograd.record():
            y = mx.nd.tanh(x) * 2.0 + x          # unary_fast, operator (scalar, array)
            z = mx.nd.concat(y, x, dim=0)        # apply
            w = mx.nd.sum(z)                     # apply1
    finally:
        for n, f in orig.items():
            setattr(_apply, n, f)
    w.backward()
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * (1 - np.tanh([1., 2.]) ** 2) + 2,
                               rtol=1e-6)
    assert seen == [("_record1", "tanh"), ("_record1", "_mul_scalar"), ("_record2", "add"),
                    ("record", "concat"), ("_record1", "sum")]


def test_a_shape_error_from_generated_code_has_a_readable_traceback():
    with pytest.raises(ShapeError, match=r"^add: inputs of shapes \(2,\), \(3,\)") \
            as info:
        mx.nd.add(mx.nd.ones((2,)), mx.nd.ones((3,)))
    frames = traceback.extract_tb(info.value.__traceback__)
    assert frames[-1].filename.startswith(_apply.__file__ + " <generated")
    assert "_shape_error" in frames[-1].line          # the template's line, from linecache
