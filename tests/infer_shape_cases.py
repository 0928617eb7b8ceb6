"""Graphs whose ``infer_shape`` / ``infer_shape_partial`` / ``infer_type`` must equal MXNet
1.9.1's: read by ``tests/test_infer_shape.py`` and by ``tools/make_infer_shape_fixtures.py``
(which runs them on real MXNet), built from one definition for either library."""


def cases(mx):
    """name -> (symbol, shapes given as keywords)."""
    d = mx.sym.var("data")
    conv = mx.sym.Convolution(d, kernel=(3, 3), num_filter=4, name="c")
    return {
        "conv_fc_softmax": (mx.sym.SoftmaxOutput(
            mx.sym.FullyConnected(conv, num_hidden=3, name="fc"), name="sm"),
            {"data": (2, 1, 8, 8)}),
        "batchnorm": (mx.sym.BatchNorm(d, name="bn"), {"data": (2, 3, 4)}),
        "regression": (mx.sym.LinearRegressionOutput(d, name="lr"), {"data": (2, 3)}),
        "fc_no_flatten": (mx.sym.FullyConnected(d, num_hidden=5, flatten=False, name="f"),
                          {"data": (2, 3, 4)}),
        "embedding_fc": (mx.sym.FullyConnected(
            mx.sym.Embedding(d, input_dim=10, output_dim=6, name="emb"), num_hidden=2,
            name="fc2"), {"data": (4, 7)}),
        "partial_nothing": (mx.sym.FullyConnected(d, num_hidden=2, name="fc3"), {}),
        **partial_cases(mx),
    }


def partial_cases(mx):
    """Shapes that flow backward and partial dimensions (0 = unknown)."""
    S = mx.sym
    a, b, c, d = S.var("a"), S.var("b"), S.var("c"), S.var("d")
    conv = S.Convolution(a, num_filter=6, kernel=(3, 3), pad=(1, 1), name="cv")
    return {
        "p_elemwise_backward": (a + b, {"a": (0, 10), "b": (12, 0)}),
        "p_fc_batch_from_output": (S.FullyConnected(a, num_hidden=7, name="f1") + c,
                                   {"a": (0, 10), "c": (5, 0)}),
        "p_fc_no_flatten": (S.FullyConnected(a, num_hidden=3, flatten=False, name="f2"),
                            {"a": (2, 0, 4)}),
        "p_split_squeeze": (S.SliceChannel(a, num_outputs=4, axis=1, squeeze_axis=True,
                                           name="sp")[1] + c, {"a": (0, 4), "c": (5,)}),
        "p_split": (S.SliceChannel(a, num_outputs=3, name="sp2")[2] * c,
                    {"a": (0, 9, 0), "c": (2, 3, 4)}),
        "p_conv_backward": (conv + c, {"a": (0, 2, 0, 0), "c": (3, 6, 8, 8)}),
        "p_conv_stride": (S.Convolution(a, num_filter=4, kernel=(3, 3), stride=(2, 2),
                                        dilate=(2, 2), name="cs"), {"a": (2, 3, 11, 0)}),
        "p_deconv": (S.Deconvolution(a, num_filter=4, kernel=(4, 4), stride=(2, 2),
                                     pad=(1, 1), name="dc"), {"a": (2, 3, 5, 5)}),
        "p_pool": (S.Pooling(a, kernel=(3, 3), stride=(2, 2), pool_type="max",
                             pooling_convention="full", name="pl"), {"a": (0, 2, 8, 9)}),
        "p_global_pool": (S.Pooling(a, kernel=(1, 1), global_pool=True, pool_type="avg",
                                    name="gp"), {"a": (0, 3, 5, 5)}),
        "p_batchnorm": (S.BatchNorm(a, name="bn2") * b, {"b": (4, 3, 2)}),
        "p_layernorm": (S.LayerNorm(a, name="ln"), {"a": (0, 5)}),
        "p_concat": (d + S.Concat(a, b, dim=1, name="cc"),
                     {"a": (0, 10), "b": (0, 5), "d": (2, 0)}),
        "p_concat_fill": (S.Concat(a, b, dim=0, name="cc2") * c,
                          {"a": (3, 4), "b": (0, 4), "c": (7, 4)}),
        "p_dot": (S.dot(a, b, name="dt"), {"a": (0, 3, 4), "b": (4, 5)}),
        "p_dot_t": (S.dot(a, b, transpose_a=True, transpose_b=True, name="dtt"),
                    {"a": (4, 3), "b": (5, 4)}),
        "p_batch_dot": (S.batch_dot(a, b, name="bd"), {"a": (0, 3, 4), "b": (0, 4, 5)}),
        "p_batch_dot_unknown": (S.batch_dot(a, b, name="bd2"),
                                {"a": (0, 3, 4), "b": (0, 0, 5)}),
        "p_embedding": (S.Embedding(a, b, input_dim=100, output_dim=10, name="em"),
                        {"a": (0, 5), "b": (100, 10)}),
        "p_transpose": (S.transpose(a, axes=(0, 3, 2, 1), name="tp"), {"a": (0, 3, 7, 9)}),
        "p_transpose_back": (S.transpose(a, axes=(2, 0, 1), name="tp2") + c,
                             {"a": (0, 0, 0), "c": (4, 3, 2)}),
        "p_pick": (S.pick(a, b, axis=1, name="pk"), {"a": (0, 3, 3), "b": (0, 3)}),
        "p_where": (S.where(c, a, b, name="wh"), {"c": (0, 2), "a": (0, 2), "b": (0, 2)}),
        "p_where_known": (S.where(c, a, b, name="wh2"), {"c": (2, 2), "a": (0, 2)}),
        "p_broadcast": (S.broadcast_add(a, b, name="ba"), {"a": (0, 1, 3), "b": (4, 1)}),
        "p_flatten": (S.Flatten(a, name="fl") + c, {"a": (0, 2, 3), "c": (5, 6)}),
        "p_softmax_label": (S.SoftmaxOutput(S.FullyConnected(a, num_hidden=4, name="f3"),
                                            name="so"), {"a": (6, 2)}),
        "p_softmax_multi": (S.SoftmaxOutput(a, multi_output=True, name="som"),
                            {"a": (2, 5, 3, 3)}),
        "p_regression_label": (S.LinearRegressionOutput(a, name="lro"), {"a": (0, 3)}),
        "p_cast_chain": (S.Convolution(S.Cast(a, dtype="float16"), S.Cast(b, dtype="float16"),
                                       num_filter=8, kernel=(3, 3), no_bias=True, name="cc3"),
                         {"a": (1, 0, 0, 0)}),
        "p_identity_like_rhs": (S.FullyConnected(
            c, S._internal._identity_with_attr_like_rhs(S.broadcast_add(a, b), a),
            num_hidden=11, no_bias=True, name="f4"), {"b": (1,), "c": (7, 20)}),
        "p_reshape_fallback": (S.Reshape(a, shape=(0, -1), name="rs") + c,
                               {"a": (2, 3, 4), "c": (2, 12)}),
    }


