"""Write the fixtures of tests/test_image*.py, tests/test_recordio.py and tests/test_io_iter*.py
with real MXNet 1.9.1 (not run in CI).

Run with MXNet's interpreter and OpenCV's Python module (MXNet's ``recordio.pack_img``
needs ``cv2``; a ``pip install --target DIR "opencv-python-headless<4.9"`` without its numpy
is enough):

    PYTHONPATH=/tmp/dataio_cv2 /tmp/mxvenv/bin/python tools/make_image_fixtures.py

Everything goes to tests/data/mxnet/image/:
- ``rgb.png``, ``gray.png``, ``rgba.png``, ``rgb.jpg``: 6x8 images encoded by OpenCV;
- ``expected.npz``: what MXNet's ``mx.image`` functions return on them (decoding,
  ``imresize`` with every interpolation, crops, rotations, augmenter pipelines with seeded RNGs,
  ``ImageIter`` and ``ImageRecordDataset`` batches);
- ``misc.rec``/``misc.idx``: raw records written by ``MXIndexedRecordIO`` (incl. one holding
  the RecordIO magic word, which the writer splits, and ``pack``ed headers);
  ``records.json``: each record's bytes as MXNet reads them back, hex;
- ``images.rec``/``images.idx``: three ``pack_img`` records (PNG) with labels;
- ``det.rec``/``det.idx``: four 12x16 images with detection labels (im2rec layout) and
  ``ImageDetIter`` batches for several augmenter settings in ``expected.npz``;
- ``iters.json``: NDArrayIter and CSVIter batches (data, label, pad) for several settings;
- ``x.csv``/``y.csv``: the CSVIter inputs.
"""
import json
import os
import random
import shutil
import sys

import numpy as np
import mxnet as mx
import cv2

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "image")


def images():
    rs = np.random.RandomState(0)
    rgb = rs.randint(0, 256, size=(6, 8, 3)).astype(np.uint8)
    gray = rs.randint(0, 256, size=(6, 8)).astype(np.uint8)
    rgba = rs.randint(0, 256, size=(6, 8, 4)).astype(np.uint8)
    # smooth image for JPEG (few artefacts)
    yy, xx = np.mgrid[0:6, 0:8]
    smooth = np.stack([xx * 30, yy * 40, 255 - xx * 20 - yy * 10], axis=2).astype(np.uint8)
    # cv2 writes BGR(A)
    files = {
        "rgb.png": cv2.imencode(".png", rgb[:, :, ::-1])[1].tobytes(),
        "gray.png": cv2.imencode(".png", gray)[1].tobytes(),
        "rgba.png": cv2.imencode(".png", rgba[:, :, [2, 1, 0, 3]])[1].tobytes(),
        "rgb.jpg": cv2.imencode(".jpg", smooth[:, :, ::-1],
                                [cv2.IMWRITE_JPEG_QUALITY, 90])[1].tobytes(),
    }
    for name, data in files.items():
        with open(os.path.join(OUT, name), "wb") as f:
            f.write(data)
    return files


