"""Gluon pieces MXNet programs use (issue 26): SparseEmbedding (dense storage), the
CropResize/Rotate/RandomRotation/RandomApply transforms, vision.datasets.ImageFolderDataset,
DataLoader(auto_reload=...) and batch samplers without a length, the Estimator's ValueErrors,
contrib.text's MXNet exceptions and composite unknown rows. Expected values are MXNet 1.9.1's
own (from its unit tests) where they are numbers."""
import collections
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError
from mxgrad.gluon.data.vision import transforms


def test_sparse_embedding_gradient_rows():
    layer = mx.gluon.contrib.nn.SparseEmbedding(10, 100)
    layer.initialize()
    mx.gluon.Trainer(layer.collect_params(), "sgd")
    x = nd.array([3, 4, 2, 0, 1])
    with mx.autograd.record():
        y = layer(x)
        y.backward()
    g = layer.weight.grad().asnumpy()
    assert (g[:5] == 1).all() and (g[5:] == 0).all()
    assert repr(layer).endswith("(10 -> 100, float32)")


@pytest.mark.parametrize("dtype", ["uint8", "float32", "float64"])
def test_crop_resize_values_and_errors(dtype):
    data = nd.arange(60).reshape((5, 4, 3)).astype(dtype)
    out = transforms.CropResize(0, 0, 3, 2)(data).asnumpy()
    assert out.sum() == 180 and out[0:2, 1, 1].tolist() == [4, 16]
    batch = nd.arange(180).reshape((2, 6, 5, 3)).astype(dtype)
    out = transforms.CropResize(1, 2, 3, 4)(batch).asnumpy()
    assert out.sum() == 7524
    assert out[0:2, 0:4, 1, 1].flatten().tolist() == [37, 52, 67, 82, 127, 142, 157, 172]
    img = nd.random.uniform(0, 255, (30, 20, 3)).astype(dtype)
    got = transforms.CropResize(0, 0, 10, 5, (6, 6), 1)(img)
    want = transforms.Resize(size=6, interpolation=1)(img[0:5, 0:10])
    np.testing.assert_array_equal(got.asnumpy(), want.asnumpy())
    for bad in (transforms.CropResize(0, 0, 10, 5, (-6, 6), 1), transforms.CropResize(0, 0, -1, -1),
                transforms.CropResize(15, 20, 20, 50)):
        with pytest.raises(MXNetError):
            bad(img)


def test_rotate_as_mxnet():
    with pytest.raises(TypeError):
        transforms.Rotate(10.)(nd.ones((3, 30, 60), dtype="uint8"))
    assert transforms.Rotate(10.)(nd.ones((3, 3, 30, 60))).shape == (3, 3, 30, 60)
    img = nd.array([[[0., 0., 0.], [0., 0., 1.], [0., 0., 0.]]])
    for angle, want in ((90., [[0, 1, 0], [0, 0, 0], [0, 0, 0]]),
                        (180., [[0, 0, 0], [1, 0, 0], [0, 0, 0]]),
                        (270., [[0, 0, 0], [0, 0, 0], [0, 1, 0]]),
                        (360., [[0, 0, 0], [0, 0, 1], [0, 0, 0]])):
        np.testing.assert_allclose(transforms.Rotate(angle)(img).asnumpy()[0], want, atol=1e-5)


def test_random_rotation_and_random_apply():
    with pytest.raises(ValueError):
        transforms.RandomRotation([-10, 10.], rotate_with_proba=1.1)
    with pytest.raises(ValueError):
        transforms.RandomRotation([10, -10.])
    with pytest.raises(TypeError):
        transforms.RandomRotation([-10, 10.])(nd.ones((3, 30, 60), dtype="uint8"))
    data = nd.random.normal(shape=(3, 30, 60))
    same = transforms.RandomRotation([-100., 100.], rotate_with_proba=0.0)(data)
    np.testing.assert_array_equal(same.asnumpy(), data.asnumpy())
    mx.random.seed(5)
    t = transforms.Compose([transforms.RandomApply(
        transforms.Compose([transforms.Resize(30), transforms.RandomResizedCrop(24)]), 0.5)])
    img = nd.ones((10, 10, 3), dtype="uint8")
    hits = sum(t(img).shape[0] == 24 for _ in range(400))
    assert 150 < hits < 250


def test_image_folder_dataset_namespace():
    from mxgrad.gluon.data.vision.datasets import ImageFolderDataset
    assert ImageFolderDataset is mx.gluon.data.vision.ImageFolderDataset


def test_dataloader_auto_reload_and_batch_sampler_without_len():
    ds = mx.gluon.data.ArrayDataset(nd.arange(6))
    for reload in (True, False):
        loader = mx.gluon.data.DataLoader(ds, batch_size=4, auto_reload=reload)
        assert [b.asnumpy().tolist() for b in loader] == [[0, 1, 2, 3], [4, 5]]
        loader.refresh(), loader.clean()

    class Batches:
        def __iter__(self):
            return iter([[0, 1], [5]])

    loader = mx.gluon.data.DataLoader(ds, batch_sampler=Batches())
    assert [b.asnumpy().tolist() for b in loader] == [[0, 1], [5]]
    with pytest.raises(TypeError, match="no length"):
        len(loader)


