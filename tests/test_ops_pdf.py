"""MXNet's ``random_pdf_*`` operators (mxgrad/ops/pdf.py): values and gradients against
MXNet 1.9.1 (tests/data/mxnet/pdf.npz, made by tools/make_pdf_fixtures.py), first and
second order gradients and tangents by float64 central differences (tests/opcheck.py),
the Symbol path their records give, and argument errors."""
import math
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad.base import MXNetError, ShapeError
from opcheck import OpCase, check_op_fixture, jvp_tests, op_tests, randn, uniform

FIX = np.load(os.path.join(os.path.dirname(__file__), "data", "mxnet", "pdf.npz"))
NAMES = sorted({k[:-4] for k in FIX.files if k.endswith("_in0")})


@pytest.mark.parametrize("name", NAMES)
def test_matches_mxnet(name):
    op = "random_pdf_" + name.replace("_log", "").replace("_same_shape", "").replace(
        "_one", "")
    check_op_fixture(FIX, name, op, dict(is_log=name.endswith("_log")), rtol=1e-4,
                     atol=1e-5, grad_rtol=1e-3, grad_atol=1e-4)


def test_fixture_covers_every_operator():
    ops = {n.replace("_log", "").replace("_same_shape", "").replace("_one", "") for n in NAMES}
    assert {"random_pdf_" + o for o in ops} == set(mx.ops.pdf.__all__)


POS = uniform(0.5, 2.0, 2, seed=3)
CNT = np.array([[0., 1, 3], [2, 0, 4]])
SIMPLEX = uniform(0.5, 2.0, 2, 3, 3, seed=4)
SIMPLEX = SIMPLEX / SIMPLEX.sum(-1, keepdims=True)

CASES = [
    OpCase("normal", lambda x, m, s: nd.random_pdf_normal(x, m, s),
           [randn(2, 3), randn(2, seed=1), uniform(0.5, 2, 2, seed=2)]),
    OpCase("normal_log", lambda x, m, s: nd.random_pdf_normal(x, m, s, is_log=True),
           [randn(2, 3), randn(2, seed=1), uniform(0.5, 2, 2, seed=2)]),
    OpCase("uniform", lambda x, lo, hi: nd.random_pdf_uniform(x, lo, hi),
           [uniform(0, 1, 2, 3), -POS, POS]),
    OpCase("gamma", lambda x, a, b: nd.random_pdf_gamma(x, a, b),
           [uniform(0.5, 3, 2, 3), POS + 1, POS]),
    OpCase("exponential", lambda x, lam: nd.random_pdf_exponential(x, lam, is_log=True),
           [uniform(0.5, 3, 2, 3), POS]),
    OpCase("poisson", lambda x, lam: nd.random_pdf_poisson(x, lam), [CNT, POS],
           grad_inputs=(1,)),
    OpCase("negative_binomial", lambda x, k, p: nd.random_pdf_negative_binomial(x, k, p),
           [CNT, POS, uniform(0.2, 0.8, 2, seed=5)], grad_inputs=(1, 2)),
    OpCase("generalized_negative_binomial",
           lambda x, m, a: nd.random_pdf_generalized_negative_binomial(x, m, a, is_log=True),
           [CNT, POS, uniform(0.2, 0.8, 2, seed=5)], grad_inputs=(1, 2)),
    OpCase("dirichlet", lambda x, a: nd.random_pdf_dirichlet(x, a),
           [SIMPLEX, uniform(0.5, 3, 2, 3, seed=6)]),
]
test_forward, test_grad, test_second_order = op_tests(CASES)
test_jvp = jvp_tests(CASES)


def test_discrete_samples_get_zero_gradient():
    x, lam = nd.array(CNT), nd.array(POS)
    x.attach_grad()
    lam.attach_grad()
    with mx.autograd.record():
        y = nd.random_pdf_poisson(x, lam)
    y.backward()
    assert np.array_equal(x.grad.asnumpy(), np.zeros(CNT.shape, dtype=np.float32))
    fact = np.vectorize(math.factorial)(CNT.astype(int))
    want = (CNT / POS[:, None] - 1) * POS[:, None] ** CNT * np.exp(-POS[:, None]) / fact
    np.testing.assert_allclose(lam.grad.asnumpy(), want.sum(1), rtol=1e-5)


def test_symbol_path_from_the_records():
    """``mx.sym.random_pdf_normal`` (the record's alias), shape inference from the sample,
    a graph written as MXNet writes it and a forward equal to the imperative one."""
    s, mu, sig = mx.sym.var("s"), mx.sym.var("mu"), mx.sym.var("sig")
    y = mx.sym.random_pdf_normal(s, mu, sig, is_log=True, name="pdf")
    assert y.infer_shape(s=(2, 5), mu=(2,), sig=(2,))[1] == [(2, 5)]
    d = mx.sym.random_pdf_dirichlet(s, mu)
    assert d.infer_shape(s=(4, 3, 6), mu=(4, 6))[1] == [(4, 3)]
    node = [n for n in y.tojson().split('"op"')[1:] if "pdf" in n]
    assert node and node[0].startswith(': "_random_pdf_normal"')
    args = {"s": nd.array(randn(2, 5)), "mu": nd.array(randn(2, seed=1)),
            "sig": nd.array(uniform(0.5, 2, 2, seed=2))}
    got = mx.sym.load_json(y.tojson()).eval(**args)[0]
    want = nd.random_pdf_normal(args["s"], args["mu"], args["sig"], is_log=True)
    np.testing.assert_allclose(got.asnumpy(), want.asnumpy(), rtol=1e-6)


def test_out_argument_is_written():
    out = nd.zeros((1, 3))
    r = nd.random_pdf_exponential(nd.array([[1, 2, 3]]), nd.array([1]), out=out)
    assert r is out
    np.testing.assert_allclose(out.asnumpy(), np.exp(-np.array([[1, 2, 3.]])), rtol=1e-6)


@pytest.mark.parametrize("call, words", [
    (lambda: nd.random_pdf_normal(nd.ones((2, 3)), nd.ones(2), nd.ones(3)), "sigma"),
    (lambda: nd.random_pdf_normal(nd.ones((3, 2)), nd.ones(2), nd.ones(2)), "mu of shape"),
    (lambda: nd.random_pdf_exponential(nd.ones(2), nd.ones((2, 3))), "lam of shape"),
    (lambda: nd.random_pdf_dirichlet(nd.ones((2, 3)), nd.ones(2)), "alpha of shape"),
    (lambda: nd.random_pdf_dirichlet(nd.ones((2, 3)), nd.array(1.0)), "at least one axis"),
])
def test_bad_shapes_name_the_argument(call, words):
    with pytest.raises(ShapeError, match=words) as info:
        call()
    assert isinstance(info.value, (MXNetError, ValueError))
