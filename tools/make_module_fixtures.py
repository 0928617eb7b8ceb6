"""Write tests/data/mxnet/module/: what MXNet 1.9.1's Module API computes and writes for
small networks on fixed data, for tests/test_module.py. The tests load the networks from
the JSON files written here (no second copy of the network code).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_module_fixtures.py

Files
  mlp-symbol.json, mlp-0001.params, mlp-0002.params
        ``Module.fit`` of an MLP (FullyConnected, BatchNorm(fix_gamma=False), relu, FullyConnected,
        SoftmaxOutput) for 2 epochs with ``do_checkpoint('mlp')``, SGD (lr 0.1,
        momentum 0.9, wd 1e-3), batches of 8 from ``NDArrayIter`` (no shuffle).
  mlp-0002.states  the optimizer states after those 2 epochs (MXNet's pickle).
  mlp.npz  x, y (24 samples), ``init:<name>`` the initial parameters (given to fit),
        ``fit1:<name>`` the parameters after fit on one context, ``fit3:<name>`` after 3
        epochs of the same fit, ``fit2:<name>`` after
        the same fit on [cpu(0), cpu(1)] (kvstore 'local'), ``pred`` the predictions
        (``Module.predict``) of the one-context model on x, ``acc`` its training accuracy
        (``Module.score``), ``fixed:<name>`` after one epoch with ``fixed_param_names``
        ['fc1_weight'], ``pygrad`` the gradient of fc1_weight after one forward/backward
        with out_grads of ones for a Module whose output is the logits (no loss layer),
        ``ff:<name>`` after ``FeedForward(num_epoch=2, epoch_size=2).fit`` (4 batches over
        two passes of the iterator), ``ffpred`` its ``predict(x)``.
  bucket-<key>-symbol.json, bucket.npz
        ``BucketingModule.fit`` (keys 3 and 5, default 5) of embedding, sum over time,
        FullyConnected, SoftmaxOutput; batches in a fixed order of keys;
        ``tokens<i>``/``labels<i>``/``key<i>`` the batches, ``init:``/``fit:`` parameters.
  lstm-<key>-symbol.json, lstm.npz
        a bucketing LSTM language model (hand-unrolled LSTM, keys 3 and 5, begin states as
        zero inputs) after 3 epochs of ``BucketingModule.fit`` with the Perplexity metric:
        ``tokens<i>``/``key<i>`` the sentences (data = tokens[:, :-1], label =
        tokens[:, 1:]), ``init:``/``fit:`` parameters, ``perplexity`` its final score.
"""
import logging
import os

os.environ["MXNET_SUBGRAPH_BACKEND"] = "NONE"   # MXNet's plain kernels (no MKLDNN fusion)
import numpy as np  # noqa: E402
import mxnet as mx  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "module")
SGD = {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}


