"""The fused recurrent op ``nd.RNN`` (modes ``rnn_relu``, ``rnn_tanh``, ``lstm``, ``gru``).

Semantics and the parameter layout follow MXNet 1.9's ``RNN`` operator (cuDNN's conventions):

* ``data`` is ``(T, N, I)``; ``state``/``state_cell`` are ``(L*D, N, H)`` (layer-major, the
  reverse direction second); the output is ``(T, N, D*H)``, the two directions concatenated.
* ``parameters`` is one flat vector: all weights, then all biases. Weights in the order
  layer, direction, ``i2h`` (``(G*H, I_l)``) then ``h2h`` (``(G*H, H)``); biases likewise
  (``i2h`` then ``h2h``, each ``(G*H,)``); ``G`` gates per mode.
* LSTM gates ``i, f, g, o``: ``c' = f*c + i*g``, ``h' = o*tanh(c')``.
* GRU gates ``r, z, n``: ``n = tanh(Wx_n + b_in + r*(Wh_n h + b_hn))``,
  ``h' = (1-z)*n + z*h``.
* With ``p > 0`` in training mode, inverted dropout is applied to the output of every
  layer but the last.
* LSTM with ``projection_size=P`` (LSTMP): each layer-direction also has ``h2r`` weights
  ``(P, H)`` (after its ``h2h`` weights); ``r = W_hr h'`` is the output and the recurrent
  state, so ``h2h`` is ``(4H, P)`` and ``state`` is ``(L*D, N, P)``.

The op has a NumPy forward over all time steps and a hand-written backward through time
for an ordinary ``backward()`` (one BLAS call for the recurrent product per step, every
elementwise factor that does not depend on the recurrence computed for all steps at
once). Its gradient rules for ``create_graph=True`` run the same recurrence again with
mxgrad ops and differentiate it with the engine, so every order of derivative is exact; the
tangent rules (forward mode) run that recurrence on dual numbers.

Examples
--------
>>> import mxgrad as mx
>>> H, I = 3, 2
>>> nparams = 4 * H * (I + H) + 8 * H
>>> out, hy, cy = mx.nd.RNN(mx.nd.ones((5, 4, I)), mx.nd.ones((nparams,)) * 0.1,
...                         mx.nd.zeros((1, 4, H)), mx.nd.zeros((1, 4, H)), state_size=H,
...                         num_layers=1, mode='lstm', state_outputs=True)
>>> out.shape, hy.shape, cy.shape
((5, 4, 3), (1, 4, 3), (1, 4, 3))
"""
from __future__ import annotations

import threading
from typing import List, Optional, Union

import numpy as np

from ..base import DTypeError, ShapeError, StateError
from .._engine.ndarray import NDArray
from .._engine.scope import state as _scope
from .._rng import generator as _generator
from .._check import guard as _guard
from ._core import defop, call, as_array
from . import _shape_rules as _sr
from ._mxnet_op import flag_set, is_set, mxnet_op, optional_inputs

__all__ = ["RNN", "rnn_param_size"]

_GATES = {"rnn_relu": 1, "rnn_tanh": 1, "lstm": 4, "gru": 3}


def rnn_param_size(mode: str, input_size: int, state_size: int, num_layers: int = 1,
                   bidirectional: bool = False, projection_size: Optional[int] = None) -> int:
    """Length of the flat parameter vector of :func:`RNN`.

    Examples
    --------
    >>> rnn_param_size('lstm', 10, 20, num_layers=2)
    5920
    """
    g = _GATES[mode]
    d = 2 if bidirectional else 1
    P = projection_size or 0
    R = P or state_size
    n, ni = 0, input_size
    for _ in range(num_layers):
        n += d * (g * state_size * (ni + R) + 2 * g * state_size + P * state_size)
        ni = d * R
    return n


def _unpack(params, mode, I, H, L, D, P=0):
    """Views ``[(Wi, Wh, bi, bh, Wr)]`` of the flat vector, one per (layer, direction);
    ``Wr`` (the LSTM projection ``h2r``, ``(P, H)``) is None without projection."""
    G = _GATES[mode] * H
    R = P or H
    ws, off, ni = [], 0, I
    for _ in range(L):
        for _ in range(D):
            wi = params[off:off + G * ni].reshape(G, ni)
            off += G * ni
            wh = params[off:off + G * R].reshape(G, R)
            off += G * R
            wr = None
            if P:
                wr = params[off:off + P * H].reshape(P, H)
                off += P * H
            ws.append([wi, wh, None, None, wr])
        ni = D * R
    for k in range(L * D):
        ws[k][2] = params[off:off + G]
        ws[k][3] = params[off + G:off + 2 * G]
        off += 2 * G
    return ws


