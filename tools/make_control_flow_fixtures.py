"""Write ``tests/data/mxnet/control_flow/``: MXNet 1.9.1's JSON of the control-flow graphs of
``tests/control_flow_cases.py`` (``<case>-symbol.json``) and their outputs on the cases'
values (``outputs.npz``). Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_control_flow_fixtures.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import control_flow_cases  # noqa: E402


def main() -> None:
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "control_flow")
    os.makedirs(dest, exist_ok=True)
    outs = {}
    vals = control_flow_cases.values()
    for name, build in control_flow_cases.CASES.items():
        sym = build(mx)
        sym.save(os.path.join(dest, f"{name}-symbol.json"))
        args = {k: mx.nd.array(v, dtype="float32") for k, v in vals[name].items()}
        for k, o in enumerate(sym.eval(mx.cpu(), **args)):
            outs[f"{name}/{k}"] = o.asnumpy()
    np.savez_compressed(os.path.join(dest, "outputs.npz"), **outs)
    print(f"wrote {len(control_flow_cases.CASES)} graphs to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
