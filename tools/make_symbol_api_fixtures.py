"""Write ``tests/data/mxnet/symbol_api.json``: MXNet 1.9.1's names, arguments, outputs,
attributes, shapes and values of the Symbols of ``tests/symbol_api_cases.py``. Needs MXNet
(not run in CI)::

    /tmp/mxvenv/bin/python tools/make_symbol_api_fixtures.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import symbol_api_cases  # noqa: E402


def main() -> None:
    data = symbol_api_cases.inputs()
    out = {}
    for name, (sym, fed) in symbol_api_cases.cases(mx).items():
        rec = {"arguments": sym.list_arguments(), "outputs": sym.list_outputs(),
               "aux": sym.list_auxiliary_states(), "attr_dict": sym.attr_dict(),
               "list_attr": sym.list_attr() if len(sym.list_outputs()) == 1 else None}
        if fed:
            vals = {k: mx.nd.array(data[k], dtype=data[k].dtype) for k in fed}
            rec["shapes"] = [[list(s) for s in part] for part in
                             sym.infer_shape(**{k: v.shape for k, v in vals.items()})]
            rec["values"] = [o.asnumpy().astype("float64").tolist()
                             for o in sym.eval(ctx=mx.cpu(), **vals)]
        out[name] = rec
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "symbol_api.json")
    with open(dest, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"wrote {len(out)} cases to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
