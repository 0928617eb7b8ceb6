"""Executors (Symbol.bind / simple_bind) on the planned graph: MXNet's numbers, its
grad_req semantics and errors, and the plan's own guarantees (op steps equal the
imperative ops, node steps keep Dropout/BatchNorm semantics, one node per call)."""
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, nd, sym
from mxgrad.base import MXNetError
from mxgrad.symbol.plan import Plan

import executor_cases

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet")


@pytest.fixture(scope="module")
def fixtures():
    with np.load(os.path.join(DATA, "executor.npz")) as f:
        return dict(f)


@pytest.mark.parametrize("name", sorted(executor_cases.CASES))
def test_executor_equals_mxnet(name, fixtures):
    got = executor_cases.run(mx, name)
    want = {k.split("/", 1)[1]: v for k, v in fixtures.items() if k.startswith(name + "/")}
    assert sorted(got) == sorted(want)
    for k in want:
        np.testing.assert_allclose(got[k], want[k], rtol=1e-5, atol=1e-6, err_msg=k)


def test_grad_req_add_accumulates_and_null_leaves_alone():
    x, w = sym.var("x"), sym.var("w")
    y = sym.sum(x * w)
    ex = y.bind(mx.cpu(), {"x": nd.array([1.0, 2.0]), "w": nd.array([3.0, 4.0])},
                args_grad={"x": nd.ones(2), "w": nd.ones(2)},
                grad_req={"x": "add", "w": "null"})
    for _ in range(2):
        ex.forward(is_train=True)
        ex.backward()
    assert ex.grad_dict["x"].asnumpy().tolist() == [7.0, 9.0]    # 1 + 3 + 3, 1 + 4 + 4
    assert ex.grad_dict["w"].asnumpy().tolist() == [1.0, 1.0]    # untouched


def test_forward_kwargs_copy_into_arguments_and_check_them():
    x = sym.var("x")
    ex = (x * 2).simple_bind(mx.cpu(), x=(2,), grad_req="null")
    assert ex.forward(x=np.array([1.0, 5.0], np.float32))[0].asnumpy().tolist() == [2.0, 10.0]
    assert ex.arg_dict["x"].asnumpy().tolist() == [1.0, 5.0]
    with pytest.raises(MXNetError, match="Unknown argument y"):
        ex.forward(y=nd.ones(2))
    with pytest.raises(MXNetError, match="Shape not match"):
        ex.forward(x=nd.ones(3))
    with pytest.raises(TypeError, match="NDArray"):
        ex.forward(x=[1, 2])


def test_bind_refuses_missing_and_misshaped_arguments():
    y = sym.var("a") + sym.var("b")
    with pytest.raises(ValueError, match="key `b` is missing in `args`"):
        y.bind(mx.cpu(), {"a": nd.ones(2)})
    with pytest.raises(ValueError, match="Length of args"):
        y.bind(mx.cpu(), [nd.ones(2)])
    ex = y.bind(mx.cpu(), [nd.ones(2), nd.ones(2)], args_grad=[nd.ones(2), nd.ones(2)],
                grad_req={"a": "write", "not_an_argument": "add"})   # ignored, as MXNet
    assert ex._grad_req == ["write", "null"]
    with pytest.raises(ValueError, match="grad_req 'maybe'"):
        y.bind(mx.cpu(), [nd.ones(2), nd.ones(2)], args_grad=[nd.ones(2), nd.ones(2)],
               grad_req="maybe")
    with pytest.raises(ValueError, match="Shape"):
        y.bind(mx.cpu(), [nd.ones(2), nd.ones(2)], args_grad=[nd.ones(3), nd.ones(2)])


def test_backward_before_forward_runs_it_and_wrong_head_gradients_raise():
    x = sym.var("x")
    ex = sym.exp(x).simple_bind(mx.cpu(), x=(2,))
    ex.arg_dict["x"][:] = nd.array([0.0, 1.0])
    ex.backward(nd.ones(2))            # MXNet allows it; the forward it needs runs first
    np.testing.assert_allclose(ex.grad_dict["x"].asnumpy(), np.exp([0.0, 1.0]), rtol=1e-6)
    ex.forward(is_train=True)
    with pytest.raises(ValueError, match="shape"):
        ex.backward(nd.ones(3))
    with pytest.raises(ValueError, match="output gradients"):
        ex.backward([nd.ones(2), nd.ones(2)])


def test_monitor_sees_every_node_output():
    x = sym.var("x")
    y = sym.tanh(sym.FullyConnected(x, num_hidden=2, name="fc"), name="t")
    ex = y.simple_bind(mx.cpu(), x=(1, 3), grad_req="null")
    seen = {}
    ex.set_monitor_callback(lambda name, arr: seen.__setitem__(name, arr.asnumpy()))
    ex.arg_dict["x"][:] = 1
    ex.arg_dict["fc_weight"][:] = 0.5
    ex.forward()
    assert sorted(seen) == ["fc_output", "t_output"]
    np.testing.assert_allclose(seen["t_output"], np.tanh(seen["fc_output"]))
    np.testing.assert_allclose(seen["fc_output"], [[1.5, 1.5]])


