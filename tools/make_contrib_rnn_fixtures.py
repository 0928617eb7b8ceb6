"""Write tests/data/mxnet/contrib_rnn.npz: MXNet 1.9.1's gluon.contrib.rnn.LSTMPCell and
convolutional cells (CONV_CASES) unrolled over seeded inputs with seeded weights (outputs,
final states, and the gradients of ``sum(outputs * head)`` with respect to the input and
every weight). tests/test_contrib_rnn.py builds the same cells (sizes below) and compares.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_contrib_rnn_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "contrib_rnn.npz")
HIDDEN, PROJ, INPUT, BATCH, STEPS = 5, 3, 4, 2, 3
NAMES = ("i2h_weight", "h2h_weight", "h2r_weight", "i2h_bias", "h2h_bias")


# (case, class, keyword arguments, input shape (N, T, ...)); same in the test
CONV_CASES = [
    ("conv2d_lstm", "Conv2DLSTMCell", dict(input_shape=(2, 5, 4), hidden_channels=3,
                                           i2h_kernel=3, h2h_kernel=3, i2h_pad=1),
     (2, 3, 2, 5, 4)),
    ("conv1d_gru", "Conv1DGRUCell", dict(input_shape=(3, 6), hidden_channels=2, i2h_kernel=2,
                                         h2h_kernel=3, i2h_dilate=2, h2h_dilate=2),
     (2, 3, 3, 6)),
    ("conv1d_rnn_relu", "Conv1DRNNCell", dict(input_shape=(3, 6), hidden_channels=2,
                                              i2h_kernel=3, h2h_kernel=1, activation="relu"),
     (2, 3, 3, 6)),
    ("conv3d_rnn", "Conv3DRNNCell", dict(input_shape=(1, 3, 4, 3), hidden_channels=2,
                                         i2h_kernel=(1, 2, 2), h2h_kernel=(3, 1, 3)),
     (1, 2, 1, 3, 4, 3)),
]
CONV_NAMES = ("i2h_weight", "h2h_weight", "i2h_bias", "h2h_bias")


def conv_case(rs, out, case, cls, kw, xshape):
    cell = cls(prefix=case + "_", **kw)
    cell.initialize()
    for n in CONV_NAMES:
        p = getattr(cell, n)
        v = (rs.rand(*p.shape) - 0.5).astype("float32")
        p.set_data(mx.nd.array(v))
        out[f"{case}_{n}"] = v
    x = rs.randn(*xshape).astype("float32")
    xs = mx.nd.array(x)
    xs.attach_grad()
    with mx.autograd.record():
        outputs, states = cell.unroll(xshape[1], xs, layout="NTC", merge_outputs=True)
        head = rs.randn(*outputs.shape).astype("float32")
        loss = (outputs * mx.nd.array(head)).sum()
    loss.backward()
    out.update({f"{case}_x": x, f"{case}_head": head, f"{case}_outputs": outputs.asnumpy(),
                f"{case}_grad_x": xs.grad.asnumpy()})
    for i, st in enumerate(states):
        out[f"{case}_state{i}"] = st.asnumpy()
    for n in CONV_NAMES:
        out[f"{case}_grad_{n}"] = getattr(cell, n).grad().asnumpy()


def main():
    rs = np.random.RandomState(0)
    cell = mx.gluon.contrib.rnn.LSTMPCell(HIDDEN, PROJ, input_size=INPUT, prefix="lstmp_")
    cell.initialize()
    out = {}
    for n in NAMES:
        p = getattr(cell, n)
        v = (rs.rand(*p.shape) - 0.5).astype("float32")
        p.set_data(mx.nd.array(v))
        out[n] = v
    x = rs.randn(BATCH, STEPS, INPUT).astype("float32")
    head = rs.randn(BATCH, STEPS, PROJ).astype("float32")
    xs = mx.nd.array(x)
    xs.attach_grad()
    with mx.autograd.record():
        outputs, states = cell.unroll(STEPS, xs, layout="NTC", merge_outputs=True)
        loss = (outputs * mx.nd.array(head)).sum()
    loss.backward()
    out.update(x=x, head=head, outputs=outputs.asnumpy(), r=states[0].asnumpy(),
               c=states[1].asnumpy(), grad_x=xs.grad.asnumpy())
    for n in NAMES:
        out["grad_" + n] = getattr(cell, n).grad().asnumpy()
    for case, cls, kw, xshape in CONV_CASES:
        conv_case(rs, out, case, getattr(mx.gluon.contrib.rnn, cls), kw, xshape)
    np.savez_compressed(OUT, **out)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