def _lstm_perm(H):
    """Rows of MXNet's ``i, f, g, o`` in the internal order ``i, f, o, g`` (the three
    sigmoid gates contiguous)."""
    return np.r_[0:2 * H, 3 * H:4 * H, 2 * H:3 * H]


def _reserve_layout(mode, T, N, H, L, D, dropout, P=0):
    """(name, shape) of the intermediates kept for the backward pass."""
    G = _GATES[mode] * H
    R = P or H
    items = []
    for k in range(L * D):
        if mode == "lstm":
            items += [(("acts", k), (T, N, G)), (("c", k), (T, N, H))]
            if P:
                items.append((("hh", k), (T, N, H)))
        elif mode == "gru":
            items += [(("acts", k), (T, N, G)), (("hn", k), (T, N, H))]
    for layer in range(L - 1):
        items.append((("y", layer), (T, N, D * R)))
        if dropout:
            items.append((("mask", layer), (T, N, D * R)))
    return items


def _carve(buf, layout):
    views, off = {}, 0
    for key, shape in layout:
        n = int(np.prod(shape))
        views[key] = buf[off:off + n].reshape(shape)
        off += n
    return views


def _reserve_size(layout):
    return sum(int(np.prod(s)) for _, s in layout)


# ------------------------------------------------------------------ NumPy forward
def _half(G, H, n_sig, dtype):
    """Scale per gate row: 0.5 for sigmoid gates (sigmoid(x) = (tanh(x/2) + 1)/2)."""
    sc = np.ones(G, dtype)
    sc[:n_sig * H] = 0.5
    return sc


def _prep(mode, wi, wh, bi, bh, H):
    """Weights in the layout the forward loop uses: ``(Wi_s, WhT_s, bx, bhn)``."""
    dt = wi.dtype
    if mode == "lstm":
        perm = _lstm_perm(H)
        sc = _half(4 * H, H, 3, dt)
        wi_s = wi[perm] * sc[:, None]
        whT = (wh[perm] * sc[:, None]).T.copy()
        bx = (bi + bh)[perm] * sc
        return wi_s, whT, bx, None
    if mode == "gru":
        sc = _half(3 * H, H, 2, dt)
        wi_s = wi * sc[:, None]
        whT = (wh * sc[:, None]).T.copy()
        bx = bi.copy()
        bx[:2 * H] += bh[:2 * H]
        bx *= sc
        return wi_s, whT, bx, bh[2 * H:]
    return wi, wh.T.copy(), bi + bh, None


def _steps(reverse, T):
    return range(T - 1, -1, -1) if reverse else range(T)


def _fwd_dir(mode, xw, h0, c0, whT, bhn, H, hs, acts, cs, reverse, wrT=None, hh=None):
    """One direction of one layer; writes ``hs`` (``(T, N, H)``, maybe a strided view)
    and the saved intermediates; returns the final ``(h, c)``. With an LSTM projection
    ``wrT`` (``(H, P)``) the cell output goes to ``hh`` and its projection to ``hs``."""
    T = xw.shape[0]
    h, c = h0, c0
    if mode == "lstm":
        H2, H3 = 2 * H, 3 * H
        tmp = np.empty_like(c0)
        for t in _steps(reverse, T):
            a = acts[t]
            np.matmul(h, whT, out=a)
            a += xw[t]
            np.tanh(a, out=a)
            s = a[:, :H3]
            s *= 0.5
            s += 0.5
            ct = cs[t]
            np.multiply(a[:, H:H2], c, out=ct)
            np.multiply(a[:, :H], a[:, H3:], out=tmp)
            ct += tmp
            ht = hs[t] if wrT is None else hh[t]
            np.tanh(ct, out=ht)
            ht *= a[:, H2:H3]
            if wrT is not None:
                np.matmul(ht, wrT, out=hs[t])
                ht = hs[t]
            h, c = ht, ct
        return h, c
    if mode == "gru":
        H2 = 2 * H
        hw = np.empty((h0.shape[0], 3 * H), h0.dtype)
        for t in _steps(reverse, T):
            a = acts[t]
            np.matmul(h, whT, out=hw)
            x = xw[t]
            rz = a[:, :H2]
            np.add(x[:, :H2], hw[:, :H2], out=rz)
            np.tanh(rz, out=rz)
            rz *= 0.5
            rz += 0.5
            hn = cs[t]
            np.add(hw[:, H2:], bhn, out=hn)
            n = a[:, H2:]
            np.multiply(a[:, :H], hn, out=n)
            n += x[:, H2:]
            np.tanh(n, out=n)
            ht = hs[t]
            np.subtract(h, n, out=ht)        # h' = n + z * (h - n)
            ht *= a[:, H:H2]
            ht += n
            h = ht
        return h, None
    act = np.tanh if mode == "rnn_tanh" else None
    for t in _steps(reverse, T):
        ht = hs[t]
        np.matmul(h, whT, out=ht)
        ht += xw[t]
        if act is None:
            np.maximum(ht, 0, out=ht)
        else:
            act(ht, out=ht)
        h = ht
    return h, None


