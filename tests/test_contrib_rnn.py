"""gluon.contrib.rnn: LSTMPCell equals MXNet 1.9.1 (values and gradients; fixture by
tools/make_contrib_rnn_fixtures.py), VariationalDropoutCell keeps one mask per sequence."""
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd
from mxgrad.base import MXNetError

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "contrib_rnn.npz"))
NAMES = ("i2h_weight", "h2h_weight", "h2r_weight", "i2h_bias", "h2h_bias")


def test_lstmp_matches_mxnet():
    cell = mx.gluon.contrib.rnn.LSTMPCell(5, 3, input_size=4, prefix="lstmp_")
    cell.initialize()
    for n in NAMES:
        getattr(cell, n).set_data(nd.array(FIX[n]))
    x = nd.array(FIX["x"])
    x.attach_grad()
    with autograd.record():
        outputs, states = cell.unroll(3, x, layout="NTC", merge_outputs=True)
        loss = (outputs * nd.array(FIX["head"])).sum()
    loss.backward()
    tol = dict(rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(outputs.asnumpy(), FIX["outputs"], **tol)
    np.testing.assert_allclose(states[0].asnumpy(), FIX["r"], **tol)
    np.testing.assert_allclose(states[1].asnumpy(), FIX["c"], **tol)
    np.testing.assert_allclose(x.grad.asnumpy(), FIX["grad_x"], **tol)
    for n in NAMES:
        np.testing.assert_allclose(getattr(cell, n).grad().asnumpy(), FIX["grad_" + n], **tol)


def test_lstmp_deferred_shapes_and_gradcheck():
    cell = mx.gluon.contrib.rnn.LSTMPCell(4, 2)
    cell.initialize()
    out, (r, c) = cell(nd.ones((3, 6)), cell.begin_state(batch_size=3))
    assert cell.i2h_weight.shape == (16, 6) and cell.h2r_weight.shape == (2, 4)
    assert out.shape == r.shape == (3, 2) and c.shape == (3, 4)
    with pytest.raises(MXNetError, match="projection_size"):
        mx.gluon.contrib.rnn.LSTMPCell(4, 0)
    cell.cast("float64")

    def f(x):
        o, _ = cell.unroll(2, x, merge_outputs=True)
        return o
    from mxgrad.test_utils import check_numeric_gradient
    x = nd.array(np.random.default_rng(0).normal(size=(2, 2, 6)), dtype="float64")
    assert check_numeric_gradient(f, [x])


@pytest.mark.parametrize("drop_states", [0.0, 0.5])
def test_variational_dropout_one_mask_per_sequence(drop_states):
    base = mx.gluon.rnn.RNNCell(6, input_size=3)
    cell = mx.gluon.contrib.rnn.VariationalDropoutCell(base, drop_outputs=0.5,
                                                       drop_states=drop_states)
    cell.initialize()
    x = nd.array(np.random.default_rng(1).normal(size=(4, 5, 3)))
    mx.random.seed(3)
    with autograd.train_mode():
        out, _ = cell.unroll(5, x, merge_outputs=True)
    out = out.asnumpy()
    zero = out == 0
    assert zero.any() and not zero.all()
    assert (zero == zero[:, :1]).all()            # the same units dropped at every step
    kept = out[~zero]
    assert np.all(np.abs(kept) > 0)
    with autograd.predict_mode():                 # outside training: the base cell
        plain, _ = cell.unroll(5, x, merge_outputs=True)
    if drop_states == 0.0:
        np.testing.assert_allclose(out[~zero], 2 * plain.asnumpy()[~zero], rtol=1e-5)
    with pytest.raises(MXNetError, match="Bidirectional"):
        mx.gluon.contrib.rnn.VariationalDropoutCell(
            mx.gluon.rnn.BidirectionalCell(mx.gluon.rnn.RNNCell(2), mx.gluon.rnn.RNNCell(2)),
            drop_states=0.5)


CONV_CASES = [
    ("conv2d_lstm", "Conv2DLSTMCell", dict(input_shape=(2, 5, 4), hidden_channels=3,
                                           i2h_kernel=3, h2h_kernel=3, i2h_pad=1)),
    ("conv1d_gru", "Conv1DGRUCell", dict(input_shape=(3, 6), hidden_channels=2, i2h_kernel=2,
                                         h2h_kernel=3, i2h_dilate=2, h2h_dilate=2)),
    ("conv1d_rnn_relu", "Conv1DRNNCell", dict(input_shape=(3, 6), hidden_channels=2,
                                              i2h_kernel=3, h2h_kernel=1, activation="relu")),
    ("conv3d_rnn", "Conv3DRNNCell", dict(input_shape=(1, 3, 4, 3), hidden_channels=2,
                                         i2h_kernel=(1, 2, 2), h2h_kernel=(3, 1, 3))),
]


@pytest.mark.parametrize("case,cls,kw", CONV_CASES, ids=[c[0] for c in CONV_CASES])
def test_conv_cells_match_mxnet(case, cls, kw):
    cell = getattr(mx.gluon.contrib.rnn, cls)(prefix=case + "_", **kw)
    cell.initialize()
    names = ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias")
    for n in names:
        getattr(cell, n).set_data(nd.array(FIX[f"{case}_{n}"]))
    x = nd.array(FIX[f"{case}_x"])
    x.attach_grad()
    with autograd.record():
        outputs, states = cell.unroll(x.shape[1], x, layout="NTC", merge_outputs=True)
        loss = (outputs * nd.array(FIX[f"{case}_head"])).sum()
    loss.backward()
    tol = dict(rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(outputs.asnumpy(), FIX[f"{case}_outputs"], **tol)
    for i, st in enumerate(states):
        np.testing.assert_allclose(st.asnumpy(), FIX[f"{case}_state{i}"], **tol)
    np.testing.assert_allclose(x.grad.asnumpy(), FIX[f"{case}_grad_x"], **tol)
    for n in names:
        np.testing.assert_allclose(getattr(cell, n).grad().asnumpy(), FIX[f"{case}_grad_{n}"],
                                   **tol)


def test_conv_cell_arguments():
    rnn = mx.gluon.contrib.rnn
    with pytest.raises(MXNetError, match="odd"):
        rnn.Conv2DRNNCell((1, 4, 4), 2, 3, 2)
    with pytest.raises(MXNetError, match="length 2"):
        rnn.Conv2DGRUCell((1, 4, 4), 2, (3, 3, 3), 3)
    with pytest.raises(MXNetError, match="conv_layout"):
        rnn.Conv1DLSTMCell((1, 4), 2, 3, 3, conv_layout="NCHW")
    deferred = rnn.Conv1DLSTMCell((0, 7), 10, (3,), (3,))     # channels from the input
    deferred.initialize()
    out, _ = deferred.unroll(3, nd.ones((8, 3, 5, 7)), merge_outputs=True)
    assert deferred.i2h_weight.shape == (40, 5, 3) and out.shape == (8, 3, 10, 5)
    cell = rnn.Conv2DGRUCell((2, 4, 5), 3, 3, 3)
    assert cell.state_info(7)[0]["shape"] == (7, 3, 2, 3)
    assert repr(cell) == "Conv2DGRUCell(2 -> 9, tanh, NCHW)"


@pytest.mark.parametrize("layout", ["TNC", "NTC"])
def test_dynamic_unroll_equals_unroll(layout):
    cell = mx.gluon.rnn.LSTMCell(4, input_size=3)
    cell.initialize()
    rng = np.random.default_rng(5)
    shape = (6, 2, 3) if layout == "TNC" else (2, 6, 3)
    x = nd.array(rng.normal(size=shape))
    vl = nd.array([3, 6])
    begin = cell.begin_state(batch_size=2)
    ref, ref_states = cell.unroll(6, x, begin, layout=layout, merge_outputs=True,
                                  valid_length=vl)
    out, states = mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll(cell, x, begin, layout=layout,
                                                                valid_length=vl)
    np.testing.assert_allclose(out.asnumpy(), ref.asnumpy(), rtol=1e-5, atol=1e-6)
    for a, b in zip(states, ref_states):
        np.testing.assert_allclose(a.asnumpy(), b.asnumpy(), rtol=1e-5, atol=1e-6)
    plain, _ = mx.gluon.contrib.rnn.rnn_cell.dynamic_unroll(cell, x, begin, layout=layout)
    full, _ = cell.unroll(6, x, begin, layout=layout, merge_outputs=True)
    np.testing.assert_allclose(plain.asnumpy(), full.asnumpy(), rtol=1e-5, atol=1e-6)