def test_estimator_raises_mxnets_value_errors():
    from mxgrad.gluon.contrib.estimator import Estimator
    net = mx.gluon.nn.Dense(2)
    net.initialize()
    loss = mx.gluon.loss.L2Loss()
    with pytest.raises(ValueError):
        Estimator(net, loss="not a loss")
    with pytest.raises(ValueError):
        Estimator(net, loss=loss, trainer="sgd")
    with pytest.raises(ValueError):
        Estimator(net, loss=loss, context="cpu0",
                  trainer=mx.gluon.Trainer(net.collect_params(), "sgd"))
    est = Estimator(net, loss=loss, trainer=mx.gluon.Trainer(net.collect_params(), "sgd"))
    with pytest.raises(ValueError):
        est.fit(train_data=5, epochs=1)


def test_contrib_text_raises_mxnets_exceptions(tmp_path):
    from mxgrad.contrib import text
    counter = collections.Counter(["a", "b", "b"])
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(counter, min_freq=0)
    with pytest.raises(AssertionError):
        text.vocab.Vocabulary(counter, reserved_tokens=["b", "b"])
    with pytest.raises(ValueError):
        text.vocab.Vocabulary(counter).to_tokens(100)
    with pytest.raises(KeyError):
        text.embedding.get_pretrained_file_names("unknown$$")
    bad = tmp_path / "bad.txt"
    bad.write_text("a\t0.1\t0.2\nc\n")
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(str(bad), "\t")
    bad.write_text("a\t0.1\t0.2\nc\t0.5\n")
    with pytest.raises(AssertionError):
        text.embedding.CustomEmbedding(str(bad), "\t")


def test_composite_embedding_row0_is_each_embeddings_unknown_vector(tmp_path):
    """MXNet's test_composite_embedding_with_two_embeddings, the vocabulary whose unknown
    token is a word ('a') of the first embedding: row 0 still holds the unknown vectors."""
    from mxgrad.contrib import text
    f3, f4 = tmp_path / "f3.txt", tmp_path / "f4.txt"
    f3.write_text("a\t0.1\t0.2\nb\t0.6\t0.7\n<unk1>\t1.1\t1.2\n")
    f4.write_text("a\t0.01\t0.02\nc\t0.06\t0.07\n<unk2>\t0.11\t0.12\n")
    e3 = text.embedding.CustomEmbedding(str(f3), "\t", unknown_token="<unk1>")
    e4 = text.embedding.CustomEmbedding(str(f4), "\t", unknown_token="<unk2>")
    v5 = text.vocab.Vocabulary(collections.Counter(["b", "b", "c", "c", "c", "w"]),
                               unknown_token="a")
    ce = text.embedding.CompositeEmbedding(v5, [e3, e4])
    assert ce.idx_to_token == ["a", "c", "b", "w"]
    np.testing.assert_allclose(ce.idx_to_vec.asnumpy(),
                               [[1.1, 1.2, 0.11, 0.12], [1.1, 1.2, 0.06, 0.07],
                                [0.6, 0.7, 0.11, 0.12], [1.1, 1.2, 0.11, 0.12]], rtol=1e-6)


def test_resize_checks_its_size_when_called():
    bad = transforms.Resize((100, 100, 100), keep_ratio=True)      # built without error
    with pytest.raises(MXNetError):
        bad(nd.ones((4, 4, 3)))
    with pytest.raises(MXNetError):
        transforms.Resize(-150, keep_ratio=True)(nd.ones((4, 4, 3)))


def test_checkpoint_handler_writes_the_symbol_of_a_hybridized_net(tmp_path):
    from mxgrad.gluon.contrib.estimator import Estimator, event_handler
    net = mx.gluon.nn.HybridSequential()
    net.add(mx.gluon.nn.Dense(4, activation="relu"), mx.gluon.nn.Dense(2))
    net.initialize()
    net.hybridize()
    data = mx.gluon.data.DataLoader(mx.gluon.data.ArrayDataset(
        nd.random.uniform(shape=(8, 3)), nd.array([0, 1] * 4)), batch_size=4)
    est = Estimator(net, loss=mx.gluon.loss.SoftmaxCrossEntropyLoss(),
                    trainer=mx.gluon.Trainer(net.collect_params(), "sgd"))
    handler = event_handler.CheckpointHandler(model_dir=str(tmp_path), model_prefix="m",
                                              epoch_period=None, batch_period=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(data, event_handlers=[handler], batches=2)
    sym_file = tmp_path / "m-symbol.json"
    assert sym_file.exists()
    sym = mx.sym.load(str(sym_file))
    assert sym.list_arguments() == ["data"] + list(net.collect_params().keys())
    back = mx.gluon.SymbolBlock(sym, mx.sym.var("data"), params=net.collect_params())
    x = nd.ones((2, 3))
    np.testing.assert_allclose(back(x).asnumpy(), net(x).asnumpy(), rtol=1e-6)
    handlers = est._categorize_handlers([handler])
    assert len(handlers) == 6 and handler in handlers[0] and handler in handlers[3]


def test_interval_sampler():
    s = mx.gluon.contrib.data.IntervalSampler(10, 3)
    assert list(s) == [0, 3, 6, 9, 1, 4, 7, 2, 5, 8] and len(s) == 10
    s = mx.gluon.contrib.data.IntervalSampler(10, 3, rollover=False)
    assert list(s) == [0, 3, 6, 9] and len(s) == 4
    with pytest.raises(MXNetError):
        mx.gluon.contrib.data.IntervalSampler(10, 0)
