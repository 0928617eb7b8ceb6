"""Write tests/data/mxnet/contrib_rnn.npz: MXNet 1.9.1's gluon.contrib.rnn.LSTMPCell unrolled
over seeded inputs with seeded weights (outputs, final states, and the gradients of
``sum(outputs * head)`` with respect to the input and every weight). tests/test_contrib_rnn.py
builds the same cell (sizes below) and compares.

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
    np.savez_compressed(OUT, **out)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