def image_ops(files, exp):
    for name, data in files.items():
        key = name.replace(".", "_")
        exp[f"decode_{key}"] = mx.image.imdecode(data).asnumpy()
        exp[f"decode_{key}_gray"] = mx.image.imdecode(data, flag=0).asnumpy()
        exp[f"decode_{key}_bgr"] = mx.image.imdecode(data, to_rgb=0).asnumpy()
        exp[f"imread_{key}"] = mx.image.imread(os.path.join(OUT, name)).asnumpy()
    src = mx.image.imdecode(files["rgb.png"])
    for interp in range(5):
        for (w, h) in [(4, 3), (5, 4), (3, 5), (16, 12), (11, 9), (8, 3)]:
            exp[f"resize_{interp}_{w}x{h}"] = mx.image.imresize(src, w, h,
                                                                interp=interp).asnumpy()
    exp["resize_default_5x4"] = mx.image.imresize(src, 5, 4).asnumpy()
    srcf = src.astype("float32")
    exp["resize_float_1_5x4"] = mx.image.imresize(srcf, 5, 4, interp=1).asnumpy()
    exp["resize_short_4"] = mx.image.resize_short(src, 4).asnumpy()
    exp["resize_short_9_interp0"] = mx.image.resize_short(src, 9, interp=0).asnumpy()
    exp["center_crop_4x4"] = mx.image.center_crop(src, (4, 4))[0].asnumpy()
    exp["center_crop_10x3_rect"] = np.array(mx.image.center_crop(src, (10, 3), interp=0)[1])
    exp["center_crop_10x3"] = mx.image.center_crop(src, (10, 3), interp=0)[0].asnumpy()
    exp["fixed_crop"] = mx.image.fixed_crop(src, 1, 2, 5, 3).asnumpy()
    exp["fixed_crop_resized"] = mx.image.fixed_crop(src, 1, 2, 4, 2, size=(8, 4),
                                                    interp=0).asnumpy()
    random.seed(7)
    crops = []
    for _ in range(5):
        out, rect = mx.image.random_crop(src, (5, 4))
        crops.append(list(rect))
    exp["random_crop_rects"] = np.array(crops)
    exp["random_crop_last"] = out.asnumpy()
    random.seed(11)
    out, rect = mx.image.random_size_crop(src, (4, 4), 0.3, (0.75, 1.33), interp=0)
    exp["random_size_crop"] = out.asnumpy()
    exp["random_size_crop_rect"] = np.array(rect)
    exp["color_normalize"] = mx.image.color_normalize(
        srcf.copy(), mx.nd.array([100, 110, 120]), mx.nd.array([50, 60, 70])).asnumpy()
    chw = srcf.transpose((2, 0, 1))
    exp["imrotate_30"] = mx.image.imrotate(chw, 30).asnumpy()
    exp["imrotate_m45_zoom_in"] = mx.image.imrotate(chw, -45, zoom_in=True).asnumpy()
    exp["imrotate_100_zoom_out"] = mx.image.imrotate(chw, 100, zoom_out=True).asnumpy()
    batch = mx.nd.stack(chw, chw * 0.5)
    exp["imrotate_batch"] = mx.image.imrotate(batch, mx.nd.array([10, -70])).asnumpy()
    np.random.seed(9)
    exp["random_rotate_batch"] = mx.image.random_rotate(batch, (-30, 30),
                                                        zoom_in=True).asnumpy()
    exp["random_rotate_single"] = mx.image.random_rotate(chw, (-30, 30)).asnumpy()
    # augmenter pipelines with seeded Python and NumPy RNGs
    configs = {
        "aug_center": dict(),
        "aug_resize_mirror": dict(resize=5, rand_mirror=True, inter_method=0),
        "aug_randcrop_norm": dict(rand_crop=True, mean=True, std=True, inter_method=1),
        "aug_jitter": dict(brightness=0.3, contrast=0.3, saturation=0.3, pca_noise=0.1),
        "aug_hue_gray": dict(hue=0.2, rand_gray=0.5),
        "aug_randresize": dict(rand_crop=True, rand_resize=True, inter_method=0),
    }
    for name, kw in configs.items():
        augs = mx.image.CreateAugmenter((3, 4, 4), **kw)
        exp[f"{name}_names"] = np.array([a.dumps() if isinstance(a.dumps(), str)
                                         else json.dumps(a.dumps()) for a in augs])
        random.seed(5)
        np.random.seed(5)
        outs = []
        for _ in range(3):
            x = src
            for a in augs:
                x = a(x)
            outs.append(x.asnumpy())
        exp[name] = np.stack(outs)