def mlp():
    data = mx.sym.var("data")
    h = mx.sym.FullyConnected(data, num_hidden=8, name="fc1")
    h = mx.sym.BatchNorm(h, fix_gamma=False, name="bn1")
    h = mx.sym.Activation(h, act_type="relu", name="relu1")
    h = mx.sym.FullyConnected(h, num_hidden=3, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def init_params(sym, rs, shapes):
    arg_shapes, _, aux_shapes = sym.infer_shape(**shapes)
    args, auxs = {}, {}
    for name, shape in zip(sym.list_arguments(), arg_shapes):
        if name in shapes or name.endswith("_label"):
            continue
        if name.endswith("gamma"):
            args[name] = np.ones(shape, "float32")
        else:
            args[name] = (rs.randn(*shape) * 0.3).astype("float32")
    for name, shape in zip(sym.list_auxiliary_states(), aux_shapes):
        args_or = np.ones if name.endswith("var") else np.zeros
        auxs[name] = args_or(shape, "float32")
    return args, auxs


def to_nd(d):
    return {k: mx.nd.array(v) for k, v in d.items()}


def fit_mlp(sym, x, y, args, auxs, context, num_epoch, prefix=None, **kwargs):
    train = mx.io.NDArrayIter(x, y, batch_size=8, shuffle=False)
    mod = mx.mod.Module(sym, context=context, **kwargs)
    cb = mx.callback.do_checkpoint(prefix) if prefix else None
    mod.fit(train, num_epoch=num_epoch, optimizer="sgd", optimizer_params=SGD,
            arg_params=to_nd(args), aux_params=to_nd(auxs), epoch_end_callback=cb)
    return mod, train


def params_of(mod, tag):
    arg, aux = mod.get_params()
    out = {f"{tag}:{k}": v.asnumpy() for k, v in arg.items()}
    out.update({f"{tag}:{k}": v.asnumpy() for k, v in aux.items()})
    return out


def make_mlp():
    rs = np.random.RandomState(0)
    x = rs.randn(24, 6).astype("float32")
    y = (np.argmax(x[:, :3], axis=1)).astype("float32")
    sym = mlp()
    args, auxs = init_params(sym, rs, {"data": (8, 6)})
    out = {"x": x, "y": y}
    out.update({f"init:{k}": v for k, v in {**args, **auxs}.items()})
    mod, train = fit_mlp(sym, x, y, args, auxs, mx.cpu(), 2,
                         prefix=os.path.join(OUT, "mlp"))
    out.update(params_of(mod, "fit1"))
    mod.save_optimizer_states(os.path.join(OUT, "mlp-0002.states"))     # a pickle
    mod3, _ = fit_mlp(sym, x, y, args, auxs, mx.cpu(), 3)
    out.update(params_of(mod3, "fit3"))
    out["pred"] = mod.predict(mx.io.NDArrayIter(x, batch_size=8)).asnumpy()
    out["acc"] = np.array([mod.score(train, "acc")[0][1]])
    mod2, _ = fit_mlp(sym, x, y, args, auxs, [mx.cpu(0), mx.cpu(1)], 2)
    out.update(params_of(mod2, "fit2"))
    mod3, _ = fit_mlp(sym, x, y, args, auxs, mx.cpu(), 1, fixed_param_names=["fc1_weight"])
    out.update(params_of(mod3, "fixed"))
    logits = sym.get_internals()["fc2_output"]
    mod4 = mx.mod.Module(logits, label_names=None)
    mod4.bind(data_shapes=[("data", (8, 6))])
    mod4.init_params(arg_params=to_nd(args), aux_params=to_nd(auxs), allow_extra=True)
    mod4.forward(mx.io.DataBatch([mx.nd.array(x[:8])]), is_train=True)
    mod4.backward([mx.nd.ones((8, 3))])
    out["pygrad"] = mod4._exec_group.grad_arrays[0][0].asnumpy()
    model = mx.model.FeedForward(sym, num_epoch=2, epoch_size=2, arg_params=to_nd(args),
                                 aux_params=to_nd(auxs), **SGD)
    model.fit(mx.io.NDArrayIter(x, y, batch_size=8, shuffle=False))
    out.update({f"ff:{k}": v.asnumpy() for k, v in {**model.arg_params,
                                                      **model.aux_params}.items()})
    out["ffpred"] = model.predict(x)
    np.savez(os.path.join(OUT, "mlp.npz"), **out)


def bucket_sym_gen(key):
    data = mx.sym.var("data")
    label = mx.sym.var("softmax_label")
    emb = mx.sym.Embedding(data, input_dim=10, output_dim=4, name="embed")
    h = mx.sym.sum(emb, axis=1) / key
    h = mx.sym.FullyConnected(h, num_hidden=2, name="fc")
    return mx.sym.SoftmaxOutput(h, label, name="softmax"), ("data",), ("softmax_label",)


class ListIter(mx.io.DataIter):
    """Fixed batches (tokens, labels, bucket key) in a fixed order."""

    def __init__(self, batches, default_key):
        super().__init__(batch_size=batches[0][0].shape[0])
        self.batches = batches
        self.default_bucket_key = default_key
        self.provide_data = [mx.io.DataDesc("data", (self.batch_size, default_key))]
        self.provide_label = [mx.io.DataDesc("softmax_label", (self.batch_size,))]
        self.i = 0

    def reset(self):
        self.i = 0

    def next(self):
        if self.i == len(self.batches):
            raise StopIteration
        tokens, labels, key = self.batches[self.i]
        self.i += 1
        return mx.io.DataBatch([mx.nd.array(tokens)], [mx.nd.array(labels)], bucket_key=key,
                               provide_data=[mx.io.DataDesc("data", tokens.shape)],
                               provide_label=[mx.io.DataDesc("softmax_label",
                                                             labels.shape)])


def make_bucket():
    rs = np.random.RandomState(1)
    out = {}
    batches = []
    for i, key in enumerate([5, 3, 3, 5, 3]):
        tokens = rs.randint(0, 10, size=(4, key)).astype("float32")
        labels = (tokens[:, 0] > 4).astype("float32")
        batches.append((tokens, labels, key))
        out[f"tokens{i}"], out[f"labels{i}"], out[f"key{i}"] = tokens, labels, np.array([key])
    sym, _, _ = bucket_sym_gen(5)
    args, auxs = init_params(sym, rs, {"data": (4, 5), "softmax_label": (4,)})
    out.update({f"init:{k}": v for k, v in args.items()})
    mod = mx.mod.BucketingModule(bucket_sym_gen, default_bucket_key=5)
    mod.fit(ListIter(batches, 5), num_epoch=2, optimizer="sgd", optimizer_params=SGD,
            arg_params=to_nd(args), aux_params={})
    out.update(params_of(mod, "fit"))
    mod.save_checkpoint(os.path.join(OUT, "bucket"), 2)
    os.remove(os.path.join(OUT, "bucket-0002.params"))
    os.remove(os.path.join(OUT, "bucket.buckets"))
    np.savez(os.path.join(OUT, "bucket.npz"), **out)


V, E, H, LSTM_BATCH = 12, 6, 8, 3


def lstm_sym_gen(seq_len):
    """A language model with a hand-unrolled LSTM (MXNet's pre-mx.rnn examples): the
    begin states are inputs (zeros from the iterator), the weights shared over time."""
    data = mx.sym.var("data")
    label = mx.sym.var("softmax_label")
    h, c = mx.sym.var("init_h"), mx.sym.var("init_c")
    wx, bx = mx.sym.var("lstm_i2h_weight"), mx.sym.var("lstm_i2h_bias")
    wh, bh = mx.sym.var("lstm_h2h_weight"), mx.sym.var("lstm_h2h_bias")
    embed = mx.sym.Embedding(data, input_dim=V, output_dim=E, name="embed")
    steps = mx.sym.SliceChannel(embed, num_outputs=seq_len, axis=1, squeeze_axis=True,
                                name="steps")
    outs = []
    for t in range(seq_len):
        gates = (mx.sym.FullyConnected(steps[t], wx, bx, num_hidden=4 * H, name=f"t{t}_i2h")
                 + mx.sym.FullyConnected(h, wh, bh, num_hidden=4 * H, name=f"t{t}_h2h"))
        sl = mx.sym.SliceChannel(gates, num_outputs=4, name=f"t{t}_gates")
        i = mx.sym.Activation(sl[0], act_type="sigmoid")
        f = mx.sym.Activation(sl[1], act_type="sigmoid")
        g = mx.sym.Activation(sl[2], act_type="tanh")
        o = mx.sym.Activation(sl[3], act_type="sigmoid")
        c = f * c + i * g
        h = o * mx.sym.Activation(c, act_type="tanh")
        outs.append(mx.sym.expand_dims(h, axis=1))
    hs = mx.sym.Reshape(mx.sym.Concat(*outs, dim=1), shape=(-1, H))
    pred = mx.sym.FullyConnected(hs, num_hidden=V, name="pred")
    out = mx.sym.SoftmaxOutput(pred, mx.sym.Reshape(label, shape=(-1,)), name="softmax")
    return out, ("data", "init_h", "init_c"), ("softmax_label",)


class LstmIter(mx.io.DataIter):
    """Sentences of lengths 3 and 5 (bucket keys), zero begin states."""

    def __init__(self, batches):
        super().__init__(batch_size=LSTM_BATCH)
        self.batches = batches
        self.default_bucket_key = 5
        self.provide_data = self._descs(5)[0]
        self.provide_label = self._descs(5)[1]
        self.i = 0

    @staticmethod
    def _descs(key):
        return ([mx.io.DataDesc("data", (LSTM_BATCH, key)),
                 mx.io.DataDesc("init_h", (LSTM_BATCH, H)),
                 mx.io.DataDesc("init_c", (LSTM_BATCH, H))],
                [mx.io.DataDesc("softmax_label", (LSTM_BATCH, key))])

    def reset(self):
        self.i = 0

    def next(self):
        if self.i == len(self.batches):
            raise StopIteration
        tokens, key = self.batches[self.i]
        self.i += 1
        zeros = mx.nd.zeros((LSTM_BATCH, H))
        data, label = self._descs(key)
        return mx.io.DataBatch([mx.nd.array(tokens[:, :-1]), zeros, zeros],
                               [mx.nd.array(tokens[:, 1:])], bucket_key=key,
                               provide_data=data, provide_label=label)


def make_lstm():
    rs = np.random.RandomState(2)
    out = {}
    batches = []
    for i, key in enumerate([5, 3, 5, 3, 3]):
        start = rs.randint(0, V, size=(LSTM_BATCH, 1))
        tokens = ((start + np.arange(key + 1)) % V).astype("float32")   # learnable: +1
        batches.append((tokens, key))
        out[f"tokens{i}"], out[f"key{i}"] = tokens, np.array([key])
    sym, _, _ = lstm_sym_gen(5)
    shapes = {"data": (LSTM_BATCH, 5), "init_h": (LSTM_BATCH, H), "init_c": (LSTM_BATCH, H),
              "softmax_label": (LSTM_BATCH, 5)}
    args, _ = init_params(sym, rs, shapes)
    out.update({f"init:{k}": v for k, v in args.items()})
    mod = mx.mod.BucketingModule(lstm_sym_gen, default_bucket_key=5)
    it = LstmIter(batches)
    mod.fit(it, num_epoch=3, optimizer="sgd", optimizer_params=SGD,
            eval_metric=mx.metric.Perplexity(None), arg_params=to_nd(args))
    out.update(params_of(mod, "fit"))
    out["perplexity"] = np.array([mod.score(it, mx.metric.Perplexity(None))[0][1]])
    mod.save_checkpoint(os.path.join(OUT, "lstm"), 3)
    os.remove(os.path.join(OUT, "lstm-0003.params"))
    os.remove(os.path.join(OUT, "lstm.buckets"))
    np.savez(os.path.join(OUT, "lstm.npz"), **out)


def main():
    logging.basicConfig(level=logging.WARNING)
    os.makedirs(OUT, exist_ok=True)
    make_mlp()
    make_bucket()
    make_lstm()
    print("wrote", sorted(os.listdir(OUT)))


if __name__ == "__main__":
    main()
