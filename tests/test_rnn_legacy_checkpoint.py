"""RNN checkpoints (``mx.rnn.save_rnn_checkpoint``/``load_rnn_checkpoint``/
``do_rnn_checkpoint``) move both ways with MXNet 1.9.1: files saved by MXNet's
``save_rnn_checkpoint`` (tests/data/mxnet/rnn_legacy_ckpt, by
tools/make_rnn_legacy_fixtures.py) load packed as MXNet packed them, and mxgrad writes the
same unpacked arrays under the same keys. The files are ``mx.model``'s checkpoints."""
import os

import numpy as np
import pytest

import mxgrad as mx

import rnn_legacy_cases

HERE = os.path.dirname(__file__)
FOLDER = os.path.join(HERE, "data", "mxnet", "rnn_legacy_ckpt")
DATA = os.path.join(HERE, "data", "mxnet", "rnn_legacy.npz")


@pytest.fixture(scope="module")
def packed():
    with np.load(DATA) as f:
        return {k: f[k] for k in f.files if k.startswith("ckpt/")}


def _model(name, packed):
    """The cells, the model's Symbol and the packed parameters MXNet saved."""
    cells = rnn_legacy_cases.checkpoint_cells(mx)[name]
    args = {k.split("/", 2)[2]: mx.nd.array(v) for k, v in packed.items()
            if k.startswith(f"ckpt/{name}/")}
    return cells, rnn_legacy_cases.checkpoint_symbol(mx, cells), args


@pytest.mark.parametrize("name", ["stack", "fused"])
def test_load_mxnets_rnn_checkpoint(name, packed):
    cells, mine, _ = _model(name, packed)
    sym, arg, aux = mx.rnn.load_rnn_checkpoint(cells, os.path.join(FOLDER, name), 3)
    assert sym.list_arguments() == mine.list_arguments()
    want = {k.split("/", 2)[2]: v for k, v in packed.items() if k.startswith(f"ckpt/{name}/")}
    assert sorted(arg) == sorted(want) and aux == {}
    for k, v in want.items():
        np.testing.assert_array_equal(arg[k].asnumpy(), v, err_msg=k)


@pytest.mark.parametrize("name", ["stack", "fused"])
def test_saved_files_equal_mxnets(name, tmp_path, packed):
    cells, sym, args = _model(name, packed)
    prefix = str(tmp_path / name)
    mx.rnn.save_rnn_checkpoint(cells, prefix, 3, sym, args, {})
    got = mx.nd.load(prefix + "-0003.params")
    want = mx.nd.load(os.path.join(FOLDER, name) + "-0003.params")
    assert sorted(got) == sorted(want)
    if name == "fused":
        assert "arg:ckf_l1_h2h_o_bias" in got and "arg:ckf_parameters" not in got
    for k in want:
        np.testing.assert_array_equal(got[k].asnumpy(), want[k].asnumpy(), err_msg=k)
    assert sorted(args) == sorted(mx.rnn.load_rnn_checkpoint(cells, prefix, 3)[1])


def test_do_rnn_checkpoint_saves_every_period(tmp_path, packed):
    cells, sym, args = _model("stack", packed)
    prefix = str(tmp_path / "lm")
    callback = mx.rnn.do_rnn_checkpoint(cells, prefix, period=2)
    for epoch in range(4):
        callback(epoch, sym, args, {})
    assert sorted(os.listdir(tmp_path)) == ["lm-0002.params", "lm-0004.params",
                                            "lm-symbol.json"]
    saved = mx.nd.load(prefix + "-0004.params")
    assert "arg:ck_l0_i2h_f_weight" in saved and "arg:ck_l0_i2h_weight" not in saved
