"""mx.image detection augmenters and ImageDetIter against MXNet 1.9.1
(tests/data/mxnet/image/det.rec and expected.npz, by tools/make_image_fixtures.py)."""
import json
import os
import random

import numpy as np
import pytest

import mxgrad as mx

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "image")
EXP = np.load(os.path.join(DATA, "expected.npz"))
REC, IDX = os.path.join(DATA, "det.rec"), os.path.join(DATA, "det.idx")

DET_CASES = {
    "det_plain": dict(batch_size=3),
    "det_crop_mirror": dict(batch_size=2, rand_crop=1, rand_mirror=True,
                            min_object_covered=0.5, max_attempts=200, inter_method=0),
    "det_pad_shuffle": dict(batch_size=3, shuffle=True, rand_pad=1, rand_crop=0.5,
                            inter_method=1, path_imgidx=IDX),
    "det_norm_rollover": dict(batch_size=3, mean=True, std=True, rand_mirror=True,
                              last_batch_handle="roll_over", path_imgidx=IDX),
}


@pytest.mark.parametrize("name", sorted(DET_CASES))
def test_imagedetiter_matches_mxnet(name):
    random.seed(4)
    np.random.seed(4)
    it = mx.image.ImageDetIter(data_shape=(3, 8, 8), path_imgrec=REC, **DET_CASES[name])
    assert list(it.provide_label[0][1]) == EXP[f"{name}_label_shape"].tolist()
    batches = []
    for epoch in range(3):
        for b in it:
            batches.append((epoch, b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
        it.reset()
    assert [[b[0], b[3]] for b in batches] == EXP[f"{name}_meta"].tolist()
    np.testing.assert_allclose(np.stack([b[2] for b in batches]), EXP[f"{name}_label"],
                               rtol=1e-6, atol=1e-6)
    # identical here (every resize in these cases shrinks; enlarging may differ by one level,
    # see tests/test_image.py)
    np.testing.assert_allclose(np.stack([b[1] for b in batches]), EXP[f"{name}_data"],
                               atol=1e-4)


def test_create_det_augmenter_matches_mxnet():
    augs = mx.image.CreateDetAugmenter((3, 8, 8), resize=10, rand_crop=0.5, rand_pad=0.5,
                                       rand_mirror=True, brightness=0.1, hue=0.1,
                                       pca_noise=0.1, rand_gray=0.1, mean=True, std=True,
                                       min_object_covered=[0.1, 0.5])
    assert [json.dumps(a.dumps()) for a in augs] == EXP["det_augs_dumps"].tolist()


def test_det_augmenters_directly():
    img = mx.nd.array(np.arange(12 * 16 * 3).reshape(12, 16, 3) % 255, dtype="uint8")
    label = np.array([[0, 0.25, 0.25, 0.75, 0.75]])
    random.seed(0)
    out, new = mx.image.DetRandomPadAug(area_range=(2.0, 3.0), pad_val=(1, 2, 3))(img, label)
    h, w = out.shape[:2]
    assert h * w >= 2 * 12 * 16 * 0.9 and out.asnumpy()[0, 0].tolist() in ([1, 2, 3],
                                                                           img.asnumpy()[0, 0]
                                                                           .tolist())
    # the box still frames the same pixels
    x0, y0 = int(round(new[0, 1] * w)), int(round(new[0, 2] * h))
    np.testing.assert_array_equal(out.asnumpy()[y0:y0 + 6, x0:x0 + 8], img.asnumpy()[3:9, 4:12])
    crop = mx.image.DetRandomCropAug(min_object_covered=0.9, area_range=(0.3, 0.9))
    random.seed(1)
    out, new = crop(img, label)
    assert out.shape[0] <= 12 and new.shape == (1, 5) and (new[:, 1:] >= 0).all()
    sel = mx.image.DetRandomSelectAug([], skip_prob=0)
    assert sel(img, label)[1] is label
    with pytest.raises(TypeError):
        mx.image.DetBorrowAug(lambda x: x)
    with pytest.warns(UserWarning, match="area_range"):
        assert not mx.image.DetRandomCropAug(area_range=(0.5, 0.1)).enabled


def test_imagedetiter_reshape_and_sync():
    a = mx.image.ImageDetIter(2, (3, 8, 8), path_imgrec=REC)
    b = mx.image.ImageDetIter(2, (3, 8, 8), path_imgrec=REC)
    assert a.label_shape == (3, 5)
    b.reshape(label_shape=(5, 5))
    a.sync_label_shape(b)
    assert a.provide_label[0].shape == (2, 5, 5)
    batch = a.next()
    assert batch.label[0].shape == (2, 5, 5)
    assert (batch.label[0].asnumpy()[0, 1:] == -1).all()
    with pytest.raises(ValueError, match="reduce"):
        a.reshape(label_shape=(2, 5))
    a.reshape(data_shape=(3, 6, 4))  # as in MXNet, the augmenters keep their own sizes
    assert a.provide_data[0].shape == (2, 3, 6, 4) and a.data_shape == (3, 6, 4)
