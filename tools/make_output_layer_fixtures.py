"""Write tests/data/mxnet/output_layers.npz: MXNet 1.9.1's forward outputs and data
gradients of its loss/output layers (SoftmaxOutput with each option, the regression
outputs, SVMOutput, MakeLoss/make_loss, BlockGrad, IdentityAttachKLSparseReg) on seeded
inputs, for tests/test_output_layers.py.

Gradients come from ``autograd.record()`` + ``backward(head)`` on the ``mx.nd`` op, with a
head gradient that the output layers ignore (or, for ``out_grad``, do not read).
``IdentityAttachKLSparseReg`` cannot be called through ``mx.nd`` in MXNet (its moving
average is an auxiliary input the generated function does not accept), so its two
training steps run on a bound Symbol; the moving average after each step is stored too.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_output_layer_fixtures.py
"""
import json
import os
import sys

import mxnet as mx
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "tests"))
from output_layer_run import run_nd  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "output_layers.npz")


def cases():
    """(name, op, kwargs, data, label or None, head or None), seeded."""
    rs = np.random.RandomState(25)
    u = lambda *s: rs.uniform(-2, 2, size=s).astype("float32")  # noqa: E731
    lab = lambda hi, *s: rs.randint(0, hi, size=s).astype("float32")  # noqa: E731
    head = lambda *s: np.full(s, 5.0, "float32")  # noqa: E731
    so = "SoftmaxOutput"
    c = [
        ("so_plain", so, {}, u(4, 5), lab(5, 4), head(4, 5)),
        ("so_grad_scale_batch", so, dict(grad_scale=0.7, normalization="batch"), u(4, 5),
         lab(5, 4), None),
        ("so_out_grad", so, dict(out_grad=True), u(3, 4), lab(4, 3), head(3, 4)),
        ("so_out_grad_batch", so, dict(out_grad=True, normalization="batch", grad_scale=2.0),
         u(3, 4), lab(4, 3), None),
        ("so_prob_label", so, dict(normalization="batch", grad_scale=0.5, use_ignore=True,
                                   ignore_label=0), u(3, 4),
         np.full((3, 4), 0.25, "float32"), None),
        ("so_valid_no_ignore", so, dict(normalization="valid"), u(4, 3),
         np.array([-1, 2, -1, 0], "float32"), None),
        ("so_valid_ignore", so, dict(normalization="valid", use_ignore=True, ignore_label=2),
         u(5, 3), np.array([2, 1, 2, 0, 2], "float32"), None),
        ("so_label_range", so, dict(normalization="batch"), u(4, 3),
         np.array([5, -2, 1.7, -0.5], "float32"), None),
        ("so_3d_default", so, dict(normalization="batch"), u(2, 3, 4), lab(3, 2, 3), None),
        ("so_3d_default_valid", so, dict(normalization="valid", use_ignore=True,
                                         ignore_label=1), u(2, 3, 4), lab(3, 2, 3), None),
        ("so_preserve", so, dict(preserve_shape=True, normalization="batch"), u(2, 3, 4),
         lab(4, 2, 3), None),
        ("so_preserve_ignore", so, dict(preserve_shape=True, use_ignore=True, ignore_label=2,
                                        normalization="valid"), u(2, 3, 4), lab(4, 2, 3),
         None),
        ("so_smooth", so, dict(smooth_alpha=0.3), u(4, 5), lab(5, 4), None),
        ("so_smooth_ignore_valid", so, dict(smooth_alpha=0.2, use_ignore=True, ignore_label=0,
                                            normalization="valid"), u(6, 4), lab(4, 6), None),
        ("so_smooth_preserve", so, dict(smooth_alpha=0.1, preserve_shape=True), u(2, 2, 3),
         lab(3, 2, 2), None),
        ("so_multi_smooth", so, dict(multi_output=True, smooth_alpha=0.3), u(2, 3, 2, 2),
         lab(3, 2, 2, 2), None),
        ("so_multi_flat_label", so, dict(multi_output=True, normalization="batch"),
         u(2, 3, 2, 2), lab(3, 2, 4), None),
        ("so_multi_channel_label", so, dict(multi_output=True, grad_scale=1.5),
         u(2, 3, 2, 2), lab(3, 2, 1, 2, 2), None),
        ("so_multi_out_grad", so, dict(multi_output=True, out_grad=True), u(2, 3, 4),
         lab(3, 2, 4), head(2, 3, 4)),
        ("so_multi_valid_no_ignore", so, dict(multi_output=True, normalization="valid",
                                              ignore_label=2), u(2, 3, 3), lab(3, 2, 3), None),
        ("so_multi_and_preserve", so, dict(multi_output=True, preserve_shape=True),
         u(2, 3, 2), lab(3, 2, 2), None),
        ("so_2d_multi", so, dict(multi_output=True, normalization="batch"), u(3, 4),
         lab(4, 3), None),
        ("lin", "LinearRegressionOutput", dict(grad_scale=2.0), u(3, 4), u(3, 4), head(3, 4)),
        ("lin_1d_label", "LinearRegressionOutput", {}, u(3, 1), u(3), None),
        ("lin_3d", "LinearRegressionOutput", dict(grad_scale=3.0), u(2, 3, 2), u(2, 6), None),
        ("logistic", "LogisticRegressionOutput", dict(grad_scale=0.5), u(3, 4),
         lab(2, 3, 4), head(3, 4)),
        ("mae", "MAERegressionOutput", dict(grad_scale=2.0), np.array(
            [[1, 2, 3], [4, 5, 6]], "float32"), np.array([[1, 0, 4], [4, 9, 6]], "float32"),
         head(2, 3)),
        ("svm_l2", "SVMOutput", {}, u(4, 3), lab(3, 4), head(4, 3)),
        ("svm_l1", "SVMOutput", dict(use_linear=True, margin=0.5,
                                     regularization_coefficient=2.0), u(4, 3), lab(3, 4),
         None),
        ("svm_l2_margin", "SVMOutput", dict(margin=1.5, regularization_coefficient=0.3),
         u(4, 3), lab(3, 4), None),
        ("svm_3d", "SVMOutput", {}, u(2, 2, 4), np.array([[0, 3], [5, 1]], "float32"),
         None),
        ("makeloss", "MakeLoss", dict(grad_scale=3.0), u(3, 4), None, head(3, 4)),
        ("makeloss_batch", "MakeLoss", dict(normalization="batch", grad_scale=2.0), u(3, 4),
         None, None),
        ("makeloss_valid", "MakeLoss", dict(normalization="valid", valid_thresh=0.5), u(3, 4),
         None, head(3, 4)),
        ("makeloss_valid_none", "MakeLoss", dict(normalization="valid", valid_thresh=9.0),
         u(3, 4), None, None),
        ("make_loss", "make_loss", {}, u(3, 4), None, head(3, 4)),
        ("blockgrad", "BlockGrad", {}, u(3, 4), None, head(3, 4)),
        # other float types: the gradient keeps the data's dtype
        ("so_f64", so, dict(smooth_alpha=0.2, use_ignore=True, ignore_label=1,
                            normalization="batch", grad_scale=0.3), u(4, 5).astype("float64"),
         lab(5, 4).astype("float64"), None),
        ("so_multi_f16", so, dict(multi_output=True, normalization="valid", use_ignore=True,
                                  ignore_label=0), u(2, 3, 4).astype("float16"),
         lab(3, 2, 4).astype("float16"), None),
        ("mae_f64", "MAERegressionOutput", {}, u(3, 2).astype("float64"),
         u(3, 2).astype("float64"), None),
        ("svm_f64", "SVMOutput", dict(use_linear=True), u(3, 4).astype("float64"),
         lab(4, 3).astype("float64"), None),
    ]
    return c


