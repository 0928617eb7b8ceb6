"""MXNet operator records (``mxgrad/ops/_mxnet_op.py``, issue 20 item 1): each operator's
record is declared once, beside its ``mx.nd`` function, and the Symbol registry, shape and
dtype passes hold no separate row for it. One block per scope of the move."""
import importlib
import inspect
import json
import os
import re

import pytest

import mxgrad as mx
from mxgrad.ops._mxnet_op import RECORDS, lookup
from mxgrad.symbol import _dtype, _registry, _shape

import records_nn_cases

_REGISTRY_SOURCE = inspect.getsource(_registry)


def _declared_in(name: str, module: str) -> bool:
    """Whether ``module`` declares the record of ``name``: its source calls
    ``mxnet_op("<name>"``, or (a family declared by a loop) the record's own run was written
    there."""
    if re.search(r'mxnet_op\(\s*"%s"' % re.escape(name),
                 inspect.getsource(importlib.import_module(module))):
        return True
    return RECORDS[name].run.__module__ == module


def _no_separate_row(name: str) -> bool:
    """Whether ``symbol/`` holds nothing of ``name`` beside its record."""
    return (f'_op("{name}"' not in _REGISTRY_SOURCE and name not in _shape._RULES
            and name not in _dtype._RULES)


# ------------------------------------------------------------------ rec-nn
# the operators of ops/nn.py, conv, composed, output, rnn, ctc, sequence, syncbn, linalg and
# the contrib modules, by the module that declares their records
_NN_HOMES = {
    "mxgrad.ops.nn": ("FullyConnected", "Activation", "LeakyReLU", "softmax", "log_softmax",
                      "softmin", "SoftmaxActivation", "hard_sigmoid", "Dropout", "BatchNorm",
                      "BatchNorm_v1", "_contrib_BatchNormWithReLU", "LayerNorm",
                      "InstanceNorm", "GroupNorm", "Embedding"),
    "mxgrad.ops.conv": ("Convolution", "Deconvolution", "Pooling"),
    "mxgrad.ops.composed": ("make_loss", "MakeLoss", "L2Normalization", "LRN", "UpSampling"),
    "mxgrad.ops.output": ("SoftmaxOutput", "LinearRegressionOutput", "MAERegressionOutput",
                          "LogisticRegressionOutput", "SVMOutput",
                          "IdentityAttachKLSparseReg"),
    "mxgrad.ops.rnn": ("RNN",),
    "mxgrad.ops.ctc": ("CTCLoss",),
    "mxgrad.ops.sequence": ("SequenceMask", "SequenceLast", "SequenceReverse"),
    "mxgrad.ops.syncbn": ("_contrib_SyncBatchNorm",),
    "mxgrad.ops.linalg": ("dot", "batch_dot", "_linalg_gemm", "_linalg_sumlogdiag",
                          "_linalg_inverse", "_linalg_det", "_linalg_slogdet", "linalg_slogdet",
                          "_linalg_trmm", "_linalg_trsm", "_linalg_potrf", "_linalg_potri"),
    "mxgrad.ops.linalg_factor": ("_linalg_gelqf", "linalg_gelqf", "_linalg_syevd"),
    "mxgrad.ops.detection": ("_contrib_MultiBoxTarget",),
    "mxgrad.ops.boxes": ("_contrib_box_nms", "_contrib_box_non_maximum_suppression",
                         "_contrib_bipartite_matching"),
    "mxgrad.ops.numeric": ("_contrib_quantize",),
    "mxgrad.ops.hawkes": ("_contrib_hawkesll",),
    "mxgrad.ops.proposal": ("_contrib_Proposal", "_contrib_MultiProposal"),
    "mxgrad.ops.deformable": ("_contrib_DeformableConvolution",
                              "_contrib_ModulatedDeformableConvolution"),
    "mxgrad.ops.adamw": ("_adamw_update", "_mp_adamw_update"),
}
_NN_FIX = json.load(open(os.path.join(os.path.dirname(__file__), "data", "mxnet",
                                      "records_nn.json")))
_NN_CASES = records_nn_cases.cases(mx)


@pytest.mark.parametrize("module,name", [(m, n) for m, names in _NN_HOMES.items()
                                         for n in names])
def test_records_nn_declared_beside_their_functions(module, name):
    rec = lookup(name)
    assert rec is not None and rec.name == name
    assert _declared_in(name, module)
    assert not any(_declared_in(name, other) for other in _NN_HOMES if other != module)
    assert _no_separate_row(name)
    assert callable(rec.run) and isinstance(rec.attrs, frozenset)   # resolved by the registry


def test_records_nn_aliases_outputs_and_labels():
    assert all(lookup(a) is lookup("CTCLoss")
               for a in ("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"))
    assert lookup("Softmax") is lookup("SoftmaxOutput")
    bn = lookup("BatchNorm")
    assert (bn.params, bn.aux, bn.out_names) == (("gamma", "beta", "moving_mean",
                                                  "moving_var"), (3, 4),
                                                 ("output", "mean", "var"))
    assert [bn.num_visible({}), bn.num_visible({"output_mean_var": True})] == [1, 3]
    assert [lookup("Pooling").num_outputs({"pool_type": p}) for p in ("max", "avg")] == [2, 1]
    rnn = lookup("RNN")
    assert [rnn.num_outputs(kw) for kw in ({}, {"state_outputs": True},
                                           {"state_outputs": True, "mode": "lstm"})] == [1, 2, 3]
    assert lookup("_contrib_Proposal").num_outputs({"output_score": True}) == 2
    from mxgrad.ops.output import LABEL_OPS
    assert _registry.LABEL_OPS is LABEL_OPS and "SVMOutput" in LABEL_OPS
    # a loaded graph's attribute outside the record's is refused, naming the node
    with pytest.raises(_registry.UnknownOpError, match="node 'c0'.*bogus"):
        _registry.parse_attrs(lookup("Convolution"), {"kernel": "(3, 3)", "bogus": "1"}, "c0")


def _nn_check(sym, shapes, types, want):
    assert sym.list_arguments() == want["arguments"]
    assert sym.list_outputs() == want["outputs"]
    assert sym.list_auxiliary_states() == want["aux"]
    got = sym.infer_shape_partial(**shapes)
    assert [[list(s) for s in part] for part in got] == want["shapes"]
    if types is not None:
        got_t = sym.infer_type_partial(**types)
        assert [[None if t is None else t.__name__ for t in part] for part in got_t] == \
            want["types"]


@pytest.mark.parametrize("name", sorted(_NN_CASES))
def test_records_nn_graphs_infer_as_mxnet(name):
    sym, shapes, types = _NN_CASES[name]
    _nn_check(sym, shapes, types, _NN_FIX[name])


@pytest.mark.parametrize("name", sorted(_NN_CASES))
def test_records_nn_mxnet_json_loads_and_infers_as_mxnet(name):
    _, shapes, types = _NN_CASES[name]
    sym = mx.sym.load_json(_NN_FIX[name]["json"])
    _nn_check(sym, shapes, types, _NN_FIX[name])
# ------------------------------------------------------------------ end rec-nn
