"""nd.*_update ops against MXNet 1.9.1 (tests/data/mxnet/update_ops.json, written by
tools/make_update_op_fixtures.py): returned weight and every state after the call; with
out=weight they update in place (MXNet's own mutation test), without out the weight is kept;
the legacy flat names (onehot_encode, choose/fill_element_0index, reset_arrays, random_*)."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError

with open(os.path.join(os.path.dirname(__file__), "data", "mxnet", "update_ops.json")) as f:
    CASES = json.load(f)


@pytest.mark.parametrize("case", CASES, ids=[c["op"] for c in CASES])
def test_update_op_matches_mxnet(case):
    arrays = [nd.array(a) for a in case["inputs"]]
    before = arrays[0].asnumpy().copy()
    ret = getattr(nd, case["op"])(*arrays, **case["kwargs"])
    np.testing.assert_allclose(ret.asnumpy(), case["result"], rtol=1e-5, atol=1e-6)
    np.testing.assert_array_equal(arrays[0].asnumpy(), before)      # no out: weight kept
    for got, want in zip(arrays[1:], case["after"][1:]):
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", CASES, ids=[c["op"] for c in CASES])
def test_update_op_with_out_weight_updates_in_place(case):
    arrays = [nd.array(a) for a in case["inputs"]]
    w = arrays[0]
    ret = getattr(nd, case["op"])(*arrays, out=w, **case["kwargs"])
    assert ret is w
    np.testing.assert_allclose(w.asnumpy(), case["result"], rtol=1e-5, atol=1e-6)


def test_mp_updates_run_on_the_float32_master_copy():
    rng = np.random.default_rng(0)
    w32 = rng.uniform(-1, 1, (5,)).astype(np.float32)
    g = rng.uniform(-1, 1, (5,)).astype(np.float16)
    w16, mom, master = nd.array(w32, dtype="float16"), nd.zeros((5,)), nd.array(w32)
    nd.mp_sgd_mom_update(w16, nd.array(g, dtype="float16"), mom, master, lr=0.1,
                         momentum=0.9, wd=0.01, out=w16)
    ref_w, ref_m = nd.array(w32), nd.zeros((5,))
    nd.sgd_mom_update(ref_w, nd.array(g.astype(np.float32)), ref_m, lr=0.1, momentum=0.9,
                      wd=0.01, out=ref_w)
    np.testing.assert_array_equal(master.asnumpy(), ref_w.asnumpy())
    np.testing.assert_array_equal(w16.asnumpy(), ref_w.asnumpy().astype(np.float16))
    assert w16.dtype == np.float16


def test_lamb_phases_equal_the_optimizer():
    rng = np.random.default_rng(1)
    w0, g0 = rng.normal(size=(4, 3)).astype(np.float32), rng.normal(size=(4, 3)).astype(np.float32)
    w, mean, var = nd.array(w0), nd.zeros((4, 3)), nd.zeros((4, 3))
    r = nd.lamb_update_phase1(w, nd.array(g0), mean, var, t=1, wd=0.01, rescale_grad=0.5)
    nd.lamb_update_phase2(w, r, w.norm(), r.norm(), lr=0.05, out=w)
    opt = mx.optimizer.LAMB(learning_rate=0.05, wd=0.01, rescale_grad=0.5)
    w2 = nd.array(w0)
    opt.update(0, w2, nd.array(g0), opt.create_state(0, w2))
    np.testing.assert_allclose(w.asnumpy(), w2.asnumpy(), rtol=1e-6, atol=1e-7)  # norms: f32 vs f64


def test_update_ops_check_their_arguments():
    with pytest.raises(MXNetError, match="grad has shape"):
        nd.sgd_update(nd.ones((2,)), nd.ones((3,)), lr=0.1)
    with pytest.raises(MXNetError, match="mom"):
        nd.sgd_mom_update(nd.ones((2,)), nd.ones((2,)), np.ones(2), lr=0.1)


def test_legacy_flat_names():
    out = nd.zeros((3, 4))
    nd.onehot_encode(nd.array([1, 3, 0]), out)
    np.testing.assert_array_equal(out.asnumpy(), np.eye(4, dtype=np.float32)[[1, 3, 0]])
    x = nd.array([[1, 2, 3], [4, 5, 6]])
    np.testing.assert_array_equal(nd.choose_element_0index(x, nd.array([2, 1])).asnumpy(),
                                  [3, 5])
    np.testing.assert_array_equal(
        nd.fill_element_0index(x, nd.array([7, 8]), nd.array([1, 0])).asnumpy(),
        [[1, 7, 3], [8, 5, 6]])
    a, b = nd.ones((2,)), nd.ones((2, 2))
    nd.reset_arrays(a, b, num_arrays=2)
    assert a.asnumpy().sum() == 0 and b.asnumpy().sum() == 0
    mx.random.seed(3)
    u = nd.random_uniform(low=2, high=3, shape=(50,))
    assert u.shape == (50,) and 2 <= u.asnumpy().min() and u.asnumpy().max() < 3
    assert nd.uniform is mx.random.uniform and nd.random_normal is mx.random.normal
    assert nd.normal(shape=(2, 3)).shape == (2, 3)
