"""Write tests/data/mxnet/deformable.npz: MXNet 1.9.1's outputs, and the gradients of every
input for a seeded head gradient, of ``contrib.DeformableConvolution``, and the outputs
of ``contrib.ModulatedDeformableConvolution`` (whose backward MXNet implements only on
GPU), on seeded float64 inputs (offsets large enough to send taps past the borders, and
whole-pixel ones). Keys are ``<case>_in<i>``, ``<case>_out0``, ``<case>_head0`` and
``<case>_grad<i>``; tests/test_ops_deformable.py holds the same cases (names and keyword
arguments).

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_deformable_fixtures.py
"""
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "deformable.npz")


def _osize(h, w, kw):
    k, s, d, p = (kw.get(a, dflt) for a, dflt in (("kernel", None), ("stride", (1, 1)),
                                                    ("dilate", (1, 1)), ("pad", (0, 0))))
    return tuple((n + 2 * p[i] - d[i] * (k[i] - 1) - 1) // s[i] + 1
                 for i, n in enumerate((h, w)))


def cases(rs):
    """(name, op, keyword arguments, input shapes (N, C, H, W), with mask, with bias,
    offset rule: 'uniform' or 'integer' (whole pixels: the corner cases, zero included,
    which is where a layer's zero-initialized offsets start))"""
    yield "deform_basic", "DeformableConvolution", dict(kernel=(3, 3), pad=(1, 1),
                                                        num_filter=3), (2, 2, 5, 5), False, \
        True, "uniform"
    yield "deform_integer", "DeformableConvolution", dict(kernel=(3, 3), pad=(1, 1),
                                                          num_filter=2), (1, 2, 4, 5), False, \
        True, "integer"
    yield "deform_groups", "DeformableConvolution", dict(
        kernel=(3, 2), stride=(1, 2), dilate=(2, 1), pad=(1, 1), num_filter=4, num_group=2,
        num_deformable_group=2), (1, 4, 6, 7), False, True, "uniform"
    yield "deform_nobias", "DeformableConvolution", dict(kernel=(2, 2), stride=(2, 2),
                                                         num_filter=2, no_bias=True), \
        (2, 3, 5, 6), False, False, "uniform"
    yield "modulated_basic", "ModulatedDeformableConvolution", dict(
        kernel=(3, 3), pad=(1, 1), num_filter=3), (2, 2, 5, 5), True, True, "uniform"
    yield "modulated_groups", "ModulatedDeformableConvolution", dict(
        kernel=(2, 3), stride=(2, 1), dilate=(1, 2), pad=(1, 2), num_filter=4, num_group=2,
        num_deformable_group=2), (1, 4, 6, 5), True, True, "uniform"


def main():
    rs = np.random.RandomState(0)
    out = {}
    for name, op, kw, (n, c, h, w), with_mask, with_bias, rule in cases(rs):
        k = kw["kernel"][0] * kw["kernel"][1]
        dg = kw.get("num_deformable_group", 1)
        g = kw.get("num_group", 1)
        ho, wo = _osize(h, w, kw)
        off = rs.uniform(-2.5, 2.5, (n, 2 * dg * k, ho, wo))
        ins = [rs.randn(n, c, h, w), np.round(off) if rule == "integer" else off]
        if with_mask:
            ins.append(rs.uniform(-0.5, 1.5, (n, dg * k, ho, wo)))
        ins.append(rs.randn(kw["num_filter"], c // g, *kw["kernel"]))
        if with_bias:
            ins.append(rs.randn(kw["num_filter"]))
        arrs = [mx.nd.array(a, dtype="float64") for a in ins]
        for a in arrs:
            a.attach_grad()
        with mx.autograd.record():
            y = getattr(mx.nd.contrib, op)(*arrs, **kw)
        for i, a in enumerate(ins):
            out[f"{name}_in{i}"] = a
        out[f"{name}_out0"] = y.asnumpy()
        if not with_mask:      # MXNet's modulated backward exists only on GPU
            head = rs.randn(*y.shape)
            y.backward(mx.nd.array(head, dtype="float64"))
            out[f"{name}_head0"] = head
            for i in range(len(ins)):
                out[f"{name}_grad{i}"] = arrs[i].grad.asnumpy()
    tmp = OUT + ".tmp.npz"
    np.savez_compressed(tmp, **out)
    os.replace(tmp, OUT)
    print(f"wrote {len(out)} arrays to {os.path.normpath(OUT)}")


if __name__ == "__main__":
    main()
