"""Shape manipulation: reshape (with MXNet's special codes), transpose, expand_dims,
squeeze, flatten, concat/stack/split, slicing, broadcasting helpers, tile, repeat,
flip, pad, depth_to_space/space_to_depth.

Two internal ops carry every gather and scatter of the family (and of
:mod:`mxgrad.ops.indexing`): ``_index`` reads ``x[key]`` for a NumPy key (basic or
advanced) and ``_index_add`` adds an array into zeros at ``key``. They are linear and
each is the other's gradient, so every op built on them has gradients of any order.

As in MXNet, only the ``x.reshape(...)`` method returns a view sharing the input's buffer
(and version counter); ``nd.reshape``, ``expand_dims``, ``squeeze``, ``flatten`` and
``reshape_like`` and every other op return new arrays, so a later write to the input does
not change them. (On raw NumPy inputs, which only gradient rules pass, they stay views.)

Examples
--------
>>> import mxgrad as mx
>>> x = mx.nd.arange(24).reshape((2, 3, 4))
>>> x.reshape((-1, 0)).shape
(8, 3)
>>> mx.nd.concat(mx.nd.ones((2, 1)), mx.nd.zeros((2, 2))).shape
(2, 3)
"""
from __future__ import annotations

import builtins
import functools
import math
from numbers import Integral
from typing import Any, List, Optional, Sequence, Tuple, Union

from typing_extensions import Literal, TypeIs, overload

import numpy as np

from ..base import DTypeError, OutOfRangeError, ShapeError, StateError
from ..util import is_np_shape
from .._engine.ndarray import NDArray, wrap
from . import _dtype_rules as _dr
from . import _shape_rules as _sr
from ._core import Op, defop, call, call1, as_array
from ._mxnet_op import mxnet_op
from .reduce import reshape_exact, broadcast_to, normalize_axes
from .._typing import ArrayT, Axis, ShapeLike

__all__ = [
    "reshape", "Reshape", "reshape_like", "transpose", "swapaxes", "SwapAxis", "moveaxis",
    "expand_dims", "squeeze", "flatten", "Flatten", "concat", "Concat", "concatenate",
    "stack", "split", "SliceChannel", "split_v2", "slice", "crop", "slice_axis",
    "slice_like", "broadcast_axis", "broadcast_axes", "broadcast_like", "tile", "repeat",
    "flip", "reverse", "pad", "Pad", "depth_to_space", "space_to_depth", "shape_array",
    "size_array",
]

_pyslice = builtins.slice


_prod = math.prod


def _isint(v: object) -> TypeIs[Union[int, np.integer]]:
    return isinstance(v, (Integral, np.integer)) and not isinstance(v, (bool, np.bool_))


def _arr(data, op):
    """Keep NumPy arrays (raw mode inside gradient rules), check everything else."""
    if type(data) is np.ndarray or isinstance(data, NDArray):
        return data
    return as_array(data, op)


def _axis(axis, ndim, op, extra=0):
    """Normalise one axis in ``[-ndim-extra, ndim+extra)``."""
    if not _isint(axis):
        raise DTypeError(f"{op}: axis must be an int, got {axis!r}")
    axis = int(axis)
    n = ndim + extra
    if not -n <= axis < n:
        raise ShapeError(f"{op}: axis {axis} is out of range for an array with {ndim} "
                         f"dimensions")
    return axis % n


def _share(out, src):
    """Give a view the version box of the array whose memory it shares."""
    if isinstance(out, NDArray) and isinstance(src, NDArray) and out._data.base is not None \
            and np.may_share_memory(out._data, src._data):
        out._ver = src._ver
    return out


def _view(data, shape):
    """``data`` reshaped (a view sharing the buffer and the version); a new NDArray
    object even when the shape does not change."""
    r = reshape_exact(data, shape)
    if r is data and isinstance(data, NDArray):
        r = wrap(data._data, data._node, data._oidx, type(data))
        r._ver = data._ver
        r._tan = data._tan
    elif isinstance(r, NDArray):
        _share(r, data)
    if isinstance(r, NDArray) and not r._data.flags.writeable:
        from .elemwise import identity_copy
        r = identity_copy(r)
    return r


def _new_memory(r, src):
    """MXNet computes ``reshape``/``expand_dims``/``squeeze``/``flatten``/``reshape_like``
    into new memory: an NDArray result gets its own buffer, so a later write to the input
    does not show in it. Raw NumPy results (gradient rules' fast path) stay views."""
    return _fresh(r, src) if isinstance(r, NDArray) else r


def _fresh(r, src):
    """A copy of ``r`` if it shares memory with ``src`` (for ops that MXNet computes
    into new memory)."""
    if r is src:
        from .elemwise import identity_copy
        return identity_copy(r)
    d = r._data if isinstance(r, NDArray) else r
    s = src._data if isinstance(src, NDArray) else src
    if d.base is not None and np.may_share_memory(d, s):
        from .elemwise import identity_copy
        r = identity_copy(r)
    return r


# ===================================================== gather / scatter core ops
def _index_fwd(x, key, xshape, ishape, mid, oshape, basic, copy):
    if x.shape != xshape:
        x = x.reshape(xshape)
    r = x[key]
    if oshape is not None and r.shape != oshape:
        r = r.reshape(oshape)
    if copy and np.may_share_memory(r, x):
        r = r.copy()
    return r


def _index_add_fwd(g, key, xshape, ishape, mid, oshape, basic, copy):
    z = np.zeros(xshape, dtype=g.dtype)
    if mid is not None and g.shape != mid:
        g = g.reshape(mid)
    if basic:
        z[key] = g
    else:
        np.add.at(z, key, g)
    if xshape != ishape:
        z = z.reshape(ishape)
    return z


def _index_rule(g, y, x, **kn):
    return index_add_apply(g, kn)


def _index_add_rule(g, y, x, **kn):
    return index_apply(g, kn)


_INDEX = defop("_index", _index_fwd, [_index_rule],
               [lambda t, y, x, **kn: index_apply(t, kn)], save=())
_INDEX_ADD = defop("_index_add", _index_add_fwd, [_index_add_rule],
                   [lambda t, y, x, **kn: index_add_apply(t, kn)], save=())


def index_apply(x, kn: dict):
    """Gather ``x[key]`` described by ``kn`` (see :func:`index_spec`); differentiable."""
    r = call1(_INDEX, x, kn)
    if not kn["copy"]:
        _share(r, x)
    return r


def index_add_apply(g, kn: dict):
    """Scatter-add ``g`` into zeros of the input shape at ``key``; differentiable."""
    return call1(_INDEX_ADD, g, kn)


def _slice_len(s, n):
    return len(range(*s.indices(n)))


