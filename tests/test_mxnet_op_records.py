"""Each MXNet operator's record is declared beside its ``mx.nd`` function (issue 20 item 1):
the Symbol registry, shape and dtype passes hold no row of their own for it."""
import ast
import inspect
import json
import os
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.ops import _shape_rules as _sr
from mxgrad.ops import shape as ops_shape
from mxgrad.ops._mxnet_op import RECORDS, lookup
from mxgrad.symbol import _control_flow, _custom, _dtype, _np_ops, _registry, _shape

import op_records_elem_cases
import records_nn_cases

_ROOT = os.path.join(os.path.dirname(__file__), "..", "mxgrad")


def _declared(path):
    """The operator names ``mxnet_op("name", ...)`` / ``_op("name", ...)`` calls in a module
    declare (first argument a string)."""
    with open(os.path.join(_ROOT, path), encoding="utf-8") as f:
        tree = ast.parse(f.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("mxnet_op", "_op") and node.args \
                and isinstance(node.args[0], ast.Constant) \
                and isinstance(node.args[0].value, str):
            names.add(node.args[0].value)
    return names


# ---------------------------------------------------------------- rec-shp: ops/shape.py
_SHP_OPS = ("Flatten", "Reshape", "transpose", "expand_dims", "squeeze", "SwapAxis", "Concat",
            "_rnn_param_concat", "stack", "SliceChannel", "_split_v2", "slice", "slice_axis",
            "slice_like", "broadcast_to", "broadcast_axis", "broadcast_like", "reshape_like",
            "tile", "repeat", "reverse", "Pad", "depth_to_space", "space_to_depth",
            "shape_array", "size_array", "_identity_with_attr_like_rhs")


def test_records_shp_declared_in_ops_shape_only():
    declared = _declared("ops/shape.py")
    assert set(_SHP_OPS) <= declared
    assert not set(_SHP_OPS) & _declared("symbol/_registry.py")
    for name in _SHP_OPS:
        rec = lookup(name)
        assert rec is not None and rec.name == name and rec.run is not None, name
        for rule in (rec.shape, rec.dtype):
            if rule is not None and hasattr(rule, "__module__"):
                assert rule.__module__ in ("mxgrad.ops.shape", "mxgrad.ops._shape_rules",
                                           "mxgrad.ops._dtype_rules"), (name, rule)
    for name in ("Reshape", "_split_v2", "_rnn_param_concat", "_identity_with_attr_like_rhs"):
        assert lookup(name).run.__module__ == "mxgrad.ops.shape", name
    # the rules that moved, each once
    assert lookup("Reshape").shape is ops_shape._reshape_shape
    assert lookup("_rnn_param_concat").shape is ops_shape._rnn_param_concat_shape
    assert lookup("slice_like").dtype is lookup("reshape_like").dtype \
        is lookup("broadcast_like").dtype
    assert lookup("size_array").dtype is lookup("shape_array").dtype


def test_records_shp_keep_aliases_inputs_attrs_outputs():
    assert lookup("flatten").name == "Flatten" and lookup("crop").name == "slice"
    assert lookup("split").name == "SliceChannel" and lookup("flip").name == "reverse"
    assert lookup("broadcast_axes").name == "broadcast_axis"
    assert lookup("Concat").inputs is None and lookup("slice_like").inputs == (
        "data", "shape_like")
    assert lookup("SliceChannel").num_outputs({"num_outputs": 3}) == 3
    assert lookup("_split_v2").num_outputs({"indices": (0, 2, 5)}) == 3
    assert lookup("_split_v2").num_outputs({"sections": 4}) == 4
    # Reshape: reshape's keywords, as "auto" gives them, plus MXNet's deprecated ones
    from mxgrad.symbol._registry import _attr_names
    assert lookup("Reshape").attrs == _attr_names(mx.nd.Reshape) | {"target_shape",
                                                                   "keep_highest"}
    assert lookup("_rnn_param_concat").attrs == _attr_names(mx.nd.Concat)


def test_records_shp_infer_shape_and_type_as_mxnet():
    # MXNet 1.9.1's infer_shape_partial / infer_type on the same graphs (run in /tmp/mxvenv)
    S = mx.sym
    a, b, c = S.var("a"), S.var("b"), S.var("c")
    cat = S.Concat(a, b, dim=1, name="cat")
    g = S.Group([
        S.Reshape(S.transpose(cat, axes=(1, 0), name="tr"), shape=(-1,), name="rs"),
        S.slice_axis(cat, axis=1, begin=1, end=4, name="sa"),
        S.SliceChannel(cat, num_outputs=2, axis=1, name="sc")[1],
        S.Flatten(S.expand_dims(cat, axis=2, name="ed"), name="fl"),
        S.slice(cat, begin=(0, 2), end=(None, 8), step=(1, 3), name="sl"),
        S.reverse(cat, axis=0, name="rv") + c])
    args, outs, _ = g.infer_shape_partial(a=(0, 6), b=(0, 4), c=(3, 10))
    assert dict(zip(g.list_arguments(), args)) == {"a": (3, 6), "b": (3, 4), "c": (3, 10)}
    assert outs == [(30,), (3, 3), (3, 5), (3, 10), (3, 2), (3, 10)]
    r = S.Reshape(a, shape=(0, -1), name="r2") + b
    assert r.infer_shape_partial(a=(2, 3, 4), b=(2, 12))[1] == [(2, 12)]
    t = S.Concat(S.tile(a, reps=(2, 1), name="ti"), S.repeat(b, repeats=2, axis=0, name="rp"),
                 dim=1, name="c4")
    assert t.infer_shape(a=(3, 2), b=(3, 5))[1] == [(6, 7)]
    like = S.Group([S.broadcast_like(a, b, name="bl") * S.reshape_like(c, b, name="rl"),
                    S.slice_like(c, b, axes=(0,), name="sl2"),
                    S.shape_array(a, name="sh"), S.size_array(c, name="sz")])
    assert like.infer_shape(a=(1, 4), b=(3, 4), c=(12,))[1][0] == (3, 4)
    ins, outs, _ = like.infer_type(a="float16", b="int32")
    assert [t.__name__ for t in ins] == ["float16", "int32", "float16"]
    assert [t.__name__ for t in outs] == ["float16", "float16", "int64", "int64"]


def test_records_shp_numpy_mode_custom_and_foreach_rules():
    for op in ("_np_dot", "_npi_matmul", "_np_reshape", "_npi_add", "_npi_exp",
               "_npi_add_scalar", "_npx_relu"):
        assert lookup(op).shape is not None, op
    assert lookup("_np_reshape").shape is _np_ops._np_reshape_shape
    assert lookup("_npi_add").shape is _sr.broadcast_rule
    assert lookup("_npi_exp").shape is lookup("_npi_add_scalar").shape is _sr.same
    # NumPy's matmul: the weight's contracted size from the data, the batch broadcast
    ins, outs = lookup("_npi_matmul").shape({}, [(2, 3, 4), (-1, 5)], [None])
    assert ins == [(2, 3, 4), (4, 5)] and outs == [(2, 3, 5)]
    ins, outs = lookup("_np_reshape").shape({"newshape": (2, -1)}, [(-1, 3)], [(2, 6)])
    assert ins == [(4, 3)] and outs == [(2, 6)]
    # Custom: the table's record and each op_type's own carry the property's rules
    assert lookup("Custom").shape is _custom._custom_shape
    # foreach: the node's own record carries the rule (no table row)
    assert lookup("_foreach") is None
    out, state = mx.sym.contrib.foreach(lambda x, s: (x * 2 + s, s + x), mx.sym.var("d"),
                                        mx.sym.var("h"))
    node = out._outputs[0][0]
    assert node.spec.shape is _control_flow._foreach_shape
    g = mx.sym.Group([out, state])
    assert g.infer_shape(d=(5, 3), h=(3,))[1] == [(5, 3), (3,)]
    # the same graph written and read back
    back = mx.sym.load_json(g.tojson())
    assert back.infer_shape(d=(5, 3), h=(3,))[1] == [(5, 3), (3,)]
    assert np.array_equal(back.eval(d=mx.nd.ones((2, 3)), h=mx.nd.zeros((3,)))[1].asnumpy(),
                          np.full((3,), 2.0))


# ------------------------------ rec-elem: elemwise, reduce, ordering, indexing, creation...
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
    """Names the Symbol registry still declares itself (``_op("name"...)`` calls; its tables
    of extra outputs, aux states and parameters are gone, their rows records too)."""
    tree = ast.parse(inspect.getsource(_registry))
    rows = {c.args[0].value for c in ast.walk(tree)
            if isinstance(c, ast.Call) and isinstance(c.func, ast.Name) and c.func.id == "_op"
            and c.args and isinstance(c.args[0], ast.Constant)}
    return rows


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
    + ("_sample_multinomial", "shuffle"),
    "mxgrad.ops.sampling": tuple(f"_sample_{d}" for d in _DISTS),
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
    # every *_scalar operator's record carries its rule (the shape pass has no fallback)
    from mxgrad.symbol._registry import supported_ops
    assert all(lookup(n).shape is sr.same for n in supported_ops() if n.endswith("_scalar"))
    assert lookup("ElementWiseSum").inputs is None and lookup("add_n").attrs >= {"num_args"}
    assert lookup("take").inputs == ("a", "indices") and lookup("cumsum").inputs == ("a",)
    assert lookup("topk").num_outputs({"ret_typ": "value"}) == 2
    assert lookup("topk").num_visible({"ret_typ": "value"}) == 1
    assert (lookup("sort").num_outputs({}), lookup("sort").num_visible({})) == (2, 1)
    assert lookup("random_uniform").name == "_random_uniform"
    assert lookup("_random_uniform").attrs >= {"low", "high", "shape", "dtype"}
    assert lookup("sample_normal").inputs == ("mu", "sigma")
    assert lookup("sample_multinomial") is lookup("_sample_multinomial")
    assert lookup("_sample_multinomial").num_outputs({}) == 1
    assert lookup("_sample_multinomial").num_outputs({"get_prob": True}) == 2
    assert lookup("_contrib_index_copy").inputs == ("old_tensor", "index_vector",
                                                    "new_tensor")
    # the scalar of a *_scalar node keeps an int an int
    s = mx.sym.var("x") * 3
    out = s.eval(x=mx.nd.array([1, 2], dtype="int32"))[0]
    assert out.dtype == mx.nd.array([1], dtype="int32").dtype
    assert out.asnumpy().tolist() == [3, 6]


_ELEM_FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                      "op_records_elem.json")))


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