def _rnn_forward(data, params, hx, cx, mode, H, L, D, p, P=0):
    """Returns ``(out, hy, cy, reserve)``."""
    T, N, I = data.shape
    dt = data.dtype
    R = P or H
    layout = _reserve_layout(mode, T, N, H, L, D, p > 0, P)
    reserve = np.empty(_reserve_size(layout), dt)
    rv = _carve(reserve, layout)
    ws = _unpack(params, mode, I, H, L, D, P)
    hy = np.empty((L * D, N, R), dt)
    cy = np.empty((L * D, N, H), dt) if mode == "lstm" else np.zeros((1,), dt)
    x = data
    out = None
    for layer in range(L):
        y = rv[("y", layer)] if layer < L - 1 else np.empty((T, N, D * R), dt)
        ni = x.shape[2]
        x2 = x.reshape(T * N, ni)
        for d in range(D):
            k = layer * D + d
            wi, wh, bi, bh, wr = ws[k]
            wi_s, whT, bx, bhn = _prep(mode, wi, wh, bi, bh, H)
            xw = np.matmul(x2, wi_s.T).reshape(T, N, -1)
            xw += bx
            hs = y if D == 1 else y[:, :, d * R:(d + 1) * R]
            h, c = _fwd_dir(mode, xw, hx[k], None if cx is None else cx[k], whT, bhn, H, hs,
                            rv.get(("acts", k)), rv.get(("c", k), rv.get(("hn", k))), d == 1,
                            None if wr is None else wr.T, rv.get(("hh", k)))
            hy[k] = h
            if c is not None:
                cy[k] = c
        if layer < L - 1 and p > 0:
            mask = rv[("mask", layer)]
            keep = 1.0 - p
            u = _generator().random(mask.shape, dtype=np.float64 if dt == np.float64
                                    else np.float32)
            np.multiply(u < keep, 1.0 / keep if keep > 0 else 0.0, out=mask, dtype=dt)
            x = y * mask
        else:
            x = y
        out = y
    return out, hy, cy, reserve


# ----------------------------------------------------------- NumPy backward (BPTT)
def _prev(hs, h0, reverse):
    """The state entering each step, in time order (``(T, N, H)``, contiguous)."""
    pr = np.empty(hs.shape, hs.dtype)
    if reverse:
        pr[-1] = h0
        pr[:-1] = hs[1:]
    else:
        pr[0] = h0
        pr[1:] = hs[:-1]
    return pr


