"""A hybridized block whose ``hybrid_forward`` unrolls recurrent cells traces on Symbols,
gives MXNet 1.9.1's numbers and exports a graph that runs at any batch size (fixtures by
tools/make_unroll_export_fixtures.py: the same blocks, prefixes and seeded data; MXNet's own
``-symbol.json`` is kept beside them: its begin states are ``_zeros`` of shape ``(0, H)``,
a batch axis left for shape inference, which mxgrad's graph runner does not infer yet)."""
import os

import numpy as np
import pytest

import mxgrad as mx

import unroll_blocks

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "rnn")


Stacked, BiMasked = unroll_blocks.blocks(mx)


CASES = {"stacked": (Stacked, ["data"]), "bimasked": (BiMasked, ["data0", "data1"])}


def _io(name):
    io = np.load(os.path.join(DATA, f"unroll-{name}-io.npz"))
    ins = [mx.nd.array(io[k]) for k in sorted(k for k in io.files if k.startswith("in"))]
    outs = [io[k] for k in sorted(k for k in io.files if k.startswith("out"))]
    return ins, outs


def _outs(res):
    return [o.asnumpy() for o in (res if isinstance(res, (list, tuple)) else [res])]


@pytest.mark.parametrize("name", sorted(CASES))
def test_hybridized_unroll_matches_mxnet_and_exports(name, tmp_path):
    cls, _ = CASES[name]
    ins, want = _io(name)
    net = cls(prefix=f"{name}_")
    net.collect_params().load(os.path.join(DATA, f"unroll-{name}-0000.params"))
    imperative = _outs(net(*ins))
    net.hybridize()
    hybrid = _outs(net(*ins))
    for got_i, got_h, w in zip(imperative, hybrid, want):
        np.testing.assert_allclose(got_i, w, rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(got_h, w, rtol=1e-5, atol=1e-6)
    prefix = str(tmp_path / name)
    net.export(prefix)
    names = [f"data{i}" for i in range(len(ins))] if len(ins) > 1 else ["data"]
    back = mx.gluon.SymbolBlock.imports(prefix + "-symbol.json", names,
                                        prefix + "-0000.params")
    for got, w in zip(_outs(back(*ins)), want):
        np.testing.assert_allclose(got, w, rtol=1e-5, atol=1e-6)


def test_exported_unroll_takes_another_batch_size(tmp_path):
    net = Stacked(prefix="stacked_")
    net.collect_params().load(os.path.join(DATA, "unroll-stacked-0000.params"))
    net.hybridize()
    x = mx.nd.array(np.random.RandomState(1).randn(2, 6, 3))
    net(x)
    net.export(str(tmp_path / "s"))
    back = mx.gluon.SymbolBlock.imports(str(tmp_path / "s-symbol.json"), ["data"],
                                        str(tmp_path / "s-0000.params"))
    x3 = mx.nd.array(np.random.RandomState(2).randn(3, 6, 3))
    np.testing.assert_allclose(back(x3).asnumpy(), Stacked_imperative(x3), rtol=1e-5,
                               atol=1e-6)


def Stacked_imperative(x):
    net = Stacked(prefix="stacked_")
    net.collect_params().load(os.path.join(DATA, "unroll-stacked-0000.params"))
    return net(x).asnumpy()


@pytest.mark.parametrize("cell, n_out", [(mx.gluon.rnn.RNNCell(4, prefix="rnn_"), 3),
                                         (mx.gluon.rnn.LSTMCell(4, prefix="rnn_"), 3),
                                         (mx.gluon.rnn.GRUCell(4, prefix="rnn_"), 3)])
def test_unroll_on_free_symbols_names_outputs_as_mxnet(cell, n_out):
    """MXNet's test_gluon_rnn check: unrolling on variables of unknown shape works and each
    step's output is named <prefix>t<i>_out."""
    inputs = [mx.sym.var(f"rnn_t{i}_data") for i in range(n_out)]
    outputs, _ = cell.unroll(n_out, inputs)
    assert mx.sym.Group(outputs).list_outputs() == [f"rnn_t{i}_out_output"
                                                    for i in range(n_out)]


def test_bidirectional_unroll_names_outputs_as_mxnet():
    cell = mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.LSTMCell(4, prefix="rnn_l_"),
                                          mx.gluon.rnn.LSTMCell(4, prefix="rnn_r_"),
                                          output_prefix="rnn_bi_")
    outputs, _ = cell.unroll(3, [mx.sym.var(f"rnn_t{i}_data") for i in range(3)])
    assert mx.sym.Group(outputs).list_outputs() == ["rnn_bi_t0_output", "rnn_bi_t1_output",
                                                    "rnn_bi_t2_output"]