# ---------------------------------------------------------------- rec-nn: nn, conv, losses...
def _declared_in(name: str, module: str) -> bool:
    """Whether ``module`` declares the record of ``name``: it calls ``mxnet_op("<name>"``,
    or (a family declared by a loop) the record's own run was written there."""
    path = module.replace("mxgrad.", "", 1).replace(".", "/") + ".py"
    return name in _declared(path) or RECORDS[name].run.__module__ == module


def _no_separate_row(name: str) -> bool:
    """Whether ``symbol/`` holds nothing of ``name`` beside its record."""
    return name not in _declared("symbol/_registry.py")


# the operators of ops/nn.py, conv, composed, output, rnn, ctc, sequence, syncbn, linalg and
# the contrib modules, by the module that declares their records
_NN_HOMES = {
    "mxgrad.ops.nn": ("FullyConnected", "Activation", "LeakyReLU", "softmax", "log_softmax",
                      "softmin", "SoftmaxActivation", "hard_sigmoid", "Dropout", "BatchNorm",
                      "BatchNorm_v1", "_contrib_BatchNormWithReLU", "LayerNorm",
                      "InstanceNorm", "GroupNorm", "Embedding"),
    "mxgrad.ops.conv": ("Convolution", "Deconvolution", "Pooling"),
    "mxgrad.ops.composed": ("make_loss", "MakeLoss", "L2Normalization", "LRN", "UpSampling"),
    "mxgrad.ops.output": ("SoftmaxOutput", "LinearRegressionOutput", "MAERegressionOutput",
                          "LogisticRegressionOutput", "SVMOutput",
                          "IdentityAttachKLSparseReg"),
    "mxgrad.ops.rnn": ("RNN",),
    "mxgrad.ops.ctc": ("CTCLoss",),
    "mxgrad.ops.sequence": ("SequenceMask", "SequenceLast", "SequenceReverse"),
    "mxgrad.ops.syncbn": ("_contrib_SyncBatchNorm",),
    "mxgrad.ops.linalg": ("dot", "batch_dot", "_linalg_gemm", "_linalg_sumlogdiag",
                          "_linalg_inverse", "_linalg_det", "_linalg_slogdet",
                          "_linalg_trmm", "_linalg_trsm", "_linalg_potrf", "_linalg_potri"),
    "mxgrad.ops.linalg_factor": ("_linalg_gelqf", "_linalg_syevd"),
    "mxgrad.ops.detection": ("_contrib_MultiBoxTarget",),
    "mxgrad.ops.boxes": ("_contrib_box_nms",
                         "_contrib_bipartite_matching"),
    "mxgrad.ops.numeric": ("_contrib_quantize",),
    "mxgrad.ops.hawkes": ("_contrib_hawkesll",),
    "mxgrad.ops.proposal": ("_contrib_Proposal", "_contrib_MultiProposal"),
    "mxgrad.ops.deformable": ("_contrib_DeformableConvolution",
                              "_contrib_ModulatedDeformableConvolution"),
    "mxgrad.ops.adamw": ("_adamw_update", "_mp_adamw_update"),
}
_NN_FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                      "records_nn.json")))
_NN_CASES = records_nn_cases.cases(mx)