def kl_steps(arrays, meta):
    rs = np.random.RandomState(7)
    kw = dict(sparseness_target=0.2, penalty=0.01, momentum=0.8)
    sym = mx.sym.IdentityAttachKLSparseReg(mx.sym.var("data"), name="kl", **kw)
    ex = sym.simple_bind(mx.cpu(), data=(4, 3))
    avg0 = np.array([0.3, 0.5, 0.7], "float32")
    ex.aux_dict["kl_moving_avg"][:] = avg0
    arrays["kl_avg0"] = avg0
    for step in (1, 2):
        d = rs.uniform(0.05, 0.95, size=(4, 3)).astype("float32")
        h = rs.uniform(-1, 1, size=(4, 3)).astype("float32")
        ex.arg_dict["data"][:] = d
        ex.forward(is_train=True)
        ex.backward(out_grads=[mx.nd.array(h)])
        arrays[f"kl_data{step}"] = d
        arrays[f"kl_head{step}"] = h
        arrays[f"kl_out{step}"] = ex.outputs[0].asnumpy()
        arrays[f"kl_grad{step}"] = ex.grad_dict["data"].asnumpy()
        arrays[f"kl_avg{step}"] = ex.aux_dict["kl_moving_avg"].asnumpy()
    meta["kl_kwargs"] = kw
    meta["kl_aux_names"] = sym.list_auxiliary_states()


