"""The planned graph behind hybridize(): when a block is planned, when it is not, and what
it says (tests/test_hybridize_plan.py compares planned and imperative blocks layer by layer)."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError
from mxgrad.gluon import _hybrid_plan


class Twice(gluon.HybridBlock):
    def hybrid_forward(self, F, x):
        return F.tanh(x) * 2


def test_a_hybridized_block_traces_once_per_signature():
    calls = []

    class Spy(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            calls.append(F.__name__)
            return F.relu(x) + 1

    net = Spy()
    net.hybridize()
    for _ in range(3):
        assert net(nd.array([-1.0, 2.0])).asnumpy().tolist() == [1.0, 3.0]
    assert calls == ["mxgrad.symbol"]                       # once, with Symbols
    net(nd.ones((3,)))                                      # a new shape: traced again
    assert calls == ["mxgrad.symbol"] * 2
    with autograd.train_mode():                             # a new mode: traced again
        net(nd.ones((3,)))
    assert calls == ["mxgrad.symbol"] * 3
    net.hybridize(active=False)
    net(nd.ones((3,)))
    assert calls[-1] == "mxgrad.ndarray"


def test_a_value_branch_in_hybrid_forward_raises_at_the_first_call():
    class Branchy(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            if x.sum() > 0:
                return x
            return -x

    net = Branchy()
    assert net(nd.ones(2)).asnumpy().tolist() == [1.0, 1.0]   # imperative: fine
    net.hybridize()
    with pytest.raises(MXNetError):
        net(nd.ones(2))


def test_an_unplannable_block_runs_imperatively_and_says_so_at_its_second_call():
    class Host(gluon.HybridBlock):
        def hybrid_forward(self, F, x):
            return F.exp(x) if F is nd else F.NoSuchOp(x)

    net = Host()
    net.hybridize()
    np.testing.assert_allclose(net(nd.zeros(2)).asnumpy(), [1.0, 1.0])
    with pytest.warns(UserWarning, match="runs this block imperatively.*NoSuchOp"):
        np.testing.assert_allclose(net(nd.zeros(2)).asnumpy(), [1.0, 1.0])


def test_new_signatures_beyond_the_limit_run_imperatively(monkeypatch):
    monkeypatch.setattr(_hybrid_plan, "_MAX_BUILDS", 3)
    net = Twice()
    net.hybridize()
    for n in (1, 2, 3):
        net(nd.ones((n,)))
    assert len(net._plans) == 3
    with pytest.warns(UserWarning, match="planned 3 input signatures"):
        y = net(nd.ones((4,)))
    np.testing.assert_allclose(y.asnumpy(), 2 * np.tanh(np.ones(4)), rtol=1e-6)
    net(nd.ones((5,)))                                     # warned once only
    assert len(net._plans) == 3
    net(nd.ones((2,)))                                     # planned signatures still served
    net.hybridize()                                        # forgets plans and the count
    net(nd.ones((4,)))
    assert len(net._plans) == 1


def test_symbol_block_runs_planned_without_hybridize():
    x = mx.sym.var("data")
    y = mx.sym.tanh(mx.sym.FullyConnected(x, num_hidden=2, name="fc"))
    blk = gluon.SymbolBlock(y, [x])
    blk.initialize()
    blk(nd.ones((1, 3)))         # deferred initialization: this call finishes it imperatively
    assert not getattr(blk, "_plans", None)
    out = blk(nd.ones((1, 3)))
    assert len(blk._plans) == 1
    w, b = blk.collect_params()["fc_weight"].data(), blk.collect_params()["fc_bias"].data()
    np.testing.assert_allclose(out.asnumpy(), np.tanh(np.ones((1, 3)) @ w.asnumpy().T
                                                      + b.asnumpy()), rtol=1e-6,
                               atol=1e-6)   # float32 against float64: an entry may be near 0


def test_parameters_replaced_or_reshaped_are_seen():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    net.hybridize()
    x = nd.ones((1, 3))
    net(x)
    net.weight.set_data(nd.ones((2, 3)))
    net.bias.set_data(nd.zeros(2))
    assert net(x).asnumpy().tolist() == [[3.0, 3.0]]
    net.cast("float64")
    assert net(x.astype("float64")).dtype == np.float64


def test_a_planned_call_lets_go_of_its_inputs_after_backward():
    import gc
    import weakref
    net = Twice()
    net.hybridize()
    net(nd.ones(3))
    x = nd.ones(3)
    x.attach_grad()
    with autograd.record():
        y = net(x * 1.0)          # an intermediate input, held only by the graph
    ref = weakref.ref(y._node.op.arrays[0])
    y.backward()
    gc.collect()
    assert ref() is None          # y (kept by the caller) no longer keeps it alive
    np.testing.assert_allclose(x.grad.asnumpy(), 2 * (1 - np.tanh(1.0) ** 2), rtol=1e-6)


def test_a_new_signature_of_the_same_graph_reuses_the_compiled_code():
    from mxgrad.symbol import _plan_codegen
    net = Twice()
    net.hybridize()
    x = nd.ones((2, 3))
    x.attach_grad()
    with autograd.record():
        net(x).backward()
    before = len(_plan_codegen._CODE)
    y = nd.ones((5, 3))                  # another batch size: same steps, other values
    y.attach_grad()
    with autograd.record():
        net(y).backward()
    assert len(net._plans) == 2 and len(_plan_codegen._CODE) == before
    np.testing.assert_allclose(y.grad.asnumpy(), 2 * (1 - np.tanh(1.0) ** 2), rtol=1e-6)
