"""``mx.npx``: MXNet's NumPy-interface extensions (``from mxnet import npx``): the mode
switches and the neural-network operators, on the same op records as ``mx.nd``.

Examples
--------
>>> from mxgrad import np, npx
>>> npx.set_np()
>>> npx.relu(np.array([-1., 2.]))
array([0., 2.])
>>> npx.reset_np()
"""
from __future__ import annotations

from typing import List, Any, Optional, Sequence

import numpy as _onp

from ..base import DTypeError, ShapeError
from ..context import Context, cpu, cpu_pinned, gpu, num_gpus, current_context  # noqa: F401
from .._engine.ndarray import NDArray
from ..numpy.multiarray import ndarray, to_np as _np, from_input as _in
from ..util import (set_np, reset_np, is_np_array, is_np_shape, use_np, use_np_array,
                    use_np_shape, np_array, np_shape, set_np_shape)
from ..ops import elemwise as _E
from ..ops import nn as _N
from ..ops import conv as _C
from ..ops import indexing as _I
from ..ops import ordering as _O
from ..ops import linalg as _L
from ..ops import sequence as _Q
from ..ops import shape as _S
from ..ops import reduce as _R
from ..ops import rnn as _RNN

__all__ = ["set_np", "reset_np", "is_np_array", "is_np_shape", "use_np", "use_np_array",
           "use_np_shape", "np_array", "np_shape", "set_np_shape", "relu", "sigmoid", "softmax",
           "log_softmax", "masked_softmax", "masked_log_softmax", "activation", "batch_norm",
           "layer_norm", "instance_norm", "group_norm", "convolution", "deconvolution",
           "pooling", "fully_connected", "dropout", "embedding", "one_hot", "pick", "topk",
           "sequence_mask", "batch_dot", "batch_flatten", "reshape", "reshape_like", "gamma",
           "gammaln", "erf", "erfinv", "leaky_relu", "gelu", "smooth_l1", "rnn", "save",
           "load", "waitall", "cpu", "gpu", "num_gpus", "current_context", "seed",
           "stop_gradient", "arange_like", "slice", "shape_array"]


def _nd(name: str, fn: Any) -> Any:
    def f(*args: Any, **kwargs: Any) -> Any:
        return _np(fn(*args, **kwargs))
    f.__name__ = name
    f.__doc__ = (f"MXNet's ``npx.{name}``: the op of ``mx.nd.{fn.__name__}`` on "
                 f"``mx.np`` arrays.")
    return f


relu = _nd("relu", _E.relu)
sigmoid = _nd("sigmoid", _E.sigmoid)
gamma = _nd("gamma", _E.gamma)
gammaln = _nd("gammaln", _E.gammaln)
erf = _nd("erf", _E.erf)
erfinv = _nd("erfinv", _E.erfinv)
stop_gradient = _nd("stop_gradient", _E.stop_gradient)
smooth_l1 = _nd("smooth_l1", _E.smooth_l1)
gelu = _nd("gelu", _N.gelu)
activation = _nd("activation", _N.Activation)
leaky_relu = _nd("leaky_relu", _N.LeakyReLU)
batch_norm = _nd("batch_norm", _N.BatchNorm)
layer_norm = _nd("layer_norm", _N.LayerNorm)
instance_norm = _nd("instance_norm", _N.InstanceNorm)
group_norm = _nd("group_norm", _N.GroupNorm)
convolution = _nd("convolution", _C.Convolution)
deconvolution = _nd("deconvolution", _C.Deconvolution)
pooling = _nd("pooling", _C.Pooling)
fully_connected = _nd("fully_connected", _N.FullyConnected)
dropout = _nd("dropout", _N.Dropout)
embedding = _nd("embedding", _N.Embedding)
rnn = _nd("rnn", _RNN.RNN)
batch_dot = _nd("batch_dot", _L.batch_dot)
reshape_like = _nd("reshape_like", _S.reshape_like)
shape_array = _nd("shape_array", _S.shape_array)


def softmax(data: Any, axis: int = -1, length: Any = None, temperature: Optional[float] = None,
            use_length: bool = False, dtype: Any = None) -> ndarray:
    """Softmax over ``axis`` (optionally over the first ``length`` entries only)."""
    return _np(_N.softmax(data, length=length, axis=axis, temperature=temperature,
                          use_length=use_length, dtype=dtype))


def log_softmax(data: Any, axis: int = -1, length: Any = None,
                temperature: Optional[float] = None, use_length: bool = False,
                dtype: Any = None) -> ndarray:
    """Log-softmax over ``axis``."""
    kw = {} if length is None else {"length": length, "use_length": use_length}
    return _np(_N.log_softmax(data, axis=axis, temperature=temperature, dtype=dtype, **kw))