def graph(arrays, meta):
    """A Symbol graph with every output layer, as MXNet writes it to JSON, run by MXNet's
    executor: forward outputs, the data gradient (heads of ones) and the moving average."""
    rs = np.random.RandomState(11)
    data = mx.sym.var("data")
    fc = mx.sym.FullyConnected(data, num_hidden=4, name="fc")
    kl = mx.sym.IdentityAttachKLSparseReg(mx.sym.sigmoid(fc), name="kl", penalty=0.1)
    outs = [mx.sym.SVMOutput(kl, name="svm", margin=0.5, use_linear=True),
            mx.sym.SoftmaxOutput(fc, name="so", smooth_alpha=0.1, normalization="batch"),
            mx.sym.LinearRegressionOutput(fc, name="lin", grad_scale=0.5),
            mx.sym.LogisticRegressionOutput(fc, name="logit"),
            mx.sym.MAERegressionOutput(fc, name="mae"),
            mx.sym.MakeLoss(mx.sym.sum(mx.sym.BlockGrad(fc) * fc), grad_scale=2.0,
                            normalization="batch", name="ml"),
            mx.sym.make_loss(mx.sym.square(fc), name="ml2")]
    g = mx.sym.Group(outs)
    shapes = dict(data=(3, 5), svm_label=(3,), so_label=(3,), lin_label=(3, 4),
                  logit_label=(3, 4), mae_label=(3, 4))
    ex = g.simple_bind(mx.cpu(), **shapes)
    feed = {"data": rs.uniform(-1, 1, (3, 5)), "fc_weight": rs.uniform(-1, 1, (4, 5)),
            "fc_bias": rs.uniform(-1, 1, (4,)), "svm_label": rs.randint(0, 4, (3,)),
            "so_label": rs.randint(0, 4, (3,)), "lin_label": rs.uniform(-1, 1, (3, 4)),
            "logit_label": rs.randint(0, 2, (3, 4)), "mae_label": rs.uniform(-1, 1, (3, 4))}
    for k, v in feed.items():
        ex.arg_dict[k][:] = v
        arrays["graph/" + k] = v.astype("float32")
    avg0 = np.full((4,), 0.4, "float32")
    ex.aux_dict["kl_moving_avg"][:] = avg0
    arrays["graph/kl_moving_avg"] = avg0
    ex.forward(is_train=True)
    ex.backward(out_grads=[mx.nd.ones(o.shape) for o in ex.outputs])
    for i, o in enumerate(ex.outputs):
        arrays[f"graph/out{i}"] = o.asnumpy()
    arrays["graph/grad_data"] = ex.grad_dict["data"].asnumpy()
    arrays["graph/grad_fc_weight"] = ex.grad_dict["fc_weight"].asnumpy()
    arrays["graph/avg1"] = ex.aux_dict["kl_moving_avg"].asnumpy()
    meta["graph"] = {"json": g.tojson(), "arguments": g.list_arguments(),
                     "aux": g.list_auxiliary_states(), "outputs": g.list_outputs()}


def main():
    arrays, meta = {}, {"cases": []}
    for name, op, kw, data, label, head in cases():
        out, grad = run_nd(mx, op, kw, data, label, head)
        arrays[name + "/data"] = data
        if label is not None:
            arrays[name + "/label"] = label
        if head is not None:
            arrays[name + "/head"] = head
        arrays[name + "/out"] = out
        arrays[name + "/grad"] = grad
        meta["cases"].append({"name": name, "op": op, "kwargs": kw})
    kl_steps(arrays, meta)
    graph(arrays, meta)
    arrays["meta"] = np.array(json.dumps(meta, sort_keys=True))
    tmp = OUT + ".tmp"
    with open(tmp, "wb") as f:
        np.savez_compressed(f, **arrays)
    os.replace(tmp, OUT)
    print("wrote", OUT, len(meta["cases"]), "cases")


if __name__ == "__main__":
    main()
