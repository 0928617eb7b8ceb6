"""Write tests/data/mxnet/losses.npz: MXNet 1.9.1's values and input gradients of every
``gluon.loss`` class on small random inputs (several settings each), for
tests/test_loss_mxnet.py.

Each case ``i`` stores ``{i}_a{j}`` (positional inputs), ``{i}_kw_<name>`` (call keyword
inputs such as ``sample_weight``), ``{i}_head`` (the head gradient), ``{i}_out`` (the
loss) and ``{i}_grad`` (the gradient of the first input, when MXNet can record the loss);
``__cases__`` is a JSON list of ``{"cls", "init", "nargs", "kw", "grad"}`` (constructor
keywords, number of positional inputs, names of keyword inputs, whether a gradient is
stored).

Needs real MXNet (``pip install mxnet==1.9.1 numpy==1.23.5`` in its own venv); not run in CI::

    /tmp/mxvenv/bin/python tools/make_loss_fixtures.py
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "mxnet", "losses.npz")


def cases(rng):
    """``(class name, constructor keywords, positional inputs, call keyword inputs)``."""
    def r(*shape):
        return rng.standard_normal(shape).astype("float32")

    def probs(n, c):
        p = np.abs(r(n, c)) + 0.1
        return (p / p.sum(axis=1, keepdims=True)).astype("float32")

    def log_softmax(x):
        z = x - x.max(axis=-1, keepdims=True)
        return (z - np.log(np.exp(z).sum(axis=-1, keepdims=True))).astype("float32")

    signs = lambda *s: np.sign(r(*s)).astype("float32") + (r(*s) == 0)   # noqa: E731
    bits = lambda *s: (rng.random(s) > 0.5).astype("float32")            # noqa: E731
    sw = lambda *s: (rng.random(s) + 0.5).astype("float32")               # noqa: E731
    yield "L2Loss", {}, [r(4, 3), r(4, 3)], {}
    yield "L2Loss", {"weight": 0.5}, [r(3, 2, 2), r(3, 2, 2)], {"sample_weight": sw(3, 1, 1)}
    yield "L2Loss", {"batch_axis": 1}, [r(3, 4), r(3, 4)], {}
    yield "L2Loss", {}, [r(5), r(5)], {}
    yield "L1Loss", {}, [r(4, 3), r(4, 3)], {}
    yield "L1Loss", {"weight": 2.0}, [r(4, 3), r(4, 3)], {"sample_weight": sw(4, 1)}
    yield "SigmoidBinaryCrossEntropyLoss", {}, [r(4, 3) * 3, bits(4, 3)], {}
    yield "SigmoidBinaryCrossEntropyLoss", {}, [r(4, 3) * 3, bits(4, 3)], \
        {"sample_weight": sw(4, 1), "pos_weight": sw(1, 3)}
    yield "SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True}, \
        [(rng.random((4, 3)) * 0.9 + 0.05).astype("float32"), bits(4, 3)], {}
    yield "SigmoidBinaryCrossEntropyLoss", {"from_sigmoid": True}, \
        [(rng.random((4, 3)) * 0.9 + 0.05).astype("float32"), bits(4, 3)], \
        {"pos_weight": sw(1, 3)}
    yield "SoftmaxCrossEntropyLoss", {}, \
        [r(5, 4), rng.integers(0, 4, 5).astype("float32")], {}
    yield "SoftmaxCrossEntropyLoss", {}, \
        [r(5, 4), rng.integers(0, 4, 5).astype("float32")], {"sample_weight": sw(5, 1)}
    yield "SoftmaxCrossEntropyLoss", {"sparse_label": False}, [r(3, 4), probs(3, 4)], {}
    yield "SoftmaxCrossEntropyLoss", {"from_logits": True, "weight": 0.7}, \
        [log_softmax(r(3, 4)), rng.integers(0, 4, 3).astype("float32")], {}
    yield "SoftmaxCrossEntropyLoss", {"axis": 1}, \
        [r(2, 4, 3), rng.integers(0, 4, (2, 3)).astype("float32")], {}
    yield "KLDivLoss", {}, [log_softmax(r(3, 4)), probs(3, 4)], {}
    yield "KLDivLoss", {"from_logits": False}, [r(3, 4), probs(3, 4)], {}
    yield "KLDivLoss", {"weight": 0.5}, [log_softmax(r(3, 4)), probs(3, 4)], \
        {"sample_weight": sw(3, 1)}
    yield "KLDivLoss", {}, [log_softmax(r(2, 3, 4)), probs(6, 4).reshape(2, 3, 4)], {}
    yield "HuberLoss", {}, [r(4, 3) * 2, r(4, 3) * 2], {}
    yield "HuberLoss", {"rho": 0.5}, [r(4, 3) * 2, r(4, 3) * 2], {"sample_weight": sw(4, 1)}
    yield "HingeLoss", {}, [r(4, 3) * 2, signs(4, 3)], {}
    yield "HingeLoss", {"margin": 0.5}, [r(4, 3) * 2, signs(4, 3)], {}
    yield "SquaredHingeLoss", {}, [r(4, 3) * 2, signs(4, 3)], {}
    yield "SquaredHingeLoss", {"margin": 2.0}, [r(4, 3) * 2, signs(4, 3)], \
        {"sample_weight": sw(4, 1)}
    yield "LogisticLoss", {}, [r(4, 3) * 2, signs(4, 3)], {}
    yield "LogisticLoss", {"label_format": "binary"}, [r(4, 3) * 2, bits(4, 3)], {}
    yield "TripletLoss", {}, [r(4, 3), r(4, 3), r(4, 3)], {}
    yield "TripletLoss", {"margin": 0.3}, [r(2, 3, 2), r(2, 3, 2), r(2, 3, 2)], {}
    yield "PoissonNLLLoss", {}, [r(4, 3), (rng.random((4, 3)) * 3).astype("float32")], {}
    yield "PoissonNLLLoss", {"from_logits": False},\
        [(rng.random((4, 3)) + 0.1).astype("float32"),
         (rng.random((4, 3)) * 3).astype("float32")], {}
    # targets >= 1: MXNet's Stirling term is NaN for a target of 0 (0 * log 0), which
    # mxgrad does not copy (test_loss_mxnet.py checks that separately)
    yield "PoissonNLLLoss", {"compute_full": True}, \
        [r(4, 3), rng.integers(1, 5, (4, 3)).astype("float32")], {}
    yield "PoissonNLLLoss", {"weight": 0.5}, \
        [r(4, 3), (rng.random((4, 3)) * 3).astype("float32")], {"sample_weight": sw(4, 1)}
    yield "CosineEmbeddingLoss", {}, [r(4, 3), r(4, 3), signs(4)], {}
    yield "CosineEmbeddingLoss", {"margin": 0.2}, [r(4, 3), r(4, 3), signs(4)], {}
    yield "CTCLoss", {}, [r(2, 6, 4), np.array([[1, 2, 0], [2, -1, -1]], "float32")], {}
    yield "CTCLoss", {"layout": "TNC"}, \
        [r(6, 2, 4), np.array([[1, 1, 2], [2, 0, -1]], "float32")], {}
    yield "SDMLLoss", {}, [r(4, 3), r(4, 3)], {}
    yield "SDMLLoss", {"smoothing_parameter": 0.1}, [r(5, 2), r(5, 2)], {}


def main():
    rng = np.random.default_rng(24)
    out, meta = {}, []
    for i, (cls, init, args, kw) in enumerate(cases(rng)):
        loss = getattr(mx.gluon.loss, cls)(**init)
        # MXNet 1.9.1's Block.__call__ takes positional inputs only: sample_weight (and
        # SigmoidBCE's pos_weight) follow the data, None where not given
        extra = []
        for k in ("sample_weight", "pos_weight"):
            if k in kw or (k == "sample_weight" and "pos_weight" in kw):
                extra.append(kw.get(k))
        xs = [mx.nd.array(a) for a in args]
        xs[0].attach_grad()
        extra = [None if e is None else mx.nd.array(e) for e in extra]
        try:
            with mx.autograd.record():
                val = loss(*xs, *extra)
            grad = True
        except mx.base.MXNetError:
            # PoissonNLLLoss(compute_full=True) writes in place: MXNet cannot record it,
            # so only its value is a fixture
            val, grad = loss(*xs, *extra), False
        head = (rng.random(val.shape) + 0.5).astype("float32")
        if grad:
            val.backward(mx.nd.array(head))
        for j, a in enumerate(args):
            out[f"{i}_a{j}"] = a
        for k, v in kw.items():
            out[f"{i}_kw_{k}"] = v
        out[f"{i}_head"] = head
        out[f"{i}_out"] = val.asnumpy()
        if grad:
            out[f"{i}_grad"] = xs[0].grad.asnumpy()
        meta.append({"cls": cls, "init": init, "nargs": len(args), "kw": sorted(kw),
                     "grad": grad})
    out["__cases__"] = np.array(json.dumps(meta))
    np.savez_compressed(OUT, **out)
    print("wrote", OUT, len(meta), "cases")


if __name__ == "__main__":
    main()
