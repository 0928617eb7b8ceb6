"""gluon.contrib.nn: PixelShuffle against the definition (checked equal to MXNet 1.9.1 by hand
for 2-D and 3-D), Concurrent/HybridConcurrent, SyncBatchNorm = BatchNorm in one process."""
import itertools

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd, autograd
from mxgrad.base import MXNetError
from mxgrad.gluon import nn
from mxgrad.gluon.contrib.nn import (Concurrent, HybridConcurrent, Identity, PixelShuffle1D,
                                     PixelShuffle2D, PixelShuffle3D, SyncBatchNorm)


def _shuffle_reference(x, factors):
    n, cf = x.shape[:2]
    spatial = x.shape[2:]
    total = int(np.prod(factors))
    c = cf // total
    out = np.zeros((n, c) + tuple(d * f for d, f in zip(spatial, factors)), x.dtype)
    for ch in range(c):
        for offs in itertools.product(*[range(f) for f in factors]):
            flat = int(np.ravel_multi_index(offs, factors)) if factors else 0
            src = x[:, ch * total + flat]
            idx = (slice(None), ch) + tuple(slice(o, None, f) for o, f in zip(offs, factors))
            out[idx] = src
    return out


@pytest.mark.parametrize("cls,factors,spatial", [(PixelShuffle1D, (3,), (4,)),
                                                 (PixelShuffle2D, (2, 3), (3, 2)),
                                                 (PixelShuffle3D, (2, 1, 3), (2, 2, 1))])
def test_pixel_shuffle_matches_definition(cls, factors, spatial):
    rng = np.random.default_rng(0)
    x = rng.normal(size=(2, 2 * int(np.prod(factors))) + spatial).astype(np.float32)
    layer = cls(factors if len(factors) > 1 else factors[0])
    np.testing.assert_array_equal(layer(nd.array(x)).asnumpy(), _shuffle_reference(x, factors))
    layer.hybridize()
    np.testing.assert_array_equal(layer(nd.array(x)).asnumpy(), _shuffle_reference(x, factors))


def test_pixel_shuffle_gradient_is_the_inverse_permutation():
    x = nd.array(np.arange(16.0).reshape(1, 4, 2, 2))
    x.attach_grad()
    head = np.random.default_rng(1).normal(size=(1, 1, 4, 4))
    with autograd.record():
        y = PixelShuffle2D(2)(x)
    y.backward(nd.array(head))
    # backward of a permutation gathers the head gradient back: shuffle(grad) == head
    np.testing.assert_allclose(_shuffle_reference(x.grad.asnumpy(), (2, 2)), head, rtol=1e-6)


def test_pixel_shuffle_bad_factor():
    with pytest.raises(MXNetError, match="factor"):
        PixelShuffle2D((2, 0))
    with pytest.raises(MXNetError, match="factor"):
        PixelShuffle3D((2, 2))
    assert repr(PixelShuffle1D(2)) == "PixelShuffle1D(2)"
    assert repr(PixelShuffle2D((2, 3))) == "PixelShuffle2D((2, 3))"


def test_concurrent_concatenates_children_outputs():
    x = nd.array(np.random.default_rng(2).normal(size=(3, 4)))
    for cls in (Concurrent, HybridConcurrent):
        net = cls(axis=1)
        a, b, c = nn.Dense(2, in_units=4), nn.Dense(3, in_units=4), Identity()
        net.add(a, b, c)
        net.initialize()
        out = net(x).asnumpy()
        expect = np.concatenate([a(x).asnumpy(), b(x).asnumpy(), x.asnumpy()], axis=1)
        np.testing.assert_allclose(out, expect, rtol=1e-6)


def test_sync_batch_norm_is_batch_norm_in_one_process():
    x = nd.array(np.random.default_rng(3).normal(size=(6, 3, 2)))
    sbn, bn = SyncBatchNorm(in_channels=3, num_devices=2), nn.BatchNorm(in_channels=3)
    sbn.initialize()
    bn.initialize()
    with autograd.record():
        ys, yb = sbn(x), bn(x)
    np.testing.assert_allclose(ys.asnumpy(), yb.asnumpy(), rtol=1e-6)
    np.testing.assert_allclose(sbn.running_mean.data().asnumpy(),
                               bn.running_mean.data().asnumpy(), rtol=1e-6)
    with pytest.raises(MXNetError, match="num_devices"):
        SyncBatchNorm(num_devices=0)
