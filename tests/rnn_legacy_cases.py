"""``mx.rnn`` cells unrolled, bound with ``simple_bind`` and run forward and backward by
both MXNet 1.9.1 (tools/make_rnn_legacy_fixtures.py) and mxgrad
(tests/test_rnn_legacy.py). Each case builds its Symbol with the ``mx`` it is given; the
initial states are variables (``begin_state(func=mx.sym.Variable)``) so that they are
inputs with values and gradients; parameters, inputs, states and head gradients are
seeded NumPy values."""
import numpy as np

BATCH, STEPS, IN, HID = 2, 3, 5, 4


def _lstm(mx):
    return mx.rnn.LSTMCell(HID, prefix="lstm_", forget_bias=2.0), "NTC", True, STEPS


def _gru(mx):
    return mx.rnn.GRUCell(HID, prefix="gru_"), "TNC", False, STEPS


def _rnn_relu(mx):
    return mx.rnn.RNNCell(HID, activation="relu", prefix="rnn_"), "NTC", False, 4


def _stack(mx):
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(HID, prefix="l0_"))
    stack.add(mx.rnn.LSTMCell(HID, prefix="l1_"))
    return stack, "NTC", True, 4


def _bidirectional(mx):
    cell = mx.rnn.BidirectionalCell(mx.rnn.LSTMCell(HID, prefix="bl_"),
                                    mx.rnn.GRUCell(HID, prefix="br_"), output_prefix="bi_")
    return cell, "NTC", True, STEPS


def _bidirectional_steps(mx):
    cell = mx.rnn.BidirectionalCell(mx.rnn.GRUCell(HID, prefix="sl_"),
                                    mx.rnn.RNNCell(HID, prefix="sr_"), output_prefix="bs_")
    return cell, "TNC", False, STEPS


def _residual(mx):
    return mx.rnn.ResidualCell(mx.rnn.GRUCell(IN, prefix="res_")), "NTC", True, STEPS


def _fused(mode, layers, bidirectional):
    def build(mx):
        cell = mx.rnn.FusedRNNCell(HID, num_layers=layers, mode=mode,
                                   bidirectional=bidirectional, prefix="f_")
        return cell, "TNC", True, STEPS
    return build


# name -> builder of (cell, layout, merge_outputs, length)
CASES = {
    "lstm": _lstm, "gru": _gru, "rnn_relu": _rnn_relu, "stack": _stack,
    "bidirectional": _bidirectional, "bidirectional_steps": _bidirectional_steps,
    "residual": _residual,
    "fused_lstm_bi2": _fused("lstm", 2, True), "fused_gru": _fused("gru", 1, False),
    "fused_rnn_tanh2": _fused("rnn_tanh", 2, False),
}


def _flat(states):
    out = []
    for s in states:
        out.extend(_flat(s) if isinstance(s, list) else [s])
    return out


def _graph(mx, cell, layout, merge, length, begin_state=None):
    data = mx.sym.var("data")
    if begin_state is None:    # a ModifierCell names the argument init_sym
        begin_state = (cell.begin_state(mx.sym.Variable)
                       if isinstance(cell, mx.rnn.ModifierCell)
                       else cell.begin_state(func=mx.sym.Variable))
    outs, states = cell.unroll(length, data, begin_state=begin_state, layout=layout,
                               merge_outputs=merge)
    outs = outs if isinstance(outs, list) else [outs]
    # a state that is also an output (RNN/GRU: the last step's) is grouped once: MXNet
    # keeps only the last head gradient of an output listed twice, mxgrad sums them
    names = {o.list_outputs()[0] for o in outs}
    states = [s for s in _flat(states) if s.list_outputs()[0] not in names]
    return mx.sym.Group(outs + states), begin_state


def _state_shape(info, batch):
    return tuple(batch if d == 0 else d for d in info["shape"])


def _data_shape(layout, length):
    return (BATCH, length, IN) if layout == "NTC" else (length, BATCH, IN)


def _run(mx, sym, shapes, vals, seed):
    ex = sym.simple_bind(mx.cpu(), **shapes)
    for n, v in vals.items():
        ex.arg_dict[n][:] = v
    outs = ex.forward(is_train=True)
    rng = np.random.RandomState(seed)
    heads = [rng.uniform(-1, 1, o.shape).astype(np.float32) for o in outs]
    ex.backward([mx.nd.array(h) for h in heads])
    res = {f"out{i}": o.asnumpy() for i, o in enumerate(outs)}
    res.update({f"grad:{n}": g.asnumpy() for n, g in ex.grad_dict.items()
                if g is not None})
    return res, ex