def type_cases(mx):
    """name -> (symbol, dtypes given as keywords): ``infer_type_partial`` must equal MXNet's."""
    S = mx.sym
    a, b, i = S.var("a"), S.var("b"), S.var("i")
    fc = S.FullyConnected(S.Cast(a, dtype="float32"), num_hidden=3, name="tf")
    return {
        "t_cast_fc": (S.SoftmaxOutput(fc, name="ts"), {"a": "float16"}),
        "t_cast_fc_nothing": (S.SoftmaxOutput(fc, name="ts2"), {}),
        "t_batchnorm_f16": (S.BatchNorm(a, name="tbn"), {"a": "float16"}),
        "t_elemwise_backward": (S.relu(a) + b, {"b": "float64"}),
        "t_take_indices": (S.take(a, i, name="tt"), {"a": "float64", "i": "int32"}),
        "t_argmax": (S.argmax(a, axis=1, name="tam"), {"a": "float16"}),
        "t_topk_both": (S.topk(a, ret_typ="both", k=2, name="ttk"), {"a": "float64"}),
        "t_one_hot": (S.one_hot(i, depth=4, name="toh"), {"i": "int32"}),
        "t_embedding": (S.Embedding(i, input_dim=5, output_dim=2, name="te"), {"i": "int32"}),
        "t_shape_array": (S.shape_array(a, name="tsa"), {"a": "float32"}),
        "t_where": (S.where(i, a, b, name="tw"), {"i": "int32", "a": "float16"}),
        "t_random_plus": (S.random.uniform(shape=(2,), name="tru") + a, {}),
        "t_randint": (S.random.randint(0, 5, shape=(2,), name="tri"), {}),
        "t_sample_normal": (S.random.normal(a, b, shape=3, name="tsn"), {"a": "float64"}),
        "t_multinomial": (S.random.multinomial(a, name="tmn"), {"a": "float32"}),
        "t_eye_linspace": (S.Group([S.eye(3, name="tey"),
                                    S.linspace(0, 1, 4, name="tls")]), {}),
    }
