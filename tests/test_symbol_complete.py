"""mx.sym complete for dense data (issue 25 item 1): namespaces, fluent methods, indexing,
attributes, naming and pickling equal to MXNet 1.9.1 (fixture by
tools/make_symbol_api_fixtures.py from tests/symbol_api_cases.py)."""
import json
import os
import pickle

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError, NotImplementedForSymbol

import symbol_api_cases

FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                  "symbol_api.json")))
CASES = symbol_api_cases.cases(mx)
DATA = symbol_api_cases.inputs()


@pytest.mark.parametrize("name", sorted(CASES))
def test_symbol_equals_mxnet(name):
    sym, fed = CASES[name]
    want = FIX[name]
    assert sym.list_arguments() == want["arguments"]
    assert sym.list_outputs() == want["outputs"]
    assert sym.list_auxiliary_states() == want["aux"]
    assert sym.attr_dict() == want["attr_dict"]
    if want["list_attr"] is not None:
        assert sym.list_attr() == want["list_attr"]
    if fed:
        vals = {k: mx.nd.array(DATA[k], dtype=DATA[k].dtype) for k in fed}
        shapes = sym.infer_shape(**{k: v.shape for k, v in vals.items()})
        assert [[list(s) for s in part] for part in shapes] == want["shapes"]
        outs = sym.eval(**vals)
        assert len(outs) == len(want["values"])
        for got, ref in zip(outs, want["values"]):
            np.testing.assert_allclose(got.asnumpy(), np.array(ref), rtol=1e-5, atol=1e-5)


def test_every_nd_namespace_function_has_a_symbol():
    for ns in ("contrib", "linalg", "image"):
        nd_ns, sym_ns = getattr(mx.nd, ns), getattr(mx.sym, ns)
        missing = [n for n in ("box_nms", "gemm", "resize") if hasattr(nd_ns, n)
                   and not hasattr(sym_ns, n)]
        assert missing == []
    assert callable(mx.sym.contrib.box_nms) and callable(mx.sym.linalg.gemm)
    with pytest.raises(AttributeError, match="mx.sym.contrib has no operator 'nothing'"):
        mx.sym.contrib.nothing


def test_random_symbols_scalar_and_symbol_parameters():
    mx.random.seed(3)
    u = mx.sym.random.uniform(2, 3, shape=(50,))
    assert u.list_arguments() == [] and u.name.startswith("_random_uniform")
    v = u.eval()[0].asnumpy()
    assert v.shape == (50,) and v.min() >= 2 and v.max() < 3
    mu, sigma = mx.sym.var("mu"), mx.sym.var("sigma")
    n = mx.sym.random.normal(mu, sigma, shape=3)
    assert n.infer_shape(mu=(2,), sigma=(2,))[1] == [(2, 3)]
    out = n.eval(mu=mx.nd.array([0, 100]), sigma=mx.nd.array([1e-3, 1e-3]))[0].asnumpy()
    np.testing.assert_allclose(out, [[0] * 3, [100] * 3], atol=0.1)
    like = mx.sym.random.uniform_like(mx.sym.var("x"), low=5, high=6)
    assert like.eval(x=mx.nd.zeros((2, 2)))[0].asnumpy().min() >= 5
    with pytest.raises(TypeError, match="all be"):
        mx.sym.random.normal(mu, 1.0)


def test_pickle_round_trips_the_graph():
    y = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc", lr_mult=2)
    z = pickle.loads(pickle.dumps(y))
    assert z.tojson() == y.tojson()
    assert z.attr("lr_mult") == "2"


def test_bool_and_ndarray_only_methods_raise_not_implemented_for_symbol():
    x = mx.sym.var("x")
    with pytest.raises(NotImplementedForSymbol):
        bool(x)
    with pytest.raises(NotImplementedForSymbol, match="asnumpy"):
        x.asnumpy()


def test_getitem_errors():
    s = mx.sym.SliceChannel(mx.sym.var("x"), num_outputs=2, name="s")
    with pytest.raises(ValueError, match="Cannot find output"):
        s["nope"]
    with pytest.raises(IndexError):
        s[2]
    with pytest.raises(TypeError, match="integer index"):
        s[1.0]


