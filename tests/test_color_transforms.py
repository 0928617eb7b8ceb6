"""RandomSaturation, RandomHue, RandomColorJitter, RandomLighting (MXNet 1.9.1's colour
transforms): the hue rotation against Python's colorsys (HLS), the others against their
formulas, with the random factor fixed by mocking the generator."""
import colorsys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.gluon.data.vision import transforms as T


class _Fixed:
    """A generator whose uniform/normal draws return a given value."""

    def __init__(self, value):
        self.value = value

    def uniform(self, lo, hi, size=None):
        assert lo <= self.value <= hi
        return self.value

    def normal(self, mean, std, size=None):
        return np.full(size, self.value)

    def permutation(self, n):
        return np.arange(n)


@pytest.mark.parametrize("alpha", [0.0, 0.1, -0.3, 0.45])
def test_random_hue_rotates_in_hls_space(alpha, monkeypatch):
    rng = np.random.default_rng(0)
    img = rng.integers(0, 256, (4, 5, 3)).astype(np.float32)
    img[0, :3] = [[10, 10, 10], [255, 0, 0], [0, 128, 255]]      # grey, primary, other
    monkeypatch.setattr(mx._rng, "_rng", [_Fixed(alpha)])   # the one generator's state
    out = T.RandomHue(0.5)(mx.nd.array(img)).asnumpy()
    ref = np.array([colorsys.hls_to_rgb((colorsys.rgb_to_hls(*p)[0] + alpha) % 1.0,
                                        *colorsys.rgb_to_hls(*p)[1:])
                    for p in img.reshape(-1, 3) / 255]).reshape(img.shape) * 255
    np.testing.assert_allclose(out, ref, atol=1e-3)


def test_saturation_lighting_and_jitter(monkeypatch):
    img = np.array([[[200, 30, 60], [5, 250, 128]]], dtype=np.float32)
    monkeypatch.setattr(mx._rng, "_rng", [_Fixed(0.5)])   # the one generator's state
    sat = T.RandomSaturation(0.6)(mx.nd.array(img)).asnumpy()
    grey = img @ np.array([0.299, 0.587, 0.114])
    np.testing.assert_allclose(sat, 0.5 * img + 0.5 * grey[..., None], rtol=1e-6)
    light = T.RandomLighting(0.1)(mx.nd.array(img)).asnumpy()
    np.testing.assert_allclose(light, img + T._EIG @ np.full(3, 0.5, np.float32), rtol=1e-6)
    u8 = mx.nd.array(img, dtype="uint8")
    assert T.RandomSaturation(0.6)(u8).dtype == np.uint8
    # the jitter applies its parts in the generator's order: here brightness then contrast
    monkeypatch.setattr(mx._rng, "_rng", [_Fixed(1.0)])   # the one generator's state
    both = T.RandomColorJitter(brightness=0.5, contrast=0.5)(mx.nd.array(img)).asnumpy()
    step = T.RandomContrast(0.5)(T.RandomBrightness(0.5)(mx.nd.array(img))).asnumpy()
    np.testing.assert_allclose(both, step, rtol=1e-6)
    assert repr(T.RandomColorJitter(hue=0.1)).startswith("RandomColorJitter")
