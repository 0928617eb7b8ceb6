"""The table of MXNet operators a Symbol graph may use, and how mxgrad runs each one.

One entry per MXNet operator (its canonical name, as MXNet's JSON writes it): the names
of its array inputs, which inputs are auxiliary states (mutated by the op, like
BatchNorm's running statistics), how many outputs it has (and how many are visible),
which inputs are learnable parameters (created as variables when a symbolic call leaves
them out) and the function that runs it on NDArrays. Every op runs through ``mx.nd``, so a
graph interpreted from this table is recorded by autograd like any imperative code.

Examples
--------
>>> from mxgrad.symbol._registry import lookup
>>> spec = lookup('_Plus')
>>> spec.name, spec.inputs
('elemwise_add', ('lhs', 'rhs'))
>>> lookup('BatchNorm').aux
(3, 4)
"""
from __future__ import annotations

import ast
import inspect
from typing import Any, Callable, Dict, Optional, Tuple

from .. import ndarray as nd
from ..base import MXNetError
from ..ops._mxnet_op import ALIASES, RECORDS, MXNetOp, mxnet_op
from ..ops._mxnet_op import lookup as _lookup
from ..ops.elemwise import scalar_value  # noqa: F401  (its home; _np_ops imports it here)

__all__ = ["OpSpec", "lookup", "parse_attrs", "supported_ops", "UnknownOpError"]


class UnknownOpError(MXNetError, NotImplementedError):
    """A Symbol graph uses an operator (or attribute) mxgrad cannot run."""


OpSpec = MXNetOp          # one record per operator (ops/_mxnet_op.py); the old name stays
_TABLE: Dict[str, OpSpec] = RECORDS
_ALIASES: Dict[str, str] = ALIASES

# attributes that only tune MXNet's kernels (no effect on results)
_KERNEL_ONLY = frozenset({"cudnn_off", "cudnn_tune", "workspace", "name", "ctx",
                          "min_calib_range", "max_calib_range"})


def _nd_runner(fn: Callable) -> Callable:
    def run(inputs, kwargs):
        return fn(*inputs, **kwargs)
    return run