@pytest.mark.parametrize("module,name", [(m, n) for m, names in _NN_HOMES.items()
                                         for n in names])
def test_records_nn_declared_beside_their_functions(module, name):
    rec = lookup(name)
    assert rec is not None and rec.name == name
    assert _declared_in(name, module)
    assert not any(_declared_in(name, other) for other in _NN_HOMES if other != module)
    assert _no_separate_row(name)
    assert callable(rec.run) and isinstance(rec.attrs, frozenset)   # resolved by the registry


def test_records_nn_aliases_outputs_and_labels():
    assert all(lookup(a) is lookup("CTCLoss")
               for a in ("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"))
    assert lookup("Softmax") is lookup("SoftmaxOutput")
    bn = lookup("BatchNorm")
    assert (bn.params, bn.aux, bn.out_names) == (("gamma", "beta", "moving_mean",
                                                  "moving_var"), (3, 4),
                                                 ("output", "mean", "var"))
    assert [bn.num_visible({}), bn.num_visible({"output_mean_var": True})] == [1, 3]
    assert [lookup("Pooling").num_outputs({"pool_type": p}) for p in ("max", "avg")] == [2, 1]
    rnn = lookup("RNN")
    assert [rnn.num_outputs(kw) for kw in ({}, {"state_outputs": True},
                                           {"state_outputs": True, "mode": "lstm"})] == [1, 2, 3]
    assert lookup("_contrib_Proposal").num_outputs({"output_score": True}) == 2
    from mxgrad.ops.output import LABEL_OPS
    assert _registry.LABEL_OPS is LABEL_OPS and "SVMOutput" in LABEL_OPS
    # a loaded graph's attribute outside the record's is refused, naming the node
    with pytest.raises(_registry.UnknownOpError, match="node 'c0'.*bogus"):
        _registry.parse_attrs(lookup("Convolution"), {"kernel": "(3, 3)", "bogus": "1"}, "c0")