def test_copy_params_from_casts_and_refuses_unknown_names():
    y = sym.FullyConnected(sym.var("data"), num_hidden=2, name="fc")
    ex = y.simple_bind(mx.cpu(), data=(1, 2))
    ex.copy_params_from({"fc_weight": nd.ones((2, 2), dtype="float64")})
    assert ex.arg_dict["fc_weight"].dtype == np.float32
    assert ex.arg_dict["fc_weight"].asnumpy().tolist() == [[1.0, 1.0], [1.0, 1.0]]
    with pytest.raises(ValueError, match="not in the arguments"):
        ex.copy_params_from({"nope": nd.ones(1)})
    ex.copy_params_from({"nope": nd.ones(1)}, allow_extra_params=True)


def test_dropout_in_a_plan_draws_the_imperative_masks():
    x = sym.var("x")
    y = sym.Dropout(x * 1.0, p=0.5)
    ex = y.simple_bind(mx.cpu(), x=(50,))
    ex.arg_dict["x"][:] = 1
    mx.random.seed(3)
    planned = ex.forward(is_train=True)[0].asnumpy()
    mx.random.seed(3)
    with autograd.train_mode():
        imperative = nd.Dropout(nd.ones(50), p=0.5).asnumpy()
    np.testing.assert_array_equal(planned, imperative)
    assert 0 < (planned == 0).sum() < 50


def _steps(plan):
    return [("op", s[1].name) if s[0] == 0 else ("node", s[1].op) for s in plan.steps]


def test_plan_replays_pure_nodes_and_keeps_side_effect_nodes():
    x = sym.var("x")
    y = sym.BatchNorm(sym.FullyConnected(x, num_hidden=3, name="fc"), name="bn")
    y = sym.Dropout(sym.relu(y), p=0.3) + sym.random.normal_like(y)
    ex = y.simple_bind(mx.cpu(), x=(4, 2))
    ex.forward(is_train=True)
    plan = next(iter(ex._plans.values()))
    kinds = _steps(plan)
    assert kinds[0] == ("op", "FullyConnected")
    # training BatchNorm is one op of its inputs that writes the running statistics (aux
    # variables) in place, Dropout one op that draws its mask: op steps; a sampler draws
    # outside any recorded op: a node step
    assert ("op", "BatchNorm") in kinds and ("op", "Dropout") in kinds
    assert ("op", "relu") in kinds and ("node", "_random_normal_like") in kinds
    assert sorted(plan.names[i] for i in plan.written) == ["bn_moving_mean", "bn_moving_var"]
    assert plan.random


def test_dropout_op_step_makes_the_plan_keep_random_state():
    """A plan whose only draws are in op steps (Dropout) still keeps each call's random
    state, so create_graph's replay draws the call's masks."""
    x = sym.var("x")
    plan = Plan.build(sym.Dropout(x * 2, p=0.5), ["x"], [nd.ones(6)], training=True)
    assert _steps(plan) == [("op", "_mul_scalar"), ("op", "Dropout")]
    assert plan.random
    assert not Plan.build(sym.Dropout(x * 2, p=0.5), ["x"], [nd.ones(6)],
                          training=False).random


def test_plan_build_leaves_random_state_and_inputs_alone():
    x = sym.var("x")
    y = sym.Dropout(x, p=0.5)
    mx.random.seed(11)
    before = mx.random.generator().bit_generator.state
    v = nd.ones(8)
    Plan.build(y, ["x"], [v], training=True)
    assert mx.random.generator().bit_generator.state == before
    assert v.asnumpy().tolist() == [1.0] * 8


def test_planned_call_is_one_node_with_version_checks():
    x = sym.var("x")
    plan = Plan.build(sym.exp(x) * x, ["x"], [nd.ones(3)], training=True)
    from mxgrad.symbol.plan import run_planned
    a = nd.array([0.0, 1.0, 2.0])
    a.attach_grad()
    with autograd.record():
        out = run_planned(plan, [a], "f")[0]
    assert out._node.op.name == "f"
    out.backward()
    want = np.exp([0.0, 1.0, 2.0]) * (1 + np.array([0.0, 1.0, 2.0]))
    np.testing.assert_allclose(a.grad.asnumpy(), want, rtol=1e-6)
    with autograd.record():
        out = run_planned(plan, [a], "f")[0]
    a[:] = 5          # modified after the planned call saved it
    with pytest.raises(MXNetError, match="modified in place"):
        out.backward()


