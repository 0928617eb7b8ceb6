"""Declarative op tests: one table entry per op drives the forward check against NumPy,
the first-order numerical gradient check and the second-order check (float64 central
differences), and the forward-mode (jvp) check once tangent rules exist.

Use in a test module::

    CASES = [OpCase("exp", nd.exp, [randn(3, 4)], np.exp), ...]
    test_forward, test_grad, test_second_order = op_tests(CASES)
    test_jvp = jvp_tests(CASES)        # forward mode (tangent rules)
"""
from __future__ import annotations

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.autograd import forward_ad
from mxgrad.test_utils import check_numeric_gradient, check_second_order


def randn(*shape, seed=0, low=None, high=None):
    rng = np.random.default_rng(abs(hash((shape, seed))) % (2 ** 32))
    if low is not None:
        return rng.uniform(low, high, size=shape)
    return rng.standard_normal(shape)


def uniform(low, high, *shape, seed=0):
    return randn(*shape, seed=seed, low=low, high=high)


class OpCase:
    """One op test.

    Parameters
    ----------
    name : str
        Test id.
    fn : callable
        Takes NDArrays (one per input), returns an NDArray or a tuple of them.
    inputs : list of NumPy arrays
        Sample inputs (float64; the forward check runs them in float32 too).
    ref : callable, optional
        NumPy reference taking the NumPy inputs; compared with ``fn``'s output.
    grad, second : bool
        Run the first / second order numerical checks.
    grad_inputs : tuple of int, optional
        Inputs whose gradients are checked (others are data, e.g. indices).
    """

    def __init__(self, name, fn, inputs, ref=None, grad=True, second=True, jvp=True,
                 rtol=1e-4, atol=1e-6, eps=1e-6, grad_inputs=None, fwd_dtype="float32",
                 fwd_rtol=1e-5, fwd_atol=1e-6):
        self.name = name
        self.fn = fn
        self.inputs = [np.asarray(x, dtype=np.float64) if np.asarray(x).dtype.kind == "f"
                       else np.asarray(x) for x in inputs]
        self.ref = ref
        self.grad = grad
        self.second = second
        self.jvp = jvp
        self.rtol, self.atol, self.eps = rtol, atol, eps
        self.grad_inputs = grad_inputs
        self.fwd_dtype = fwd_dtype
        self.fwd_rtol, self.fwd_atol = fwd_rtol, fwd_atol

    def __repr__(self):
        return self.name

    def diff_fn(self):
        """``fn`` as a function of the differentiable inputs only."""
        if self.grad_inputs is None:
            return self.fn, self.inputs
        fixed = {i: mx.nd.array(x, dtype=x.dtype) for i, x in enumerate(self.inputs)
                 if i not in self.grad_inputs}

        def f(*diff):
            it = iter(diff)
            args = [fixed[i] if i in fixed else next(it) for i in range(len(self.inputs))]
            return self.fn(*args)
        return f, [self.inputs[i] for i in self.grad_inputs]


def _outs(r):
    return list(r) if isinstance(r, (list, tuple)) else [r]


def run_forward(case: OpCase):
    args = [mx.nd.array(x, dtype=case.fwd_dtype if x.dtype.kind == "f" else x.dtype)
            for x in case.inputs]
    out = _outs(case.fn(*args))
    for o in out:
        assert isinstance(o, mx.nd.NDArray)
        assert o.ndim >= 1, "mxgrad never returns 0-d arrays"
    if case.ref is not None:
        ref_in = [x.astype(case.fwd_dtype) if x.dtype.kind == "f" else x for x in case.inputs]
        ref = _outs(case.ref(*ref_in))
        assert len(ref) == len(out)
        for o, r in zip(out, ref):
            r = np.asarray(r)
            if r.ndim == 0:
                r = r.reshape(1)
            assert o.shape == r.shape, f"shape {o.shape} != reference {r.shape}"
            np.testing.assert_allclose(o.asnumpy(), r, rtol=case.fwd_rtol, atol=case.fwd_atol)
    # float64 in -> float64 out for float ops
    args64 = [mx.nd.array(x, dtype=x.dtype) for x in case.inputs]
    out64 = _outs(case.fn(*args64))
    if case.grad:
        for o in out64:
            assert o.dtype == np.float64, f"float64 inputs gave {o.dtype}"


def run_grad(case: OpCase):
    fn, inputs = case.diff_fn()
    assert check_numeric_gradient(fn, [mx.nd.array(x, dtype=np.float64) for x in inputs],
                                  eps=case.eps, rtol=case.rtol, atol=case.atol)


def run_second(case: OpCase):
    fn, inputs = case.diff_fn()
    assert check_second_order(fn, [mx.nd.array(x, dtype=np.float64) for x in inputs],
                              rtol=max(case.rtol * 10, 1e-3), atol=max(case.atol * 10, 1e-5))