def index_spec(shape, key, copy=True, zero_d=False):
    """Normalise an indexing key for ``_index``/``_index_add``.

    Returns the attrs dict: ``key`` (ints, slices and int arrays only), ``xshape`` (the
    input shape with a 1 inserted for each ``None``), ``ishape`` (the input shape),
    ``mid`` (the shape of ``x.reshape(xshape)[key]``), ``oshape`` (the MXNet-visible
    result shape: never 0-d, unless ``zero_d``, NumPy's rule for the ``mx.np`` face),
    ``basic`` (no advanced index) and ``copy``.
    Boolean arrays become their ``nonzero()`` index arrays; NDArrays, lists and
    float arrays become int64 arrays.
    """
    shape = tuple(shape)
    if not isinstance(key, tuple):
        key = (key,)
    items = []
    ell = False
    for k in key:
        if k is None or isinstance(k, _pyslice):
            items.append(k)
        elif k is Ellipsis:
            if ell:
                raise OutOfRangeError("an index can only have a single ellipsis ('...')")
            ell = True
            items.append(k)
        elif _isint(k):
            items.append(int(k))
        else:
            if isinstance(k, NDArray):
                a = k._data
            elif isinstance(k, np.ndarray):
                a = k
            elif isinstance(k, (list, tuple, range)):
                a = np.asarray(k)
                if a.size == 0:
                    a = a.astype(np.int64)
            elif isinstance(k, (bool, np.bool_)):
                raise OutOfRangeError("indexing an NDArray with a Python bool is not supported; "
                                 "use a boolean array of the indexed dimensions' shape")
            else:
                raise OutOfRangeError(f"NDArray indices must be integers, slices, Ellipsis, None, "
                                 f"lists, NumPy arrays or NDArrays, not {type(k).__name__}")
            if a.dtype == np.bool_:
                if a.ndim == 0:
                    raise OutOfRangeError("indexing with a 0-d boolean array is not supported")
                items.extend(np.nonzero(a))
                continue
            if a.dtype.kind not in "iu":
                if a.dtype.kind not in "fb":
                    raise OutOfRangeError(f"index arrays must be integer, float or boolean, not "
                                     f"{a.dtype}")
                a = a.astype(np.int64)
            if a.ndim == 0:
                items.append(int(a))
            else:
                items.append(a)
    consumed = builtins.sum(1 for k in items if k is not None and k is not Ellipsis)
    ndim = len(shape)
    if consumed > ndim:
        raise OutOfRangeError(f"too many indices ({consumed}) for an array with {ndim} "
                         f"dimensions (shape {shape})")
    fill = (_pyslice(None),) * (ndim - consumed)
    if ell:
        i = items.index(Ellipsis)
        items[i:i + 1] = fill
    else:
        items.extend(fill)
    xshape, knd, dims = [], [], 0
    advanced = False
    for k in items:
        if k is None:
            xshape.append(1)
            knd.append(_pyslice(None))
            continue
        n = shape[dims]
        xshape.append(n)
        if isinstance(k, int):
            if not -n <= k < n:
                raise OutOfRangeError(f"index {k} is out of bounds for axis {dims} with size {n}")
            knd.append(k % n)
        else:
            if isinstance(k, np.ndarray):
                advanced = True
            knd.append(k)
        dims += 1
    xshape = tuple(xshape)
    if advanced:
        key_out = tuple(knd)
        mid = _adv_shape(xshape, key_out)
        oshape = mid if mid or zero_d else (1,)
    else:
        key_out = []
        mid, oshape = [], []
        for k, n in zip(knd, xshape):
            if isinstance(k, int):
                key_out.append(_pyslice(k, k + 1))
                mid.append(1)
            else:
                key_out.append(k)
                m = _slice_len(k, n)
                mid.append(m)
                oshape.append(m)
        key_out, mid = tuple(key_out), tuple(mid)
        oshape = tuple(oshape) or (() if zero_d else (1,))
    return {"key": key_out, "xshape": xshape, "ishape": shape, "mid": mid,
            "oshape": oshape, "basic": not advanced, "copy": copy}


def _adv_shape(xshape, key):
    """Result shape of NumPy advanced indexing without touching data."""
    probe = np.broadcast_to(np.zeros((), np.int8), xshape)
    return probe[key].shape


