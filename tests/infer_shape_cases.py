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
    }
