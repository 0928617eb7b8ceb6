"""Each MXNet operator is one record (``mxgrad/ops/_mxnet_op.py``) declared beside the
``mx.nd`` function that runs it (issue 20 item 1): the Symbol registry, the shape pass and
the dtype pass hold no row of their own for it. One block of tests per group of operators."""
import ast
import inspect
import json
import os
import sys

import pytest

import mxgrad as mx
from mxgrad.ops._mxnet_op import lookup
from mxgrad.symbol import _dtype, _registry, _shape

HERE = os.path.dirname(os.path.abspath(__file__))


def declared_names(module) -> set:
    """The operator names ``module`` declares with ``mxnet_op``: a literal first argument,
    or a loop variable over a literal tuple or dict (``_n`` / ``f"_sample_{_d}"``)."""
    tree = ast.parse(inspect.getsource(module))
    assigned = {t.id: node.value for node in tree.body if isinstance(node, ast.Assign)
                for t in node.targets if isinstance(t, ast.Name)}

    def loop_values(loop: ast.For) -> list:
        it = loop.iter
        if isinstance(it, ast.Call) and isinstance(it.func, ast.Attribute):   # X.items()
            it = it.func.value
        if isinstance(it, ast.Name):
            it = assigned.get(it.id, it)
        elts = it.keys if isinstance(it, ast.Dict) else getattr(it, "elts", [])
        out = []
        for e in elts:
            e = e.elts[0] if isinstance(e, ast.Tuple) else e
            if isinstance(e, ast.Constant) and isinstance(e.value, str):
                out.append(e.value)
        return out

    names = set()
    for loop in [n for n in ast.walk(tree) if isinstance(n, ast.For)] + [tree]:
        body = loop.body if isinstance(loop, ast.For) else tree.body
        values = loop_values(loop) if isinstance(loop, ast.For) else []
        for stmt in body:
            for call in ast.walk(stmt):
                if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                        and call.func.id == "mxnet_op" and call.args):
                    continue
                first = call.args[0]
                if isinstance(first, ast.Constant):
                    names.add(first.value)
                elif isinstance(first, ast.Name):
                    names.update(values)
                elif isinstance(first, ast.JoinedStr):
                    parts = [p.value if isinstance(p, ast.Constant) else None
                             for p in first.values]
                    names.update("".join(v if p is None else p for p in parts)
                                 for v in values)
    return names


def registry_rows() -> set:
    """Names the Symbol registry still declares itself (``_op("name"...)`` calls and its
    tables of extra outputs, aux states and parameters)."""
    tree = ast.parse(inspect.getsource(_registry))
    rows = {c.args[0].value for c in ast.walk(tree)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "_op"
            and c.args and isinstance(c.args[0], ast.Constant)}
    return rows | set(_registry._MULTI_OUTPUTS) | set(_registry._AUX) | set(_registry._PARAMS)


# ------------------------------------------------------------------ rec-elem
_UNARY = ("relu", "sigmoid", "tanh", "exp", "log", "log2", "log10", "log1p", "expm1", "sqrt",
          "rsqrt", "cbrt", "rcbrt", "square", "abs", "negative", "reciprocal", "sign",
          "floor", "ceil", "round", "rint", "fix", "trunc", "sin", "cos", "tan", "arcsin",
          "arccos", "arctan", "sinh", "cosh", "arcsinh", "arccosh", "arctanh", "degrees",
          "radians", "erf", "erfinv", "gamma", "gammaln", "softsign")
_SCALAR = ("_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar",
           "_rdiv_scalar", "_power_scalar", "_rpower_scalar", "_mod_scalar", "_rmod_scalar",
           "_maximum_scalar", "_minimum_scalar", "_hypot_scalar", "_equal_scalar",
           "_not_equal_scalar", "_greater_scalar", "_greater_equal_scalar", "_lesser_scalar",
           "_lesser_equal_scalar")
_BROADCAST = ("broadcast_add", "broadcast_sub", "broadcast_mul", "broadcast_div",
              "broadcast_maximum", "broadcast_minimum", "broadcast_power", "broadcast_mod",
              "broadcast_equal", "broadcast_not_equal", "broadcast_greater",
              "broadcast_greater_equal", "broadcast_lesser", "broadcast_lesser_equal",
              "broadcast_hypot", "broadcast_logical_and", "broadcast_logical_or",
              "broadcast_logical_xor")
_DISTS = ("uniform", "normal", "gamma", "exponential", "poisson", "negative_binomial",
          "generalized_negative_binomial")