def _bwd_dir(mode, dy, dhT, dcT, hs, hprev, acts, aux, cprev, wh, H, reverse, wr=None):
    """BPTT of one direction of one layer. Returns ``(dpre_x, dpre_h, dh0, dc0, dr)``: the
    gradients of the pre-activations fed by the input and by the state, ``(T, N, G)``
    (LSTM: gate order i, f, o, g), of the initial states and, with an LSTM projection
    ``wr``, of the projected outputs ``(T, N, P)``."""
    T, N = dy.shape[0], dy.shape[1]
    dt = dy.dtype
    dhn = dhT
    if mode == "lstm":
        H2, H3 = 2 * H, 3 * H
        perm = _lstm_perm(H)
        whp = wh[perm]
        tc = np.tanh(aux)                         # aux: c, (T, N, H)
        aa = np.square(tc)
        np.subtract(1, aa, out=aa)
        aa *= acts[:, :, H2:H3]                    # dc += dh * o * (1 - tanh(c)^2)
        s = acts[:, :, :H3]
        sd = np.subtract(1, s)
        sd *= s                                    # sigmoid' = s * (1 - s)
        g = acts[:, :, H3:]
        mg = np.empty((T, N, 4, H), dt)            # dpre = [dc, dc, dh, dc] * mg
        np.multiply(g, sd[:, :, :H], out=mg[:, :, 0])
        np.multiply(cprev, sd[:, :, H:H2], out=mg[:, :, 1])
        np.multiply(tc, sd[:, :, H2:H3], out=mg[:, :, 2])
        m3 = mg[:, :, 3]
        np.square(g, out=m3)
        np.subtract(1, m3, out=m3)
        m3 *= acts[:, :, :H]
        f = acts[:, :, H:H2]
        dpre = np.empty((T, N, 4 * H), dt)
        dcn = dcT
        dh = np.empty((N, H), dt)
        dc = np.empty((N, H), dt)
        drs = None if wr is None else np.empty(dy.shape, dt)
        for t in _steps(not reverse, T):
            if wr is None:
                np.add(dy[t], dhn, out=dh)
            else:
                dr = drs[t]
                np.add(dy[t], dhn, out=dr)
                np.matmul(dr, wr, out=dh)
            np.multiply(dh, aa[t], out=dc)
            dc += dcn
            dp = dpre[t]
            dp4 = dp.reshape(N, 4, H)
            np.multiply(dc[:, None, :], mg[t], out=dp4)
            np.multiply(dh, mg[t, :, 2], out=dp4[:, 2])
            dcn = dc * f[t]
            dhn = np.matmul(dp, whp)
        return dpre, dpre, dhn, dcn, drs     # gate order i, f, o, g (the caller permutes)
    if mode == "gru":
        H2 = 2 * H
        r, z, n = acts[:, :, :H], acts[:, :, H:H2], acts[:, :, H2:]
        kz = (hprev - n) * z * (1 - z)
        kn = (1 - z) * (1 - n * n)
        kr = aux * r * (1 - r)                     # aux: Wh_n h + b_hn
        dpx = np.empty((T, N, 3 * H), dt)
        dph = np.empty((T, N, 3 * H), dt)
        dh = np.empty((N, H), dt)
        for t in _steps(not reverse, T):
            np.add(dy[t], dhn, out=dh)
            px = dpx[t]
            np.multiply(dh, kz[t], out=px[:, H:H2])
            np.multiply(dh, kn[t], out=px[:, H2:])
            np.multiply(px[:, H2:], kr[t], out=px[:, :H])
            ph = dph[t]
            ph[:, :H2] = px[:, :H2]
            np.multiply(px[:, H2:], r[t], out=ph[:, H2:])
            dhn = np.matmul(ph, wh)
            dhn += dh * z[t]
        return dpx, dph, dhn, None, None
    gd = (1 - hs * hs) if mode == "rnn_tanh" else (hs > 0).astype(dt)
    dpre = np.empty((T, N, H), dt)
    dh = np.empty((N, H), dt)
    for t in _steps(not reverse, T):
        np.add(dy[t], dhn, out=dh)
        np.multiply(dh, gd[t], out=dpre[t])
        dhn = np.matmul(dpre[t], wh)
    return dpre, dpre, dhn, None, None


