"""Write tests/data/mxnet/rnn/unroll-*: MXNet 1.9.1 hybridizes blocks whose ``hybrid_forward``
unrolls recurrent cells (a stacked LSTM/GRU cell, and a bidirectional cell with
``valid_length``), runs them on seeded data and exports them. Written per block NAME:

- ``unroll-NAME-symbol.json`` / ``unroll-NAME-0000.params``: MXNet's export;
- ``unroll-NAME-io.npz``: the inputs and MXNet's output.

tests/test_rnn_unroll_export.py builds the same blocks (same classes, same prefixes), loads
MXNet's parameters, and checks the hybridized output, its own export, and MXNet's export.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_unroll_export_fixtures.py
"""
import os
import sys

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "rnn")


sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                                "tests"))
import unroll_blocks  # noqa: E402

Stacked, BiMasked = unroll_blocks.blocks(mx)


def main():
    rs = np.random.RandomState(0)
    for name, net, args in [
            ("stacked", Stacked(prefix="stacked_"), [rs.randn(2, 6, 3)]),
            ("bimasked", BiMasked(prefix="bimasked_"), [rs.randn(5, 3, 3),
                                                         np.array([5, 2, 3])])]:
        net.initialize(mx.init.Uniform(0.5))
        net.hybridize()
        xs = [mx.nd.array(a) for a in args]
        out = net(*xs)
        out = out if isinstance(out, (list, tuple)) else [out]
        net.export(os.path.join(OUT, f"unroll-{name}"))
        np.savez(os.path.join(OUT, f"unroll-{name}-io.npz"),
                 **{f"in{i}": a.astype("float32") for i, a in enumerate(args)},
                 **{f"out{i}": o.asnumpy() for i, o in enumerate(out)})
        print("wrote", name, [o.shape for o in out])


if __name__ == "__main__":
    main()