def _attr_names(fn: Callable) -> Optional[frozenset]:
    try:
        sig = inspect.signature(fn)
    except (TypeError, ValueError):  # pragma: no cover - builtins
        return None
    names = [p.name for p in sig.parameters.values()
             if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    return frozenset(names) | _KERNEL_ONLY


def _resolve(rec: MXNetOp) -> MXNetOp:
    """Fill in what a record leaves to the registry: the ``mx.nd`` function that runs it
    (with the namespace's argument guard) and, for ``attrs="auto"``, its keyword names."""
    fn: Any = nd
    for part in rec.nd_name.split("."):
        fn = getattr(fn, part, None)
    if rec.run is None:
        if fn is None:  # pragma: no cover - table/namespace mismatch
            raise RuntimeError(f"symbol op table: mx.nd has no {rec.nd_name}")
        rec.run = _nd_runner(fn)
    if isinstance(rec.attrs, str):          # "auto"
        rec.attrs = _attr_names(fn) if fn is not None else None
    elif rec.attrs is not None:
        rec.attrs = frozenset(rec.attrs) | _KERNEL_ONLY
    return rec


def _op(name: str, inputs=("data",), **fields) -> None:
    _resolve(mxnet_op(name, inputs, **fields))


for _rec in list(RECORDS.values()):       # the records the op families declare
    _resolve(_rec)


_SPECIALIZERS: Dict[str, Callable[[dict], OpSpec]] = {}


def register_specializer(op: str, fn: Callable[[dict], OpSpec]) -> None:
    """Let ``op``'s nodes get their own spec from their attributes (``Custom``: the inputs
    and outputs its ``op_type`` lists)."""
    _SPECIALIZERS[op] = fn


def specialize(spec: OpSpec, kwargs: dict) -> OpSpec:
    """The spec of one node of ``spec``'s operator with parsed attributes ``kwargs``."""
    fn = _SPECIALIZERS.get(spec.name)
    return fn(kwargs) if fn is not None else spec


def lookup(op: str) -> Optional[OpSpec]:
    """The record of ``op`` (canonical name or alias), or ``None``."""
    return _lookup(op)


def supported_ops() -> Tuple[str, ...]:
    """Canonical names of all operators a Symbol graph may use, sorted.

    Examples
    --------
    >>> 'Convolution' in supported_ops()
    True
    """
    return tuple(sorted(_TABLE))


# ------------------------------------------------------------------ attribute parsing
def _parse_value(text: str):
    s = text.strip()
    if s in ("True", "true"):
        return True
    if s in ("False", "false"):
        return False
    if s == "None":
        return None
    if s[:1] in "([":
        try:
            v = ast.literal_eval(s)   # literals only: never executes code
        except (ValueError, SyntaxError):
            return text
        return tuple(v) if isinstance(v, list) else v
    try:
        return int(s)
    except ValueError:
        pass
    try:
        return float(s)
    except ValueError:
        return text


def parse_attrs(spec: OpSpec, attrs: Dict[str, str], node_name: str) -> dict:
    """MXNet's string attributes as Python keyword arguments for ``spec.run``.

    Attributes starting with ``__`` (variable hints such as ``__shape__``) and kernel
    tuning knobs are dropped; an attribute the op does not understand is an error
    naming the node.

    Examples
    --------
    >>> parse_attrs(lookup('Convolution'), {'kernel': '(3, 3)', 'no_bias': 'True',
    ...             'num_filter': '4', 'workspace': '512'}, 'conv0')
    {'kernel': (3, 3), 'no_bias': True, 'num_filter': 4}
    """
    out = {}
    known = spec.attrs
    for k, v in attrs.items():
        if k.startswith("__") or k in _KERNEL_ONLY:
            continue
        if known is not None and k not in known:
            raise UnknownOpError(
                f"node '{node_name}' (op {spec.name}) has attribute {k}={v!r}, which "
                f"mxgrad's {spec.name} does not support")
        out[k] = _parse_value(v) if isinstance(v, str) else v
    return out


# ------------------------------------------------------------------ the table
_BINARY = ("lhs", "rhs")
_op("dot", _BINARY)
_op("batch_dot", _BINARY)
_op("hard_sigmoid")
_op("make_loss", out_names=("loss",))   # MXNet names its output <name>_loss
_op("MakeLoss")
_op("SequenceMask", ("data", "sequence_length"))
_op("SequenceLast", ("data", "sequence_length"))
_op("SequenceReverse", ("data", "sequence_length"))
_op("L2Normalization")
_op("LRN")
_op("UpSampling", None)

# neural network
_op("Convolution", ("data", "weight", "bias"), params=("weight", "bias"))
_op("Deconvolution", ("data", "weight", "bias"), params=("weight", "bias"))
_op("BatchNorm", ("data", "gamma", "beta", "moving_mean", "moving_var"),
    params=("gamma", "beta", "moving_mean", "moving_var"), aux=(3, 4), outputs=3,
    visible=lambda kw: 3 if kw.get("output_mean_var") else 1,
    out_names=("output", "mean", "var"))
_op("LayerNorm", ("data", "gamma", "beta"), params=("gamma", "beta"), outputs=3,
    visible=lambda kw: 3 if kw.get("output_mean_var") else 1,
    out_names=("output", "mean", "std"))
_op("BatchNorm_v1", ("data", "gamma", "beta", "moving_mean", "moving_var"),
    params=("gamma", "beta", "moving_mean", "moving_var"), aux=(3, 4), outputs=3,
    visible=lambda kw: 3 if kw.get("output_mean_var") else 1,
    out_names=("output", "mean", "var"))
_op("InstanceNorm", ("data", "gamma", "beta"), params=("gamma", "beta"), outputs=3,
    visible=1, out_names=("output", "mean", "var"))


def _group_norm(inputs, kwargs):
    """MXNet 1.x's GroupNorm: ``gamma``/``beta`` hold one value per group (shape
    ``(num_groups,)``), applied to every channel of the group; per-channel ones (shape
    ``(C,)``) are accepted too."""
    x, gamma, beta = inputs
    groups = int(kwargs.get("num_groups", 1))
    c = x.shape[1]
    if groups != c and c % groups == 0:
        if gamma.shape == (groups,):
            gamma = nd.repeat(gamma, c // groups, axis=0)
        if beta.shape == (groups,):
            beta = nd.repeat(beta, c // groups, axis=0)
    return nd.GroupNorm(x, gamma, beta, **kwargs)


_op("GroupNorm", ("data", "gamma", "beta"), params=("gamma", "beta"), outputs=3,
    visible=lambda kw: 3 if kw.get("output_mean_var") else 1, run=_group_norm,
    attrs=_attr_names(nd.GroupNorm), out_names=("output", "mean", "std"))
_op("Embedding", ("data", "weight"), params=("weight",))
_op("Activation")
def _leaky_relu(inputs, kwargs):
    """LeakyReLU; ``rrelu`` also has MXNet's second output, the mask (zeros when not
    training: the fixed slope ``(lower + upper) / 2`` is used)."""
    out = nd.LeakyReLU(*inputs, **kwargs)
    if kwargs.get("act_type") == "rrelu":
        return out, nd.zeros_like(out)
    return out


_rrelu = lambda kw: 2 if kw.get("act_type") == "rrelu" else 1  # noqa: E731
_op("LeakyReLU", ("data", "gamma"), params=("gamma",), run=_leaky_relu,
    attrs=_attr_names(nd.LeakyReLU), outputs=_rrelu, visible=_rrelu,
    out_names=("output", "mask"))
# max pooling has a hidden second output (the workspace MXNet's MKLDNN kernel keeps)
_op("Pooling", outputs=lambda kw: 2 if kw.get("pool_type", "max") == "max" else 1,
    visible=1, out_names=("output", "workspace"))
_op("Dropout", outputs=2, visible=1, out_names=("output", "mask"))


def _rnn(inputs, kwargs):
    """The fused RNN op. Begin states written by Gluon's export as ``_zeros`` with an
    unknown (0) batch dimension get their shape from the data (layout TNC)."""
    inputs = list(inputs)
    if kwargs.get("mode") != "lstm" and len(inputs) == 4:   # (data, params, state, seq_len)
        inputs.insert(3, None)
    data = inputs[0]
    dirs = 2 if kwargs.get("bidirectional") else 1
    layers = int(kwargs.get("num_layers", 1))
    hidden = int(kwargs["state_size"])
    proj = kwargs.get("projection_size")
    for i, size in ((2, proj or hidden), (3, hidden)):
        if i < len(inputs) and inputs[i] is not None and 0 in inputs[i].shape:
            inputs[i] = nd.zeros((layers * dirs, data.shape[1], size), dtype=data.dtype)
    return nd.RNN(*inputs, **kwargs)


_op("RNN", ("data", "parameters", "state", "state_cell", "sequence_length"), run=_rnn,
    attrs=_attr_names(nd.RNN),
    outputs=lambda kw: (3 if kw.get("mode") == "lstm" else 2) if kw.get("state_outputs")
    else 1)


def _ctc_loss(inputs, kwargs):
    """CTCLoss: the length inputs present are those its use_*_lengths flags say."""
    rest = list(inputs[2:])
    dl = rest.pop(0) if kwargs.get("use_data_lengths") and rest else None
    ll = rest.pop(0) if kwargs.get("use_label_lengths") and rest else None
    return nd.CTCLoss(inputs[0], inputs[1], dl, ll, **kwargs)


# a hidden second output (MXNet's gradient workspace): outputs are named <name>_output0
_op("CTCLoss", ("data", "label", "data_lengths", "label_lengths"), run=_ctc_loss,
    attrs=_attr_names(nd.CTCLoss), outputs=2, visible=1,
    aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"))
_op("softmax", ("data", "length"))
_op("log_softmax")
_op("softmin")
_op("SoftmaxActivation")


def _softmax_output(inputs, kwargs):
    """SoftmaxOutput: with a label, MXNet's loss layer (softmax forward, backward
    ``softmax - one_hot(label)`` whatever the head gradient); without one (a model
    imported for inference or fine-tuning with another loss) the plain softmax."""
    x = inputs[0]
    if len(inputs) > 1 and inputs[1] is not None:
        return nd.SoftmaxOutput(x, inputs[1], **kwargs)
    if kwargs.get("multi_output"):
        return nd.softmax(x, axis=1)
    if kwargs.get("preserve_shape") or x.ndim == 2:
        return nd.softmax(x, axis=-1)
    return nd.softmax(x.reshape((x.shape[0], -1)), axis=-1).reshape(x.shape)


_op("SoftmaxOutput", ("data", "label"), params=("label",), run=_softmax_output,
    aliases=("Softmax",),
    attrs=("grad_scale", "ignore_label", "multi_output", "use_ignore", "preserve_shape",
           "normalization", "out_grad", "smooth_alpha"))


def _regression(name, kind):
    layer = getattr(nd, name)

    def run(inputs, kwargs):
        x = inputs[0]
        if len(inputs) > 1 and inputs[1] is not None:     # MXNet's loss layer
            return layer(x, inputs[1], **kwargs)
        return nd.sigmoid(x) if kind == "logistic" else x.copy()
    return run


for _n, _k in (("LinearRegressionOutput", "linear"), ("MAERegressionOutput", "linear"),
               ("LogisticRegressionOutput", "logistic")):
    _op(_n, ("data", "label"), params=("label",), run=_regression(_n, _k),
        attrs=("grad_scale",))



def _svm_output(inputs, kwargs):
    """SVMOutput: with a label, MXNet's hinge-loss layer; without one, the identity."""
    if len(inputs) > 1 and inputs[1] is not None:
        return nd.SVMOutput(inputs[0], inputs[1], **kwargs)
    return inputs[0].copy()


_op("SVMOutput", ("data", "label"), params=("label",), run=_svm_output,
    attrs=("margin", "regularization_coefficient", "use_linear"))
_op("IdentityAttachKLSparseReg", ("data", "moving_avg"), params=("moving_avg",), aux=(1,))

# ops whose label input is only used by training losses: never a parameter to load
LABEL_OPS = frozenset({"SoftmaxOutput", "LinearRegressionOutput", "MAERegressionOutput",
                       "LogisticRegressionOutput", "SVMOutput"})


# ------------------------------------------------------------------ every other mx.nd op
# outputs of the ops registered below that have more than one (hidden ones included)
_MULTI_OUTPUTS: Dict[str, Tuple[Any, Any]] = {
    "_linalg_gelqf": (2, None), "_linalg_syevd": (2, None), "_linalg_slogdet": (2, None),
    "linalg_gelqf": (2, None), "linalg_syevd": (2, None), "linalg_slogdet": (2, None),
    "_contrib_MultiBoxTarget": (3, None), "_contrib_bipartite_matching": (2, None),
    "_contrib_quantize": (3, None), "_contrib_box_nms": (2, 1),
    "_contrib_box_non_maximum_suppression": (2, 1), "_contrib_hawkesll": (2, None),
    "_contrib_CTCLoss": (2, 1), "_contrib_ctc_loss": (2, 1), "CTCLoss": (2, 1),
    "ctc_loss": (2, 1), "_contrib_SyncBatchNorm": (3, 1),
    "_contrib_BatchNormWithReLU": (3, lambda kw: 3 if kw.get("output_mean_var") else 1),
    "_contrib_MultiProposal": (lambda kw: 2 if kw.get("output_score") else 1, None),
    "_contrib_Proposal": (lambda kw: 2 if kw.get("output_score") else 1, None),
}
_AUX = {"_contrib_SyncBatchNorm": (3, 4), "_contrib_BatchNormWithReLU": (3, 4),
        "BatchNorm_v1": ()}
_PARAMS = {"_contrib_SyncBatchNorm": ("gamma", "beta", "moving_mean", "moving_var"),
           "_contrib_BatchNormWithReLU": ("gamma", "beta", "moving_mean", "moving_var"),
           "_contrib_DeformableConvolution": ("weight", "bias"),
           "_contrib_ModulatedDeformableConvolution": ("weight", "bias"),
           "BatchNorm_v1": ("gamma", "beta")}
_NAMESPACES = (("_contrib_", "contrib"), ("_linalg_", "linalg"), ("_image_", "image"))


def nd_function(op: str) -> Optional[Callable]:
    """The ``mx.nd`` function behind MXNet's operator ``op`` (``_contrib_box_nms`` ->
    ``mx.nd.contrib.box_nms``, ``_random_normal`` -> ``mx.nd.random_normal``,
    ``_sample_normal`` -> ``mx.nd.sample_normal``), or None."""
    for prefix, ns in _NAMESPACES:
        if op.startswith(prefix):
            return getattr(getattr(nd, ns), op[len(prefix):], None)
    if op.startswith(("_random_", "_sample_")):
        return getattr(nd, op[1:], None)
    if op.startswith("_"):
        return None
    return getattr(nd, op, None)


def _install_all() -> None:
    from ._mxnet_op_inputs import OP_INPUTS
    for op, inputs in OP_INPUTS.items():
        if op in _TABLE or op in _ALIASES:
            continue
        fn = nd_function(op)
        if fn is None or not callable(fn) or isinstance(fn, type):
            continue
        outputs, visible = _MULTI_OUTPUTS.get(op, (1, None))
        attrs = _attr_names(fn)
        if attrs is not None and inputs is None:
            attrs = attrs | {"num_args"}
        run = (lambda f: (lambda ins, kw: f(*ins, **{k: v for k, v in kw.items()
                                                      if k != "num_args"})))(fn) \
            if inputs is None else _nd_runner(fn)
        _TABLE[op] = OpSpec(op, inputs, params=_PARAMS.get(op, ()), aux=_AUX.get(op, ()),
                            run=run, attrs=attrs, outputs=outputs, visible=visible)


# an optimizer update MXNet registers without the _contrib_ prefix
_op("_adamw_update", ("weight", "grad", "mean", "var", "rescale_grad"),
    run=_nd_runner(nd.contrib.adamw_update), attrs=_attr_names(nd.contrib.adamw_update),
)
_op("_mp_adamw_update", ("weight", "grad", "mean", "var", "weight32", "rescale_grad"),
    run=_nd_runner(nd.contrib.mp_adamw_update),
    attrs=_attr_names(nd.contrib.mp_adamw_update))
_install_all()
