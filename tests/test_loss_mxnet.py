"""Every ``gluon.loss`` class against MXNet 1.9.1 (issue 24, item 12): values and the
gradient of the first input, on the inputs and settings stored in
tests/data/mxnet/losses.npz (made by tools/make_loss_fixtures.py with real MXNet), so a
silent difference such as KLDivLoss's mean-instead-of-sum cannot come back."""
import json
import os

import numpy as np
import pytest

from mxgrad import autograd, gluon, nd

_FIXTURE = os.path.join(os.path.dirname(__file__), "data", "mxnet", "losses.npz")
with np.load(_FIXTURE, allow_pickle=False) as _z:
    _DATA = {k: _z[k] for k in _z.files}
_CASES = json.loads(str(_DATA["__cases__"]))


def _case_id(i):
    c = _CASES[i]
    opts = ",".join(f"{k}={v}" for k, v in c["init"].items())
    kws = ",".join(c["kw"])
    return f"{i}-{c['cls']}({opts}){'+' + kws if kws else ''}"


def test_every_loss_class_has_fixtures():
    objects = [getattr(gluon.loss, n) for n in dir(gluon.loss)]
    losses = {c for c in objects if isinstance(c, type) and issubclass(c, gluon.loss.Loss)
              and c is not gluon.loss.Loss}       # aliases (SoftmaxCELoss...) count once
    assert losses == {getattr(gluon.loss, c["cls"]) for c in _CASES}


@pytest.mark.parametrize("i", range(len(_CASES)), ids=_case_id)
def test_loss_matches_mxnet(i):
    c = _CASES[i]
    loss = getattr(gluon.loss, c["cls"])(**c["init"])
    args = [nd.array(_DATA[f"{i}_a{j}"]) for j in range(c["nargs"])]
    # as MXNet 1.9.1, a loss takes its inputs positionally: sample_weight (and
    # SigmoidBCE's pos_weight) after the data, None where not given
    kws = {k: nd.array(_DATA[f"{i}_kw_{k}"]) for k in c["kw"]}
    extra = [kws.get("sample_weight")] if kws else []
    if "pos_weight" in kws:
        extra.append(kws["pos_weight"])
    args[0].attach_grad()
    with autograd.record():
        out = loss(*args, *extra)
    ref = _DATA[f"{i}_out"]
    assert out.shape == ref.shape and out.dtype == np.float32
    np.testing.assert_allclose(out.asnumpy(), ref, rtol=2e-5, atol=2e-6)
    out.backward(nd.array(_DATA[f"{i}_head"]))
    if c["grad"]:
        # float32 gradients through softmax/distances: summation order differs
        np.testing.assert_allclose(args[0].grad.asnumpy(), _DATA[f"{i}_grad"],
                                   rtol=1e-4, atol=1e-5)


def test_poisson_full_with_a_zero_target_is_finite():
    # MXNet 1.9.1 returns NaN here (0 * log 0 in the Stirling term it then masks out);
    # mxgrad masks before the log, so the value is the one without the term
    pred, target = nd.array([[0.5, -0.2]]), nd.array([[0.0, 3.0]])
    full = gluon.loss.PoissonNLLLoss(compute_full=True)(pred, target).asnumpy()
    plain = np.exp([0.5, -0.2]) - np.array([0.0, 3.0]) * [0.5, -0.2]
    stirling = 3 * np.log(3) - 3 + 0.5 * np.log(2 * 3 * np.pi)
    np.testing.assert_allclose(full, [(plain.sum() + stirling) / 2], rtol=1e-6)
