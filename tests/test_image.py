"""mx.image against MXNet 1.9.1 (fixtures by tools/make_image_fixtures.py).

Tolerances, all measured against the fixtures: PNG decoding (colour, gray, BGR) identical;
JPEG decoding identical with Pillow 13's libjpeg-turbo, tested with a tolerance of
``JPEG_ATOL`` levels because other libjpeg builds may round differently; ``imresize`` on uint8
identical for every interpolation (OpenCV's fixed-point arithmetic reproduced).
"""
import builtins
import json
import os
import random
import shutil
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "image")
EXP = np.load(os.path.join(DATA, "expected.npz"))
NAMES = ["rgb.png", "gray.png", "rgba.png", "rgb.jpg"]
SIZES = [(4, 3), (5, 4), (3, 5), (16, 12), (11, 9), (8, 3)]
JPEG_ATOL = 4


def _bytes(name):
    with open(os.path.join(DATA, name), "rb") as f:
        return f.read()


@pytest.fixture(scope="module")
def src():
    return mx.image.imdecode(_bytes("rgb.png"))


def _close(got, key, atol=0):
    want = EXP[key]
    got = got.asnumpy() if isinstance(got, mx.nd.NDArray) else np.asarray(got)
    assert got.shape == want.shape, key
    np.testing.assert_allclose(got.astype(np.float64), want.astype(np.float64), atol=atol,
                               rtol=0, err_msg=key)


# ----------------------------------------------------------------------------- decoding
@pytest.mark.parametrize("name", NAMES)
def test_imdecode_matches_mxnet(name):
    key = name.replace(".", "_")
    atol = JPEG_ATOL if name.endswith(".jpg") else 0
    buf = _bytes(name)
    img = mx.image.imdecode(buf)
    assert img.dtype == np.uint8 and img.shape == (6, 8, 3)
    _close(img, f"decode_{key}", atol)
    _close(mx.image.imdecode(buf, flag=0), f"decode_{key}_gray", atol)
    _close(mx.image.imdecode(buf, to_rgb=0), f"decode_{key}_bgr", atol)
    _close(mx.image.imdecode(bytearray(buf)), f"decode_{key}", atol)
    _close(mx.image.imdecode(np.frombuffer(buf, np.uint8)), f"decode_{key}", atol)
    _close(mx.image.imdecode(mx.nd.array(np.frombuffer(buf, np.uint8), dtype="uint8")),
           f"decode_{key}", atol)
    _close(mx.image.imread(os.path.join(DATA, name)), f"imread_{key}", atol)
    _close(mx.img.imread(os.path.join(DATA, name), flag=0), f"decode_{key}_gray", atol)
    bgr = mx.image.imdecode(buf, to_rgb=False).asnumpy()
    np.testing.assert_array_equal(bgr, img.asnumpy()[:, :, ::-1])


def test_imdecode_out_and_errors(tmp_path):
    out = mx.nd.zeros((6, 8, 3), dtype="uint8")
    res = mx.image.imdecode(_bytes("rgb.png"), out=out)
    assert res is out
    _close(out, "decode_rgb_png")
    with pytest.raises(TypeError, match="bytes"):
        mx.image.imdecode("not bytes")
    with pytest.raises(MXNetError, match="cannot decode"):
        mx.image.imdecode(b"definitely not an image")
    with pytest.raises(FileNotFoundError, match="nope.png"):
        mx.image.imread(str(tmp_path / "nope.png"))


def test_missing_pillow_names_the_extra(monkeypatch):
    real_import = builtins.__import__

    def fake_import(name, *args, **kwargs):
        if name == "PIL" or name.startswith("PIL."):
            raise ImportError("No module named 'PIL'")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", fake_import)
    for mod in [m for m in sys.modules if m == "PIL" or m.startswith("PIL.")]:
        monkeypatch.delitem(sys.modules, mod)
    with pytest.raises(MXNetError, match=r"pip install mxgrad\[image\]") as info:
        mx.image.imdecode(_bytes("rgb.png"))
    assert isinstance(info.value, ImportError)
    with pytest.raises(ImportError, match=r"mxgrad\[image\]"):
        mx.recordio.pack_img((0, 1.0, 0, 0), np.zeros((2, 2, 3), np.uint8))
    # everything that does not decode keeps working without Pillow
    assert mx.recordio.unpack(mx.recordio.pack((0, 2.0, 1, 0), b"x"))[1] == b"x"
    assert mx.image.imresize(mx.nd.zeros((4, 4, 3), dtype="uint8"), 2, 2).shape == (2, 2, 3)