def masked_softmax(data: Any, mask: Any, axis: int = -1, temperature: float = 1.0,
                   normalize: bool = True) -> ndarray:
    """Softmax over ``axis`` where ``mask`` is true; masked entries give 0."""
    d = _in(data)
    m = _in(mask)
    mf = m if m._data.dtype == d._data.dtype else _E.cast(m, d._data.dtype)
    neg = (1.0 - mf) * -1e18
    r = _N.softmax((d / temperature) + neg, axis=axis)
    return _np(r * mf)


def masked_log_softmax(data: Any, mask: Any, axis: int = -1, temperature: float = 1.0,
                       normalize: bool = True) -> ndarray:
    """Log-softmax over ``axis`` where ``mask`` is true (``-inf`` elsewhere)."""
    d = _in(data)
    m = _in(mask)
    mf = m if m._data.dtype == d._data.dtype else _E.cast(m, d._data.dtype)
    r = _N.log_softmax((d / temperature) + (1.0 - mf) * -1e18, axis=axis)
    from .._engine.ndarray import wrap
    ninf = wrap(_onp.full(r.shape, -_onp.inf, r._data.dtype), None, 0, ndarray)
    if mf.shape != r.shape:
        mf = _R.broadcast_exact(mf, r.shape)
    return _np(_I.where(mf, r, ninf))


def one_hot(data: Any, depth: int, on_value: float = 1.0, off_value: float = 0.0,
            dtype: Any = "float32") -> ndarray:
    """One-hot vectors of the integer indices ``data``."""
    return _np(_I.one_hot(_in(data), depth, on_value, off_value, dtype=dtype))


def pick(data: Any, index: Any, axis: int = -1, mode: str = "clip",
         keepdims: bool = False) -> ndarray:
    """``data``'s entries at ``index`` along ``axis``."""
    d, i = _in(data), _in(index)
    r = _I.pick(d, i, axis=axis, mode=mode, keepdims=keepdims)
    if not keepdims and r.shape != i.shape:
        r = r.reshape(i.shape)
    return _np(r)


def topk(data: Any, axis: int = -1, k: int = 1, ret_typ: str = "indices",
         is_ascend: bool = False, dtype: Any = "float32") -> Any:
    """The top ``k`` entries along ``axis`` (indices by default)."""
    return _np(_O.topk(_in(data), axis=axis, k=k, ret_typ=ret_typ,  # type: ignore
                       is_ascend=is_ascend, dtype=dtype))


def sequence_mask(data: Any, sequence_length: Any = None, use_sequence_length: bool = False,
                  value: float = 0.0, axis: int = 0) -> ndarray:
    """Entries past each sequence's length set to ``value``."""
    return _np(_Q.SequenceMask(data, sequence_length, use_sequence_length=use_sequence_length,
                               value=value, axis=axis))


def batch_flatten(x: Any) -> ndarray:
    """``x`` as ``(batch, -1)``."""
    x = _in(x)
    return _np(_R.reshape_exact(x, (x.shape[0], int(_onp.prod(x.shape[1:])))))


def reshape(a: Any, newshape: Sequence[int], reverse: bool = False, order: str = "C") -> ndarray:
    """MXNet's NumPy-mode reshape codes: ``-1`` infer, ``-2`` copy this dimension, ``-3``
    drop a dimension of size 1, ``-4`` copy all remaining, ``-5`` merge two dimensions,
    ``-6`` split a dimension in two (the next two entries, one may be -1).

    Examples
    --------
    >>> from mxgrad import np, npx
    >>> npx.reshape(np.ones((2, 3, 4)), (-2, -1)).shape
    (2, 12)
    """
    a = _in(a)
    ishape = list(a.shape)
    req = [int(s) for s in newshape]
    if reverse:
        ishape, req = ishape[::-1], req[::-1]
    out: list = []
    i = j = 0
    infer = None
    while j < len(req):
        c = req[j]
        if c >= 0:
            out.append(c); i += 1
        elif c == -1:
            infer = len(out); out.append(-1); i += 1
        elif c == -2:
            out.append(ishape[i]); i += 1
        elif c == -3:
            if ishape[i] != 1:
                raise ShapeError(f"npx.reshape: -3 drops a dimension of size 1, but dimension "
                                 f"{i} has size {ishape[i]}")
            i += 1
        elif c == -4:
            out.extend(ishape[i:]); i = len(ishape)
        elif c == -5:
            out.append(ishape[i] * ishape[i + 1]); i += 2
        elif c == -6:
            d1, d2 = req[j + 1], req[j + 2]
            n = ishape[i]
            if d1 == -1:
                d1 = n // d2
            if d2 == -1:
                d2 = n // d1
            if d1 * d2 != n:
                raise ShapeError(f"npx.reshape: -6 splits dimension {i} of size {n} into "
                                 f"{d1} x {d2}, which does not fit")
            out.extend([d1, d2]); i += 1; j += 2
        else:
            raise ShapeError(f"npx.reshape: unknown code {c} in {tuple(newshape)}")
        j += 1
    if reverse:
        out = out[::-1]
        if infer is not None:
            infer = len(out) - 1 - infer
    if infer is not None:
        known = int(_onp.prod([s for s in out if s != -1]))
        out[infer] = a.size // known if known else 0
    if int(_onp.prod(out)) != a.size:
        raise ShapeError(f"npx.reshape: cannot reshape {tuple(a.shape)} into {tuple(out)} "
                         f"(from {tuple(newshape)})")
    return _np(_R.reshape_exact(a, tuple(out)))


