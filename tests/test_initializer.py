"""mx.init: statistics and bounds of each initializer, name dispatch, registry."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import ShapeError, StateError
from mxgrad.initializer import InitDesc


def run(init, shape, name="x_weight", dtype="float32"):
    arr = nd.zeros(shape, dtype=dtype)
    init(InitDesc(name), arr)
    return arr.asnumpy()


def test_zero_one_constant():
    assert (run(mx.init.Zero(), (3, 4)) == 0).all()
    assert (run(mx.init.One(), (3, 4)) == 1).all()
    assert (run(mx.init.Constant(2.5), (3, 4)) == 2.5).all()
    a = run(mx.init.Constant(np.arange(4.0)), (2, 4))
    np.testing.assert_array_equal(a, np.tile(np.arange(4.0), (2, 1)))
    with pytest.raises(ShapeError):
        run(mx.init.Constant(np.arange(3.0)), (2, 4))


def test_uniform_bounds_and_stats():
    mx.random.seed(1)
    a = run(mx.init.Uniform(), (200, 300))
    assert np.abs(a).max() <= 0.07
    assert abs(a.mean()) < 1e-3
    np.testing.assert_allclose(a.std(), 0.07 / np.sqrt(3), rtol=0.02)
    b = run(mx.init.Uniform(2.0), (100, 100))
    assert np.abs(b).max() <= 2.0 and np.abs(b).max() > 1.9


def test_normal_stats():
    mx.random.seed(2)
    a = run(mx.init.Normal(), (300, 300))
    np.testing.assert_allclose(a.std(), 0.01, rtol=0.02)
    a = run(mx.init.Normal(sigma=3.0), (300, 300))
    np.testing.assert_allclose(a.std(), 3.0, rtol=0.02)
    assert abs(a.mean()) < 0.05


@pytest.mark.parametrize("factor_type", ["avg", "in", "out"])
@pytest.mark.parametrize("rnd_type", ["uniform", "gaussian"])
def test_xavier_all_modes(rnd_type, factor_type):
    mx.random.seed(3)
    shape = (64, 32, 3, 3)
    fan_in, fan_out = 32 * 9, 64 * 9
    factor = {"avg": (fan_in + fan_out) / 2.0, "in": fan_in, "out": fan_out}[factor_type]
    scale = np.sqrt(3.0 / factor)
    a = run(mx.init.Xavier(rnd_type=rnd_type, factor_type=factor_type, magnitude=3), shape)
    if rnd_type == "uniform":
        assert np.abs(a).max() <= scale + 1e-7
        np.testing.assert_allclose(a.std(), scale / np.sqrt(3), rtol=0.03)
    else:
        np.testing.assert_allclose(a.std(), scale, rtol=0.03)


def test_xavier_default_bound_2d():
    mx.random.seed(4)
    a = run(mx.init.Xavier(), (50, 150))
    bound = np.sqrt(3.0 / ((50 + 150) / 2.0))
    assert np.abs(a).max() <= bound
    assert np.abs(a).max() > 0.95 * bound


def test_xavier_rejects_vectors_and_bad_modes():
    with pytest.raises(ShapeError, match="vector"):
        run(mx.init.Xavier(), (5,))
    with pytest.raises(StateError, match="factor type"):
        run(mx.init.Xavier(factor_type="bad"), (5, 5))
    with pytest.raises(StateError, match="random type"):
        run(mx.init.Xavier(rnd_type="bad"), (5, 5))


def test_msraprelu():
    mx.random.seed(5)
    init = mx.init.MSRAPrelu(slope=0.0)
    a = run(init, (200, 100))
    np.testing.assert_allclose(a.std(), np.sqrt(2.0 / 150), rtol=0.03)
    assert init.dumps() == '["msraprelu", {"factor_type": "avg", "slope": 0.0}]'


@pytest.mark.parametrize("rand_type", ["uniform", "normal"])
def test_orthogonal(rand_type):
    a = run(mx.init.Orthogonal(scale=2.0, rand_type=rand_type), (4, 2, 3))
    m = a.reshape(4, 6)
    np.testing.assert_allclose(m @ m.T, 4.0 * np.eye(4), atol=1e-4)
    b = run(mx.init.Orthogonal(scale=1.0), (6, 3)).reshape(6, 3)
    np.testing.assert_allclose(b.T @ b, np.eye(3), atol=1e-5)


def test_suffix_dispatch():
    init = mx.init.Uniform(5.0)
    assert (run(init, (3,), "fc_bias") == 0).all()
    assert (run(init, (3,), "bn_gamma") == 1).all()
    assert (run(init, (3,), "bn_beta") == 0).all()
    assert (run(init, (3,), "bn_running_mean") == 0).all()
    assert (run(init, (3,), "bn_running_var") == 1).all()
    assert (run(init, (3,), "bn_moving_var") == 1).all()
    w = run(init, (30, 30), "fc_weight")
    assert np.abs(w).max() > 1.0
    with pytest.raises(StateError, match="Unknown initialization pattern"):
        run(init, (3,), "mystery")
    # legacy call with a plain name
    arr = nd.ones((3,))
    init("fc_bias", arr)
    assert (arr.asnumpy() == 0).all()


def test_init_attr_takes_precedence():
    arr = nd.zeros((2, 2))
    mx.init.Uniform()(InitDesc("fc_bias", {"__init__": "ones"}), arr)
    assert (arr.asnumpy() == 1).all()
    mx.init.Uniform()(InitDesc("fc_weight", {"__init__": mx.init.Constant(3)}), arr)
    assert (arr.asnumpy() == 3).all()


def test_registry_and_create():
    assert isinstance(mx.init.create("zeros"), mx.init.Zero)
    assert isinstance(mx.init.create("ONES"), mx.init.One)
    assert isinstance(mx.init.create("xavier"), mx.init.Xavier)
    x = mx.init.create("xavier", magnitude=2.0)
    assert x.magnitude == 2.0
    y = mx.init.create(x.dumps())
    assert isinstance(y, mx.init.Xavier) and y.magnitude == 2.0
    n = mx.init.Normal(0.3)
    assert mx.init.create(n) is n
    with pytest.raises(StateError, match="known initializers: .*xavier"):
        mx.init.create("nosuchinit")
    assert mx.init is mx.initializer


def test_custom_registered_initializer():
    @mx.init.register
    class Fives(mx.init.Initializer):
        def _init_weight(self, name, arr):
            arr[:] = 5

    arr = nd.zeros((2,))
    mx.init.create("fives")(InitDesc("a_weight"), arr)
    assert arr.asnumpy().tolist() == [5.0, 5.0]


def test_seed_reproducible():
    mx.random.seed(42)
    a = run(mx.init.Xavier(), (10, 10))
    mx.random.seed(42)
    b = run(mx.init.Xavier(), (10, 10))
    np.testing.assert_array_equal(a, b)


def test_float64_target_keeps_dtype():
    arr = nd.zeros((3, 3), dtype="float64")
    mx.init.Normal(1.0)(InitDesc("w_weight"), arr)
    assert arr.dtype == np.float64


def test_mixed_and_load():
    init = mx.init.Mixed([".*bias", ".*"], [mx.init.Zero(), mx.init.Constant(4)])
    a, b = nd.ones((2,)), nd.zeros((2,))
    init("fc_bias", a)
    init("fc_weight", b)
    assert a.asnumpy().tolist() == [0, 0] and b.asnumpy().tolist() == [4, 4]
    load = mx.init.Load({"arg:fc_weight": nd.array([1.0, 2.0])}, default_init=mx.init.One())
    c, d = nd.zeros((2,)), nd.zeros((3,))
    load("fc_weight", c)
    load("other_weight", d)
    assert c.asnumpy().tolist() == [1, 2] and d.asnumpy().tolist() == [1, 1, 1]
    with pytest.raises(ShapeError):
        load("fc_weight", nd.zeros((3,)))


def test_lstmbias_and_bilinear():
    a = nd.zeros((8,))
    mx.init.LSTMBias(2.0)._init_weight("b", a)
    assert a.asnumpy().tolist() == [0, 0, 2, 2, 0, 0, 0, 0]
    k = nd.zeros((1, 1, 4, 4))
    mx.init.Bilinear()._init_weight("up", k)
    row = np.array([0.25, 0.75, 0.75, 0.25])
    np.testing.assert_allclose(k.asnumpy()[0, 0], np.outer(row, row))
