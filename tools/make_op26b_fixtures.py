"""Write tests/data/mxnet/ops26b.npz: MXNet 1.9.1's outputs, and input gradients for seeded
head gradients on every output, of the issue-26 operators added second: linalg
extracttrian/maketrian/gelqf/syevd, contrib.interleaved_matmul_*, contrib.ROIAlign,
contrib.PSROIPooling and Correlation, on seeded inputs. Keys are ``<case>_in<i>``,
``<case>_out<j>``, ``<case>_head<j>`` and ``<case>_grad<i>``; tests/test_ops_issue26b.py
holds the same cases (names and keyword arguments).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_op26b_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

from _mxnet_case import write_cases

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "ops26b.npz")


def cases(rs):
    """(name, op, inputs, kwargs, differentiable inputs)"""
    a = rs.randn(2, 4, 4)
    yield "extracttrian", "linalg.extracttrian", [a], {}, [0]
    yield "extracttrian_upper", "linalg.extracttrian", [a], dict(lower=False), [0]
    yield "extracttrian_off1", "linalg.extracttrian", [a], dict(offset=1), [0]
    yield "extracttrian_offm2", "linalg.extracttrian", [a], dict(offset=-2), [0]
    yield "maketrian", "linalg.maketrian", [rs.randn(2, 6)], {}, [0]
    yield "maketrian_upper_off1", "linalg.maketrian", [rs.randn(3)], dict(offset=1), [0]
    yield "gelqf", "linalg.gelqf", [rs.randn(2, 3, 5)], {}, [0]
    s = rs.randn(2, 4, 4)
    yield "syevd", "linalg.syevd", [s + s.transpose(0, 2, 1)], {}, [0]
    qkv = rs.randn(5, 2, 3 * 2 * 4)       # (seq, batch, 3 * heads * head_dim)
    yield "selfatt_qk", "contrib.interleaved_matmul_selfatt_qk", [qkv], dict(heads=2), [0]
    att = rs.randn(2 * 2, 5, 5)
    yield "selfatt_valatt", "contrib.interleaved_matmul_selfatt_valatt", [qkv, att], \
        dict(heads=2), [0, 1]
    q = rs.randn(5, 2, 2 * 4)
    kv = rs.randn(6, 2, 2 * 2 * 4)
    yield "encdec_qk", "contrib.interleaved_matmul_encdec_qk", [q, kv], dict(heads=2), [0, 1]
    att2 = rs.randn(2 * 2, 5, 6)
    yield "encdec_valatt", "contrib.interleaved_matmul_encdec_valatt", [kv, att2], \
        dict(heads=2), [0, 1]
    feat = rs.randn(2, 3, 7, 8)
    rois = np.array([[0, 0.5, 1.2, 5.3, 6.1], [1, 2.0, 0.0, 7.9, 3.5], [0, -1.5, 3.0, 2.0, 9.0],
                     [1, 3.3, 2.2, 3.6, 2.4]])
    rois2 = rois * [1, 2, 2, 2, 2]              # image coordinates twice the map's
    yield "roialign", "contrib.ROIAlign", [feat, rois], dict(pooled_size=(2, 3),
                                                             spatial_scale=1.0), [0]
    yield "roialign_scaled_ratio", "contrib.ROIAlign", [feat, rois2], \
        dict(pooled_size=(3, 2), spatial_scale=0.5, sample_ratio=2), [0]
    yield "roialign_aligned", "contrib.ROIAlign", [feat, rois[:3]], \
        dict(pooled_size=(2, 2), spatial_scale=1.0, aligned=True), [0]
    yield "roialign_ps", "contrib.ROIAlign", [rs.randn(2, 8, 6, 6), rois], \
        dict(pooled_size=(2, 2), spatial_scale=1.0, position_sensitive=True), [0]
    yield "psroipool", "contrib.PSROIPooling", [rs.randn(2, 2 * 9, 7, 8), rois], \
        dict(spatial_scale=1.0, output_dim=2, pooled_size=3), [0]
    yield "psroipool_group", "contrib.PSROIPooling", [rs.randn(2, 2 * 4, 7, 8), rois2], \
        dict(spatial_scale=0.5, output_dim=2, pooled_size=3, group_size=2), [0]
    rrois = np.array([[0, 3.2, 2.9, 4.0, 3.1, 30.0], [1, 5.0, 4.1, 2.5, 6.0, -75.0],
                      [0, 1.0, 6.5, 3.0, 0.5, 180.0], [1, 4.0, 3.0, 9.0, 2.0, 0.0]])
    yield "rroialign", "contrib.RROIAlign", [feat, rrois], dict(pooled_size=(2, 3),
                                                                spatial_scale=1.0), []
    yield "rroialign_scaled", "contrib.RROIAlign", [feat, rrois * [1, 2, 2, 2, 2, 1]], \
        dict(pooled_size=(3, 2), spatial_scale=0.5, sampling_ratio=2), []
    f1, f2 = rs.randn(2, 3, 6, 7), rs.randn(2, 3, 6, 7)
    yield "correlation", "Correlation", [f1, f2], dict(max_displacement=2, pad_size=2), [0, 1]
    yield "correlation_k3_strides", "Correlation", [f1, f2], \
        dict(kernel_size=3, max_displacement=2, stride1=2, stride2=2, pad_size=3), [0, 1]
    yield "correlation_subtract", "Correlation", [f1, f2], \
        dict(kernel_size=1, max_displacement=1, pad_size=0, is_multiply=False), [0, 1]


def main():
    write_cases(mx, cases, OUT, all_heads=True)


if __name__ == "__main__":
    main()
