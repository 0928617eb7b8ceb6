"""Write tests/data/mxnet/ops26.npz: MXNet 1.9.1's outputs (and input gradients for a seeded
head gradient) of nd.im2col/col2im (MXNet's work in 2-D only), contrib.box_iou/box_nms/box_encode/box_decode/
bipartite_matching contrib.BilinearResize2D and nd.image.* on seeded inputs. Keys are
``<case>_in<i>``, ``<case>_out<j>``, ``<case>_head`` and ``<case>_grad<i>``;
tests/test_ops_issue26.py holds the same cases (names and keyword arguments).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_op26_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

from _mxnet_case import write_cases

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "ops26.npz")


def _nms_input(rs, b, n):
    x = np.zeros((b, n, 6), dtype="float32")
    x[..., 0] = rs.randint(0, 3, (b, n))
    x[..., 1] = rs.rand(b, n)
    xy = rs.rand(b, n, 2) * 10
    wh = rs.rand(b, n, 2) * 4 + 0.5
    x[..., 2:4], x[..., 4:6] = xy, xy + wh
    return x


def cases(rs):
    """(name, op, inputs, kwargs, differentiable inputs)"""
    yield "im2col_2d", "im2col", [rs.randn(2, 3, 6, 7)], \
        dict(kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 1)), [0]
    yield "col2im_2d", "col2im", [rs.randn(2, 3 * 6, 3 * 7)], \
        dict(output_size=(6, 7), kernel=(3, 2), stride=(2, 1), dilate=(1, 2), pad=(1, 1)), [0]
    a = rs.rand(2, 3, 4) * 5
    a[..., 2:] += a[..., :2]
    b = rs.rand(4, 4) * 5
    b[..., 2:] += b[..., :2]
    yield "box_iou", "contrib.box_iou", [a, b], {}, []
    yield "box_iou_center", "contrib.box_iou", [rs.rand(3, 4) + 1, rs.rand(2, 4) + 1], \
        dict(format="center"), []
    x = _nms_input(rs, 2, 12)
    yield "box_nms", "contrib.box_nms", [x], dict(overlap_thresh=0.3), [0]
    yield "box_nms_ids", "contrib.box_nms", [x], \
        dict(overlap_thresh=0.2, id_index=0, valid_thresh=0.1, topk=8, background_id=2), [0]
    yield "box_nms_force_center", "contrib.box_nms", [x], \
        dict(overlap_thresh=0.2, id_index=0, force_suppress=True, out_format="center"), []
    samples = (rs.rand(2, 5) > 0.4).astype("float32") * 2 - 1
    matches = rs.randint(0, 3, (2, 5)).astype("float32")
    anchors = rs.rand(2, 5, 4) * 4
    anchors[..., 2:] += anchors[..., :2] + 0.5
    refs = rs.rand(2, 3, 4) * 4
    refs[..., 2:] += refs[..., :2] + 0.5
    yield "box_encode", "contrib.box_encode", [samples, matches, anchors, refs,
                                               np.array([0.1, 0.2, 0.0, 0.1]),
                                               np.array([0.1, 0.1, 0.2, 0.2])], {}, []
    yield "box_decode", "contrib.box_decode", [rs.randn(2, 5, 4) * 0.3, anchors[:1]], \
        dict(std0=0.1, std1=0.1, std2=0.2, std3=0.2, format="corner"), []
    yield "box_decode_clip", "contrib.box_decode", [rs.randn(2, 5, 4) * 3, rs.rand(1, 5, 4) + 1], \
        dict(clip=1.5), []
    yield "bipartite", "contrib.bipartite_matching", [rs.rand(2, 4, 3)], dict(threshold=0.2), []
    yield "bipartite_asc_topk", "contrib.bipartite_matching", [rs.rand(3, 5)], \
        dict(threshold=0.8, is_ascend=True, topk=1), []
    img = rs.randn(2, 3, 5, 7)
    yield "resize_up", "contrib.BilinearResize2D", [img], dict(height=8, width=11), [0]
    yield "resize_down_noalign", "contrib.BilinearResize2D", [img], \
        dict(height=3, width=4, align_corners=False), [0]
    yield "resize_scale", "contrib.BilinearResize2D", [img], \
        dict(scale_height=1.6, scale_width=0.5), [0]
    yield "resize_odd_scale", "contrib.BilinearResize2D", [img], \
        dict(mode="odd_scale", scale_height=2.0, scale_width=2.0), [0]
    yield "resize_to_even_up", "contrib.BilinearResize2D", [img], dict(mode="to_even_up"), [0]
    pix = rs.rand(4, 5, 3) * 255
    yield "image_to_tensor", "image.to_tensor", [pix], {}, []
    yield "image_to_tensor_batch", "image.to_tensor", [rs.rand(2, 4, 5, 3) * 255], {}, []
    yield "image_normalize", "image.normalize", [rs.rand(3, 4, 5)], \
        dict(mean=(0.1, 0.2, 0.3), std=(0.5, 1.0, 2.0)), [0]
    # MXNet 1.9.1's flips leave the middle row/column of an odd size unwritten and their
    # backward returns the head unflipped: even sizes, no gradients kept
    even = rs.rand(4, 6, 3) * 255
    yield "image_flip_left_right", "image.flip_left_right", [even], {}, []
    yield "image_flip_top_bottom", "image.flip_top_bottom", [even], {}, []
    yield "image_crop", "image.crop", [rs.rand(6, 7, 3)], dict(x=1, y=2, width=3, height=2), [0]
    yield "image_adjust_lighting", "image.adjust_lighting", [pix], dict(alpha=(0.1, -0.2, 0.3)), []
    yield "image_resize", "image.resize", [rs.rand(6, 8, 3)], dict(size=(5, 4)), []
    theta = np.array([[0.9, 0.2, 0.1, -0.15, 1.1, -0.05], [0.6, -0.4, 0.3, 0.5, 0.7, 0.2]])
    yield "grid_affine", "GridGenerator", [theta], dict(transform_type="affine",
                                                          target_shape=(4, 5)), [0]
    yield "grid_warp", "GridGenerator", [rs.randn(2, 2, 3, 4)], dict(transform_type="warp"), [0]
    grid = rs.rand(2, 2, 4, 3) * 2.6 - 1.3             # some points outside [-1, 1]
    yield "bilinear_sampler", "BilinearSampler", [rs.randn(2, 3, 5, 6), grid], {}, [0, 1]
    yield "spatial_transformer", "SpatialTransformer", [rs.randn(2, 2, 6, 5), theta], \
        dict(target_shape=(4, 3), transform_type="affine", sampler_type="bilinear"), [0, 1]


def main():
    write_cases(mx, cases, OUT)


if __name__ == "__main__":
    main()
