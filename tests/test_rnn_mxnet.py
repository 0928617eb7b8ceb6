"""gluon.rnn layers and cells against MXNet 1.9.1: outputs, final states, gradients of the
inputs, begin states and every parameter, parameter names/shapes and ``.params`` file keys.

Fixture: tests/data/mxnet/rnn/rnn.json, written by tools/make_rnn_fixtures.py with real MXNet.
"""
import json
import os

import numpy as np
import pytest

import mxgrad as mx

with open(os.path.join(os.path.dirname(__file__), "data", "mxnet", "rnn", "rnn.json")) as _f:
    FIX = json.load(_f)
T, N, I, H = FIX["T"], FIX["N"], FIX["I"], FIX["H"]
CASES = FIX["cases"]


def build(spec):
    """mxgrad's twin of tools/make_rnn_fixtures.py's ``build``."""
    rnn = mx.gluon.rnn
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


def _close(a, b, what):
    np.testing.assert_allclose(np.asarray(a, np.float32), np.asarray(b, np.float32), rtol=1e-5,
                               atol=1e-5, err_msg=what)


def _ids(c):
    s = c["spec"]
    return "-".join(str(v) for v in s.values()).replace(" ", "")


@pytest.mark.parametrize("case", CASES, ids=[_ids(c) for c in CASES])
def test_matches_mxnet(case):
    spec = case["spec"]
    block = build(spec)
    params = block.collect_params()
    assert sorted(params.keys()) == sorted(case["params"])
    for name, shape in case["shapes"].items():
        assert params[name].shape == tuple(shape), name
    assert sorted(block._collect_params_with_prefix().keys()) == case["file_keys"]
    block.initialize()
    for name, v in case["params"].items():
        params[name].set_data(mx.nd.array(v))
    x = mx.nd.array(case["x"])
    x.attach_grad()
    states = [mx.nd.array(s) for s in case["states"]]
    for s in states:
        s.attach_grad()
    heads = [mx.nd.array(h) for h in case["heads"]]
    vl = spec.get("valid_length")
    if spec.get("infer"):      # MXNet runs these forward only
        out, new = block(x, states)
        _close(out.asnumpy(), case["out"], "output")
        for a, b in zip(new, case["new_states"]):
            _close(a.asnumpy(), b, "final state")
        return
    with mx.autograd.record():
        if spec["kind"] == "layer":
            out, new = block(x, states)
        else:
            kw = {} if vl is None else {"valid_length": mx.nd.array(vl)}
            out, new = block.unroll(T, x, states, layout=spec["layout"], merge_outputs=True,
                                    **kw)
    mx.autograd.backward([out] + list(new), heads)
    _close(out.asnumpy(), case["out"], "output")
    assert len(new) == len(case["new_states"])
    for a, b in zip(new, case["new_states"]):
        _close(a.asnumpy(), b, "final state")
    _close(x.grad.asnumpy(), case["dx"], "input gradient")
    for s, b in zip(states, case["dstates"]):
        _close(s.grad.asnumpy(), b, "begin-state gradient")
    for name, g in case["dparams"].items():
        _close(params[name].grad().asnumpy(), g, f"gradient of {name}")


@pytest.mark.parametrize("case", [c for c in CASES if c["spec"]["kind"] == "layer"],
                         ids=[_ids(c) for c in CASES if c["spec"]["kind"] == "layer"])
def test_mxnet_layer_params_file_loads(case, tmp_path):
    """Parameters saved under MXNet's file keys load back into the fused layer."""
    spec = case["spec"]
    src = build(spec)
    src.initialize()
    for name, v in case["params"].items():
        src.collect_params()[name].set_data(mx.nd.array(v))
    f = str(tmp_path / "layer.params")
    src.save_parameters(f)
    dst = build(spec)
    dst.load_parameters(f)
    x = mx.nd.array(case["x"])
    _close(dst(x, [mx.nd.array(s) for s in case["states"]])[0].asnumpy(), case["out"],
           "output after save/load")


def test_lstm_params_file_written_by_mxnet_loads():
    """A fused 2-layer bidirectional LSTM saved by MXNet 1.9.1 (``_unfused...`` keys)."""
    import os
    import numpy as np
    import mxgrad as mx
    here = os.path.join(os.path.dirname(__file__), "data", "mxnet", "rnn")
    net = mx.gluon.rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3)
    net.load_parameters(os.path.join(here, "lstm_bi2.params"))
    io = np.load(os.path.join(here, "lstm_bi2-io.npz"))
    np.testing.assert_allclose(net(mx.nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-5,
                               atol=1e-6)