def recordio_files(files, exp):
    rec_path, idx_path = os.path.join(OUT, "misc.rec"), os.path.join(OUT, "misc.idx")
    magic = (0xced7230a).to_bytes(4, "little")
    payloads = [
        b"hello",                                    # needs 3 bytes of padding
        b"",                                         # empty record
        b"abcd" + magic + b"efgh" + magic + b"ij",   # magic word: split into 3 parts
        b"xyz" + magic + b"0",                       # unaligned magic: not split
        magic,                                       # a record that is only the magic word
        mx.recordio.pack(mx.recordio.IRHeader(0, 3.5, 42, 0), b"payload"),
        mx.recordio.pack(mx.recordio.IRHeader(0, [1.0, 2.0, 3.0], 7, 1), b"arr"),
        bytes(range(256)) * 3,
    ]
    w = mx.recordio.MXIndexedRecordIO(idx_path, rec_path, "w")
    for i, p in enumerate(payloads):
        w.write_idx(i * 10, p)
    w.close()
    r = mx.recordio.MXIndexedRecordIO(idx_path, rec_path, "r")
    back = [r.read_idx(k).hex() for k in r.keys]
    r.close()
    seq = mx.recordio.MXRecordIO(rec_path, "r")
    seq_back = []
    while True:
        item = seq.read()
        if item is None:
            break
        seq_back.append(item.hex())
    seq.close()
    assert back == seq_back
    h1, s1 = mx.recordio.unpack(payloads[5])
    h2, s2 = mx.recordio.unpack(payloads[6])
    info = {"written": [p.hex() for p in payloads], "read": back,
            "keys": [i * 10 for i in range(len(payloads))],
            "unpack5": [h1.flag, float(h1.label), h1.id, h1.id2, s1.hex()],
            "unpack6": [h2.flag, h2.label.tolist(), h2.id, h2.id2, s2.hex()]}
    # images.rec: pack_img records (PNG, lossless) and their labels
    img_rec, img_idx = os.path.join(OUT, "images.rec"), os.path.join(OUT, "images.idx")
    rs = np.random.RandomState(1)
    w = mx.recordio.MXIndexedRecordIO(img_idx, img_rec, "w")
    imgs = []
    for i in range(3):
        img = rs.randint(0, 256, size=(5 + i, 7, 3)).astype(np.uint8)   # BGR for cv2
        imgs.append(img)
        w.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, float(i) + 0.5, i, 0),
                                            img, quality=3, img_fmt=".png"))
    w.close()
    r = mx.recordio.MXIndexedRecordIO(img_idx, img_rec, "r")
    for i in range(3):
        header, img = mx.recordio.unpack_img(r.read_idx(i))
        exp[f"unpack_img_{i}"] = img
        exp[f"unpack_img_{i}_label"] = np.array(header.label)
    r.close()
    ds = mx.gluon.data.vision.ImageRecordDataset(img_rec)
    for i in range(len(ds)):
        img, label = ds[i]
        exp[f"imagerecord_{i}"] = img.asnumpy()
        exp[f"imagerecord_{i}_label"] = np.array(label)
    ds0 = mx.gluon.data.vision.ImageRecordDataset(img_rec, flag=0)
    exp["imagerecord_gray_1"] = ds0[1][0].asnumpy()
    with open(os.path.join(OUT, "records.json"), "w") as f:
        json.dump(info, f, indent=0)


