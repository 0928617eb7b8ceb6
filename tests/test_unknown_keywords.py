"""Unknown keyword arguments: rejected as MXNet 1.9.1's operators reject them, never ignored.

The accepted names come from `mxgrad/_mxnet_op_args.py` (written from real MXNet by
tools/make_op_args.py); see README "Running MXNet programs unchanged".
"""
import inspect

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import nd
from mxgrad._mxnet_op_args import OP_ARGS
from mxgrad.base import MXNetError, UnknownArgumentError

_NAMESPACES = {"nd": nd, "nd.contrib": nd.contrib, "nd.linalg": nd.linalg,
               "nd.random": nd.random, "random": mx.random}


def _functions_taking_any_keyword():
    """(qualified name, function) of every mxgrad function MXNet also has that takes
    **kwargs: the functions whose keywords only the guard checks."""
    found = []
    for key in sorted(OP_ARGS):
        prefix, _, name = key.rpartition(".")
        func = getattr(_NAMESPACES[prefix], name, None)
        if func is None or inspect.isclass(func):
            continue
        params = inspect.signature(func).parameters.values()
        if any(p.kind is p.VAR_KEYWORD for p in params):
            found.append((key, func))
    return found


_KWARG_FUNCTIONS = _functions_taking_any_keyword()


def test_the_sweep_covers_the_layer_operators():
    names = {k for k, _ in _KWARG_FUNCTIONS}
    assert {"nd.Activation", "nd.Convolution", "nd.FullyConnected", "nd.BatchNorm",
            "nd.Pooling", "nd.dot"} <= names
    assert len(names) > 40


@pytest.mark.parametrize("key,func", _KWARG_FUNCTIONS, ids=[k for k, _ in _KWARG_FUNCTIONS])
def test_every_operator_rejects_a_misspelt_keyword_before_running(key, func):
    # the check runs before the operator: no valid positional arguments are needed
    with pytest.raises(UnknownArgumentError) as info:
        func(misspelt_keyword=1)
    assert "unknown keyword argument 'misspelt_keyword'; it takes " in str(info.value)
    assert isinstance(info.value, TypeError) and isinstance(info.value, MXNetError)


def test_the_message_lists_what_the_operator_takes():
    x = nd.array([-1.0, 2.0])
    with pytest.raises(UnknownArgumentError, match=r"nd\.Activation: unknown keyword "
                       r"argument 'foo'; it takes act_type, data, name, out"):
        nd.Activation(x, act_type="relu", foo=1)
    with pytest.raises(UnknownArgumentError, match="'a', 'b'"):
        nd.dot(x, x, b=1, a=2)


def test_keywords_mxnet_takes_but_mxgrad_ignores_are_accepted():
    x = nd.ones((1, 1, 4, 4))
    w = nd.ones((2, 1, 3, 3))
    y = nd.Convolution(x, w, kernel=(3, 3), num_filter=2, no_bias=True, workspace=512,
                       cudnn_tune="off", cudnn_off=True)
    np.testing.assert_array_equal(y.asnumpy(), np.full((1, 2, 2, 2), 9.0))
    z = nd.BatchNorm(x, nd.ones((1,)), nd.zeros((1,)), nd.zeros((1,)), nd.ones((1,)),
                     cudnn_off=True)
    assert z.shape == (1, 1, 4, 4)
    assert nd.concat(nd.ones((2,)), nd.zeros((1,)), dim=0, num_args=2).shape == (3,)
    assert nd.dot(nd.ones((2, 2)), nd.ones((2, 2)), forward_stype="default").shape == (2, 2)


def test_operators_without_parameters_reject_unknown_keywords_too():
    # MXNet 1.9.1 ignores these silently; mxgrad raises (a deliberate difference)
    x = nd.array([-1.0, 2.0])
    for op in (nd.exp, nd.relu, nd.sigmoid, nd.floor, nd.sign):
        with pytest.raises(TypeError, match="inplace"):
            op(x, inplace=True)
    with pytest.raises(TypeError, match="foo"):
        nd.add(x, x, foo=1)


def test_sparse_storage_keyword_explains_itself():
    with pytest.raises(UnknownArgumentError, match="sparse storage"):
        nd.ones((2,), stype="csr")


def test_random_functions_check_keywords_under_both_names():
    with pytest.raises(UnknownArgumentError, match="'lo'"):
        nd.random.uniform(lo=0, shape=(2,))
    mx.random.seed(0)
    a = nd.random.uniform(low=2, high=3, shape=(3,))
    assert ((a.asnumpy() >= 2) & (a.asnumpy() < 3)).all()
