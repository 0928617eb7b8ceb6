"""SymbolBlock (a JSON graph interpreted through mx.nd) against the same network as Gluon
layers: forward in predict mode and a recorded forward + backward. The ratio is the
time of the imported model over the Gluon model's (1.0 = no interpretation overhead).
Also times export (trace + write) and imports (parse + load).

Run: python bench/bench_symbol.py
"""
from __future__ import annotations

import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from common import best_time, report  # noqa: E402

import mxgrad as mx  # noqa: E402
from mxgrad import autograd, gluon, nd  # noqa: E402
from symbol_models import BUILDERS  # noqa: E402


def main():
    rows = []
    folder = tempfile.mkdtemp()
    for name in ("cnn", "mlp"):
        net, x = BUILDERS[name](mx)
        net.initialize(mx.init.Xavier())
        net.hybridize()
        x = nd.array(x.repeat(16, axis=0))
        net(x)
        path = os.path.join(folder, name)
        t_export = best_time(lambda: net.export(path), repeat=3)
        blk = gluon.SymbolBlock.imports(path + "-symbol.json", ["data"],
                                        path + "-0000.params")
        t_import = best_time(lambda: gluon.SymbolBlock.imports(
            path + "-symbol.json", ["data"], path + "-0000.params"), repeat=3)

        def train(model):
            def f():
                with autograd.record():
                    y = model(x)
                y.backward()
            return f

        for what, fn_net, fn_blk in (
                ("predict", lambda: net(x), lambda: blk(x)),
                ("record+backward", train(net), train(blk))):
            t_net, t_blk = best_time(fn_net), best_time(fn_blk)
            bench = f"{name} {what} batch {x.shape[0]}"
            rows.append({"bench": bench, "impl": "gluon", "seconds": t_net, "ratio": 1.0})
            rows.append({"bench": bench, "impl": "symblock", "seconds": t_blk,
                         "ratio": t_blk / t_net})
        rows.append({"bench": f"{name} export", "impl": "mxgrad", "seconds": t_export,
                     "ratio": t_export / t_net})
        rows.append({"bench": f"{name} imports", "impl": "mxgrad", "seconds": t_import,
                     "ratio": t_import / t_net})
    report(rows, "SymbolBlock vs the same Gluon network (ratio = time / Gluon's; "
                 "export/imports as multiples of one training step)")


if __name__ == "__main__":
    main()