def test_import_mxgrad_does_not_import_pillow():
    import subprocess
    code = ("import sys, mxgrad, mxgrad.recordio, mxgrad.image, mxgrad.io;"
            "print('PIL' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=os.path.dirname(os.path.dirname(__file__)), check=True)
    assert out.stdout.strip() == "False"


# ----------------------------------------------------------------------------- resizing
@pytest.mark.parametrize("interp", range(5))
@pytest.mark.parametrize("size", SIZES)
def test_imresize_matches_mxnet(src, interp, size):
    w, h = size
    got = mx.image.imresize(src, w, h, interp=interp)
    assert got.dtype == np.uint8 and got.shape == (h, w, 3)
    _close(got, f"resize_{interp}_{w}x{h}")


RESIZE_UINT8 = np.load(os.path.join(DATA, "resize_uint8.npz"))


@pytest.mark.parametrize("key", [k for k in RESIZE_UINT8.files if k[0].isdigit()])
def test_imresize_uint8_identical_to_mxnet_on_wide_images(key):
    """30x20 RGB (tools/make_resize_fixtures.py): rows wide enough for OpenCV's SIMD blocks,
    whose rounding differs from the row tail's; border rows; 1/(dst/src) scale factors."""
    interp, size = key.split("_")
    w, h = (int(v) for v in size.split("x"))
    img = mx.nd.array(RESIZE_UINT8["img"], dtype="uint8")
    got = mx.image.imresize(img, w, h, interp=int(interp)).asnumpy()
    np.testing.assert_array_equal(got, RESIZE_UINT8[key])
    if key == "1_40x50":   # the Resize transform is the same computation
        t = mx.gluon.data.vision.transforms.Resize((40, 50))(img).asnumpy()
        np.testing.assert_array_equal(t, RESIZE_UINT8[key])


def test_imresize_one_channel_bicubic_identical_to_mxnet():
    img = mx.nd.array(RESIZE_UINT8["img"][:, :, :1], dtype="uint8")
    np.testing.assert_array_equal(mx.image.imresize(img, 40, 50, 2).asnumpy(),
                                  RESIZE_UINT8["gray_2_40x50"])


def test_imresize_default_float_and_errors(src):
    _close(mx.image.imresize(src, 5, 4), "resize_default_5x4")
    f = mx.image.imresize(src.astype("float32"), 5, 4, interp=1)
    assert f.dtype == np.float32
    _close(f, "resize_float_1_5x4", atol=1e-3)
    # interp 9 picks cubic / area / linear from the sizes; 10 picks at random
    np.testing.assert_array_equal(mx.image.imresize(src, 16, 12, interp=9).asnumpy(),
                                  mx.image.imresize(src, 16, 12, interp=2).asnumpy())
    np.testing.assert_array_equal(mx.image.imresize(src, 4, 3, interp=9).asnumpy(),
                                  mx.image.imresize(src, 4, 3, interp=3).asnumpy())
    with pytest.raises(ValueError, match="interp"):
        mx.image.imresize(src, 4, 3, interp=7)
    with pytest.raises(ValueError, match="positive"):
        mx.image.imresize(src, 0, 3)
    with pytest.raises(ValueError, match="height, width"):
        mx.image.imresize(mx.nd.zeros((2,)), 2, 2)


def test_resize_short_and_crops_match_mxnet(src):
    _close(mx.image.resize_short(src, 4), "resize_short_4")
    _close(mx.image.resize_short(src, 9, interp=0), "resize_short_9_interp0")
    _close(mx.image.center_crop(src, (4, 4))[0], "center_crop_4x4")
    out, rect = mx.image.center_crop(src, (10, 3), interp=0)
    assert list(rect) == EXP["center_crop_10x3_rect"].tolist()
    _close(out, "center_crop_10x3")
    _close(mx.image.fixed_crop(src, 1, 2, 5, 3), "fixed_crop")
    _close(mx.image.fixed_crop(src, 1, 2, 4, 2, size=(8, 4), interp=0), "fixed_crop_resized")
    random.seed(7)
    rects = []
    for _ in range(5):
        out, rect = mx.image.random_crop(src, (5, 4))
        rects.append(list(rect))
    assert rects == EXP["random_crop_rects"].tolist()
    _close(out, "random_crop_last")
    random.seed(11)
    out, rect = mx.image.random_size_crop(src, (4, 4), 0.3, (0.75, 1.33), interp=0)
    assert list(rect) == EXP["random_size_crop_rect"].tolist()
    _close(out, "random_size_crop")
    norm = mx.image.color_normalize(src.astype("float32"), mx.nd.array([100, 110, 120]),
                                    mx.nd.array([50, 60, 70]))
    _close(norm, "color_normalize", atol=1e-5)


def test_scale_down_and_border():
    assert mx.image.scale_down((640, 480), (720, 120)) == (640, 106)
    assert mx.image.scale_down((360, 1000), (480, 500)) == (360, 375)
    img = mx.nd.array(np.arange(12).reshape(2, 2, 3), dtype="uint8")
    out = mx.image.copyMakeBorder(img, 1, 0, 0, 2, type=1)
    np.testing.assert_array_equal(out.asnumpy(), np.pad(img.asnumpy(), [(1, 0), (0, 2), (0, 0)],
                                                        mode="edge"))
    out = mx.image.copyMakeBorder(img, 1, 1, 1, 1, values=[1, 2, 3])
    assert out.asnumpy()[0, 0].tolist() == [1, 2, 3]
    assert out.asnumpy()[1:3, 1:3].tolist() == img.asnumpy().tolist()


# ----------------------------------------------------------------------------- augmenters
AUG_CONFIGS = {
    "aug_center": dict(),
    "aug_resize_mirror": dict(resize=5, rand_mirror=True, inter_method=0),
    "aug_randcrop_norm": dict(rand_crop=True, mean=True, std=True, inter_method=1),
    "aug_jitter": dict(brightness=0.3, contrast=0.3, saturation=0.3, pca_noise=0.1),
    "aug_hue_gray": dict(hue=0.2, rand_gray=0.5),
    "aug_randresize": dict(rand_crop=True, rand_resize=True, inter_method=0),
}


@pytest.mark.parametrize("name", sorted(AUG_CONFIGS))
def test_create_augmenter_matches_mxnet(src, name):
    augs = mx.image.CreateAugmenter((3, 4, 4), **AUG_CONFIGS[name])
    dumps = [a.dumps() if isinstance(a.dumps(), str) else json.dumps(a.dumps()) for a in augs]
    assert dumps == EXP[f"{name}_names"].tolist()
    random.seed(5)
    np.random.seed(5)
    outs = []
    for _ in range(3):
        x = src
        for a in augs:
            x = a(x)
        outs.append(x.asnumpy())
    got = np.stack(outs)
    want = EXP[name]
    assert got.shape == want.shape and got.dtype == np.float32
    # same random choices; float32 arithmetic order may differ slightly
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-3)


