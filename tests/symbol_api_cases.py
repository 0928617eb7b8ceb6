"""Symbols built the same way with either library, whose names, arguments, outputs,
attributes, inferred shapes and values must equal MXNet 1.9.1's: read by
``tests/test_symbol_complete.py`` and by ``tools/make_symbol_api_fixtures.py``."""
import numpy as np


def inputs():
    """The values fed to the variables (by name), the same for both libraries."""
    rng = np.random.RandomState(7)
    return {"a": rng.uniform(0.5, 1.5, (2, 3)).astype("float32"),
            "b": rng.uniform(0.5, 1.5, (2, 3)).astype("float32"),
            "sq": np.array([[4, 1, 0], [1, 3, 1], [0, 1, 2]], "float32"),
            "boxes": np.array([[0, 0, 2, 2], [1, 1, 3, 3]], "float32"),
            "img": rng.uniform(0, 255, (4, 5, 3)).astype("float32"),
            "idx": np.array([2, 0], "int32")}


def cases(mx):
    """name -> (symbol, variable names fed from :func:`inputs`)."""
    S = mx.sym
    a, b, sq = S.var("a"), S.var("b"), S.var("sq")
    out = {}
    with mx.name.NameManager():
        boxes = S.var("boxes")
        out["contrib_box_iou"] = (S.contrib.box_iou(boxes, boxes),
                                  ["boxes"])
        out["contrib_div_sqrt_dim"] = (S.contrib.div_sqrt_dim(a), ["a"])
        out["linalg_gemm2"] = (S.linalg.gemm2(a, b, transpose_b=True, alpha=2.0), ["a", "b"])
        out["linalg_potrf"] = (S.linalg.potrf(sq), ["sq"])
        out["linalg_sumlogdiag"] = (S.linalg.sumlogdiag(S.linalg.potrf(sq)), ["sq"])
        out["image_to_tensor"] = (S.image.to_tensor(S.var("img")), ["img"])
        out["sparse_dot"] = (S.sparse.dot(a, b, transpose_b=True), ["a", "b"])
        out["batch_take"] = (S.batch_take(a, S.var("idx")), ["a", "idx"])
        out["split_v2"] = (S.split_v2(a, (1,), axis=1), ["a"])
        out["fluent"] = (a.sin().log1p().nansum(axis=1).rsqrt(), ["a"])
        out["abs_neg"] = (abs(-a), ["a"])
        out["getitem_name"] = (S.SliceChannel(a, num_outputs=3, name="sl")["sl_output2"],
                               ["a"])
        out["getitem_slice"] = (S.SliceChannel(a, num_outputs=3, name="sl2")[1:], ["a"])
    with mx.AttrScope(ctx_group="dev1", __mood__="calm"):
        fc = S.FullyConnected(a, num_hidden=4, name="fc", lr_mult=2)
        out["attr_scope_fc"] = (S.relu(fc, name="r", attr={"wd_mult": "0.5"}), [])
    out["var_attrs"] = (S.var("w", attr={"force_mirroring": "True", "group": "1"},
                              lr_mult=3, wd_mult=0.1), [])
    out["missing_data_var"] = (S.Activation(S.FullyConnected(name="fcm", num_hidden=2),
                                            act_type="tanh", name="act"), [])
    return out
