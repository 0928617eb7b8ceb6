"""Control-flow Symbols built the same way by MXNet 1.9.1 (tools/make_control_flow_fixtures.py)
and by mxgrad (tests/test_symbol_control_flow.py), with their input values."""
import numpy as np


def foreach(mx):
    data, h, w = mx.sym.var("data"), mx.sym.var("h"), mx.sym.var("w")

    def body(x, states):
        s = mx.sym.tanh(x * w + states[0])
        return s * 2, [s]
    out, states = mx.sym.contrib.foreach(body, data, [h])
    return mx.sym.Group([out, states[0]])


def while_loop(mx):
    i, acc, w = mx.sym.var("i"), mx.sym.var("acc"), mx.sym.var("w")
    outs, final = mx.sym.contrib.while_loop(
        lambda i, a: i < 3, lambda i, a: ([a * w], [i + 1, a + i]), [i, acc],
        max_iterations=5)
    return mx.sym.Group([outs[0]] + final)


def cond(mx):
    a, b = mx.sym.var("a"), mx.sym.var("b")
    return mx.sym.contrib.cond(a * b < 5, lambda: (a + 5) * (b + 5),
                               lambda: (a - 5) * (b - 5))


def values():
    rng = np.random.RandomState(0)
    return {"foreach": {"data": rng.rand(4, 3), "h": rng.rand(3), "w": rng.rand(3)},
            "while_loop": {"i": np.array([0.0]), "acc": np.array([1.0]),
                           "w": np.array([2.0])},
            "cond": {"a": np.array([1.0]), "b": np.array([2.0])}}


CASES = {"foreach": foreach, "while_loop": while_loop, "cond": cond}