def test_augmenter_classes_directly(src):
    x = src.astype("float32")
    flip = mx.image.HorizontalFlipAug(1.0)(x)
    np.testing.assert_array_equal(flip.asnumpy(), x.asnumpy()[:, ::-1])
    assert mx.image.ForceResizeAug((3, 2))(src).shape == (2, 3, 3)
    gray = mx.image.RandomGrayAug(1.0)(x).asnumpy()
    np.testing.assert_allclose(gray[..., 0], gray[..., 2], rtol=1e-6)
    seq = mx.image.SequentialAug([mx.image.CenterCropAug((4, 4)), mx.image.CastAug("float64")])
    assert seq(src).dtype == np.float64
    assert seq.dumps()[0] == "sequentialaug"
    with pytest.raises(ValueError, match="rand_crop"):
        mx.image.CreateAugmenter((3, 4, 4), rand_resize=True)
    with pytest.raises(ValueError, match="mean"):
        mx.image.CreateAugmenter((3, 4, 4), mean=[1, 2])


# ----------------------------------------------------------------------------- ImageIter
def _run_iter(it):
    batches = []
    for epoch in range(3):
        for b in it:
            batches.append((epoch, b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
        it.reset()
    return batches


def _iter_cases():
    rec, idx = os.path.join(DATA, "images.rec"), os.path.join(DATA, "images.idx")
    return {
        "imageiter_rec_pad": dict(batch_size=2, path_imgrec=rec),
        "imageiter_idx_discard": dict(batch_size=2, path_imgrec=rec, path_imgidx=idx,
                                      last_batch_handle="discard"),
        "imageiter_idx_rollover": dict(batch_size=2, path_imgrec=rec, path_imgidx=idx,
                                       last_batch_handle="roll_over"),
        "imageiter_list_pad": dict(batch_size=2, path_root=DATA,
                                   imglist=[[1, "rgb.png"], [2, "gray.png"], [3, "rgba.png"]]),
        "imageiter_list_shuffle_aug": dict(batch_size=3, path_root=DATA, shuffle=True,
                                           rand_crop=True, rand_mirror=True,
                                           imglist=[[1, 2, "rgb.png"], [3, 4, "gray.png"],
                                                    [5, 6, "rgba.png"]], label_width=2),
        "imageiter_lst_pad": dict(batch_size=2, path_root=DATA,
                                  path_imglist=os.path.join(DATA, "images.lst")),
    }


@pytest.mark.parametrize("name", sorted(_iter_cases()))
def test_imageiter_matches_mxnet(name):
    random.seed(3)
    np.random.seed(3)
    it = mx.image.ImageIter(data_shape=(3, 4, 4), **_iter_cases()[name])
    batches = _run_iter(it)
    assert [[b[0], b[3]] for b in batches] == EXP[f"{name}_meta"].tolist()
    np.testing.assert_allclose(np.stack([b[1] for b in batches]), EXP[f"{name}_data"],
                               atol=1e-4)
    np.testing.assert_allclose(np.stack([b[2] for b in batches]), EXP[f"{name}_label"])
    assert it.provide_data[0].shape[0] == it.batch_size


def test_imageiter_errors(tmp_path):
    with pytest.raises(ValueError, match="path_imgrec"):
        mx.image.ImageIter(2, (3, 4, 4))
    with pytest.raises(ValueError, match="3 channels"):
        mx.image.ImageIter(2, (1, 4, 4), imglist=[[1, "rgb.png"]], path_root=DATA)
    (tmp_path / "bad.png").write_bytes(b"not an image")
    it = mx.image.ImageIter(1, (3, 4, 4), imglist=[[1, "bad.png"]], path_root=str(tmp_path))
    with pytest.raises(MXNetError, match="bad.png"):
        it.next()


# ----------------------------------------------------------------------------- datasets
def test_image_record_dataset_matches_mxnet():
    ds = mx.gluon.data.vision.ImageRecordDataset(os.path.join(DATA, "images.rec"))
    assert len(ds) == 3
    for i in range(3):
        img, label = ds[i]
        _close(img, f"imagerecord_{i}")
        assert label == float(EXP[f"imagerecord_{i}_label"])
    gray = mx.gluon.data.vision.ImageRecordDataset(os.path.join(DATA, "images.rec"), flag=0)
    _close(gray[1][0], "imagerecord_gray_1")
    ds = mx.gluon.data.vision.ImageRecordDataset(
        os.path.join(DATA, "images.rec"),
        transform=lambda d, l: (d.astype("float32") / 255, l * 2))
    img, label = ds[2]
    assert img.dtype == np.float32 and label == 2 * float(EXP["imagerecord_2_label"])
    loader = mx.gluon.data.DataLoader(
        mx.gluon.data.vision.ImageRecordDataset(os.path.join(DATA, "images.rec"),
                                                transform=lambda d, l: (d[:5], l)),
        batch_size=3)
    data, label = next(iter(loader))
    assert data.shape == (3, 5, 7, 3)
    np.testing.assert_allclose(label.asnumpy(), [0.5, 1.5, 2.5])


def test_image_folder_dataset(tmp_path):
    for cls in ("b_dog", "a_cat"):
        (tmp_path / cls).mkdir()
    shutil.copy(os.path.join(DATA, "rgb.png"), tmp_path / "a_cat" / "x.png")
    shutil.copy(os.path.join(DATA, "rgb.jpg"), tmp_path / "a_cat" / "y.JPG")
    shutil.copy(os.path.join(DATA, "gray.png"), tmp_path / "b_dog" / "z.png")
    (tmp_path / "b_dog" / "notes.txt").write_text("not an image")
    (tmp_path / "README").write_text("not a folder")
    with pytest.warns(UserWarning, match="Ignoring"):
        ds = mx.gluon.data.vision.ImageFolderDataset(str(tmp_path))
    assert ds.synsets == ["a_cat", "b_dog"]
    assert [(os.path.basename(p), l) for p, l in ds.items] == [("x.png", 0), ("y.JPG", 0),
                                                               ("z.png", 1)]
    img, label = ds[0]
    _close(img, "decode_rgb_png")
    assert label == 0
    _close(ds[1][0], "decode_rgb_jpg", JPEG_ATOL)
    with pytest.warns(UserWarning):
        gray = mx.gluon.data.vision.ImageFolderDataset(str(tmp_path), flag=0,
                                                       transform=lambda d, l: (d, l + 10))
    img, label = gray[2]
    _close(img, "decode_gray_png_gray")
    assert label == 11
    with pytest.raises(MXNetError, match="cannot list"):
        mx.gluon.data.vision.ImageFolderDataset(str(tmp_path / "missing"))


# ----------------------------------------------------------------------------- rotation
def test_imrotate_matches_mxnet(src):
    chw = src.astype("float32").transpose((2, 0, 1))
    _close(mx.image.imrotate(chw, 30), "imrotate_30", atol=1e-3)
    _close(mx.image.imrotate(chw, -45, zoom_in=True), "imrotate_m45_zoom_in", atol=1e-3)
    _close(mx.image.imrotate(chw, 100, zoom_out=True), "imrotate_100_zoom_out", atol=1e-3)
    batch = mx.nd.stack(chw, chw * 0.5)
    _close(mx.image.imrotate(batch, mx.nd.array([10, -70])), "imrotate_batch", atol=1e-3)
    np.random.seed(9)
    _close(mx.image.random_rotate(batch, (-30, 30), zoom_in=True), "random_rotate_batch",
           atol=1e-3)
    _close(mx.image.random_rotate(chw, (-30, 30)), "random_rotate_single", atol=1e-3)
    with pytest.raises(TypeError, match="float32"):
        mx.image.imrotate(src.transpose((2, 0, 1)), 10)
    with pytest.raises(ValueError, match="both"):
        mx.image.imrotate(chw, 10, zoom_in=True, zoom_out=True)
    with pytest.raises(ValueError, match="number of rotation angles"):
        mx.image.imrotate(batch, mx.nd.array([1, 2, 3]))
    with pytest.raises(TypeError, match="scalar"):
        mx.image.imrotate(chw, mx.nd.array([1]))


def test_npx_image_resize_is_imresize_on_the_np_face():
    img = np.random.RandomState(0).randint(0, 255, (4, 5, 3)).astype(np.uint8)
    for interp in (0, 1, 2, 3, 4):
        got = mx.npx.image.resize(mx.np.array(img), (7, 3), interp=interp)
        want = mx.image.imresize(mx.nd.array(img, dtype=np.uint8), 7, 3, interp)
        assert isinstance(got, mx.np.ndarray) and got.dtype == np.uint8
        assert np.array_equal(got.asnumpy(), want.asnumpy())
    with pytest.raises(MXNetError, match="w and h must be positive"):
        mx.npx.image.resize(mx.np.array(img), (0, 3))