def run(mx, name):
    """Build, bind and run case ``name``; {key: array} of outputs (``out<i>``), gradients
    (``grad:<argument>``) and the names of the arguments (``args``). Fused cases also run
    the ``unfuse()`` stack on the same weights and states (keys ``unfused/...``)."""
    cell, layout, merge, length = CASES[name](mx)
    sym, begin = _graph(mx, cell, layout, merge, length)
    shapes = {"data": _data_shape(layout, length)}
    shapes.update({s.name: _state_shape(info, BATCH)
                   for s, info in zip(begin, cell.state_info)})
    arg_shapes, _, _ = sym.infer_shape(**shapes)
    rng = np.random.RandomState(sum(map(ord, name)))
    vals = {n: rng.uniform(-0.6, 0.6, s).astype(np.float32)
            for n, s in zip(sym.list_arguments(), arg_shapes)}
    res, _ = _run(mx, sym, shapes, vals, 7 + len(name))
    res["args"] = np.array(sym.list_arguments())
    if name.startswith("fused"):
        res.update({f"unfused/{k}": v for k, v in _run_unfused(mx, cell, layout, length,
                                                                 vals, name).items()})
    return res


def _run_unfused(mx, fused, layout, length, vals, name):
    stack = fused.unfuse()
    begin = stack.begin_state(func=mx.sym.Variable)
    sym, _ = _graph(mx, stack, layout, True, length, begin_state=begin)
    sym = mx.sym.Group([sym[0]])             # the output (the states are grouped per cell)
    params = {k: v.asnumpy() for k, v in stack.pack_weights(fused.unpack_weights(
        {"f_parameters": mx.nd.array(vals["f_parameters"])})).items()}
    # the fused states (layers * directions, batch, hidden) are the cells' states in order
    fused_states = [vals["f_begin_state_%d" % i] for i in range(len(fused.state_info))]
    dirs = 2 if fused._bidirectional else 1
    per_cell = [fused_states[k][i] for i in range(fused._num_layers * dirs)
                for k in range(len(fused_states))]
    unfused_vals = {"data": vals["data"], **params}
    unfused_vals.update({s.name: v for s, v in zip(begin, per_cell)})
    shapes = {"data": vals["data"].shape}
    shapes.update({s.name: v.shape for s, v in zip(begin, per_cell)})
    res, _ = _run(mx, sym, shapes, unfused_vals, 7 + len(name))
    return {"out0": res["out0"]}


#: (mode, size of the parameter vector) for 1 input, 2 hidden units, 1 layer
FUSED_INIT_CASES = [("gru", 2 * 3 * (1 + 2 + 2)), ("lstm", 2 * 4 * (1 + 2 + 2)),
                    ("rnn_relu", 2 * (1 + 2 + 2))]


def corpus():
    """A small encoded corpus of sentences of lengths 1 to 9 (seeded)."""
    rng = np.random.RandomState(11)
    lengths = [2, 3, 3, 5, 4, 3, 7, 5, 5, 2, 8, 3, 5, 9, 4, 1, 3, 5, 6, 2, 3, 5]
    return [list(rng.randint(1, 20, size=n)) for n in lengths]


def checkpoint_cells(mx):
    """The cells of the checkpoint fixtures: a stack of an LSTM and a GRU, and a fused
    2-layer LSTM."""
    stack = mx.rnn.SequentialRNNCell()
    stack.add(mx.rnn.LSTMCell(HID, prefix="ck_l0_"))
    stack.add(mx.rnn.GRUCell(HID, prefix="ck_l1_"))
    fused = mx.rnn.FusedRNNCell(HID, num_layers=2, mode="lstm", prefix="ckf_")
    return {"stack": stack, "fused": fused}


def checkpoint_symbol(mx, cells):
    """A small language model on ``cells``."""
    embed = mx.sym.Embedding(mx.sym.var("data"), input_dim=10, output_dim=IN, name="embed")
    out, _ = cells.unroll(STEPS, embed, layout="TNC", merge_outputs=True)
    pred = mx.sym.FullyConnected(mx.sym.Reshape(out, shape=(-1, HID)), num_hidden=10,
                                 name="pred")
    return mx.sym.SoftmaxOutput(pred, name="softmax")


def checkpoint_model(mx, cells):
    """:func:`checkpoint_symbol` and seeded packed parameters."""
    sym = checkpoint_symbol(mx, cells)
    shapes, _, _ = sym.infer_shape(data=(STEPS, BATCH))
    rng = np.random.RandomState(4)
    args = {n: mx.nd.array(rng.uniform(-1, 1, s)) for n, s in
            zip(sym.list_arguments(), shapes) if n not in ("data", "softmax_label")}
    return sym, args