def _rnn_backward(g, out, data, params, hx, cx, mode, H, L, D, p, needs, P=0):
    """All needed gradients ``[ddata, dparams, dstate, dcell]`` (None where not needed)."""
    gout, ghy, gcy = g[0], g[1], g[2]
    y_last, reserve = out[0], out[3]
    T, N, I = data.shape
    dt = data.dtype
    R = P or H
    layout = _reserve_layout(mode, T, N, H, L, D, p > 0, P)
    rv = _carve(reserve, layout)
    ws = _unpack(params, mode, I, H, L, D, P)
    dparams = np.zeros(params.shape, dt) if needs[1] else None
    dws = _unpack(dparams, mode, I, H, L, D, P) if needs[1] else None
    dhx = np.empty(hx.shape, dt)
    dcx = np.empty(cx.shape, dt) if cx is not None else None
    dy = gout
    dx = None
    for layer in range(L - 1, -1, -1):
        y = y_last if layer == L - 1 else rv[("y", layer)]
        if layer == 0:
            x = data
        elif p > 0:
            x = rv[("y", layer - 1)] * rv[("mask", layer - 1)]
        else:
            x = rv[("y", layer - 1)]
        ni = x.shape[2]
        x2 = x.reshape(T * N, ni)
        need_dx = layer > 0 or needs[0]
        dx = np.empty((T, N, ni), dt) if need_dx else None
        for d in range(D):
            k = layer * D + d
            wi, wh, bi, bh, wr = ws[k]
            hs = y if D == 1 else y[:, :, d * R:(d + 1) * R]
            dyk = dy if D == 1 else dy[:, :, d * R:(d + 1) * R]
            hprev = _prev(hs, hx[k], d == 1)
            cprev = _prev(rv[("c", k)], cx[k], d == 1) if mode == "lstm" else None
            aux = rv.get(("c", k), rv.get(("hn", k)))
            dpx, dph, dh0, dc0, drs = _bwd_dir(
                mode, dyk, ghy[k], None if gcy.ndim == 1 else gcy[k], hs, hprev,
                rv.get(("acts", k)), aux, cprev, wh, H, d == 1, wr)
            dhx[k] = dh0
            if dc0 is not None:
                dcx[k] = dc0
            G = dpx.shape[2]
            px2 = dpx.reshape(T * N, G)
            # LSTM's pre-activation gradients come in the internal gate order i, f, o, g:
            # their rows of the weight gradients go to MXNet's rows ``perm``
            perm = _lstm_perm(H) if mode == "lstm" else None
            if dws is not None:
                dwi, dwh, dbi, dbh, dwr = dws[k]
                if dwr is not None:
                    np.matmul(drs.reshape(T * N, P).T, rv[("hh", k)].reshape(T * N, H),
                              out=dwr)
                hp2 = hprev.reshape(T * N, R)
                if dph is dpx:      # one product for both weights: P^T [x | h_prev]
                    xh = np.empty((T * N, ni + R), dt)
                    xh[:, :ni] = x2
                    xh[:, ni:] = hp2
                    both = np.matmul(px2.T, xh)
                    gi, gh = both[:, :ni], both[:, ni:]
                else:
                    gi = np.matmul(px2.T, x2)
                    gh = np.matmul(dph.reshape(T * N, G).T, hp2)
                gb = np.add.reduce(px2, axis=0)
                if perm is None:
                    dwi[...] = gi
                    dwh[...] = gh
                    dbi[...] = gb
                else:
                    dwi[perm] = gi
                    dwh[perm] = gh
                    dbi[perm] = gb
                if dph is dpx:
                    dbh[...] = dbi
                else:
                    np.add.reduce(dph.reshape(T * N, G), axis=0, out=dbh)
            if need_dx:
                w_in = wi if perm is None else wi[perm]
                if d == 0:
                    np.matmul(px2, w_in, out=dx.reshape(T * N, ni))
                else:
                    dx += np.matmul(px2, w_in).reshape(T, N, ni)
        if layer > 0:
            if p > 0:
                dx *= rv[("mask", layer - 1)]
            dy = dx
    return [dx if needs[0] else None, dparams, dhx if needs[2] else None,
            dcx if needs[3] else None]


# ------------------------------------------------- the same recurrence in mxgrad ops
def _rnn_composed(data, params, hx, cx, masks, mode, H, L, D, P=0):
    """``(out, hy, cy)`` of the fused op written with differentiable mxgrad ops."""
    from . import elemwise as _ew, nn as _nn, shape as _sh   # the op modules, at call time
    T, N, I = data.shape
    G = _GATES[mode] * H
    R = P or H
    # the flat vector's pieces, by offset, as differentiable slices
    offs, off, ni = [], 0, I
    for _ in range(L):
        for _ in range(D):
            offs.append([(off, (G, ni)), (off + G * ni, (G, R))])
            off += G * ni + G * R
            if P:
                offs[-1].append((off, (P, H)))
                off += P * H
        ni = D * R
    for k in range(L * D):
        offs[k][2:2] = [(off, (G,)), (off + G, (G,))]
        off += 2 * G

    def piece(o, shape):
        n = int(np.prod(shape))
        return _sh.reshape(_sh.slice_axis(params, axis=0, begin=o, end=o + n), shape)

    x = data
    hys, cys = [], []
    for layer in range(L):
        outs = []
        for d in range(D):
            k = layer * D + d
            wi, wh, bi, bh, *wr = (piece(*e) for e in offs[k])
            xw = _nn.FullyConnected(x, wi, bi, num_hidden=G, flatten=False)
            h = _sh.reshape(_sh.slice_axis(hx, axis=0, begin=k, end=k + 1), (N, R))
            c = None if cx is None else _sh.reshape(
                _sh.slice_axis(cx, axis=0, begin=k, end=k + 1), (N, H))
            hseq = [None] * T
            for t in _steps(d == 1, T):
                xt = _sh.reshape(_sh.slice_axis(xw, axis=0, begin=t, end=t + 1), (N, G))
                hw = _nn.FullyConnected(h, wh, bh, num_hidden=G)
                if mode == "lstm":
                    gates = xt + hw
                    i, f, gg, o = _sh.split(gates, num_outputs=4, axis=1)
                    c = _ew.sigmoid(f) * c + _ew.sigmoid(i) * _ew.tanh(gg)
                    h = _ew.sigmoid(o) * _ew.tanh(c)
                    if wr:
                        h = _nn.FullyConnected(h, wr[0], None, num_hidden=P, no_bias=True)
                elif mode == "gru":
                    xr, xz, xn = _sh.split(xt, num_outputs=3, axis=1)
                    hr, hz, hn = _sh.split(hw, num_outputs=3, axis=1)
                    r = _ew.sigmoid(xr + hr)
                    z = _ew.sigmoid(xz + hz)
                    n = _ew.tanh(xn + r * hn)
                    h = (1 - z) * n + z * h
                elif mode == "rnn_tanh":
                    h = _ew.tanh(xt + hw)
                else:
                    h = _ew.relu(xt + hw)
                hseq[t] = h
            hys.append(h)
            if c is not None:
                cys.append(c)
            outs.append(_sh.stack(*hseq, axis=0))
        y = outs[0] if D == 1 else _sh.concat(*outs, dim=2)
        if layer < L - 1 and masks is not None:
            x = y * masks[layer]
        else:
            x = y
    hy = _sh.stack(*hys, axis=0)
    cy = _sh.stack(*cys, axis=0) if cys else None
    return x, hy, cy


