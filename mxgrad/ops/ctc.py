"""Connectionist temporal classification loss (``nd.CTCLoss``, ``gluon.loss.CTCLoss``).

The loss is written with mxgrad ops (the forward recursion of Graves et al. 2006 in log space),
so autograd differentiates it, to any order, with no hand-written gradient: one recursion step
per time step, each vectorised over the batch and the extended label.

Semantics follow MXNet 1.9's ``CTCLoss`` operator: ``data`` is ``(T, N, C)`` unnormalised
activations (a log-softmax over ``C`` is applied inside), ``label`` is ``(N, L)``; with
``blank_label='first'`` the blank is class 0, labels are ``1..C-1`` and ``0`` pads; with
``'last'`` the blank is class ``C-1``, labels are ``0..C-2`` and ``-1`` pads. Optional
``data_lengths``/``label_lengths`` (``use_*_lengths=True``) give each sequence's length;
otherwise all ``T`` steps count and a label ends at its first padding value. Activations past a
sequence's data length are ignored (they may be NaN); a label too long for its sequence (one step
per label plus one between repeats) gives loss 0 and gradient 0, as in MXNet.

Examples
--------
>>> import mxgrad as mx
>>> loss = mx.nd.CTCLoss(mx.nd.ones((20, 2, 4)), mx.nd.array([[1, 2, 0, 0], [3, 2, 2, 0]]))
>>> loss.asnumpy().round(4)
array([18.8282, 16.5058], dtype=float32)
"""
from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray, wrap
from .._check import guard as _guard
from . import _dtype_rules as _dr
from ._mxnet_op import flag_set, mxnet_op, optional_inputs
from .elemwise import exp, log, maximum, stop_gradient
from .indexing import where
from .nn import log_softmax
from .reduce import sum as _sum
from .shape import concat, swapaxes

__all__ = ["CTCLoss", "ctc_loss"]

_NEG = -1e30   # log(0) stand-in: finite, so no inf - inf = NaN in values or gradients


def _host(x, name: str) -> np.ndarray:
    if x is None:
        raise StateError(f"CTCLoss: {name} is required when use_{name}=True")
    return np.asarray(x._data) if isinstance(x, NDArray) else np.asarray(x)


def _lse(*xs):
    """log(sum(exp(x))) of same-shaped arrays, stable; the max is a constant for autograd
    (its contributions cancel exactly), so the gradient is the plain softmax weights."""
    m = xs[0]
    for x in xs[1:]:
        m = maximum(m, x)
    m = stop_gradient(m)
    total = exp(xs[0] - m)
    for x in xs[1:]:
        total = total + exp(x - m)
    return m + log(total)


def _label_lengths(labels: np.ndarray, pad: int) -> np.ndarray:
    is_pad = labels == pad
    first_pad = np.where(is_pad.any(axis=1), is_pad.argmax(axis=1), labels.shape[1])
    return first_pad.astype(np.int64)


