"""``mx.rnn.encode_sentences`` and ``mx.rnn.BucketSentenceIter`` against MXNet 1.9.1's
batches on a small corpus (fixture: tools/make_rnn_legacy_fixtures.py). The iterator
shuffles with Python's ``random`` and NumPy's global generator as MXNet does, so with the
same seeds the batches are MXNet's, in MXNet's order."""
import os
import random

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import StateError

import rnn_legacy_cases

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "rnn_legacy.npz")


@pytest.fixture(scope="module")
def fixture():
    with np.load(DATA) as f:
        return {k: f[k] for k in f.files if k.startswith("bucket/")}


@pytest.mark.parametrize("layout", ["NT", "TN"])
@pytest.mark.parametrize("given", [False, True])
def test_bucket_sentence_iter_gives_mxnets_batches(layout, given, fixture):
    key = "bucket/%s/%s" % (layout, "given" if given else "auto")
    corpus = rnn_legacy_cases.corpus()
    state = random.getstate(), np.random.get_state()
    try:
        random.seed(3)
        np.random.seed(3)
        it = mx.rnn.BucketSentenceIter(corpus, 3, buckets=[3, 5, 8] if given else None,
                                       invalid_label=-1, layout=layout)
        assert it.buckets == fixture[key + "/buckets"].tolist()
        assert [it.provide_data[0].shape, it.provide_label[0].shape] == \
            [tuple(s) for s in fixture[key + "/provide"].tolist()]
        assert it.provide_data[0].name == "data" and it.provide_data[0].layout == layout
        assert it.provide_label[0].name == "softmax_label"
        for epoch in range(2):
            if epoch:
                it.reset()
            n = 0
            for b, batch in enumerate(it):
                pre = "%s/%d/%d" % (key, epoch, b)
                np.testing.assert_array_equal(batch.data[0].asnumpy(), fixture[pre + "/data"])
                np.testing.assert_array_equal(batch.label[0].asnumpy(),
                                              fixture[pre + "/label"])
                assert batch.bucket_key == int(fixture[pre + "/key"])
                assert batch.pad == 0
                assert batch.provide_data[0].shape == batch.data[0].shape
                assert batch.data[0].dtype == np.float32
                n += 1
            assert "%s/%d/%d/data" % (key, epoch, n) not in fixture
            assert "%s/%d/%d/data" % (key, epoch, n - 1) in fixture
    finally:
        random.setstate(state[0])
        np.random.set_state(state[1])


def test_bucket_assignment_padding_and_label_shift():
    sents = [[1, 2], [3, 4, 5], [6], [7, 8, 9, 10], [11, 12, 13, 14, 15, 16]]
    it = mx.rnn.BucketSentenceIter(sents, 1, buckets=[2, 4], invalid_label=0,
                                   dtype="int32")
    rows = {}
    for batch in it:
        d, l = batch.data[0].asnumpy()[0], batch.label[0].asnumpy()[0]
        assert batch.data[0].dtype == np.int32 and len(d) == batch.bucket_key
        np.testing.assert_array_equal(l[:-1], d[1:])        # the next token
        assert l[-1] == 0
        rows[tuple(d)] = batch.bucket_key
    # smallest bucket that holds each sentence, padded with invalid_label; too long: dropped
    assert rows == {(1, 2): 2, (6, 0): 2, (3, 4, 5, 0): 4, (7, 8, 9, 10): 4}
    assert it.default_bucket_key == 4 and it.provide_data[0].shape == (1, 4)


def test_incomplete_batches_are_dropped_and_reset_restarts():
    sents = [[1, 2, 3]] * 5 + [[4, 5]] * 2
    it = mx.rnn.BucketSentenceIter(sents, 2, buckets=[2, 3])
    keys = sorted(b.bucket_key for b in it)
    assert keys == [2, 3, 3]
    with pytest.raises(StopIteration):
        it.next()
    it.reset()
    assert sorted(b.bucket_key for b in it) == keys


def test_default_buckets_are_lengths_with_a_full_batch():
    sents = [[1] * 3] * 4 + [[2] * 5] * 2 + [[3] * 2]
    it = mx.rnn.BucketSentenceIter(sents, 3)
    # only length 3 has 3 sentences: the length-2 one is padded into it, length 5 dropped
    assert it.buckets == [3]
    assert [b.data[0].shape for b in it] == [(3, 3)]


def test_errors():
    with pytest.raises(StateError, match="layout"):
        mx.rnn.BucketSentenceIter([[1, 2]], 1, layout="NC")
    with pytest.raises(StateError, match="batch_size"):
        mx.rnn.BucketSentenceIter([[1, 2]], 0)
    with pytest.raises(StateError, match="no sentence fits"):
        mx.rnn.BucketSentenceIter([[1, 2, 3]], 1, buckets=[2])


def test_encode_sentences_new_vocab():
    codes, vocab = mx.rnn.encode_sentences([["a", "b"], ["c", "a"]], invalid_label=1)
    assert vocab == {"\n": 1, "a": 0, "b": 2, "c": 3}        # codes skip invalid_label
    assert codes == [[0, 2], [3, 0]]
    codes, vocab = mx.rnn.encode_sentences([["x"]], start_label=5)
    assert codes == [[5]] and vocab == {"\n": -1, "x": 5}


def test_encode_sentences_given_vocab_and_unknown_token():
    # MXNet's test_rnn.test_encode_sentences
    codes, vocab = mx.rnn.encode_sentences([["a", "b", "c"], ["b", "c", "d"]],
                                           vocab={"a": 1, "b": 2, "c": 3},
                                           invalid_label=-1, invalid_key="\n",
                                           start_label=0, unknown_token="UNK")
    assert vocab == {"a": 1, "b": 2, "c": 3, "UNK": 0}
    assert codes == [[1, 2, 3], [2, 3, 0]]
    # one code for every unknown token, not colliding with the given vocabulary
    codes, vocab = mx.rnn.encode_sentences([["e", "a", "f"]], vocab={"a": 0},
                                           unknown_token="UNK")
    assert codes == [[1, 0, 1]] and vocab == {"a": 0, "UNK": 1}
    with pytest.raises(StateError, match="'z'"):
        mx.rnn.encode_sentences([["z"]], vocab={"a": 0})