def run_jvp(case: OpCase, seeds=(0, 1)):
    """Forward mode: the tangents of ``case.fn``'s outputs for random tangents on the
    (float64) differentiable inputs, computed with ``forward_ad.make_dual``, against
    central differences of ``fn`` along the tangents."""
    fn, inputs = case.diff_fn()
    xs = [np.asarray(x, dtype=np.float64) for x in inputs]
    for seed in seeds:
        rng = np.random.default_rng(seed)
        ts = [rng.standard_normal(x.shape) for x in xs]
        with forward_ad.dual_level():
            duals = [forward_ad.make_dual(mx.nd.array(x, dtype=np.float64),
                                          mx.nd.array(t, dtype=np.float64))
                     for x, t in zip(xs, ts)]
            outs = _outs(fn(*duals))
            analytic = []
            for o in outs:
                primal, tangent = forward_ad.unpack_dual(o)
                if tangent is not None:
                    assert tangent.shape == primal.shape, \
                        f"tangent shape {tangent.shape} != output shape {primal.shape}"
                    assert tangent.dtype == primal.dtype, \
                        f"tangent dtype {tangent.dtype} != output dtype {primal.dtype}"
                    analytic.append(tangent.asnumpy())
                else:
                    analytic.append(np.zeros(primal.shape))
        eps = case.eps
        plus = _outs(fn(*[mx.nd.array(x + eps * t, dtype=np.float64) for x, t in zip(xs, ts)]))
        minus = _outs(fn(*[mx.nd.array(x - eps * t, dtype=np.float64) for x, t in zip(xs, ts)]))
        for k, (a, p, m) in enumerate(zip(analytic, plus, minus)):
            num = (p.asnumpy().astype(np.float64) - m.asnumpy().astype(np.float64)) / (2 * eps)
            np.testing.assert_allclose(a, num, rtol=case.rtol, atol=case.atol,
                                       err_msg=f"{case.name}: tangent of output {k} differs "
                                               f"from central differences (seed {seed})")


def jvp_tests(cases):
    """Return ``test_jvp`` parametrized over the differentiable cases with ``jvp=True``."""
    jcases = [c for c in cases if c.grad and c.jvp]

    @pytest.mark.parametrize("case", jcases, ids=[c.name for c in jcases])
    def test_jvp(case):
        run_jvp(case)

    return test_jvp


def op_tests(cases):
    """Return (test_forward, test_grad, test_second_order) parametrized over ``cases``."""
    ids = [c.name for c in cases]

    @pytest.mark.parametrize("case", cases, ids=ids)
    def test_forward(case):
        run_forward(case)

    gcases = [c for c in cases if c.grad]

    @pytest.mark.parametrize("case", gcases, ids=[c.name for c in gcases])
    def test_grad(case):
        run_grad(case)

    scases = [c for c in cases if c.grad and c.second]

    @pytest.mark.parametrize("case", scases, ids=[c.name for c in scases])
    def test_second_order(case):
        run_second(case)

    return test_forward, test_grad, test_second_order


def run_np_face(case: OpCase):
    """The same op on the ``mx.np`` face (DESIGN 17: one op, two faces): inputs given as
    ``mx.np`` arrays give ``mx.np`` arrays of the same values as the ``mx.nd`` face, and
    gradients through the NumPy face equal those through ``mx.nd`` (the same graph)."""
    args = [mx.nd.array(x, dtype=x.dtype) for x in case.inputs]
    nd_out = _outs(case.fn(*args))
    np_args = [a.as_np_ndarray() for a in args]
    np_out = _outs(case.fn(*np_args))
    assert len(np_out) == len(nd_out)
    for o, r in zip(np_out, nd_out):
        assert type(o) is mx.np.ndarray, f"{case.name}: the NumPy face gave {type(o).__name__}"
        np.testing.assert_array_equal(o.asnumpy().reshape(r.shape), r.asnumpy())
    if not case.grad:
        return
    diff = [i for i in range(len(args))
            if (case.grad_inputs is None or i in case.grad_inputs)
            and np.dtype(args[i].dtype).kind == "f"]
    grads = []
    for face_args in (args, np_args):
        for i in diff:
            face_args[i].attach_grad()
        with mx.autograd.record():
            outs = _outs(case.fn(*face_args))
            total = None
            for k, o in enumerate(outs):
                if o.dtype == np.float64:
                    term = (o * (k + 1.5)).sum()
                    total = term if total is None else total + term
        if total is None:
            return
        total.backward()
        grads.append([face_args[i].grad.asnumpy() for i in diff])
        for i in diff:
            assert type(face_args[i].grad) is type(face_args[i])
    for g_nd, g_np in zip(*grads):
        np.testing.assert_allclose(g_np, g_nd, rtol=1e-12, atol=1e-12)


def face_tests(cases):
    """Return ``test_np_face`` parametrized over ``cases`` (see :func:`run_np_face`)."""
    @pytest.mark.parametrize("case", cases, ids=[c.name for c in cases])
    def test_np_face(case):
        run_np_face(case)

    return test_np_face


def check_op_fixture(fix, name, op, kw, rtol=1e-5, atol=1e-5, grad_rtol=None, grad_atol=None):
    """Run ``mx.nd.<op>`` (a dotted name, e.g. ``contrib.ROIAlign``) on the inputs of
    fixture case ``name`` (``tools/_mxnet_case.py``'s layout: ``<name>_in<i>``,
    ``_out<j>``, head gradient ``_head`` or ``_head<j>``, ``_grad<i>``) and compare
    outputs and input gradients with MXNet's."""
    fn = mx.nd
    for part in op.split("."):
        fn = getattr(fn, part)
    ins = [mx.nd.array(fix[f"{name}_in{i}"]) for i in range(6) if f"{name}_in{i}" in fix]
    for a in ins:
        a.attach_grad()
    with mx.autograd.record():
        res = fn(*ins, **kw)
    res = list(res) if isinstance(res, (list, tuple)) else [res]
    for j, r in enumerate(res):
        np.testing.assert_allclose(r.asnumpy(), fix[f"{name}_out{j}"], rtol=rtol, atol=atol)
    if f"{name}_head" in fix:
        res[0].backward(mx.nd.array(fix[f"{name}_head"]))
    elif f"{name}_head0" in fix:
        mx.autograd.backward(res, [mx.nd.array(fix[f"{name}_head{j}"])
                                   for j in range(len(res))])
    else:
        return
    for i, a in enumerate(ins):
        if f"{name}_grad{i}" in fix:
            np.testing.assert_allclose(a.grad.asnumpy(), fix[f"{name}_grad{i}"],
                                       rtol=grad_rtol or rtol, atol=grad_atol or atol)
