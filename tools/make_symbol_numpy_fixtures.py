"""Write ``tests/data/mxnet/symbol_numpy.json`` and the NumPy-mode model files under
``tests/data/mxnet/symbol_numpy/``: what real MXNet 1.9.1's ``mx.sym.np`` / ``mx.sym.npx``
make of ``tests/sym_numpy_cases.py``'s expressions (the operators of each graph, in order,
its JSON, and its value on the cases' inputs), and a NumPy-mode HybridBlock exported by
MXNet (``npmodel-symbol.json``, ``npmodel-0000.params``, ``npmodel_io.npz``: the input and
MXNet's output in predict mode). Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_symbol_numpy_fixtures.py
"""
from __future__ import annotations

import json
import os
import sys

import numpy as onp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from sym_numpy_cases import A, B, CASES, np_model  # noqa: E402

DEST = os.path.join(HERE, "..", "tests", "data", "mxnet")


def cases():
    import mxnet as mx
    from mxnet import gluon
    np, npx = mx.sym.np, mx.sym.npx
    out = {}
    for name, expr in CASES.items():
        a = mx.sym.var("a").as_np_ndarray()
        b = mx.sym.var("b").as_np_ndarray()
        s = eval(expr, {"np": np, "npx": npx, "a": a, "b": b})
        graph = json.loads(s.tojson())
        ops = [n["op"] for n in graph["nodes"] if n["op"] != "null"]
        inputs = [v for v in ("a", "b") if v in s.list_arguments()]
        blk = gluon.SymbolBlock(s, [a if v == "a" else b for v in inputs])
        vals = {"a": mx.np.array(A), "b": mx.np.array(B)}
        y = blk(*[vals[v] for v in inputs])
        out[name] = {"ops": ops, "json": s.tojson(), "inputs": inputs,
                     "value": y.asnumpy().tolist(), "dtype": str(y.dtype),
                     "shape": list(y.shape)}
    with open(os.path.join(DEST, "symbol_numpy.json"), "w") as f:
        json.dump(out, f, indent=0, sort_keys=True)
    print(f"wrote {len(out)} cases")


def model():
    import mxnet as mx
    from mxnet import gluon, np

    mx.random.seed(7)
    net = np_model(gluon, prefix="npmodel_")
    net.initialize(mx.init.Xavier())
    x = np.random.uniform(-1, 1, size=(2, 3, 6, 6))
    net(x)                                         # shapes
    for p in net.collect_params().values():        # non-trivial running statistics
        if p.name.endswith("running_mean"):
            p.set_data(np.random.uniform(-0.5, 0.5, size=p.shape))
        if p.name.endswith("running_var"):
            p.set_data(np.random.uniform(0.5, 2.0, size=p.shape))
    net.hybridize()
    y = net(x)
    folder = os.path.join(DEST, "symbol_numpy")
    os.makedirs(folder, exist_ok=True)
    net.export(os.path.join(folder, "npmodel"))
    onp.savez_compressed(os.path.join(folder, "npmodel_io.npz"), x=x.asnumpy(),
                         y=y.asnumpy())
    print(f"wrote {folder}")


def main() -> None:
    from mxnet import npx
    npx.set_np()
    cases()
    model()


if __name__ == "__main__":
    main()