def image_iters(exp):
    img_rec, img_idx = os.path.join(OUT, "images.rec"), os.path.join(OUT, "images.idx")
    cases = {
        "imageiter_rec_pad": dict(batch_size=2, path_imgrec=img_rec),
        "imageiter_idx_discard": dict(batch_size=2, path_imgrec=img_rec, path_imgidx=img_idx,
                                      last_batch_handle="discard"),
        "imageiter_idx_rollover": dict(batch_size=2, path_imgrec=img_rec, path_imgidx=img_idx,
                                       last_batch_handle="roll_over"),
        "imageiter_list_pad": dict(batch_size=2, path_root=OUT,
                                   imglist=[[1, "rgb.png"], [2, "gray.png"], [3, "rgba.png"]]),
        "imageiter_list_shuffle_aug": dict(batch_size=3, path_root=OUT, shuffle=True,
                                           rand_crop=True, rand_mirror=True,
                                           imglist=[[1, 2, "rgb.png"], [3, 4, "gray.png"],
                                                    [5, 6, "rgba.png"]], label_width=2),
    }
    lst = os.path.join(OUT, "images.lst")
    with open(lst, "w") as f:
        f.write("0\t1.5\trgb.png\n1\t2.5\tgray.png\n2\t3.5\trgba.png\n")
    cases["imageiter_lst_pad"] = dict(batch_size=2, path_root=OUT, path_imglist=lst)
    for name, kw in cases.items():
        random.seed(3)
        np.random.seed(3)
        it = mx.image.ImageIter(data_shape=(3, 4, 4), **kw)
        batches = []
        for epoch in range(3):
            for b in it:
                batches.append((epoch, b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
            it.reset()
        exp[f"{name}_data"] = np.stack([b[1] for b in batches])
        exp[f"{name}_label"] = np.stack([b[2] for b in batches])
        exp[f"{name}_meta"] = np.array([[b[0], b[3]] for b in batches])


DET_LABELS = [
    [4, 5, 16, 12, 0, 0.1, 0.2, 0.6, 0.7],
    [4, 5, 16, 12, 1, 0.0, 0.0, 0.5, 0.5, 0, 0.4, 0.3, 0.9, 0.95],
    [4, 5, 16, 12, 0, 0.25, 0.25, 0.75, 0.75],
    [4, 5, 16, 12, 1, 0.5, 0.1, 1.0, 0.6, 1, 0.05, 0.55, 0.45, 0.95, 0, 0.3, 0.3, 0.4, 0.4],
]

DET_CASES = {
    "det_plain": dict(batch_size=3),
    "det_crop_mirror": dict(batch_size=2, rand_crop=1, rand_mirror=True,
                            min_object_covered=0.5, max_attempts=200, inter_method=0),
    "det_pad_shuffle": dict(batch_size=3, shuffle=True, rand_pad=1, rand_crop=0.5,
                            inter_method=1, use_idx=True),
    "det_norm_rollover": dict(batch_size=3, mean=True, std=True, rand_mirror=True,
                              last_batch_handle="roll_over", use_idx=True),
}


def det_iters(exp):
    rec, idx = os.path.join(OUT, "det.rec"), os.path.join(OUT, "det.idx")
    rs = np.random.RandomState(2)
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, label in enumerate(DET_LABELS):
        img = rs.randint(0, 256, size=(12, 16, 3)).astype(np.uint8)
        w.write_idx(i, mx.recordio.pack_img(mx.recordio.IRHeader(0, label, i, 0), img,
                                            quality=3, img_fmt=".png"))
    w.close()
    for name, kw in DET_CASES.items():
        kw = dict(kw)
        if kw.pop("use_idx", False):
            kw["path_imgidx"] = idx
        random.seed(4)
        np.random.seed(4)
        it = mx.image.ImageDetIter(data_shape=(3, 8, 8), path_imgrec=rec, **kw)
        exp[f"{name}_label_shape"] = np.array(it.provide_label[0][1])
        batches = _collect(it)
        exp[f"{name}_data"] = np.stack([b[1] for b in batches])
        exp[f"{name}_label"] = np.stack([b[2] for b in batches])
        exp[f"{name}_meta"] = np.array([[b[0], b[3]] for b in batches])
    augs = mx.image.CreateDetAugmenter((3, 8, 8), resize=10, rand_crop=0.5, rand_pad=0.5,
                                       rand_mirror=True, brightness=0.1, hue=0.1,
                                       pca_noise=0.1, rand_gray=0.1, mean=True, std=True,
                                       min_object_covered=[0.1, 0.5])
    exp["det_augs_dumps"] = np.array([json.dumps(a.dumps()) for a in augs])


def _collect(it):
    batches = []
    for epoch in range(3):
        for b in it:
            batches.append((epoch, b.data[0].asnumpy(), b.label[0].asnumpy(), b.pad))
        it.reset()
    return batches


def nd_iters():
    out = {}
    x = np.arange(7 * 2).reshape(7, 2).astype(np.float32)
    y = np.arange(7).astype(np.int32)
    cases = []
    for lbh in ("pad", "discard", "roll_over"):
        for bs in (3, 7, 10):
            cases.append((f"{lbh}_bs{bs}", dict(data=x, label=y, batch_size=bs,
                                                last_batch_handle=lbh), False))
    cases.append(("shuffle_pad", dict(data=x, label=y, batch_size=3, shuffle=True), True))
    cases.append(("shuffle_roll", dict(data=x, label=y, batch_size=3, shuffle=True,
                                       last_batch_handle="roll_over"), True))
    cases.append(("dict_sources", dict(data={"b": x, "a": x * 10}, label={"l": y},
                                       batch_size=4), False))
    cases.append(("list_sources", dict(data=[x, x + 100], batch_size=4,
                                       last_batch_handle="discard"), False))
    cases.append(("nd_int_label", dict(data=mx.nd.array(x), label=mx.nd.array(y, dtype="int32"),
                                       batch_size=4), False))
    cases.append(("layout_tnc", dict(data=np.arange(2 * 5 * 3).reshape(2, 5, 3), batch_size=2,
                                     layout="TNC"), False))
    for name, kw, seeded in cases:
        np.random.seed(0)
        it = mx.io.NDArrayIter(**kw)
        rec = {"provide_data": [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]
                                for d in it.provide_data],
               "provide_label": [[d.name, list(d.shape), np.dtype(d.dtype).name, d.layout]
                                 for d in it.provide_label],
               "epochs": []}
        for epoch in range(3):
            ep = []
            for b in it:
                ep.append({"data": [d.asnumpy().tolist() for d in b.data],
                           "data_dtype": [np.dtype(d.dtype).name for d in b.data],
                           "label": [l.asnumpy().tolist() for l in b.label],
                           "label_dtype": [np.dtype(l.dtype).name for l in b.label],
                           "pad": b.pad})
            rec["epochs"].append(ep)
            it.reset()
        out["ndarrayiter_" + name] = rec
    # ResizeIter
    it = mx.io.ResizeIter(mx.io.NDArrayIter(x, y, batch_size=3), 5)
    rec = []
    for epoch in range(2):
        rec.append([[b.data[0].asnumpy().tolist(), b.pad] for b in it])
        it.reset()
    out["resizeiter"] = rec
    # CSVIter
    np.savetxt(os.path.join(OUT, "x.csv"), np.arange(5 * 6).reshape(5, 6), delimiter=",",
               fmt="%g")
    np.savetxt(os.path.join(OUT, "y.csv"), np.arange(5) * 10 + 0.5, delimiter=",", fmt="%g")
    for name, kw in {"csv_round": dict(batch_size=2, round_batch=True),
                     "csv_noround": dict(batch_size=2, round_batch=False),
                     "csv_nolabel_shape": dict(batch_size=3, data_shape=(2, 3), label_csv=None),
                     "csv_labelshape": dict(batch_size=4, label_shape=(1,))}.items():
        args = dict(data_csv=os.path.join(OUT, "x.csv"), data_shape=(6,),
                    label_csv=os.path.join(OUT, "y.csv"))
        args.update(kw)
        if args["label_csv"] is None:
            del args["label_csv"]
        it = mx.io.CSVIter(**args)
        rec = {"provide_data": [[d.name, list(d.shape)] for d in it.provide_data],
               "provide_label": [[d.name, list(d.shape)] for d in it.provide_label],
               "epochs": []}
        for epoch in range(3):
            rec["epochs"].append([[b.data[0].asnumpy().tolist(), b.label[0].asnumpy().tolist(),
                                   b.pad, b.index.tolist()] for b in it])
            it.reset()
        out[name] = rec
    with open(os.path.join(OUT, "iters.json"), "w") as f:
        json.dump(out, f)


def main():
    assert mx.__version__ == "1.9.1", mx.__version__
    if os.path.isdir(OUT):
        shutil.rmtree(OUT)
    os.makedirs(OUT)
    exp = {}
    files = images()
    image_ops(files, exp)
    recordio_files(files, exp)
    image_iters(exp)
    det_iters(exp)
    nd_iters()
    np.savez_compressed(os.path.join(OUT, "expected.npz"), **exp)
    print("wrote", sorted(os.listdir(OUT)), file=sys.stderr)


if __name__ == "__main__":
    main()
