"""A bucketing LSTM language model as MXNet's example/rnn/bucketing/lstm_bucketing.py
builds it (mx.rnn cells with their default zero begin states, BucketSentenceIter,
BucketingModule.fit with SGD) ends two epochs with MXNet 1.9.1's parameters and
perplexity (fixture: tools/make_rnn_legacy_fixtures.py)."""
import os
import random

import numpy as np

import mxgrad as mx

import rnn_legacy_cases

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "rnn_legacy.npz")


def test_bucketing_lstm_language_model_trains_as_mxnet():
    with np.load(DATA) as f:
        want = {k[3:]: f[k] for k in f.files if k.startswith("lm/")}
    state = random.getstate(), np.random.get_state()
    try:
        got = rnn_legacy_cases.bucketing_lm(mx)
    finally:
        random.setstate(state[0])
        np.random.set_state(state[1])
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-4, atol=1e-5, err_msg=k)