def bucketing_lm(mx, num_epoch=2):
    """MXNet's example/rnn/bucketing/lstm_bucketing.py, small: a 2-layer LSTM language
    model (default zero begin states) trained by ``mx.mod.BucketingModule.fit`` with SGD on
    ``BucketSentenceIter`` batches, from seeded parameters (Python's and NumPy's generators
    are seeded here and restored by the caller). Returns the parameters after training
    and the training perplexity."""
    import random
    random.seed(1)
    np.random.seed(1)
    rng = np.random.RandomState(0)
    sents = [list(rng.randint(1, 30, size=n)) for n in rng.randint(3, 12, size=120)]
    batch, hidden, embed, vocab = 8, 16, 8, 30
    train = mx.rnn.BucketSentenceIter(sents, batch, buckets=[5, 8, 12], invalid_label=0)
    stack = mx.rnn.SequentialRNNCell()
    for i in range(2):
        stack.add(mx.rnn.LSTMCell(num_hidden=hidden, prefix="lstm_l%d_" % i))

    def sym_gen(seq_len):
        emb = mx.sym.Embedding(data=mx.sym.Variable("data"), input_dim=vocab,
                               output_dim=embed, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=emb, merge_outputs=True)
        pred = mx.sym.FullyConnected(data=mx.sym.Reshape(outputs, shape=(-1, hidden)),
                                     num_hidden=vocab, name="pred")
        label = mx.sym.Reshape(mx.sym.Variable("softmax_label"), shape=(-1,))
        pred = mx.sym.SoftmaxOutput(data=pred, label=label, name="softmax")
        return pred, ("data",), ("softmax_label",)

    sym, _, _ = sym_gen(12)
    shapes, _, _ = sym.infer_shape(data=(batch, 12), softmax_label=(batch, 12))
    prng = np.random.RandomState(5)
    arg_params = {n: mx.nd.array(prng.uniform(-0.3, 0.3, sh)) for n, sh in
                  zip(sym.list_arguments(), shapes) if n not in ("data", "softmax_label")}
    model = mx.mod.BucketingModule(sym_gen=sym_gen,
                                   default_bucket_key=train.default_bucket_key,
                                   context=mx.cpu())
    metric = mx.metric.Perplexity(0)
    model.fit(train_data=train, eval_metric=metric, kvstore=None, optimizer="sgd",
              optimizer_params={"learning_rate": 0.1, "momentum": 0.0, "wd": 0.0},
              arg_params=arg_params, num_epoch=num_epoch)
    train.reset()
    perplexity = model.score(train, metric)[0][1]
    arg, _ = model.get_params()
    res = {k: v.asnumpy() for k, v in arg.items()}
    res["perplexity"] = np.array(perplexity)
    return res


def merge_table(mx):
    """What ``unroll`` returns (``sym`` or ``list<n>``, and the number of states) for each
    kind of cell, input (one Symbol or a list) and ``merge_outputs`` (None, True, False)."""
    def stack():
        s = mx.rnn.SequentialRNNCell()
        s.add(mx.rnn.LSTMCell(3, prefix="s0_"))
        s.add(mx.rnn.DropoutCell(0.2))
        s.add(mx.rnn.GRUCell(3, prefix="s1_"))
        return s
    makers = {
        "lstm": lambda: mx.rnn.LSTMCell(2, prefix="a_"),
        "fused": lambda: mx.rnn.FusedRNNCell(2, prefix="f_"),
        "bi": lambda: mx.rnn.BidirectionalCell(mx.rnn.GRUCell(2, prefix="l_"),
                                               mx.rnn.GRUCell(2, prefix="r_")),
        "res": lambda: mx.rnn.ResidualCell(mx.rnn.GRUCell(3, prefix="g_")),
        "drop": lambda: mx.rnn.DropoutCell(0.5),
        "zone": lambda: mx.rnn.ZoneoutCell(mx.rnn.GRUCell(3, prefix="z_"), 0.1, 0.1),
        "stack": stack,
    }
    table = {}
    for name, make in makers.items():
        for inp in ("sym", "list"):
            for merge in (None, True, False):
                x = (mx.sym.var("x") if inp == "sym"
                     else [mx.sym.var("x%d" % i) for i in range(3)])
                out, states = make().unroll(3, x, merge_outputs=merge)
                kind = "list%d" % len(out) if isinstance(out, list) else "sym"
                table["%s/%s/%s" % (name, inp, merge)] = "%s,%d" % (kind, len(states))
    return table