def ctc_loss(data: NDArray, label: NDArray, data_lengths: Optional[NDArray] = None,
             label_lengths: Optional[NDArray] = None, use_data_lengths: bool = False,
             use_label_lengths: bool = False, blank_label: str = "first", **kwargs: Any
             ) -> NDArray:
    """CTC loss of each sequence in the batch: a ``(N,)`` array of negative log-likelihoods.

    Parameters
    ----------
    data : NDArray, shape (T, N, C)
        Unnormalised activations (log-softmax is applied over ``C``).
    label : NDArray or array-like, shape (N, L)
        Label sequences, padded (see the module docstring for padding values).
    data_lengths, label_lengths : NDArray of shape (N,), optional
        Used when ``use_data_lengths`` / ``use_label_lengths`` is True.
    blank_label : {'first', 'last'}
        Which class is the blank.

    Examples
    --------
    >>> import mxgrad as mx
    >>> x = mx.nd.zeros((3, 1, 2)); x.attach_grad()
    >>> with mx.autograd.record():
    ...     l = mx.nd.ctc_loss(x, mx.nd.array([[1]]))
    >>> l.backward(); round(float(l.asscalar()), 4)   # 6 of the 8 paths give "1": -log(3/4)
    0.2877
    """
    if blank_label not in ("first", "last"):
        raise StateError(f"CTCLoss: blank_label must be 'first' or 'last', got {blank_label!r}")
    if not isinstance(data, (NDArray, np.ndarray)):
        raise DTypeError(f"CTCLoss: data must be an NDArray of shape (T, N, C), got "
                         f"{type(data).__name__}")
    if data.ndim != 3:
        raise ShapeError(f"CTCLoss: data must have shape (T, N, C), got {tuple(data.shape)}")
    T, N, C = (int(d) for d in data.shape)
    labels = np.asarray(_host(label, "label"), dtype=np.float64)
    if labels.ndim == 1:
        labels = labels.reshape(N, -1) if N else labels.reshape(0, 0)
    if labels.ndim != 2 or labels.shape[0] != N:
        raise ShapeError(f"CTCLoss: label must have shape (N={N}, L), got {labels.shape}")
    labels = labels.astype(np.int64)
    blank, pad = (0, 0) if blank_label == "first" else (C - 1, -1)
    lab_len = (_host(label_lengths, "label_lengths").astype(np.int64).reshape(N)
               if use_label_lengths else _label_lengths(labels, pad))
    seq_len = (_host(data_lengths, "data_lengths").astype(np.int64).reshape(N)
               if use_data_lengths else np.full(N, T, dtype=np.int64))
    L = labels.shape[1]
    if L > T:
        raise ShapeError(f"CTCLoss: the label width ({L}) cannot exceed the data's sequence "
                         f"length T={T}; pad the data or trim the label padding")
    if (lab_len < 0).any() or (lab_len > L).any():
        raise ShapeError(f"CTCLoss: label_lengths must be in [0, {L}], got {lab_len.tolist()}")
    if (seq_len < 1).any() or (seq_len > T).any():
        raise ShapeError(f"CTCLoss: data_lengths must be in [1, {T}], got {seq_len.tolist()}")
    valid = np.arange(L)[None, :] < lab_len[:, None]
    if ((labels < 0) | (labels >= C))[valid].any():
        raise StateError(f"CTCLoss: labels must be classes in [0, {C}) (the blank is {blank}); "
                         f"got {labels[valid].tolist()}")

    # extended labels: blank, l1, blank, l2, ..., blank   (S = 2L + 1)
    S = 2 * L + 1
    ext = np.full((N, S), blank, dtype=np.int64)
    ext[:, 1::2] = np.where(valid, labels, blank)
    # a label position (odd s) may be reached from s-2 unless it repeats the previous label;
    # decided by position, not by class, as MXNet's (warp-ctc's) kernel does
    skip = np.zeros((N, S), dtype=bool)
    skip[:, 3::2] = ext[:, 3::2] != ext[:, 1:-2:2]
    inside = np.arange(S)[None, :] < (2 * lab_len + 1)[:, None]

    dt = data.dtype
    if use_data_lengths and (seq_len < T).any():
        # steps past a sequence's end may hold anything (MXNet's own test puts NaN there):
        # they are replaced by zeros before the log-softmax, so they give neither a value nor
        # a gradient (MXNet's gradient there is 0)
        live_steps = np.arange(T)[:, None, None] < seq_len[None, :, None]
        data = where(wrap(np.broadcast_to(live_steps, data.shape).astype(dt)), data,
                     wrap(np.zeros(data.shape, dtype=dt)))
    logp = log_softmax(data, axis=-1)                        # (T, N, C)
    rows = np.broadcast_to(np.arange(N)[:, None], (N, S))
    emit = logp[:, rows, ext]                                # (T, N, S)
    neg = np.full((N, 1), _NEG, dtype=dt)
    keep_skip = skip.astype(dt)
    outside = np.where(inside, 0.0, _NEG).astype(dt)

    start = np.full((N, S), _NEG, dtype=dt)
    start_mask = np.zeros((N, S), dtype=dt)
    start_mask[:, 0] = 1
    start_mask[:, 1] = (lab_len > 0) if S > 1 else 0
    start[start_mask.astype(bool)] = 0
    alpha = emit[0] * start_mask + start + outside           # (N, S)
    for t in range(1, int(seq_len.max()) if N else 1):
        prev1 = concat(neg, alpha[:, :-1], dim=1) if S > 1 else neg
        prev2 = concat(neg, neg, alpha[:, :-2], dim=1) if S > 2 else \
            np.full((N, S), _NEG, dtype=dt)
        prev2 = prev2 * keep_skip + (1 - keep_skip) * _NEG
        step = _lse(alpha, prev1, prev2) + emit[t] + outside
        live = (t < seq_len).astype(dt)[:, None]
        alpha = step * live + alpha * (1 - live)
    last = np.zeros((N, S), dtype=dt)
    last[np.arange(N), 2 * lab_len] = 1
    before = np.zeros((N, S), dtype=dt)
    has_label = lab_len > 0
    before[np.arange(N)[has_label], 2 * lab_len[has_label] - 1] = 1
    end1 = _sum(alpha * last, axis=1)
    end2 = _sum(alpha * before, axis=1) + np.where(has_label, 0.0, _NEG).astype(dt)
    loss = -_lse(end1, end2)
    # an alignment needs one step per label plus one blank between repeated labels; where the
    # sequence is too short MXNet (warp-ctc) gives loss 0 and gradient 0
    repeats = ((labels[:, 1:] == labels[:, :-1]) & valid[:, 1:]).sum(axis=1)
    feasible = lab_len + repeats <= seq_len
    if not feasible.all():
        loss = where(wrap(feasible.astype(dt)), loss, wrap(np.zeros(N, dtype=dt)))
    return loss


