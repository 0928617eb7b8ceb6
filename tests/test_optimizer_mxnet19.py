"""Optimizers as MXNet 1.9 defines them: FTML, LAMB, Signum's and NAG's state conventions,
multi-precision (float32 master copy of float16 weights), and argument checking."""
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError


def _run(opt, w0, grads):
    w = nd.array(w0, dtype=w0.dtype)
    st = opt.create_state_multi_precision(0, w)
    for g in grads:
        opt.update_multi_precision(0, w, nd.array(g, dtype=w0.dtype), st)
    return w.asnumpy(), st


def test_ftml_matches_the_paper_formula_in_float64():
    rng = np.random.default_rng(0)
    w0, grads = rng.normal(size=(5,)), [rng.normal(size=(5,)) for _ in range(4)]
    kw = dict(learning_rate=0.05, beta1=0.6, beta2=0.999, epsilon=1e-8, wd=0.01,
              rescale_grad=0.5, clip_gradient=0.3)
    w, (d_s, v_s, z_s) = _run(mx.optimizer.FTML(**kw), w0, grads)
    ref, d, v, z = w0.copy(), 0 * w0, 0 * w0, 0 * w0
    for t, g in enumerate(grads, 1):
        g = np.clip(g * 0.5 + 0.01 * ref, -0.3, 0.3)
        v = 0.999 * v + 0.001 * g * g
        d_t = (1 - 0.6 ** t) / 0.05 * (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
        z = 0.6 * z + 0.4 * g - (d_t - 0.6 * d) * ref
        d = d_t
        ref = -z / d_t
    np.testing.assert_allclose(w, ref, rtol=1e-12)
    np.testing.assert_allclose(z_s.asnumpy(), z, rtol=1e-12)
    np.testing.assert_allclose(v_s.asnumpy(), v, rtol=1e-12)


@pytest.mark.parametrize("bias_correction", [True, False])
@pytest.mark.parametrize("bounds", [(None, None), (1e-3, 0.5)])
def test_lamb_matches_its_formula_in_float64(bias_correction, bounds):
    rng = np.random.default_rng(1)
    w0, grads = rng.normal(size=(3, 4)), [rng.normal(size=(3, 4)) for _ in range(3)]
    lb, ub = bounds
    kw = dict(learning_rate=0.01, wd=0.02, rescale_grad=0.8, clip_gradient=0.9,
              bias_correction=bias_correction, lower_bound=lb, upper_bound=ub)
    w, _ = _run(mx.optimizer.LAMB(**kw), w0, grads)
    ref, m, v = w0.copy(), 0 * w0, 0 * w0
    for t, g in enumerate(grads, 1):
        g = np.clip(g * 0.8, -0.9, 0.9)
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mh, vh = (m / (1 - 0.9 ** t), v / (1 - 0.999 ** t)) if bias_correction else (m, v)
        r = mh / (np.sqrt(vh) + 1e-6) + 0.02 * ref
        r1 = np.linalg.norm(ref)
        r1 = max(r1, lb) if lb else r1
        r1 = min(r1, ub) if ub else r1
        ref = ref - 0.01 * (r1 / np.linalg.norm(r)) * r
    np.testing.assert_allclose(w, ref, rtol=1e-12)


def test_signum_momentum_has_mxnets_sign_and_wd_lh_applies_without_momentum():
    w0 = np.array([1.0, -2.0, 3.0])
    g = np.array([0.5, 0.25, -4.0])
    w, mom = _run(mx.optimizer.Signum(learning_rate=0.1, momentum=0.9, wd=0.1, wd_lh=0.01),
                  w0, [g])
    m = -(1 - 0.9) * (g + 0.1 * w0)
    np.testing.assert_allclose(mom.asnumpy(), m)
    np.testing.assert_allclose(w, (1 - 0.1 * 0.01) * w0 + 0.1 * np.sign(m))
    w, _ = _run(mx.optimizer.Signum(learning_rate=0.1, momentum=0.0, wd=0.1, wd_lh=0.01),
                w0, [g])
    np.testing.assert_allclose(w, (1 - 0.1 * (0.1 + 0.01)) * w0 - 0.1 * np.sign(g))


def test_nag_state_is_mxnets_and_weights_match_nesterov():
    w0, grads = np.array([1.0, -1.0]), [np.array([0.5, 2.0]), np.array([-1.0, 0.25])]
    w, mom = _run(mx.optimizer.NAG(learning_rate=0.1, momentum=0.9), w0, grads)
    ref, m = w0.copy(), 0 * w0
    for g in grads:
        m = 0.9 * m - 0.1 * g
        ref = ref + 0.9 * m - 0.1 * g
    np.testing.assert_allclose(w, ref, rtol=1e-12)
    np.testing.assert_allclose(mom.asnumpy(), m, rtol=1e-12)


@pytest.mark.parametrize("name,kw", [("sgd", {"momentum": 0.9}), ("adam", {}),
                                     ("nag", {"momentum": 0.9}), ("lamb", {})])
def test_multi_precision_updates_a_float32_master_copy(name, kw):
    rng = np.random.default_rng(2)
    w0 = rng.normal(size=(6,)).astype(np.float16)
    grads = [rng.normal(size=(6,)).astype(np.float16) for _ in range(3)]
    opt16 = mx.optimizer.create(name, learning_rate=0.01, multi_precision=True, **kw)
    w16, state = _run(opt16, w0, grads)
    opt32 = mx.optimizer.create(name, learning_rate=0.01, **kw)
    w32, _ = _run(opt32, w0.astype(np.float32), [g.astype(np.float32) for g in grads])
    assert w16.dtype == np.float16
    np.testing.assert_array_equal(w16, w32.astype(np.float16))   # rounded master copy
    master = state[1] if name in ("sgd", "nag") else state[0]
    assert master.dtype == np.float32
    np.testing.assert_array_equal(master.asnumpy(), w32)


def test_float16_without_multi_precision_warns():
    with pytest.warns(UserWarning, match="multi_precision=True"):
        mx.optimizer.SGD().create_state_multi_precision(0, nd.ones((2,), dtype="float16"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mx.optimizer.SGD().create_state_multi_precision(0, nd.ones((2,)))


def test_unknown_or_badly_typed_arguments_raise_naming_them():
    with pytest.raises(TypeError, match="learning_rat"):
        mx.optimizer.SGD(learning_rat=0.5)
    with pytest.raises(MXNetError, match="learning_rat"):
        mx.optimizer.create("adam", learning_rat=0.5)
    with pytest.raises(TypeError, match="learning_rate must be a real number"):
        mx.optimizer.SGD(learning_rate="0.1")
    with pytest.raises(MXNetError, match="wd"):
        mx.optimizer.Adam(wd=None or "x")
    with pytest.raises(MXNetError, match="learning_rat"):
        mx.gluon.Trainer(mx.gluon.nn.Dense(2).collect_params(), "sgd", {"learning_rat": 0.5})
