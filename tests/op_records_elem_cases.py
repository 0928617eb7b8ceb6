"""Graphs of the elementwise, reduction, ordering, indexing, creation and sampling operators
(rec-elem's records, ``tests/test_mxnet_op_records.py``) whose ``infer_shape_partial`` and
``infer_type_partial`` must equal MXNet 1.9.1's: read by the test and by
``tools/make_op_records_elem_fixtures.py`` (which runs them on real MXNet), built from one
definition for either library."""


def shape_cases(mx):
    """name -> (symbol, shapes given as keywords; 0 an unknown dimension)."""
    S = mx.sym
    a, b, c, i = S.var("a"), S.var("b"), S.var("c"), S.var("i")
    return {
        # backward through unary, clip, scalar and elemwise records (no run on zeros)
        "e_unary_scalar_back": (S.clip(S.relu(S.exp(a)), 0, 1) * 2 + 1 + S.BlockGrad(c),
                                {"a": (0, 10), "c": (5, 0)}),
        "e_elemwise_back": (S.elemwise_mul(S.smooth_l1(a), S.Cast(b, dtype="float32"))
                            + S.add_n(c, c), {"a": (0, 3), "c": (4, 0)}),
        "e_broadcast_rule": (S.broadcast_maximum(a, b) + S.broadcast_lesser(a, b),
                             {"a": (4, 1), "b": (3,)}),
        "e_take_axis": (S.take(a, i, axis=1, name="tk"), {"a": (3, 4, 5), "i": (2, 6)}),
        "e_one_hot": (S.one_hot(i, depth=5, name="oh") + c, {"i": (2, 3)}),
        "e_pick_keepdims": (S.pick(a, i, axis=0, keepdims=True, name="pk"), {"a": (3, 4)}),
        "e_where_vector": (S.where(c, a, b, name="wh"), {"c": (4,), "a": (4, 3)}),
        "e_zeros_plus": (S.zeros((2, 0), name="z") + a, {"a": (2, 7)}),
        "e_reduce_sort": (S.sum(S.sort(a, axis=0), axis=1, name="sm")
                          * S.argmax_channel(b), {"a": (3, 4), "b": (3, 5)}),
    }


def type_cases(mx):
    """name -> (symbol, dtypes given as keywords)."""
    S = mx.sym
    a, b, i = S.var("a"), S.var("b"), S.var("i")
    return {
        "et_cast_back": (S.Cast(a, dtype="float16") + b, {}),
        "et_argsort_sort": (S.Group([S.argsort(a, dtype="int32", name="as"),
                                     S.sort(a, name="so")]), {"a": "float64"}),
        "et_topk_value": (S.topk(a, ret_typ="value", k=2, dtype="int32", name="tk"),
                          {"a": "float16"}),
        "et_pick_gather": (S.pick(a, i, name="pk") + S.gather_nd(b, i, name="gn"),
                           {"a": "float16", "i": "int32"}),
        "et_one_hot": (S.one_hot(i, depth=3, dtype="int32", name="oh"), {"i": "float32"}),
        "et_like": (S.random.uniform_like(a, name="ul")
                    + S.random.normal_like(b, name="nl"), {"a": "float16"}),
        "et_sample_uniform": (S.sample_uniform(a, b, name="su"), {"a": "float64"}),
        "et_zeros_arange": (S.Group([S.zeros((2,), dtype="int32", name="z"),
                                     S.arange(3, dtype="float64", name="ar")]), {}),
        "et_histogram": (S.histogram(a, bins=3, range=(0, 1), name="hi"),
                         {"a": "float64"}),
    }