def test_second_order_through_a_planned_call_equals_imperative():
    x = sym.var("x")
    y = sym.sin(x) * x
    plan = Plan.build(y, ["x"], [nd.ones(3)], training=True)
    from mxgrad.symbol.plan import run_planned
    v = np.array([0.3, 1.0, -2.0])
    a = nd.array(v, dtype="float64")
    a.attach_grad()
    with autograd.record():
        out = run_planned(Plan.build(y, ["x"], [a], training=True), [a], "f")[0]
        g = autograd.grad(out, a, create_graph=True)[0]
    g.backward()
    # d/dx (sin x * x) = cos x * x + sin x; second derivative: 2 cos x - x sin x
    np.testing.assert_allclose(g.asnumpy(), np.cos(v) * v + np.sin(v), rtol=1e-12)
    np.testing.assert_allclose(a.grad.asnumpy(), 2 * np.cos(v) - v * np.sin(v), rtol=1e-12)
    assert plan.nvars == 1


def test_planned_gradients_match_central_differences_float64():
    x, w = sym.var("x"), sym.var("w")
    y = sym.sum(sym.broadcast_mul(sym.tanh(sym.dot(x, w)),
                                  sym.sigmoid(x).sum(axis=1, keepdims=True)))
    rng = np.random.RandomState(0)
    xv, wv = rng.randn(3, 4), rng.randn(4, 2)
    args = {"x": nd.array(xv, dtype="float64"), "w": nd.array(wv, dtype="float64")}
    grads = {"x": nd.zeros((3, 4), dtype="float64"), "w": nd.zeros((4, 2), dtype="float64")}
    ex = y.bind(mx.cpu(), args, args_grad=grads)
    ex.forward(is_train=True)
    ex.backward()

    def f(xa, wa):
        return float(ex.forward(x=nd.array(xa, dtype="float64"),
                                w=nd.array(wa, dtype="float64"))[0].asscalar())
    eps = 1e-6
    for name, base in (("x", xv), ("w", wv)):
        num = np.zeros_like(base)
        for idx in np.ndindex(base.shape):
            p, m = base.copy(), base.copy()
            p[idx] += eps
            m[idx] -= eps
            fp = f(p, wv) if name == "x" else f(xv, p)
            fm = f(m, wv) if name == "x" else f(xv, m)
            num[idx] = (fp - fm) / (2 * eps)
        np.testing.assert_allclose(grads[name].asnumpy(), num, rtol=1e-6, atol=1e-8)


def test_batchnorm_fix_gamma_writes_one_into_the_bound_gamma():
    # MXNet 1.9.1's executors set a fix_gamma BatchNorm's gamma argument to 1 at forward
    # (its default fix_gamma=True); imperative calls leave it alone
    x = sym.var("x")
    for fix, want in ((None, 1.0), (True, 1.0), (False, 7.0)):
        kw = {} if fix is None else {"fix_gamma": fix}
        ex = sym.BatchNorm(x, name="bn", **kw).simple_bind(mx.cpu(), x=(2, 2))
        ex.arg_dict["bn_gamma"][:] = 7
        ex.forward(is_train=True)
        assert ex.arg_dict["bn_gamma"].asnumpy().tolist() == [want, want]
    g = nd.array([5.0, 6.0])
    nd.BatchNorm(nd.ones((2, 2)), g, nd.zeros(2), nd.zeros(2), nd.ones(2), fix_gamma=True)
    assert g.asnumpy().tolist() == [5.0, 6.0]


def test_backward_with_nothing_to_differentiate_is_a_no_op():
    ex = (sym.var("x") * 2).simple_bind(mx.cpu(), x=(2,), grad_req="null")
    ex.forward(is_train=True)
    ex.backward()
    assert ex.grad_dict["x"] is None


def test_optimizer_reads_a_symbols_multipliers():
    w = sym.var("fc_weight", lr_mult=0, wd_mult=2)
    y = sym.FullyConnected(sym.var("data"), weight=w, num_hidden=2, name="fc")
    o = mx.optimizer.SGD(sym=y, param_idx2name={0: "fc_weight", 1: "fc_bias"})
    # what MXNet 1.9.1's SGD(sym=y, param_idx2name=...) holds for this graph
    assert o.lr_mult == {"fc_weight": 0.0}
    assert o.wd_mult == {"fc_bias": 0.0, "fc_weight": 2.0}


@pytest.mark.parametrize("shapes", [([2, 3], [-1, -1]), ([2, -1], [3, -1])])
def test_creation_shapes_with_unknown_dimensions_are_inferred_at_bind(shapes):
    # MXNet 1.9.1's test_operator: -1 in ones' shape is inferred through transpose
    o1 = mx.sym.ones(shape=shapes[0])
    o2 = mx.sym.ones(shape=shapes[1])
    y = (o1 + mx.sym.transpose(o2)).bind(mx.cpu(), args={}).forward()[0]
    assert y.shape == (2, 3) and y.asnumpy().tolist() == [[2.0] * 3] * 2
    lone = mx.sym.ones(shape=[2, -1])
    with pytest.raises(mx.base.ShapeError, match="unknown"), \
            pytest.warns(UserWarning, match="Cannot decide shape"):
        lone.bind(mx.cpu(), args={}).forward()
