"""Write ``tests/data/mxnet/records_nn.json``: for each graph of ``tests/records_nn_cases.py``
(the operators whose records rec-nn declared beside their functions), MXNet 1.9.1's JSON of
the graph, its argument, output and auxiliary-state names, ``infer_shape_partial`` from the
given shapes and ``infer_type_partial`` from the given dtypes. Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_records_nn_fixtures.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import records_nn_cases  # noqa: E402


def main() -> None:
    out = {}
    for name, (sym, shapes, types) in records_nn_cases.cases(mx).items():
        case = {"json": sym.tojson(), "arguments": sym.list_arguments(),
                "outputs": sym.list_outputs(), "aux": sym.list_auxiliary_states(),
                "shapes": [[list(s) for s in part]
                           for part in sym.infer_shape_partial(**shapes)]}
        if types is not None:
            case["types"] = [[None if t is None else t.__name__ for t in part]
                             for part in sym.infer_type_partial(**types)]
        out[name] = case
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "records_nn.json")
    tmp = dest + ".tmp"
    with open(tmp, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    os.replace(tmp, dest)
    print(f"wrote {len(out)} cases to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