def test_compose_names_the_head_and_fills_missing_data():
    net = mx.sym.FullyConnected(name="fc3", num_hidden=10)
    assert net.list_arguments() == ["fc3_data", "fc3_weight", "fc3_bias"]
    composed = net(fc3_data=mx.sym.var("d"), name="composed")
    assert composed.name == "composed"
    assert composed.list_arguments() == ["d", "fc3_weight", "fc3_bias"]
    with pytest.raises(MXNetError, match="Variable cannot be composed"):
        mx.sym.var("v")(v=mx.sym.var("w"))


def test_hidden_attribute_keys():
    with pytest.raises(MXNetError, match="deprecated"):
        mx.sym.var("x")._set_attr(weight_lr_mult="2")
    with pytest.raises(TypeError, match="string"):
        mx.sym.var("x")._set_attr(mood=1)


def test_debug_str_lists_nodes_and_attributes():
    y = mx.sym.FullyConnected(mx.sym.var("x"), num_hidden=3, name="fc")
    text = y.debug_str()
    assert text.startswith("Symbol Outputs:\n\toutput[0]=fc(0)\nVariable:x\n")
    assert "Op:FullyConnected, Name=fc\nInputs:\n\targ[0]=x(0) version=0\n" in text
    assert text.endswith("Attrs:\n\tnum_hidden=3\n")


def test_np_shape_json_flag_and_legacy_zero_dims():
    with mx.np_shape(True):
        assert '"is_np_shape": ["int", 1]' in mx.sym.var("w", shape=(3, 0)).tojson()
    legacy = mx.sym.FullyConnected(mx.sym.var("data"), mx.sym.var("weight", shape=(4, 0)),
                                   num_hidden=4).tojson()
    with mx.np_shape(True):
        net = mx.sym.load_json(legacy)
        args, outs, _ = net.infer_shape(data=(2, 5))
    assert args[1] == (4, 5) and outs == [(2, 4)]


class _Sqr(mx.operator.CustomOp):
    def forward(self, is_train, req, in_data, out_data, aux):
        aux[0][:] = 1
        self.assign(out_data[0], req[0], in_data[0] * in_data[0])

    def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
        assert (aux[0].asnumpy() == 1).all()
        self.assign(in_grad[0], req[0], 2 * in_data[0] * out_grad[0])


@mx.operator.register("sqr_symbol_test")
class _SqrProp(mx.operator.CustomOpProp):
    def list_auxiliary_states(self):
        return ["aux"]

    def infer_shape(self, in_shape):
        return in_shape, [in_shape[0]], [in_shape[0]]

    def create_operator(self, ctx, shapes, dtypes):
        return _Sqr()


def test_custom_symbol_node_runs_binds_and_round_trips():
    op = mx.sym.Custom(data=mx.sym.var("data"), aux=mx.sym.var("aux"), name="sqr",
                       op_type="sqr_symbol_test")
    assert op.list_arguments() == ["data"] and op.list_auxiliary_states() == ["aux"]
    assert op.list_outputs() == ["sqr_output"]
    assert op.infer_shape(data=(4, 10)) == ([(4, 10)], [(4, 10)], [(4, 10)])
    x = np.random.RandomState(1).uniform(-1, 1, size=(4, 10))
    tu = mx.test_utils
    tu.check_symbolic_forward(op, [x], [x * x], aux_states=[np.zeros_like(x)])
    tu.check_numeric_gradient(op, [x], [np.zeros_like(x)])
    again = mx.sym.load_json(op.tojson())
    assert again.list_auxiliary_states() == ["aux"]
    with mx.name.NameManager():
        auto = mx.sym.Custom(mx.sym.var("x"), op_type="sqr_symbol_test")
    assert auto.list_inputs() == ["x", "custom0_aux"]
    with pytest.raises(MXNetError, match="no operator registered"):
        mx.sym.Custom(mx.sym.var("x"), op_type="nope")