CTCLoss = ctc_loss


def _ctc_loss_run(inputs, kwargs):
    """CTCLoss: the length inputs present are those its use_*_lengths flags say."""
    rest = list(inputs[2:])
    dl = rest.pop(0) if kwargs.get("use_data_lengths") and rest else None
    ll = rest.pop(0) if kwargs.get("use_label_lengths") and rest else None
    # _guard: the function as mx.nd holds it, with the namespace's argument guard (one
    # wrapper per function, cached), so a loaded graph's bad attribute fails as a call does
    return _guard(ctc_loss, "nd.CTCLoss")(inputs[0], inputs[1], dl, ll, **kwargs)


# a hidden second output (MXNet's gradient workspace): outputs are named <name>_output0
mxnet_op("CTCLoss", ("data", "label", "data_lengths", "label_lengths"), run=_ctc_loss_run,
         outputs=2, visible=1, aliases=("ctc_loss", "_contrib_CTCLoss", "_contrib_ctc_loss"),
         dtype=_dr.free(1, 2, 3),       # labels and lengths of any dtype
         takes=optional_inputs(data_lengths=flag_set("use_data_lengths"),
                               label_lengths=flag_set("use_label_lengths")))


def _ntc_to_tnc(pred):
    return swapaxes(pred, 0, 1)


def ctc_loss_gluon(pred: NDArray, label: NDArray, pred_lengths: Optional[NDArray] = None,
                   label_lengths: Optional[NDArray] = None, layout: str = "NTC",
                   label_layout: str = "NT") -> NDArray:
    """What ``gluon.loss.CTCLoss`` computes: layouts handled, blank last, lengths optional."""
    if layout == "NTC":
        pred = _ntc_to_tnc(pred)
    if label_layout == "TN":
        label = swapaxes(label, 0, 1) if isinstance(label, NDArray) else np.asarray(label).T
    return ctc_loss(pred, label, pred_lengths, label_lengths,
                    use_data_lengths=pred_lengths is not None,
                    use_label_lengths=label_lengths is not None, blank_label="last")
