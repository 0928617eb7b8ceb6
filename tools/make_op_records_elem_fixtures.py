"""Write ``tests/data/mxnet/op_records_elem.json``: MXNet 1.9.1's ``infer_shape_partial`` and
``infer_type_partial`` of the graphs in ``tests/op_records_elem_cases.py`` (the records of
the elementwise, reduction, ordering, indexing, creation and sampling operators). Needs
MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_op_records_elem_fixtures.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import op_records_elem_cases  # noqa: E402


def main() -> None:
    out = {}
    for name, (sym, shapes) in op_records_elem_cases.shape_cases(mx).items():
        got = sym.infer_shape_partial(**shapes)
        out[name] = {"arguments": sym.list_arguments(),
                     "shapes": [[list(s) for s in part] for part in got]}
    for name, (sym, types) in op_records_elem_cases.type_cases(mx).items():
        got = sym.infer_type_partial(**types)
        out[name] = {"arguments": sym.list_arguments(),
                     "types": [[None if t is None else t.__name__ for t in part]
                               for part in got]}
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "op_records_elem.json")
    with open(dest, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"wrote {len(out)} cases to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