# -------------------------------------------------------------------- the op
class _Memo(threading.local):
    """The last backward's gradients (one BPTT serves the rules of all four inputs)."""
    key = None
    grads = None


_memo = _Memo()


def _all_grads(g, out, data, params, state, cell, attrs, composed):
    key = (g, out[3] if type(out) is tuple else out)
    m = _memo
    if m.key is not None and m.key[0] is key[0] and m.key[1] is key[1]:
        return m.grads
    needs = attrs["needs"]
    if composed:
        grads = _composed_grads(g, out, data, params, state, cell, attrs, needs)
    else:
        grads = _rnn_backward(g, out, data, params, state, cell, attrs["mode"],
                              attrs["H"], attrs["L"], attrs["D"], attrs["p"], needs,
                              attrs["P"])
    m.key, m.grads = key, grads
    return grads


def _masks(out, data, attrs):
    """The dropout masks the forward drew (constants), from the saved reserve."""
    mode, H, L, D, p = attrs["mode"], attrs["H"], attrs["L"], attrs["D"], attrs["p"]
    if not p > 0:
        return None
    T, N, _ = data.shape
    rv = _carve(out[3]._data, _reserve_layout(mode, T, N, H, L, D, True, attrs["P"]))
    return [NDArray(rv[("mask", layer)].copy()) for layer in range(L - 1)]


def _composed_grads(g, out, data, params, state, cell, attrs, needs):
    from .._engine import graph
    mode, H, L, D = attrs["mode"], attrs["H"], attrs["L"], attrs["D"]
    o, hy, cy = _rnn_composed(data, params, state, cell, _masks(out, data, attrs), mode, H,
                              L, D, attrs["P"])
    heads, hgs = [o, hy], [g[0], g[1]]
    if cy is not None:
        heads.append(cy)
        hgs.append(g[2])
    inputs = (data, params, state, cell)
    want = [i for i in range(4) if needs[i] and inputs[i] is not None
            and inputs[i]._node is not None]
    res = graph.grad(heads, [inputs[i] for i in want], head_grads=hgs, create_graph=True,
                     retain_graph=True)
    grads = [None] * 4
    for i, r in zip(want, res):
        grads[i] = r
    return grads


def _take(i, composed):
    def rule(g, out, data, params, state, cell, **attrs):
        grads = _all_grads(g, out, data, params, state, cell, attrs, composed)
        r = grads[i]
        grads[i] = None
        if all(x is None for x in grads):
            _memo.key = _memo.grads = None
        return r
    return rule


def _jvp(i):
    """Tangent rule of input ``i``: the composed recurrence run on a dual input."""
    def rule(t, out, data, params, state, cell, **attrs):
        from .._engine import forward_ad as fad
        ins = [data, params, state, cell]
        ins[i] = fad.make_dual(ins[i], t)
        res = _rnn_composed(*ins, _masks(out, data, attrs), attrs["mode"], attrs["H"],
                            attrs["L"], attrs["D"], attrs["P"])
        return tuple(None if a is None else fad.unpack_dual(a).tangent for a in res) + (None,)
    return rule


