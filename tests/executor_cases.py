"""Symbol graphs bound and run by both MXNet 1.9.1 (tools/make_executor_fixtures.py) and
mxgrad (tests/test_executor.py): each case builds its Symbol with the ``mx`` it is given,
its input values (seeded NumPy), how its gradients are requested and its head gradients."""
import numpy as np


def _mlp(mx):
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=6, name="fc1")
    h = mx.sym.Activation(h, act_type="tanh", name="act1")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def _conv(mx):
    data = mx.sym.var("data")
    h = mx.sym.Convolution(data, kernel=(3, 3), num_filter=4, pad=(1, 1), name="conv")
    h = mx.sym.BatchNorm(h, fix_gamma=False, name="bn")
    h = mx.sym.Activation(h, act_type="relu")
    h = mx.sym.Pooling(h, kernel=(2, 2), stride=(2, 2), pool_type="max")
    h = mx.sym.Flatten(h)
    h = mx.sym.FullyConnected(h, num_hidden=5, name="fc")
    return mx.sym.LinearRegressionOutput(h, name="lro")


def _arith(mx):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    c = mx.sym.broadcast_add(mx.sym.broadcast_mul(a, b),
                             mx.sym.broadcast_div(mx.sym.exp(a), 1 + b * b))
    return mx.sym.Group([mx.sym.sum(c, axis=1), mx.sym.sigmoid(c)])


def _split(mx):
    x = mx.sym.var("x")
    parts = mx.sym.SliceChannel(x, num_outputs=3, axis=1)
    y = parts[0] * parts[1] + mx.sym.tanh(parts[2])
    return mx.sym.concat(y, parts[0], dim=1)


# name -> (builder, input shapes, grad_req, head-gradient shapes or None (loss outputs))
CASES = {
    "mlp": (_mlp, {"data": (4, 5), "softmax_label": (4,)}, "write", None),
    "conv": (_conv, {"data": (2, 3, 6, 6), "lro_label": (2, 5)}, "write", None),
    "arith_add": (_arith, {"a": (3, 4), "b": (1, 4)}, "add", [(3,), (3, 4)]),
    "split": (_split, {"x": (2, 6)}, {"x": "write"}, [(2, 4)]),
}


def inputs(name, arg_names, arg_shapes):
    """Seeded values for every argument (labels: class indices for SoftmaxOutput)."""
    rng = np.random.RandomState(sum(map(ord, name)))
    vals = {}
    for n, s in zip(arg_names, arg_shapes):
        if n == "softmax_label":
            vals[n] = rng.randint(0, 3, size=s).astype(np.float32)
        else:
            vals[n] = rng.uniform(-1, 1, size=s).astype(np.float32)
    return vals


def head_grads(name, shapes):
    rng = np.random.RandomState(7 + sum(map(ord, name)))
    return None if shapes is None else [rng.uniform(-1, 1, s).astype(np.float32)
                                        for s in shapes]


def run(mx, name, is_train=True, rounds=2):
    """Bind case ``name`` with simple_bind, set its inputs, run ``rounds`` forward/backward
    rounds; return {key: array} of outputs, gradients and auxiliary states."""
    build, shapes, req, hshapes = CASES[name]
    sym = build(mx)
    ex = sym.simple_bind(mx.cpu(), grad_req=req, **shapes)
    names = sym.list_arguments()
    vals = inputs(name, names, [a.shape for a in ex.arg_arrays])
    for n, v in vals.items():
        ex.arg_dict[n][:] = v
    hg = head_grads(name, hshapes)
    res = {}
    for r in range(rounds):
        outs = ex.forward(is_train=is_train)
        ex.backward(None if hg is None else [mx.nd.array(g) for g in hg])
        for k, o in enumerate(outs):
            res[f"r{r}_out{k}"] = o.asnumpy()
        for n, g in ex.grad_dict.items():
            if g is not None:
                res[f"r{r}_grad_{n}"] = g.asnumpy()
        for n, a in ex.aux_dict.items():
            res[f"r{r}_aux_{n}"] = a.asnumpy()
    return res