def arange_like(data: Any, start: float = 0.0, step: float = 1.0, repeat: int = 1,
                axis: Optional[int] = None, ctx: Any = None) -> ndarray:
    """``arange`` shaped like ``data`` (or its ``axis``)."""
    d = _in(data)
    n = d.size if axis is None else d.shape[axis]
    vals = (start + step * (_onp.arange(n) // repeat)).astype(d._data.dtype)
    from .._engine.ndarray import wrap
    return wrap(vals.reshape(d.shape) if axis is None else vals, None, 0, ndarray)


def slice(data: Any, begin: Any, end: Any, step: Any = None) -> ndarray:
    """MXNet's ``slice`` (begin/end/step per axis) on an ``mx.np`` array."""
    return _np(_S.slice(_in(data), begin, end, step))


def save(file: str, arr: Any) -> None:
    """Save an array, a list or a dict of arrays in MXNet's file format (0-d and
    zero-size arrays included)."""
    from ..ndarray.utils import save as _save
    with np_shape(True):       # MXNet's V3 records: 0-d and zero-size shapes kept
        _save(file, arr)


def load(file: str) -> Any:
    """Load arrays saved by :func:`save` (or by MXNet) as ``mx.np`` arrays."""
    from ..ndarray.utils import load as _load
    with np_shape(True):
        got = _load(file)
    return {k: _np(v) for k, v in got.items()} if isinstance(got, dict) else _np(got)


def waitall() -> None:
    """Nothing to wait for: NumPy computes synchronously."""


def seed(seed_state: int, ctx: Any = "all") -> None:
    """Seed mxgrad's random number generator (as ``mx.random.seed``)."""
    from .. import random as _random
    _random.seed(seed_state)


def constraint_check(input: Any, msg: str = "Constraint violated.") -> ndarray:
    """Raise ``ValueError(msg)`` (an MXNetError) unless every element of ``input`` is true;
    returns ``array(True)`` to multiply into a computation, as MXNet's.

    Examples
    --------
    >>> from mxgrad import np, npx
    >>> npx.constraint_check(np.ones(2, dtype=bool))
    array(True)
    """
    if not bool(_onp.all(_in(input)._data)):
        raise ShapeError(msg)
    from .._engine.ndarray import wrap
    return wrap(_onp.asarray(True), None, 0, ndarray)


def cast(data: Any, dtype: Any) -> ndarray:
    """``data`` cast to ``dtype`` (differentiable between float types)."""
    return _np(_E.cast(_in(data), dtype))


gather_nd = _nd("gather_nd", _I.gather_nd)


def nonzero(a: Any) -> ndarray:
    """The indices of the non-zero elements as one int64 array of shape (N, ndim)."""
    from .._engine.ndarray import wrap
    return wrap(_onp.argwhere(_in(a)._data).astype(_onp.int64), None, 0, ndarray)


def _contrib(name: str, nd_name: str) -> Any:
    def f(*args: Any, **kwargs: Any) -> Any:
        from ..ndarray import contrib as _contrib_mod
        return _np(getattr(_contrib_mod, nd_name)(*args, **kwargs))
    f.__name__ = name
    f.__doc__ = f"MXNet's ``npx.{name}`` (``mx.nd.contrib.{nd_name}``) on mx.np arrays."
    return f


multibox_prior = _contrib("multibox_prior", "MultiBoxPrior")
multibox_target = _contrib("multibox_target", "MultiBoxTarget")
multibox_detection = _contrib("multibox_detection", "MultiBoxDetection")


def roi_pooling(*args: Any, **kwargs: Any) -> ndarray:
    """MXNet's ``npx.roi_pooling`` (``mx.nd.ROIPooling``) on mx.np arrays."""
    from ..ops.detection import ROIPooling
    return _np(ROIPooling(*args, **kwargs))


from . import image, random  # noqa: E402
__all__ += ["constraint_check", "cast", "gather_nd", "nonzero", "multibox_prior", "multibox_target",
            "multibox_detection", "roi_pooling", "Context", "cpu_pinned", "image", "random"]


def __dir__() -> List[str]:
    """The public names (as ``dir()`` of MXNet's module lists them)."""
    return sorted(set(__all__))