def _fwd(data, params, state, cell, mode, H, L, D, p, needs, P):
    return _rnn_forward(data, params, state, cell, mode, H, L, D, p, P)


_RNN = defop("RNN", _fwd, [_take(i, True) for i in range(4)], [_jvp(i) for i in range(4)],
             save="all", save_out=True, nout=4, raw_grads=[_take(i, False) for i in range(4)])


def _in_graph(x) -> bool:
    return isinstance(x, NDArray) and x._node is not None


def RNN(data=None, parameters=None, state=None, state_cell=None, sequence_length=None,
        state_size: Optional[int] = None, num_layers: Optional[int] = None,
        bidirectional: bool = False, mode: Optional[str] = None, p: float = 0.0,
        state_outputs: bool = False, projection_size=None, lstm_state_clip_min=None,
        lstm_state_clip_max=None, lstm_state_clip_nan: bool = False,
        use_sequence_length: bool = False, **kwargs) -> Union[NDArray, List[NDArray]]:
    """Fused multi-layer (bidirectional) recurrent network, as MXNet's ``RNN`` operator.

    Parameters
    ----------
    data : NDArray
        ``(T, N, input_size)``.
    parameters : NDArray
        The flat parameter vector (length :func:`rnn_param_size`; layout in the module
        docstring).
    state : NDArray
        Initial hidden state ``(num_layers * D, N, state_size)``, ``D = 2`` if
        bidirectional (``(num_layers * D, N, projection_size)`` with a projection).
    state_cell : NDArray, optional
        Initial cell state (LSTM only), shape as ``state``.
    state_size : int
        Hidden size ``H``.
    num_layers : int
    bidirectional : bool, default False
    mode : {'rnn_relu', 'rnn_tanh', 'lstm', 'gru'}
    p : float, default 0
        Dropout on the outputs of every layer but the last, in training mode.
    state_outputs : bool, default False
        Also return the final states.
    projection_size : int, optional
        LSTM with a projection (LSTMP): ``r_t = W_hr h_t`` (``h2r`` weights ``(P, H)``
        after each ``h2h`` weight in the vector) is the output and the recurrent state.

    Returns
    -------
    NDArray or list of NDArray
        ``out`` (``(T, N, D*H)``); with ``state_outputs`` the list ``[out, hy]`` (``[out,
        hy, cy]`` for LSTM).

    Examples
    --------
    >>> import mxgrad as mx
    >>> n = mx.nd.rnn_param_size('gru', 2, 3)
    >>> out = mx.nd.RNN(mx.nd.ones((4, 1, 2)), mx.nd.ones((n,)) * 0.1,
    ...                 mx.nd.zeros((1, 1, 3)), state_size=3, num_layers=1, mode='gru')
    >>> out.shape
    (4, 1, 3)
    """
    if mode not in _GATES:
        raise StateError(f"RNN: mode must be one of {sorted(_GATES)}, got {mode!r}")
    if state_size is None or num_layers is None:
        raise StateError("RNN: state_size and num_layers are required")
    P = int(projection_size) if projection_size else 0
    if P and (mode != "lstm" or not 0 < P <= int(state_size)):
        raise StateError(f"RNN: projection_size is for mode 'lstm' only and must be in "
                         f"(0, state_size={state_size}]; got {projection_size!r} with mode "
                         f"{mode!r}")
    if lstm_state_clip_min is not None or lstm_state_clip_max is not None:
        raise StateError("RNN: lstm_state_clip_min/max are not supported by mxgrad (MXNet "
                         "1.9's operator implements them with cuDNN only); leave them None")
    if use_sequence_length or sequence_length is not None:
        raise StateError("RNN: use_sequence_length is not supported by mxgrad (MXNet 1.9's "
                         "operator implements it with cuDNN only); unroll gluon.rnn cells "
                         "with valid_length= instead")
    H, L = int(state_size), int(num_layers)
    D = 2 if bidirectional else 1
    p = float(p)
    if not 0.0 <= p < 1.0:
        raise StateError(f"RNN: dropout p must be in [0, 1), got {p}")
    args: list = []
    for name, x in (("data", data), ("parameters", parameters), ("state", state),
                    ("state_cell", state_cell)):
        if x is None:
            args.append(None)
        elif isinstance(x, NDArray) or type(x) is np.ndarray:
            args.append(x)
        else:
            args.append(as_array(x, "RNN", name))
    data, parameters, state, state_cell = args
    if data is None or parameters is None or state is None:
        raise StateError("RNN: data, parameters and state are required")
    if data.ndim != 3:
        raise ShapeError(f"RNN: data must be (seq_len, batch, input_size), got shape "
                         f"{tuple(data.shape)}; for batch-major data swap the first two axes")
    T, N, I = data.shape
    dt = data.dtype
    if dt not in (np.float32, np.float64, np.float16):
        raise DTypeError(f"RNN: data must be a float array, got {dt}")
    want = rnn_param_size(mode, I, H, L, bidirectional, P)
    if tuple(parameters.shape) != (want,):
        raise ShapeError(f"RNN: parameters must be a flat vector of {want} elements for mode "
                         f"{mode!r}, input_size {I}, state_size {H}, num_layers {L}, "
                         f"bidirectional={bool(bidirectional)}, projection_size {P or None}; "
                         f"got shape {tuple(parameters.shape)}")
    sshape = (L * D, N, H)
    hshape = (L * D, N, P or H)
    if tuple(state.shape) != hshape:
        raise ShapeError(f"RNN: state must have shape {hshape}, got {tuple(state.shape)}")
    if mode == "lstm":
        if state_cell is None:
            raise StateError("RNN: mode 'lstm' needs state_cell (the initial cell state)")
        if tuple(state_cell.shape) != sshape:
            raise ShapeError(f"RNN: state_cell must have shape {sshape}, got "
                             f"{tuple(state_cell.shape)}")
    else:
        state_cell = None
    for name, x in (("parameters", parameters), ("state", state), ("state_cell", state_cell)):
        if x is not None and x.dtype != dt:
            raise DTypeError(f"RNN: {name} has dtype {x.dtype} but data has {dt}; cast them "
                             f"to one dtype")
    drop = p if (p > 0 and L > 1 and _scope.training) else 0.0
    ins = (data, parameters, state, state_cell)
    attrs = {"mode": mode, "H": H, "L": L, "D": D, "p": drop, "P": P,
             "needs": tuple(_in_graph(x) for x in ins)}
    out, hy, cy, _ = call(_RNN, ins, attrs)
    if not state_outputs:
        return out
    return [out, hy, cy] if mode == "lstm" else [out, hy]