def _ops_of(graph_json):
    return [n["op"] for n in json.loads(graph_json)["nodes"] if n["op"] != "null"]


def _nn_check(sym, shapes, types, want):
    assert _ops_of(sym.tojson()) == _ops_of(want["json"])     # the operators' names
    assert sym.list_arguments() == want["arguments"]
    assert sym.list_outputs() == want["outputs"]
    assert sym.list_auxiliary_states() == want["aux"]
    got = sym.infer_shape_partial(**shapes)
    assert [[list(s) for s in part] for part in got] == want["shapes"]
    if types is not None:
        got_t = sym.infer_type_partial(**types)
        assert [[None if t is None else t.__name__ for t in part] for part in got_t] == \
            want["types"]


@pytest.mark.parametrize("name", sorted(_NN_CASES))
def test_records_nn_graphs_infer_as_mxnet(name):
    sym, shapes, types = _NN_CASES[name]
    _nn_check(sym, shapes, types, _NN_FIX[name])


@pytest.mark.parametrize("name", sorted(_NN_CASES))
def test_records_nn_mxnet_json_loads_and_infers_as_mxnet(name):
    _, shapes, types = _NN_CASES[name]
    sym = mx.sym.load_json(_NN_FIX[name]["json"])
    _nn_check(sym, shapes, types, _NN_FIX[name])


def test_the_passes_hold_no_rule_tables():
    """Shape and dtype inference read each node's record (ops/_mxnet_op.py) only: no table
    of rules keyed by operator name is left in symbol/ (issue 20 item 1)."""
    for module in (_shape, _dtype):
        tables = [k for k, v in vars(module).items() if isinstance(v, dict) and v
                  and all(isinstance(key, str) for key in v) and all(callable(f) for f in
                                                                     v.values())]
        assert tables == [], (module.__name__, tables)
    assert _declared("symbol/_registry.py") == set()


def test_every_record_is_resolved_after_import():
    """A record declared after the registry resolved the table's (``symbol/_np_ops.py``,
    ``_custom.py``) brings its own run: none is left without one or with unread attrs."""
    left = [n for n, r in RECORDS.items() if r.run is None or isinstance(r.attrs, str)]
    assert left == []
