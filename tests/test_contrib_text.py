"""mx.contrib.text (token counting, vocabularies, token embeddings) as MXNet 1.9.1 has it;
the expected orders were checked against real MXNet when written."""
import collections

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import FileMissingError, MXNetError
from mxgrad.contrib import text


def test_count_tokens_from_str():
    c = text.utils.count_tokens_from_str(" Life is great ! \n life is good . \n", " ", "\n",
                                         True)
    assert c == collections.Counter({"life": 2, "is": 2, "great": 1, "!": 1, "good": 1,
                                     ".": 1})
    c2 = text.utils.count_tokens_from_str("*a*b*\n*a*", r"\*", "\n", counter_to_update=c)
    assert c2 is c and c["a"] == 2


def test_vocabulary_order_and_lookups():
    c = collections.Counter(["a", "b", "b", "c", "c", "c", "d"])
    v = text.vocab.Vocabulary(c, min_freq=2, reserved_tokens=["<pad>"])
    assert v.idx_to_token == ["<unk>", "<pad>", "c", "b"]          # as MXNet 1.9.1
    assert v.to_indices(["c", "zz"]) == [2, 0] and v.to_indices("b") == 3
    assert v.to_tokens([1, 2]) == ["<pad>", "c"] and v.to_tokens(3) == "b"
    assert len(v) == 4 and v.unknown_token == "<unk>" and v.reserved_tokens == ["<pad>"]
    ties = text.vocab.Vocabulary(collections.Counter("zzyyxxw"), most_freq_count=2)
    assert ties.idx_to_token == ["<unk>", "x", "y"]       # equal counts: sorted order
    with pytest.raises(MXNetError):
        v.to_tokens(9)
    with pytest.raises(MXNetError, match="reserved"):
        text.vocab.Vocabulary(c, reserved_tokens=["<unk>"])


def test_custom_embedding_file_formats(tmp_path):
    path = tmp_path / "vec.txt"
    path.write_text("3 2\nhello 1 2\nworld 3 4\n<unk> 9 9\n")    # fastText-style header
    emb = text.embedding.CustomEmbedding(str(path))
    assert emb.vec_len == 2 and emb.idx_to_token == ["<unk>", "hello", "world"]
    np.testing.assert_array_equal(emb.idx_to_vec.asnumpy(), [[9, 9], [1, 2], [3, 4]])
    np.testing.assert_array_equal(
        emb.get_vecs_by_tokens(["World", "x"], lower_case_backup=True).asnumpy(),
        [[3, 4], [9, 9]])
    assert emb.get_vecs_by_tokens("hello").shape == (2,)
    emb.update_token_vectors("hello", mx.nd.array([5, 6]))
    np.testing.assert_array_equal(emb.get_vecs_by_tokens("hello").asnumpy(), [5, 6])
    vocab = text.vocab.Vocabulary(collections.Counter(["world", "new", "new"]))
    small = text.embedding.CustomEmbedding(str(path), vocabulary=vocab)
    assert small.idx_to_token == ["<unk>", "new", "world"]
    np.testing.assert_array_equal(small.idx_to_vec.asnumpy(), [[9, 9], [9, 9], [3, 4]])
    both = text.embedding.CompositeEmbedding(vocab, [small, small])
    assert both.idx_to_vec.shape == (3, 4)
    bad = tmp_path / "bad.txt"
    bad.write_text("a 1 2\nb 3\n")
    with pytest.raises(MXNetError, match="line 2"):
        text.embedding.CustomEmbedding(str(bad))


def test_pretrained_embeddings_are_read_locally_never_downloaded(tmp_path, monkeypatch):
    assert "glove.6B.50d.txt" in text.embedding.get_pretrained_file_names("glove")
    assert len(text.embedding.get_pretrained_file_names()["fasttext"]) > 300
    with pytest.raises(FileMissingError, match="does not download"):
        text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt",
                              embedding_root=str(tmp_path))
    (tmp_path / "glove").mkdir()
    (tmp_path / "glove" / "glove.6B.50d.txt").write_text("the 0.5 1\nof 2 3\n")
    g = text.embedding.create("glove", pretrained_file_name="glove.6B.50d.txt",
                              embedding_root=str(tmp_path))
    np.testing.assert_array_equal(g.get_vecs_by_tokens(["of"]).asnumpy(), [[2, 3]])
    with pytest.raises(MXNetError, match="unknown pretrained_file_name"):
        text.embedding.GloVe("glove.nope.txt", embedding_root=str(tmp_path))
