"""Write tests/data/mxnet/rnn/rnn.json: MXNet 1.9.1's outputs, final states and gradients
(inputs, begin states, every parameter) of small ``gluon.rnn`` layers and cells with seeded
weights, plus the parameter names and ``.params`` keys MXNet uses.

Needs real MXNet (``pip install mxnet==1.9.1 numpy==1.23.5`` in its own venv); not run in CI::

    /path/to/mxnet-venv/bin/python tools/make_rnn_fixtures.py

The structures are described by plain dicts (``SPECS``) that ``tests/test_rnn_mxnet.py``
rebuilds with mxgrad from the same names and prefixes.
"""
import json
import os
import re

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "mxnet", "rnn", "rnn.json")

T, N, I, H = 3, 2, 3, 4

SPECS = [
    {"kind": "layer", "cls": "LSTM", "layers": 2, "bi": True, "layout": "TNC"},
    {"kind": "layer", "cls": "LSTM", "layers": 1, "bi": False, "layout": "NTC"},
    {"kind": "layer", "cls": "GRU", "layers": 2, "bi": True, "layout": "NTC"},
    {"kind": "layer", "cls": "GRU", "layers": 1, "bi": False, "layout": "TNC"},
    {"kind": "layer", "cls": "RNN", "layers": 2, "bi": True, "layout": "TNC", "act": "tanh"},
    {"kind": "layer", "cls": "RNN", "layers": 2, "bi": False, "layout": "NTC", "act": "relu"},
    {"kind": "cell", "cell": "LSTMCell", "layout": "NTC"},
    {"kind": "cell", "cell": "GRUCell", "layout": "TNC"},
    {"kind": "cell", "cell": "RNNCell", "act": "tanh", "layout": "NTC"},
    {"kind": "cell", "cell": "RNNCell", "act": "relu", "layout": "NTC"},
    {"kind": "cell", "cell": "LSTMCell", "layout": "NTC", "valid_length": [3, 2]},
    {"kind": "bi", "layout": "NTC"},
    {"kind": "bi", "layout": "TNC", "valid_length": [2, 3]},
    {"kind": "seq", "layout": "TNC"},
    # LSTMP: MXNet 1.9's CPU operator runs a projection only forward (inference)
    {"kind": "layer", "cls": "LSTM", "layers": 2, "bi": True, "layout": "TNC", "proj": 3,
     "infer": True},
    {"kind": "layer", "cls": "LSTM", "layers": 1, "bi": False, "layout": "NTC", "proj": 2,
     "infer": True},
]


def build(mxm, spec):
    """The block described by ``spec`` (``mxm`` is mxnet or mxgrad)."""
    rnn = mxm.gluon.rnn
    if spec["kind"] == "layer":
        kw = {"num_layers": spec["layers"], "bidirectional": spec["bi"],
              "layout": spec["layout"], "input_size": I, "prefix": "net_"}
        if spec["cls"] == "RNN":
            kw["activation"] = spec["act"]
        if "proj" in spec:
            kw["projection_size"] = spec["proj"]
        return getattr(rnn, spec["cls"])(H, **kw)
    if spec["kind"] == "cell":
        kw = {"input_size": I, "prefix": "net_"}
        if "act" in spec:
            kw["activation"] = spec["act"]
        return getattr(rnn, spec["cell"])(H, **kw)
    if spec["kind"] == "bi":
        return rnn.BidirectionalCell(rnn.LSTMCell(H, input_size=I, prefix="netl_"),
                                     rnn.GRUCell(H, input_size=I, prefix="netr_"))
    seq = rnn.SequentialRNNCell(prefix="net_")
    with seq.name_scope():
        seq.add(rnn.GRUCell(H, input_size=I, prefix="a_"))
        seq.add(rnn.DropoutCell(0.0))
        seq.add(rnn.ResidualCell(rnn.LSTMCell(H, input_size=H, prefix="b_")))
    return seq


def run(mxm, spec, block, x, states, heads):
    """Forward (recorded) and backward; returns (outputs, new states)."""
    nd, ag = mxm.nd, mxm.autograd
    vl = spec.get("valid_length")
    if spec.get("infer"):
        out, new = block(x, states)
        return out, list(new)
    with ag.record():
        if spec["kind"] == "layer":
            out, new = block(x, states)
        else:
            kw = {} if vl is None else {"valid_length": nd.array(vl)}
            length = x.shape[spec["layout"].find("T")]
            out, new = block.unroll(length, x, states, layout=spec["layout"],
                                    merge_outputs=True, **kw)
    ag.backward([out] + list(new), heads)
    return out, list(new)


def main():
    rng = np.random.RandomState(0)
    cases = []
    for spec in SPECS:
        block = build(mx, spec)
        params = block.collect_params()
        values = {}
        for name in sorted(params.keys()):
            p = params[name]
            values[name] = (rng.uniform(-0.5, 0.5, size=p.shape)).astype("float32")
        block.initialize()
        for name, v in values.items():
            params[name].set_data(mx.nd.array(v))
        shape = (N, T, I) if spec["layout"] == "NTC" else (T, N, I)
        x = rng.randn(*shape).astype("float32")
        if spec["kind"] == "layer":
            infos = block.state_info(N)
        else:
            infos = block.state_info(N)
        states = [rng.randn(*info["shape"]).astype("float32") * 0.5 for info in infos]
        xs = mx.nd.array(x)
        xs.attach_grad()
        ss = [mx.nd.array(s) for s in states]
        for s in ss:
            s.attach_grad()
        # shapes of outputs come from a dry run
        if spec["kind"] == "layer":
            out0, new0 = block(xs, ss)
        else:
            kw = {} if spec.get("valid_length") is None else {
                "valid_length": mx.nd.array(spec["valid_length"])}
            out0, new0 = block.unroll(T, xs, ss, layout=spec["layout"], merge_outputs=True, **kw)
        heads_np = [rng.randn(*a.shape).astype("float32") for a in [out0] + list(new0)]
        out, new = run(mx, spec, block, xs, ss, [mx.nd.array(h) for h in heads_np])
        case = {"spec": spec, "x": x.tolist(), "states": [s.tolist() for s in states],
                "params": {k: v.tolist() for k, v in values.items()},
                "heads": [h.tolist() for h in heads_np],
                "out": out.asnumpy().tolist(), "new_states": [s.asnumpy().tolist() for s in new],
                "shapes": {k: list(params[k].shape) for k in values},
                "file_keys": sorted(block._collect_params_with_prefix().keys())}
        if not spec.get("infer"):
            case.update({"dx": xs.grad.asnumpy().tolist(),
                         "dstates": [s.grad.asnumpy().tolist() for s in ss],
                         "dparams": {k: params[k].grad().asnumpy().tolist() for k in values}})
        cases.append(case)
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    text = json.dumps({"T": T, "N": N, "I": I, "H": H, "cases": cases}, separators=(",", ":"))
    # float32 values round-trip exactly with 9 significant digits
    text = re.sub(r"-?\d+\.\d+(?:e-?\d+)?", lambda m: "%.9g" % float(m.group()), text)
    with open(OUT, "w") as f:
        f.write(text)
    print("wrote", OUT, os.path.getsize(OUT), "bytes")


if __name__ == "__main__":
    main()