def _rnn_run(inputs, kwargs):
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
            from .creation import zeros     # an op module, at call time
            inputs[i] = zeros((layers * dirs, data.shape[1], size), dtype=data.dtype)
    # _guard: the function as mx.nd holds it, with the namespace's argument guard (one
    # wrapper per function, cached), so a loaded graph's bad attribute fails as a call does
    return _guard(RNN, "nd.RNN")(*inputs, **kwargs)


def _rnn_shape(kw, ins, outs):
    """RNN's shapes: the flat parameter vector's size, the begin states and the outputs
    from the data ``(T, N, input_size)`` and the attributes."""
    d = ins[0]
    if d is None or len(d) != 3 or d[2] < 0:
        return list(ins), list(outs)
    mode = kw.get("mode")
    h, layers = int(kw["state_size"]), int(kw.get("num_layers", 1))
    dirs = 2 if kw.get("bidirectional") else 1
    proj = kw.get("projection_size")
    ph = int(proj) if proj else h
    size = rnn_param_size(mode, d[2], h, layers, bool(kw.get("bidirectional")), proj)
    state = (layers * dirs, d[1], ph)
    new = [d, (size,), state]
    if len(ins) > 3:
        new.append((layers * dirs, d[1], h) if mode == "lstm" else ins[3])
    new += list(ins[len(new):])
    at = 4 if mode == "lstm" else 3               # sequence_length: one length per sequence
    if is_set(kw.get("use_sequence_length", False)) and len(new) > at:
        new[at] = _sr.merge(new[at], (d[1],))
    res = [(d[0], d[1], dirs * ph), state, (layers * dirs, d[1], h)]
    return new, res[:len(outs)]


def _rnn_outputs(kw):
    """The output, and with ``state_outputs`` the final states (two for an LSTM)."""
    return (3 if kw.get("mode") == "lstm" else 2) if kw.get("state_outputs") else 1


mxnet_op("RNN", ("data", "parameters", "state", "state_cell", "sequence_length"),
         run=_rnn_run, outputs=_rnn_outputs,
         out_names=("output", "state_output", "statecell_output"), shape=_rnn_shape,
         takes=optional_inputs(state_cell=lambda kw: kw.get("mode") == "lstm",
                               sequence_length=flag_set("use_sequence_length")))