# module -> the operators whose record it declares, right after their functions
ELEM_HOMES = {
    "mxgrad.ops.elemwise": _UNARY + _SCALAR + _BROADCAST + (
        "clip", "Cast", "amp_cast", "_copy", "zeros_like", "ones_like", "BlockGrad",
        "smooth_l1", "logical_not", "elemwise_add", "elemwise_sub", "elemwise_mul",
        "elemwise_div", "_maximum", "_minimum", "_power", "_mod", "_hypot", "_equal",
        "_not_equal", "_greater", "_greater_equal", "_lesser", "_lesser_equal", "add_n"),
    "mxgrad.ops.reduce": ("sum", "mean", "max", "min", "prod", "norm", "nansum", "nanprod"),
    "mxgrad.ops.ordering": ("argmax", "argmin", "argmax_channel", "argsort", "sort", "topk"),
    "mxgrad.ops.composed": ("moments", "khatri_rao", "diag", "cumsum"),
    "mxgrad.ops.creation": ("_zeros", "_ones", "_full", "_arange", "_linspace", "_eye"),
    "mxgrad.ops.indexing": ("take", "batch_take", "pick", "gather_nd", "one_hot", "where"),
    "mxgrad.ops.random": tuple(f"_random_{d}" for d in _DISTS + ("randint",))
    + tuple(f"_random_{d}_like" for d in _DISTS)
    + ("_sample_multinomial", "sample_multinomial", "shuffle"),
    "mxgrad.ops.sampling": tuple(f"_sample_{d}" for d in _DISTS)
    + tuple(f"sample_{d}" for d in _DISTS),
    "mxgrad.ops.numeric": ("_histogram",),
    "mxgrad.ndarray.contrib": ("_contrib_div_sqrt_dim", "_contrib_quadratic",
                               "_contrib_gradientmultiplier", "_contrib_round_ste",
                               "_contrib_sign_ste", "_contrib_index_copy"),
}


@pytest.mark.parametrize("home", sorted(ELEM_HOMES))
def test_records_elem_declared_beside_their_functions(home):
    module = sys.modules[home]
    assert set(ELEM_HOMES[home]) <= declared_names(module)
    rows = registry_rows()
    for name in ELEM_HOMES[home]:
        rec = lookup(name)
        assert rec is not None and rec.name == name and rec.run is not None, name
        assert name not in rows, f"{name}: a row in symbol/_registry.py besides its record"
        assert name not in _shape._RULES and name not in _dtype._RULES, name
        for rule in (rec.shape, rec.dtype):     # a rule of its own lives in its module
            if rule is not None and not rule.__module__.startswith("mxgrad.ops._"):
                assert rule.__module__ == home, (name, rule)


def test_records_elem_fields():
    """What the records say: aliases, inputs, outputs, attributes, rules."""
    from mxgrad.ops import _shape_rules as sr
    assert lookup("_Plus").name == "elemwise_add" and lookup("_PlusScalar").name == \
        "_plus_scalar"
    assert lookup("broadcast_plus").shape is sr.broadcast_rule
    assert lookup("exp").shape is sr.same and lookup("_hypot_scalar").shape is sr.same
    assert lookup("ElementWiseSum").inputs is None and lookup("add_n").attrs >= {"num_args"}
    assert lookup("take").inputs == ("a", "indices") and lookup("cumsum").inputs == ("a",)
    assert lookup("topk").num_outputs({"ret_typ": "value"}) == 2
    assert lookup("topk").num_visible({"ret_typ": "value"}) == 1
    assert (lookup("sort").num_outputs({}), lookup("sort").num_visible({})) == (2, 1)
    assert lookup("random_uniform").name == "_random_uniform"
    assert lookup("_random_uniform").attrs >= {"low", "high", "shape", "dtype"}
    assert lookup("sample_normal").inputs == ("mu", "sigma")
    assert lookup("_sample_multinomial").num_outputs({}) == 2
    assert lookup("_contrib_index_copy").inputs == ("old_tensor", "index_vector",
                                                    "new_tensor")
    # the scalar of a *_scalar node keeps an int an int
    s = mx.sym.var("x") * 3
    out = s.eval(x=mx.nd.array([1, 2], dtype="int32"))[0]
    assert out.dtype == mx.nd.array([1], dtype="int32").dtype
    assert out.asnumpy().tolist() == [3, 6]


sys.path.insert(0, HERE)
import op_records_elem_cases  # noqa: E402

_ELEM_FIX = json.load(open(os.path.join(HERE, "data", "mxnet", "op_records_elem.json")))


@pytest.mark.parametrize("name", sorted(op_records_elem_cases.shape_cases(mx)))
def test_records_elem_infer_shape_equals_mxnet(name):
    sym, shapes = op_records_elem_cases.shape_cases(mx)[name]
    want = _ELEM_FIX[name]
    assert sym.list_arguments() == want["arguments"]
    got = sym.infer_shape_partial(**shapes)
    assert [[list(s) for s in part] for part in got] == want["shapes"]


@pytest.mark.parametrize("name", sorted(op_records_elem_cases.type_cases(mx)))
def test_records_elem_infer_type_equals_mxnet(name):
    sym, types = op_records_elem_cases.type_cases(mx)[name]
    want = _ELEM_FIX[name]
    assert sym.list_arguments() == want["arguments"]
    got = sym.infer_type_partial(**types)
    assert [[None if t is None else t.__name__ for t in part] for part in got] == \
        want["types"]
