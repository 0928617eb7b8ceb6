"""Write tests/data/mxnet/rnn/lstm_bi2.params (+ lstm_bi2-io.npz): a 2-layer bidirectional
gluon.rnn.LSTM saved by MXNet 1.9.1's save_parameters, with an input and MXNet's output.

Needs real MXNet (``pip install mxnet==1.9.1 numpy==1.23.5`` in its own venv); not run in CI::

    /path/to/mxnet-venv/bin/python tools/make_rnn_params_fixture.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "mxnet", "rnn")


def main():
    mx.random.seed(0)
    net = mx.gluon.rnn.LSTM(5, num_layers=2, bidirectional=True, input_size=3)
    net.initialize(mx.init.Xavier())
    x = np.random.RandomState(1).randn(4, 2, 3).astype("float32")
    y = net(mx.nd.array(x))
    net.save_parameters(os.path.join(OUT, "lstm_bi2.params"))
    np.savez(os.path.join(OUT, "lstm_bi2-io.npz"), x=x, y=y.asnumpy())


if __name__ == "__main__":
    main()