# ================================================================= reshape
def _infer_reshape(ishape, shape, reverse=False):
    """MXNet's reshape codes (0, -1, -2, -3, -4) applied to ``ishape``."""
    req = tuple(int(s) for s in shape)
    if not reverse and min(req, default=1) >= -1 and 0 not in req:
        # no special codes but possibly one -1 (the common case)
        total = _prod(ishape)
        if -1 in req:
            if req.count(-1) == 1:
                rest = -_prod(req)
                if rest > 0 and total % rest == 0:
                    return tuple(total // rest if s == -1 else s for s in req)
        elif _prod(req) == total:
            return req
    src = list(ishape)
    codes = list(req)
    if reverse:
        src.reverse()
        codes.reverse()

    def bad(msg):
        return ShapeError(f"reshape: cannot reshape an array of shape {tuple(ishape)} to "
                          f"{req}{' (reverse=True)' if reverse else ''}: {msg}")
    out = []
    inf = -1
    si = 0
    i = 0
    n = len(src)
    while i < len(codes):
        c = codes[i]
        if c == 0:
            if si >= n:
                raise bad(f"code 0 at position {i} copies input dimension {si}, which does "
                          f"not exist")
            out.append(src[si])
            si += 1
        elif c == -1:
            if inf >= 0:
                raise bad("at most one dimension can be -1")
            inf = len(out)
            out.append(1)
            si += 1
        elif c == -2:
            out.extend(src[si:])
            si = n
        elif c == -3:
            if si + 1 >= n:
                raise bad(f"code -3 at position {i} needs two input dimensions from "
                          f"dimension {si}")
            out.append(src[si] * src[si + 1])
            si += 2
        elif c == -4:
            if si >= n:
                raise bad(f"code -4 at position {i} splits input dimension {si}, which does "
                          f"not exist")
            if i + 2 >= len(codes):
                raise bad("code -4 must be followed by the two sizes to split into")
            d0 = src[si]
            d1, d2 = codes[i + 1], codes[i + 2]
            if d1 == -1 and d2 == -1:
                raise bad("code -4 cannot be followed by two -1")
            if d1 == -1:
                d1 = d0 // d2 if d2 else 0
            elif d2 == -1:
                d2 = d0 // d1 if d1 else 0
            if d1 < 0 or d2 < 0 or d1 * d2 != d0:
                raise bad(f"code -4 splits dimension {si} of size {d0} into {codes[i + 1]} x "
                          f"{codes[i + 2]}, whose product differs")
            out.extend((d1, d2))
            si += 1
            i += 2
        elif c > 0:
            out.append(c)
            si += 1
        else:
            raise bad(f"unknown code {c} (special values are 0, -1, -2, -3, -4)")
        i += 1
    total = _prod(ishape)
    if inf >= 0:
        rest = _prod(out)
        if rest == 0 or total % rest:
            raise bad(f"the {total} elements cannot be split with the other dimensions "
                      f"{tuple(o for j, o in enumerate(out) if j != inf)} (product {rest})")
        out[inf] = total // rest
    if reverse:
        out.reverse()
    out = tuple(out)
    if _prod(out) != total:
        raise bad(f"the result {out} has {_prod(out)} elements, the "
                  f"input {total}")
    return out


def _shape_arg(shape, where="reshape: shape"):
    if _isint(shape):
        return (int(shape),)
    if isinstance(shape, (str, bytes)):
        raise DTypeError(f"{where} must be an int or a tuple of ints, got {shape!r}")
    try:
        items = tuple(shape)
    except TypeError:
        raise DTypeError(f"{where} must be an int or a tuple of ints, got {shape!r}") from None
    if not all(_isint(s) and not isinstance(s, (bool, np.bool_)) for s in items):
        raise DTypeError(f"{where} must be an int or a tuple of ints, got {shape!r}")
    return tuple(int(s) for s in items)


def reshape(data: NDArray, shape: Optional[ShapeLike] = None, reverse: bool = False, **kwargs: Any
            ) -> NDArray:
    """Reshape with MXNet's special codes into a new array (``x.reshape`` is the view).

    ``0`` copies the input dimension at that position, ``-1`` infers one dimension,
    ``-2`` copies all remaining input dimensions, ``-3`` merges two consecutive input
    dimensions, ``-4`` splits one input dimension into the two sizes that follow it
    (one may be ``-1``). ``reverse=True`` matches the codes from the right.

    Parameters
    ----------
    data : NDArray
    shape : tuple of int
    reverse : bool, default False

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((2, 3, 4))
    >>> mx.nd.reshape(x, (-1, 0)).shape
    (8, 3)
    >>> x.reshape((-4, 1, 2, -2)).shape
    (1, 2, 3, 4)
    >>> x.reshape(-3, 4).shape
    (6, 4)
    >>> mx.nd.reshape(mx.nd.zeros((10, 5, 4)), (-1, 0), reverse=True).shape
    (50, 4)
    """
    if shape is None:
        shape = kwargs.pop("target_shape", None)
        if shape is None:
            raise StateError("reshape: the target shape is required (shape=...)")
    data = _arr(data, "reshape")
    return _new_memory(_reshape_view(data, shape, reverse), data)


def _reshape_view(data, shape, reverse):
    target = _infer_reshape(data.shape, _shape_arg(shape), bool(reverse)) or (1,)
    return _view(data, target)


Reshape = reshape


def reshape_target(kwargs: dict, in_shape) -> Optional[tuple]:
    """The ``shape`` of a Reshape node, also from MXNet's deprecated ``target_shape`` (a 0
    is the one inferred size; ``keep_highest`` keeps the first dimension).

    Examples
    --------
    >>> reshape_target({'target_shape': (0, 4), 'keep_highest': True}, (2, 3, 4))
    (2, 4)
    """
    shape = kwargs.get("shape")
    target = kwargs.get("target_shape")
    if not target or shape:
        if shape is None:
            return None
        return (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape)
    t = [int(v) for v in target]
    if kwargs.get("keep_highest") and in_shape is not None:
        t[0] = in_shape[0]
    return tuple(-1 if v == 0 else v for v in t)


def _reshape_run(inputs, kwargs):
    """A Reshape node: its ``shape`` also from the deprecated ``target_shape``."""
    kw = {k: v for k, v in kwargs.items() if k not in ("target_shape", "keep_highest")}
    kw["shape"] = reshape_target(kwargs, inputs[0].shape)
    return reshape(inputs[0], **kw)


def reshaped_input(d: _sr.Shape, o: _sr.Shape) -> _sr.Shape:
    """The input shape ``d`` of a reshape with its one unknown dimension worked out from
    the known output ``o`` (the same number of elements), else ``d``.

    Examples
    --------
    >>> reshaped_input((-1, 4), (2, 6))
    (3, 4)
    """
    if d is not None and _sr.known(o) and sum(1 for v in d if v < 0) == 1:
        rest = _sr.prod(v for v in d if v >= 0)
        total = _sr.prod(o)
        if rest > 0 and total % rest == 0:
            return tuple(total // rest if v < 0 else v for v in d)
    return d


def _reshape_shape(kw, ins, outs):
    """Reshape's shape rule: the output from a known input by MXNet's codes; else an
    input's one unknown dimension from a known output."""
    d, o = ins[0], outs[0]
    target = reshape_target(kw, d)
    if target is None:
        return list(ins), list(outs)
    if _sr.known(d):
        return list(ins), [_sr.merge(o, _infer_reshape(d, target, bool(kw.get("reverse"))))]
    return [reshaped_input(d, o)], list(outs)


# the attributes: reshape's keywords (as "auto" would give) and the deprecated ones
mxnet_op("Reshape", aliases=("reshape",), run=_reshape_run, shape=_reshape_shape,
         attrs=("data", "shape", "reverse", "target_shape", "keep_highest"))


def reshape_method(self: NDArray, *shape: Any, **kwargs: Any) -> NDArray:
    """``x.reshape(4, 6)``, ``x.reshape((4, 6))`` or ``x.reshape(shape=(4, 6))``;
    MXNet's codes and ``reverse=`` apply (see :func:`mxgrad.nd.reshape`).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.zeros((2, 3, 4)).reshape(4, 6).shape
    (4, 6)
    """
    unknown = set(kwargs) - {"shape", "reverse"}
    if unknown:
        raise TypeError(f"reshape() got unknown keyword arguments {sorted(unknown)}; use "
                        f"shape= and reverse=")
    spec: Any = shape
    if len(shape) == 1 and isinstance(shape[0], (list, tuple)):
        spec = shape[0]
    elif not shape:
        spec = kwargs.get("shape")
        if spec is None:
            raise StateError("reshape() needs a shape: x.reshape(2, 3) or x.reshape((2, 3))")
    elif "shape" in kwargs:
        raise TypeError("reshape() got the shape both positionally and as shape=")
    # the method shares memory with ``self``, as MXNet's NDArray.reshape does
    return _reshape_view(_arr(self, "reshape"), spec, kwargs.get("reverse", False))


def reshape_like(lhs: NDArray, rhs: NDArray, lhs_begin: Optional[int] = None,
                 lhs_end: Optional[int] = None, rhs_begin: Optional[int] = None,
                 rhs_end: Optional[int] = None, **kwargs: Any) -> NDArray:
    """Reshape ``lhs`` to the shape of ``rhs`` (or replace the dimensions
    ``lhs_begin:lhs_end`` of ``lhs`` by ``rhs``'s ``rhs_begin:rhs_end``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.reshape_like(mx.nd.zeros((6,)), mx.nd.zeros((2, 3))).shape
    (2, 3)
    >>> mx.nd.reshape_like(mx.nd.zeros((30, 7)), mx.nd.zeros((15, 2, 4)),
    ...                    lhs_begin=0, lhs_end=1, rhs_begin=0, rhs_end=2).shape
    (15, 2, 7)
    """
    lhs = _arr(lhs, "reshape_like")
    rshape = tuple(rhs.shape)
    ls = tuple(lhs.shape)
    lb, le = _pyslice(lhs_begin, lhs_end).indices(len(ls))[:2]
    rb, re_ = _pyslice(rhs_begin, rhs_end).indices(len(rshape))[:2]
    target = ls[:lb] + rshape[rb:re_] + ls[le:]
    if _prod(target) != lhs.size:
        raise ShapeError(f"reshape_like: cannot reshape shape {ls} to {target} (taken from "
                         f"shape {rshape}): the sizes differ")
    return _new_memory(_view(lhs, target), lhs)


# the data's dtype for the output, the second input (whose shape is read) of any dtype;
# also broadcast_like's and slice_like's
_like_dtype = _dr.free(1)
mxnet_op("reshape_like", ("lhs", "rhs"), dtype=_like_dtype)


# ================================================================ transpose
def _transpose_fwd(x, axes):
    return np.transpose(x, axes).copy()


_TRANSPOSE = defop("transpose", _transpose_fwd,
                   [lambda g, y, x, axes: transpose(g, tuple(np.argsort(axes)))],
                   [lambda t, y, x, axes: transpose(t, axes)], save=())


def transpose(data: NDArray, axes: Union[int, Sequence[int], None] = None, **kwargs: Any
              ) -> NDArray:
    """Permute the axes (reverse them when ``axes`` is empty or None). Returns a copy.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.transpose(mx.nd.zeros((2, 3, 4))).shape
    (4, 3, 2)
    >>> mx.nd.transpose(mx.nd.zeros((2, 3, 4)), axes=(1, 0, 2)).shape
    (3, 2, 4)
    """
    data = _arr(data, "transpose")
    nd_ = data.ndim
    if axes is None or axes == ():
        axes = tuple(range(nd_ - 1, -1, -1))
    else:
        if _isint(axes):
            axes = (axes,)
        axes = tuple(_axis(a, nd_, "transpose") for a in axes)
        if sorted(axes) != list(range(nd_)):
            raise ShapeError(f"transpose: axes {axes} are not a permutation of the "
                             f"{nd_} dimensions of shape {data.shape}")
    if axes == tuple(range(nd_)):
        from .elemwise import identity_copy
        return identity_copy(data)
    return call1(_TRANSPOSE, data, {"axes": tuple(int(a) for a in axes)})


def _transpose_shape(kw, ins, outs):
    """transpose's shape rule: the output as the input's axes permuted, and back."""
    d, o = ins[0], outs[0]
    n = len(d) if d is not None else (len(o) if o is not None else None)
    if n is None:
        return [d], [o]
    axes = _sr.as_tuple(kw.get("axes"))
    axes = tuple(a % n for a in axes) if axes else tuple(reversed(range(n)))
    if d is not None:
        o = _sr.merge(o, tuple(d[a] for a in axes))
    if o is not None:
        inv = [0] * n
        for i, a in enumerate(axes):
            inv[a] = i
        d = _sr.merge(d, tuple(o[inv[j]] for j in range(n)))
    return [d], [o]


mxnet_op("transpose", shape=_transpose_shape)


def transpose_method(self: NDArray, *axes: Any, **kwargs: Any) -> NDArray:
    """``x.transpose()``, ``x.transpose((1, 0))``, ``x.transpose(1, 0)`` or ``axes=``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.zeros((2, 3)).transpose().shape
    (3, 2)
    """
    spec: Any = axes
    if len(axes) == 1 and (isinstance(axes[0], (list, tuple)) or axes[0] is None):
        spec = axes[0]
    elif not axes:
        spec = kwargs.get("axes")
    return transpose(self, spec)


def transpose_property(self: NDArray) -> NDArray:
    """The transpose (the array itself when it has fewer than 2 dimensions)."""
    if self.ndim < 2:
        return self
    return transpose(self)


def swapaxes(data: NDArray, dim1: int = 0, dim2: int = 0, **kwargs: Any) -> NDArray:
    """Interchange two axes. Returns a copy.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.swapaxes(mx.nd.zeros((2, 3, 4)), 0, 2).shape
    (4, 3, 2)
    """
    data = _arr(data, "swapaxes")
    a = _axis(dim1, data.ndim, "swapaxes")
    b = _axis(dim2, data.ndim, "swapaxes")
    axes = list(range(data.ndim))
    axes[a], axes[b] = axes[b], axes[a]
    return transpose(data, tuple(axes))


SwapAxis = swapaxes
mxnet_op("SwapAxis", aliases=("swapaxes",))


def moveaxis(tensor: NDArray, source: Union[int, List[int], Tuple[int, ...]],
             destination: Union[int, List[int], Tuple[int, ...]]) -> NDArray:
    """Move axes ``source`` to positions ``destination`` (ints, or lists of ints of the same
    length, as NumPy's ``moveaxis``); the other axes keep their order.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.moveaxis(mx.nd.zeros((2, 3, 4)), 0, -1).shape
    (3, 4, 2)
    >>> mx.nd.moveaxis(mx.nd.zeros((2, 3, 4)), [0, 1], [2, 0]).shape
    (3, 4, 2)
    """
    tensor = _arr(tensor, "moveaxis")
    n = tensor.ndim
    srcs = list(source) if isinstance(source, (list, tuple, range)) else [source]
    dsts = list(destination) if isinstance(destination, (list, tuple, range)) else [destination]
    if len(srcs) != len(dsts):
        raise ShapeError(f"moveaxis: source {source!r} and destination {destination!r} must "
                         f"name the same number of axes")
    srcs = [_axis(a, n, "moveaxis") for a in srcs]
    dsts = [_axis(a, n, "moveaxis") for a in dsts]
    if len(set(srcs)) != len(srcs) or len(set(dsts)) != len(dsts):
        raise ShapeError(f"moveaxis: repeated axis in source {source!r} or destination "
                         f"{destination!r}")
    order = [i for i in range(n) if i not in srcs]
    for d, s in sorted(zip(dsts, srcs)):
        order.insert(d, s)
    return transpose(tensor, tuple(order))


# ========================================================= reshape family views
def expand_dims(data: NDArray, axis: int, **kwargs: Any) -> NDArray:
    """Insert a dimension of size 1 at ``axis`` (a new array).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.expand_dims(mx.nd.zeros((2, 3)), axis=1).shape
    (2, 1, 3)
    >>> mx.nd.zeros((2, 3)).expand_dims(-1).shape
    (2, 3, 1)
    """
    data = _arr(data, "expand_dims")
    return _new_memory(_view(data, _expanded_shape(data, axis)), data)


mxnet_op("expand_dims")


def _expanded_shape(data, axis):
    ax = _axis(axis, data.ndim, "expand_dims", extra=1)
    s = tuple(data.shape)
    return s[:ax] + (1,) + s[ax:]


def squeeze(data: NDArray, axis: Axis = None, **kwargs: Any) -> NDArray:
    """Remove dimensions of size 1 (all of them, or those in ``axis``). A new array; when
    every dimension is removed the result has shape ``(1,)``, as in MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.squeeze(mx.nd.zeros((2, 1, 3, 1))).shape
    (2, 3)
    >>> mx.nd.squeeze(mx.nd.zeros((1, 1))).shape
    (1,)
    >>> mx.nd.zeros((2, 1, 3, 1)).squeeze(axis=1).shape
    (2, 3, 1)
    """
    data = _arr(data, "squeeze")
    return _new_memory(_view(data, _squeezed_shape(data, axis)), data)


mxnet_op("squeeze")


def _squeezed_shape(data, axis):
    s = tuple(data.shape)
    if axis is None:
        axes = [i for i, d in enumerate(s) if d == 1]
    else:
        axes = normalize_axes(axis, len(s), op="squeeze")
        for a in axes:
            if s[a] != 1:
                raise ShapeError(f"squeeze: axis {a} of shape {s} has size {s[a]}, not 1; only "
                                 f"dimensions of size 1 can be removed")
    return tuple(d for i, d in enumerate(s) if i not in axes) or (1,)


def flatten(data: NDArray, **kwargs: Any) -> NDArray:
    """Collapse all dimensions but the first: shape ``(N, -1)`` (a 1-D input gives
    ``(N, 1)``). A new array.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.flatten(mx.nd.zeros((2, 3, 4))).shape
    (2, 12)
    """
    data = _arr(data, "flatten")
    return _new_memory(_view(data, _flat_shape(data)), data)


def _flat_shape(data):
    s = tuple(data.shape)
    return (s[0], _prod(s[1:]))


Flatten = flatten


def _flatten_shape(kw, ins, outs):
    """Flatten's shape rule: ``(N, product of the other dimensions)``."""
    d, o = ins[0], outs[0]
    if d is not None:
        o = _sr.merge(o, (d[0], _sr.prod(d[1:])) if len(d) > 1 else (d[0], 1))
    return [d], [o]


mxnet_op("Flatten", aliases=("flatten",), shape=_flatten_shape)


# ============================================================ concat / split
def _concat_fwd(*xs, dim, parts, oshape):
    return np.concatenate(xs, axis=dim)


def _concat_op(n):
    op = _CONCAT.get(n)
    if op is None:
        def grad(i):
            return lambda g, y, *xs, dim, parts, oshape: index_apply(g, parts[i])

        def jvp(i):
            return lambda t, y, *xs, dim, parts, oshape: index_add_apply(t, parts[i])
        op = defop("concat", _concat_fwd, [grad(i) for i in range(n)],
                   [jvp(i) for i in range(n)], save=())
        _CONCAT[n] = op
    return op


_CONCAT: dict = {}


def _axis_key(ndim, axis, k):
    return (_pyslice(None),) * axis + (k,)


def concat(*data: ArrayT, dim: int = 1, num_args: Optional[int] = None, **kwargs: Any) -> ArrayT:
    """Join arrays along ``dim`` (default 1, as in MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> a, b = mx.nd.ones((2, 2)), mx.nd.zeros((2, 1))
    >>> mx.nd.concat(a, b)
    <BLANKLINE>
    [[1. 1. 0.]
     [1. 1. 0.]]
    <NDArray 2x3 @cpu(0)>
    >>> mx.nd.concat(a, a, dim=0).shape
    (4, 2)
    """
    if len(data) == 1 and isinstance(data[0], (list, tuple)):
        data = tuple(data[0])
    if not data:
        raise StateError("concat needs at least one array")
    data = tuple(_arr(d, "concat") for d in data)
    nd_ = data[0].ndim
    ax = _axis(dim, nd_, "concat")
    s0 = tuple(data[0].shape)
    for d in data[1:]:
        s = tuple(d.shape)
        if len(s) != nd_ or s[:ax] + s[ax + 1:] != s0[:ax] + s0[ax + 1:]:
            raise ShapeError(f"concat: shapes {[tuple(x.shape) for x in data]} do not match "
                             f"except along dim {ax}")
    if len(data) == 1:
        from .elemwise import identity_copy
        return identity_copy(data[0])
    total = builtins.sum(d.shape[ax] for d in data)
    oshape = s0[:ax] + (total,) + s0[ax + 1:]
    parts, off = [], 0
    for d in data:
        n = d.shape[ax]
        parts.append(index_spec(oshape, _axis_key(nd_, ax, _pyslice(off, off + n)),
                                copy=False))
        off += n
    return call(_concat_op(len(data)), data, {"dim": ax, "parts": tuple(parts),
                                               "oshape": oshape})


Concat = concat


def _concat_shape(kw, ins, outs):
    """Concat's shape rule: inputs and output agree off the ``dim`` axis; the output's
    size along it is the inputs' sum."""
    dim = int(kw.get("dim", 1))
    nds = {len(s) for s in list(ins) + list(outs) if s is not None}
    if not nds:
        return list(ins), list(outs)
    if len(nds) > 1:
        raise ShapeError(f"Concat: inputs of different ranks {sorted(nds)}")
    n = nds.pop()
    ax = dim % n
    rest: _sr.Shape = (-1,) * n
    for s in list(ins) + list(outs):
        if s is not None:
            rest = _sr.merge(rest, tuple(-1 if i == ax else v for i, v in enumerate(s)))
    new_ins = []
    for s in ins:
        s = _sr.merge(s, rest)
        new_ins.append(s)
    sizes = [s[ax] for s in new_ins]
    o = _sr.merge(outs[0], rest)
    if all(v >= 0 for v in sizes):
        o = _sr.merge(o, tuple(builtins.sum(sizes) if i == ax else v
                               for i, v in enumerate(rest)))
    return new_ins, [o]


mxnet_op("Concat", None, aliases=("concat",), shape=_concat_shape)


def _rnn_param_concat_run(inputs, kwargs):
    """An ``_rnn_param_concat`` node: Concat of an RNN layer's flattened parameters."""
    return concat(*inputs, **kwargs)


def _rnn_param_concat_shape(kw, ins, outs):
    """The shape rule of the Concat of an RNN layer's flattened weights and biases: the RNN
    op's rule gives the total; the inputs left unknown are the first layer's
    input-to-hidden weights (one per direction, of one size), which share what the known
    ones leave."""
    new_ins, new_outs = _concat_shape(kw, ins, outs)
    o = new_outs[0]
    unknown = [i for i, x in enumerate(new_ins) if x is None or len(x) != 1 or x[0] < 0]
    if o is not None and len(o) == 1 and o[0] >= 0 and unknown and \
            all(new_ins[i] is None or len(new_ins[i]) == 1 for i in unknown):
        left = o[0] - builtins.sum(x[0] for i, x in enumerate(new_ins) if i not in unknown)
        if left >= 0 and left % len(unknown) == 0:
            for i in unknown:
                new_ins[i] = (left // len(unknown),)
    return new_ins, new_outs


# Gluon's RNN layers write their parameters' concatenation under this name
mxnet_op("_rnn_param_concat", None, nd_name="Concat", run=_rnn_param_concat_run,
         shape=_rnn_param_concat_shape)


def concatenate(arrays: Sequence[NDArray], axis: int = 0, always_copy: bool = True) -> NDArray:
    """Join a list of arrays along ``axis`` (default 0), as ``mx.nd.concatenate``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.concatenate([mx.nd.ones((1, 2)), mx.nd.zeros((1, 2))]).shape
    (2, 2)
    """
    return concat(*arrays, dim=axis)


def stack(*data: NDArray, axis: int = 0, num_args: Optional[int] = None, **kwargs: Any) -> NDArray:
    """Join arrays of the same shape along a new axis.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.stack(mx.nd.ones((2, 3)), mx.nd.zeros((2, 3))).shape
    (2, 2, 3)
    >>> mx.nd.stack(mx.nd.ones((2, 3)), mx.nd.zeros((2, 3)), axis=-1).shape
    (2, 3, 2)
    """
    if len(data) == 1 and isinstance(data[0], (list, tuple)):
        data = tuple(data[0])
    if not data:
        raise StateError("stack needs at least one array")
    data = tuple(_arr(d, "stack") for d in data)
    shapes = {tuple(d.shape) for d in data}
    if len(shapes) > 1:
        raise ShapeError(f"stack: all arrays must have the same shape, got "
                         f"{[tuple(d.shape) for d in data]}")
    ax = _axis(axis, data[0].ndim, "stack", extra=1)
    parts = [expand_dims(d, ax) for d in data]
    if len(parts) == 1:
        from .elemwise import identity_copy
        return identity_copy(parts[0])
    return concat(*parts, dim=ax)


mxnet_op("stack", None)


def _split_fwd(x, axis, n, squeeze, ishape):
    outs = np.split(x, n, axis=axis)
    if squeeze:
        part = ishape[:axis] + ishape[axis + 1:] or (1,)
        return tuple(o.reshape(part).copy() for o in outs)
    return tuple(o.copy() for o in outs)


def _split_grad_rule(g, y, x, axis, n, squeeze, ishape):
    gs = list(g)
    if squeeze:
        part = ishape[:axis] + (1,) + ishape[axis + 1:]
        gs = [reshape_exact(gi, part) for gi in gs]
    return concat(*gs, dim=axis)


def _split_grad_raw(g, y, x, axis, n, squeeze, ishape):
    """The gradient of split on NumPy arrays: the pieces' gradients joined (an
    ordinary backward; ``_split_grad_rule`` records it under ``create_graph``)."""
    if squeeze:
        part = ishape[:axis] + (1,) + ishape[axis + 1:]
        g = [gi.reshape(part) for gi in g]
    return np.concatenate(g, axis=axis)


def _split_jvp(t, y, x, axis, n, squeeze, ishape):
    r = split(t, n, axis=axis, squeeze_axis=squeeze)
    return tuple(r) if isinstance(r, (list, tuple)) else (r,)


def _split_op(n):
    op = _SPLIT.get(n)
    if op is None:
        op = defop("split", _split_fwd,
                   [_split_grad_rule], [_split_jvp], save=(), nout=n,
                   raw_grads=[_split_grad_raw])
        _SPLIT[n] = op
    return op


_SPLIT: dict = {}


@overload
def split(data: NDArray, num_outputs: Literal[1], axis: int = 1,
          squeeze_axis: bool = False, **kwargs: Any) -> NDArray: ...
@overload
def split(data: NDArray, num_outputs: int, axis: int = 1, squeeze_axis: bool = False,
          **kwargs: Any) -> List[NDArray]: ...
def split(data: NDArray, num_outputs: int, axis: int = 1, squeeze_axis: bool = False,
          **kwargs: Any) -> Union[NDArray, List[NDArray]]:
    """Split ``data`` into ``num_outputs`` equal parts along ``axis`` (default 1).

    Returns a list of arrays, or a single array when ``num_outputs`` is 1 (as MXNet
    does). ``squeeze_axis=True`` removes the split axis (its size must then equal
    ``num_outputs``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> parts = mx.nd.split(mx.nd.zeros((2, 6)), num_outputs=3)
    >>> [p.shape for p in parts]
    [(2, 2), (2, 2), (2, 2)]
    >>> [p.shape for p in mx.nd.split(mx.nd.zeros((3, 4)), 3, axis=0, squeeze_axis=True)]
    [(4,), (4,), (4,)]
    """
    data = _arr(data, "split")
    n = int(num_outputs)
    ax = _axis(axis, data.ndim, "split")
    size = data.shape[ax]
    if n < 1 or size % n:
        raise ShapeError(f"split: axis {ax} of shape {tuple(data.shape)} (size {size}) cannot "
                         f"be split into {n} equal parts")
    if squeeze_axis and size != n:
        raise ShapeError(f"split: squeeze_axis=True needs the split axis size ({size}) to "
                         f"equal num_outputs ({n})")
    if n == 1:
        from .elemwise import identity_copy
        r = identity_copy(data)
        return squeeze(r, axis=ax) if squeeze_axis else r
    attrs = {"axis": ax, "n": n, "squeeze": bool(squeeze_axis), "ishape": tuple(data.shape)}
    return list(call1(_split_op(n), data, attrs))


SliceChannel = split


def _split_shape(kw, ins, outs):
    """SliceChannel's shape rule: every output one part of the input along ``axis`` (that
    axis dropped with ``squeeze_axis``), and the input from a known part."""
    n = int(kw.get("num_outputs", 1))
    axis = int(kw.get("axis", 1))
    squeeze = bool(kw.get("squeeze_axis", False))
    d = ins[0]
    part: _sr.Shape = None
    for s in outs:
        part = _sr.merge(part, s)
    if d is not None:
        ax = axis % len(d)
        if squeeze:
            p = tuple(v for i, v in enumerate(d) if i != ax)
        else:
            p = tuple((v // n if v >= 0 else -1) if i == ax else v for i, v in enumerate(d))
        part = _sr.merge(part, p)
    if part is not None:
        nd_ = len(part) + (1 if squeeze else 0)
        ax = axis % nd_
        full = list(part)
        if squeeze:
            full.insert(ax, n)
        else:
            full[ax] = full[ax] * n if full[ax] >= 0 else -1
        d = _sr.merge(d, tuple(full))
    return [d], [part] * len(outs)


mxnet_op("SliceChannel", aliases=("split",), shape=_split_shape,
         outputs=lambda kw: int(kw.get("num_outputs", 1)))


def split_v2(ary: NDArray, indices_or_sections: Union[int, Sequence[int]], axis: int = 0,
             squeeze_axis: bool = False) -> Union[NDArray, List[NDArray]]:
    """Split like ``numpy.split``: into equal sections or at the given indices.

    Examples
    --------
    >>> import mxgrad as mx
    >>> [p.shape for p in mx.nd.split_v2(mx.nd.zeros((6, 2)), [1, 4])]
    [(1, 2), (3, 2), (2, 2)]
    """
    ary = _arr(ary, "split_v2")
    ax = _axis(axis, ary.ndim, "split_v2")
    size = ary.shape[ax]
    if _isint(indices_or_sections):
        n = int(indices_or_sections)
        if n < 1 or size % n:
            raise ShapeError(f"split_v2: axis {ax} of size {size} cannot be split into {n} "
                             f"equal sections")
        bounds = [i * (size // n) for i in range(n + 1)]
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [size]
    outs = []
    for b, e in zip(bounds[:-1], bounds[1:]):
        part = slice_axis(ary, ax, b, e)
        if squeeze_axis:
            part = squeeze(part, axis=ax)
        outs.append(part)
    return outs if len(outs) > 1 else outs[0]


def _split_v2_run(inputs, kwargs):
    """A ``_split_v2`` node: MXNet's indices start with a 0; ``sections`` > 0 means equal
    parts."""
    sections = int(kwargs.get("sections", 0) or 0)
    where = sections if sections > 0 else tuple(kwargs.get("indices", ()))[1:]
    return split_v2(inputs[0], where, axis=int(kwargs.get("axis", 0)),
                    squeeze_axis=bool(kwargs.get("squeeze_axis", False)))


mxnet_op("_split_v2", run=_split_v2_run, attrs=("indices", "axis", "squeeze_axis", "sections"),
         outputs=lambda kw: int(kw.get("sections", 0) or 0)
         or len(tuple(kw.get("indices", ()))))


# ================================================================== slicing
def _norm_triplet(v, m, what) -> Tuple[Optional[int], ...]:
    if v is None:
        return (None,) * m
    if _isint(v):
        v = (v,)
    v = tuple(None if e is None else int(e) for e in v)
    if len(v) != m:
        raise ShapeError(f"slice: {what} has {len(v)} entries, begin has {m}")
    return v


def slice(data: NDArray, begin: Union[int, None, Sequence[Optional[int]]],
          end: Union[int, None, Sequence[Optional[int]]],
          step: Union[int, None, Sequence[Optional[int]]] = None, **kwargs: Any) -> NDArray:
    """Slice a region: ``data[b0:e0:s0, b1:e1:s1, ...]`` for the leading axes given.

    ``None`` entries take the defaults (whole axis; for a negative step from the last
    element down to the first). Returns a copy.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    >>> mx.nd.slice(x, begin=(0, 1), end=(2, 4))
    <BLANKLINE>
    [[2. 3. 4.]
     [6. 7. 8.]]
    <NDArray 2x3 @cpu(0)>
    >>> mx.nd.slice(x, begin=(None, 0), end=(None, 3), step=(-1, 2))
    <BLANKLINE>
    [[ 9. 11.]
     [ 5.  7.]
     [ 1.  3.]]
    <NDArray 3x2 @cpu(0)>
    """
    data = _arr(data, "slice")
    kn = index_spec(data.shape, slice_key(data.shape, begin, end, step), copy=True)
    return index_apply(data, kn)


def slice_key(shape, begin, end, step, op: str = "slice") -> tuple:
    """The Python index of MXNet's ``begin``/``end``/``step`` triplets (``slice``,
    ``_slice_assign``, ``_crop_assign``)."""
    if _isint(begin) or begin is None:
        begin = (begin,)
    begin = tuple(None if b is None else int(b) for b in begin)
    m = len(begin)
    if m > len(shape):
        raise ShapeError(f"{op}: begin has {m} entries but the array has {len(shape)} "
                         f"dimensions (shape {tuple(shape)})")
    end = _norm_triplet(end, m, "end")
    step = _norm_triplet(step, m, "step") if step is not None and step != () else (None,) * m
    key = []
    for b, e, s in zip(begin, end, step):
        if s == 0:
            raise ShapeError(f"{op}: step cannot be 0")
        key.append(_pyslice(b, e, s))
    return tuple(key)


crop = slice


def _sliced_size(dim: int, b, e, st) -> int:
    """The size of ``b:e:st`` of an axis of size ``dim`` (-1 when unknown)."""
    if dim < 0:
        return -1
    return len(range(*_pyslice(b, e, st).indices(dim)))


def _slice_shape(kw, ins, outs):
    """slice's shape rule: the output from the input and ``begin``/``end``/``step``."""
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    begin, end = tuple(kw.get("begin") or ()), tuple(kw.get("end") or ())
    step = tuple(kw.get("step") or ())
    out = list(d)
    for i in range(len(begin)):
        st = step[i] if i < len(step) and step[i] is not None else None
        e = end[i] if i < len(end) else None
        out[i] = _sliced_size(d[i], begin[i], e, st)
    return list(ins), [_sr.merge(outs[0], tuple(out))]


mxnet_op("slice", aliases=("crop",), shape=_slice_shape)


def slice_axis(data: NDArray, axis: int, begin: int, end: Optional[int], **kwargs: Any) -> NDArray:
    """Slice ``begin:end`` along one axis (``end=None`` means to the end). A copy.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]])
    >>> mx.nd.slice_axis(x, axis=1, begin=-3, end=-1)
    <BLANKLINE>
    [[ 2.  3.]
     [ 6.  7.]
     [10. 11.]]
    <NDArray 3x2 @cpu(0)>
    """
    data = _arr(data, "slice_axis")
    ax = _axis(axis, data.ndim, "slice_axis")
    kn = index_spec(data.shape, _axis_key(data.ndim, ax, _pyslice(begin, end)), copy=True)
    return index_apply(data, kn)


def _slice_axis_shape(kw, ins, outs):
    """slice_axis's shape rule: the output from the input and ``axis``/``begin``/``end``."""
    d = ins[0]
    if d is None:
        return list(ins), list(outs)
    ax = int(kw["axis"]) % len(d)
    out = list(d)
    out[ax] = _sliced_size(d[ax], kw.get("begin"), kw.get("end"), None)
    return list(ins), [_sr.merge(outs[0], tuple(out))]


mxnet_op("slice_axis", shape=_slice_axis_shape)


def slice_like(data: NDArray, shape_like: NDArray, axes: Union[int, Sequence[int]] = (),
               **kwargs: Any) -> NDArray:
    """Slice ``data`` to the shape of ``shape_like`` (on ``axes``, all by default),
    starting at index 0.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.slice_like(mx.nd.zeros((3, 4)), mx.nd.zeros((2, 3))).shape
    (2, 3)
    >>> mx.nd.slice_like(mx.nd.zeros((3, 4)), mx.nd.zeros((2, 3)), axes=(1,)).shape
    (3, 3)
    """
    data = _arr(data, "slice_like")
    ls = tuple(shape_like.shape)
    nd_ = data.ndim
    if axes is None or axes == ():
        if len(ls) != nd_:
            raise ShapeError(f"slice_like: shape_like has {len(ls)} dimensions, data has "
                             f"{nd_}; give axes= to slice only some axes")
        axes = tuple(range(nd_))
    elif _isint(axes):
        axes = (axes,)
    key = [_pyslice(None)] * nd_
    for a in axes:
        a = int(a)
        if not -len(ls) <= a < len(ls):
            raise ShapeError(f"slice_like: axis {a} is out of range for shape_like of shape "
                             f"{ls}")
        ai = _axis(a, nd_, "slice_like")
        if ls[a] > data.shape[ai]:
            raise ShapeError(f"slice_like: shape_like's size {ls[a]} on axis {a} exceeds data's "
                             f"{data.shape[ai]}")
        key[ai] = _pyslice(0, ls[a])
    return index_apply(data, index_spec(data.shape, tuple(key), copy=True))


mxnet_op("slice_like", ("data", "shape_like"), dtype=_like_dtype)


# ============================================================== broadcasting
def broadcast_axis(data: NDArray, axis: Union[int, Sequence[int]] = (),
                   size: Union[int, Sequence[int]] = (), **kwargs: Any) -> NDArray:
    """Broadcast size-1 axes to ``size``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.broadcast_axis(mx.nd.zeros((1, 2, 1)), axis=(0, 2), size=(3, 4)).shape
    (3, 2, 4)
    """
    data = _arr(data, "broadcast_axis")
    if _isint(axis):
        axis = (axis,)
    if _isint(size):
        size = (size,)
    axis, size = tuple(axis), tuple(size)
    if len(axis) != len(size):
        raise ShapeError(f"broadcast_axis: axis {axis} and size {size} must have the same "
                         f"length")
    shape = list(data.shape)
    for a, s in zip(axis, size):
        ai = _axis(a, data.ndim, "broadcast_axis")
        if shape[ai] != 1 and shape[ai] != s:
            raise ShapeError(f"broadcast_axis: axis {ai} of shape {tuple(data.shape)} has size "
                             f"{shape[ai]}; only size-1 axes can be broadcast")
        shape[ai] = int(s)
    return _fresh(broadcast_to(data, tuple(shape)), data)


broadcast_axes = broadcast_axis
mxnet_op("broadcast_axis", aliases=("broadcast_axes",))
# broadcast_to's function is reduce.py's (shape.py's family imports it)
mxnet_op("broadcast_to")


def broadcast_like(lhs: NDArray, rhs: NDArray, lhs_axes: Union[int, Sequence[int], None] = None,
                   rhs_axes: Union[int, Sequence[int], None] = None, **kwargs: Any) -> NDArray:
    """Broadcast ``lhs`` to the shape of ``rhs`` (or only ``lhs_axes`` to the sizes of
    ``rhs_axes``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.broadcast_like(mx.nd.ones((1, 3)), mx.nd.zeros((2, 3))).shape
    (2, 3)
    >>> mx.nd.broadcast_like(mx.nd.ones((1, 2)), mx.nd.zeros((3, 4)), lhs_axes=(0,),
    ...                      rhs_axes=(0,)).shape
    (3, 2)
    """
    lhs = _arr(lhs, "broadcast_like")
    rshape = tuple(rhs.shape)
    if lhs_axes is None and rhs_axes is None:
        if len(rshape) < lhs.ndim:
            raise ShapeError(f"broadcast_like: cannot broadcast shape {tuple(lhs.shape)} to "
                             f"{rshape}")
        return _fresh(broadcast_to(lhs, rshape), lhs)
    if lhs_axes is None or rhs_axes is None:
        raise ShapeError("broadcast_like: give both lhs_axes and rhs_axes, or neither")
    if _isint(lhs_axes):
        lhs_axes = (lhs_axes,)
    if _isint(rhs_axes):
        rhs_axes = (rhs_axes,)
    if len(lhs_axes) != len(rhs_axes):
        raise ShapeError(f"broadcast_like: lhs_axes {tuple(lhs_axes)} and rhs_axes "
                         f"{tuple(rhs_axes)} must have the same length")
    if len(lhs_axes) == 0:
        raise ShapeError("broadcast_like: lhs_axes and rhs_axes are empty; name the axes to "
                         "broadcast, or pass neither to broadcast to rhs's whole shape")
    shape = list(lhs.shape)
    for la, ra in zip(lhs_axes, rhs_axes):
        shape[_axis(la, lhs.ndim, "broadcast_like")] = rshape[_axis(ra, len(rshape),
                                                                   "broadcast_like")]
    return _fresh(broadcast_to(lhs, tuple(shape)), lhs)


mxnet_op("broadcast_like", ("lhs", "rhs"), dtype=_like_dtype)


def _identity_like_rhs_run(inputs, kwargs):
    """An ``_identity_with_attr_like_rhs`` node (MXNet's graphs): a copy of ``lhs``."""
    return inputs[0].copy()


mxnet_op("_identity_with_attr_like_rhs", ("lhs", "rhs"), run=_identity_like_rhs_run,
         attrs=(), shape=_sr.same)


def tile(data: NDArray, reps: Union[int, Sequence[int]], **kwargs: Any) -> NDArray:
    """Repeat the whole array ``reps`` times along each axis (NumPy's ``tile``).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.tile(mx.nd.array([[1, 2], [3, 4]]), reps=(2, 3)).shape
    (4, 6)
    >>> mx.nd.tile(mx.nd.array([1, 2]), reps=(2,))
    <BLANKLINE>
    [1. 2. 1. 2.]
    <NDArray 4 @cpu(0)>
    """
    data = _arr(data, "tile")
    if _isint(reps):
        reps = (reps,)
    reps = tuple(int(r) for r in reps)
    if any(r < 0 for r in reps):
        raise ShapeError(f"tile: reps {reps} must be non-negative")
    if 0 in reps and not is_np_shape():
        raise ShapeError(f"tile: reps {reps} has a 0, which makes an empty array: MXNet "
                         f"allows that only in NumPy shape semantics (mx.np_shape(True))")
    shape = tuple(data.shape)
    d = max(len(reps), len(shape))
    reps = (1,) * (d - len(reps)) + reps
    shape = (1,) * (d - len(shape)) + shape
    if 0 in reps:
        x = tile(data, tuple(r or 1 for r in reps))
        key = tuple(_pyslice(0, 0) if r == 0 else _pyslice(None) for r in reps)
        return index_apply(x, index_spec(x.shape, key, copy=True))
    inter = []
    big = []
    for r, s in zip(reps, shape):
        inter += [1, s]
        big += [r, s]
    x = reshape_exact(data, tuple(inter))
    x = broadcast_to(x, tuple(big))
    r = reshape_exact(x, tuple(r * s for r, s in zip(reps, shape)))
    return _fresh(r, data)

mxnet_op("tile")


def repeat(data: NDArray, repeats: int, axis: Optional[int] = None, **kwargs: Any) -> NDArray:
    """Repeat each element ``repeats`` times along ``axis`` (of the flattened array
    when ``axis`` is None).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.repeat(mx.nd.array([[1, 2], [3, 4]]), repeats=2)
    <BLANKLINE>
    [1. 1. 2. 2. 3. 3. 4. 4.]
    <NDArray 8 @cpu(0)>
    >>> mx.nd.repeat(mx.nd.array([[1, 2], [3, 4]]), repeats=2, axis=1).shape
    (2, 4)
    """
    data = _arr(data, "repeat")
    if not _isint(repeats) or int(repeats) < 0:
        raise ShapeError(f"repeat: repeats must be a non-negative int, got {repeats!r}")
    rep = int(repeats)
    if axis is None:
        data = reshape_exact(data, (data.size,))
        ax = 0
    else:
        ax = _axis(axis, data.ndim, "repeat")
    s = tuple(data.shape)
    if rep == 0:
        kn = index_spec(s, _axis_key(len(s), ax, _pyslice(0, 0)), copy=True)
        return index_apply(data, kn)
    x = reshape_exact(data, s[:ax + 1] + (1,) + s[ax + 1:])
    x = broadcast_to(x, s[:ax + 1] + (rep,) + s[ax + 1:])
    r = reshape_exact(x, s[:ax] + (s[ax] * rep,) + s[ax + 1:])
    return _fresh(r, data)


mxnet_op("repeat")


def flip(data: NDArray, axis: Union[int, Sequence[int]], **kwargs: Any) -> NDArray:
    """Reverse the order of elements along ``axis`` (an int or a tuple). A copy.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.flip(mx.nd.array([[1, 2], [3, 4]]), axis=1)
    <BLANKLINE>
    [[2. 1.]
     [4. 3.]]
    <NDArray 2x2 @cpu(0)>
    """
    data = _arr(data, "flip")
    axes = normalize_axes(axis, data.ndim, op="flip", duplicates=True)
    key = tuple(_pyslice(None, None, -1) if i in axes else _pyslice(None)
                for i in range(data.ndim))
    return index_apply(data, index_spec(data.shape, key, copy=True))


reverse = flip
mxnet_op("reverse", aliases=("flip",), shape=_sr.same)


# ====================================================================== pad
def _pad_fwd(x, widths, value):
    # np.pad's result without its Python wrapper (several times its copy's cost for a
    # small array): a filled array with x copied into its interior
    r = np.full(tuple(n + b + a for n, (b, a) in zip(x.shape, widths)), value, x.dtype)
    r[tuple(_pyslice(b, b + n) for n, (b, a) in zip(x.shape, widths))] = x
    return r


def _pad_interior(widths, oshape):
    return index_spec(oshape, tuple(_pyslice(b, n - a) for (b, a), n in zip(widths, oshape)),
                      copy=False)


def _pad_grad(g, y, x, widths, value):
    return index_apply(g, _pad_interior(widths, g.shape))


def _pad_jvp(t, y, x, widths, value):
    return call1(_PAD, t, {"widths": widths, "value": 0.0})


_PAD = defop("pad", _pad_fwd, [_pad_grad], [_pad_jvp], save=())


# edge and reflect padding: one gather per padded axis (the positions np.pad gives an
# arange), as one op whose attributes are the widths and the mode only; the gathers'
# keys are made from them (cached per geometry), so a planned graph runs it as an op step
@functools.lru_cache(maxsize=64)
def _edge_pad_keys(shape, widths, mode):
    """The ``_index`` attributes of each axis' gather, first axis first."""
    keys = []
    for ax, (b, a) in enumerate(widths):
        if b == 0 and a == 0:
            continue
        idx = np.pad(np.arange(shape[ax]), (b, a), mode=mode)
        idx.flags.writeable = False
        kn = index_spec(shape, _axis_key(len(shape), ax, idx), copy=True)
        keys.append(kn)
        shape = kn["oshape"]
    return tuple(keys)


def _edge_pad_fwd(x, widths, mode):
    for kn in _edge_pad_keys(x.shape, widths, mode):
        x = _index_fwd(x, **kn)
    return x


def _edge_pad_t_fwd(g, xshape, widths, mode):
    """The adjoint: each axis' scatter-add, last axis first."""
    for kn in reversed(_edge_pad_keys(xshape, widths, mode)):
        g = _index_add_fwd(g, **kn)
    return g


_EDGE_PAD: Op = defop("pad", _edge_pad_fwd,
                  [lambda g, y, x, widths, mode: call1(
                      _EDGE_PAD_T, g, {"xshape": _unpadded(g.shape, widths), "widths": widths,
                                       "mode": mode})],
                  [lambda t, y, x, **a: call1(_EDGE_PAD, t, a)], save=())
_EDGE_PAD_T: Op = defop("_pad_backward", _edge_pad_t_fwd,
                    [lambda h, r, g, xshape, **a: call1(_EDGE_PAD, h, a)],
                    [lambda t, r, g, **a: call1(_EDGE_PAD_T, t, a)], save=())


def _unpadded(shape, widths):
    return tuple(n - b - a for n, (b, a) in zip(shape, widths))


def pad(data: NDArray, mode: Literal["constant", "edge", "reflect"] = "constant",
        pad_width: Optional[Sequence[int]] = None, constant_value: float = 0.0, **kwargs: Any
        ) -> NDArray:
    """Pad with a constant, the edge values or a reflection.

    ``pad_width`` is MXNet's flat tuple ``(before_1, after_1, ..., before_N, after_N)``,
    two entries per axis. MXNet accepts only 4-D and 5-D inputs with no padding on the
    first two axes; mxgrad pads any axis of any array.

    Parameters
    ----------
    data : NDArray
    mode : {'constant', 'edge', 'reflect'}
    pad_width : tuple of int
    constant_value : float

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.array([[[[1, 2, 3], [4, 5, 6]]]])
    >>> mx.nd.pad(x, mode='edge', pad_width=(0, 0, 0, 0, 1, 1, 1, 1)).shape
    (1, 1, 4, 5)
    >>> mx.nd.pad(x, mode='constant', pad_width=(0, 0, 0, 0, 0, 0, 1, 0),
    ...           constant_value=9)[0, 0]
    <BLANKLINE>
    [[9. 1. 2. 3.]
     [9. 4. 5. 6.]]
    <NDArray 2x4 @cpu(0)>
    """
    data = _arr(data, "pad")
    if pad_width is None:
        raise StateError("pad: pad_width is required, e.g. (0, 0, 0, 0, 1, 1, 1, 1)")
    pw = tuple(int(p) for p in pad_width)
    nd_ = data.ndim
    if len(pw) != 2 * nd_:
        raise ShapeError(f"pad: pad_width must have 2 entries per axis ({2 * nd_} for shape "
                         f"{tuple(data.shape)}), got {len(pw)}: {pw}")
    if any(p < 0 for p in pw):
        raise ShapeError(f"pad: pad_width {pw} must be non-negative")
    widths = tuple((pw[2 * i], pw[2 * i + 1]) for i in range(nd_))
    if mode == "constant":
        return call1(_PAD, data, {"widths": widths, "value": float(constant_value)})
    if mode not in ("edge", "reflect"):
        raise StateError(f"pad: unknown mode {mode!r}; use 'constant', 'edge' or 'reflect'")
    for ax, (b, a) in enumerate(widths):
        n = data.shape[ax]
        if mode == "reflect" and (b >= n or a >= n):
            raise ShapeError(f"pad: reflect padding ({b}, {a}) on axis {ax} must be smaller than "
                             f"the axis size {n}")
        if mode == "edge" and n == 0 and (b or a):
            raise ShapeError(f"pad: edge padding ({b}, {a}) on axis {ax} needs a non-empty "
                             f"axis")
    if not any(b or a for b, a in widths):
        return _fresh(data, data)
    return call1(_EDGE_PAD, data, {"widths": widths, "mode": mode})


Pad = pad
mxnet_op("Pad", aliases=("pad",))


# ========================================================= depth <-> space
def depth_to_space(data: NDArray, block_size: int, **kwargs: Any) -> NDArray:
    """Move depth blocks into spatial blocks: ``(N, C, H, W)`` to
    ``(N, C/b**2, H*b, W*b)`` (MXNet's layout).

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.depth_to_space(mx.nd.arange(8).reshape((1, 4, 1, 2)), 2).shape
    (1, 1, 2, 4)
    """
    data = _arr(data, "depth_to_space")
    b = int(block_size)
    if data.ndim != 4:
        raise ShapeError(f"depth_to_space needs a 4-D (N, C, H, W) input, got shape "
                         f"{tuple(data.shape)}")
    n, c, h, w = data.shape
    if b < 1 or c % (b * b):
        raise ShapeError(f"depth_to_space: channels {c} must be divisible by block_size**2 "
                         f"({b * b})")
    x = reshape_exact(data, (n, b, b, c // (b * b), h, w))
    x = transpose(x, (0, 3, 4, 1, 5, 2))
    return reshape_exact(x, (n, c // (b * b), h * b, w * b))


mxnet_op("depth_to_space")


def space_to_depth(data: NDArray, block_size: int, **kwargs: Any) -> NDArray:
    """Move spatial blocks into depth: ``(N, C, H, W)`` to ``(N, C*b**2, H/b, W/b)``
    (the inverse of :func:`depth_to_space`).

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.arange(8).reshape((1, 4, 1, 2))
    >>> (mx.nd.space_to_depth(mx.nd.depth_to_space(x, 2), 2) == x).min().asscalar()
    1.0
    """
    data = _arr(data, "space_to_depth")
    b = int(block_size)
    if data.ndim != 4:
        raise ShapeError(f"space_to_depth needs a 4-D (N, C, H, W) input, got shape "
                         f"{tuple(data.shape)}")
    n, c, h, w = data.shape
    if b < 1 or h % b or w % b:
        raise ShapeError(f"space_to_depth: height {h} and width {w} must be divisible by "
                         f"block_size {b}")
    x = reshape_exact(data, (n, c, h // b, b, w // b, b))
    x = transpose(x, (0, 3, 5, 1, 2, 4))
    return reshape_exact(x, (n, c * b * b, h // b, w // b))


mxnet_op("space_to_depth")


# ====================================================== shape as an array
def shape_array(data: NDArray, **kwargs: Any) -> NDArray:
    """The shape as a 1-D int64 array.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.shape_array(mx.nd.zeros((2, 3)))
    <BLANKLINE>
    [2 3]
    <NDArray 2 @cpu(0)>
    """
    return wrap(np.array(data.shape, dtype=np.int64))


# the output int64 (or the dtype attribute); also size_array's
_int64_dtype = _dr.from_attr("int64")
mxnet_op("shape_array", dtype=_int64_dtype)


def size_array(data: NDArray, **kwargs: Any) -> NDArray:
    """The number of elements as a 1-element int64 array.

    Examples
    --------
    >>> import mxgrad as mx
    >>> mx.nd.size_array(mx.nd.zeros((2, 3))).asscalar()
    6
    """
    return wrap(np.array([data.size], dtype=np.int64))


mxnet_op("size_array", dtype=_int64_dtype)


# ================================================================= methods
def _view_or_copy(self, target, inplace):
    v = _view(self, target)
    return v if inplace else _new_memory(v, self)


def expand_dims_method(self: NDArray, axis: int, inplace: bool = False) -> NDArray:
    """``expand_dims(self, axis)``; ``inplace=True`` returns a view sharing this array's
    memory (MXNet's NDArray method), otherwise a new array."""
    return _view_or_copy(self, _expanded_shape(self, axis), inplace)


def squeeze_method(self: NDArray, axis: Axis = None, inplace: bool = False) -> NDArray:
    """``squeeze(self, axis)``; ``inplace=True`` returns a view sharing this array's
    memory (MXNet's NDArray method), otherwise a new array."""
    return _view_or_copy(self, _squeezed_shape(self, axis), inplace)


def flatten_method(self: NDArray, inplace: bool = False) -> NDArray:
    """``flatten(self)``; ``inplace=True`` returns a view sharing this array's memory
    (MXNet's NDArray method), otherwise a new array.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((2, 2, 2)); v = x.flatten(inplace=True); x[:] = 1
    >>> v.asnumpy().tolist()
    [[1.0, 1.0, 1.0, 1.0], [1.0, 1.0, 1.0, 1.0]]
    """
    return _view_or_copy(self, _flat_shape(self), inplace)
