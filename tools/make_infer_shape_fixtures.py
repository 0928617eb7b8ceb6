"""Write ``tests/data/mxnet/infer_shape.json``: MXNet 1.9.1's ``infer_shape_partial`` and
``infer_type`` of the graphs in ``tests/infer_shape_cases.py`` (and ``infer_type_partial``
of its ``type_cases``). Needs MXNet (not run in
CI)::

    /tmp/mxvenv/bin/python tools/make_infer_shape_fixtures.py
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import infer_shape_cases  # noqa: E402


def main() -> None:
    out = {}
    for name, (sym, shapes) in infer_shape_cases.cases(mx).items():
        arg, res, aux = sym.infer_shape_partial(**shapes)
        types = sym.infer_type(**{k: "float32" for k in shapes}) if shapes else None
        out[name] = {"arguments": sym.list_arguments(),
                     "shapes": [[list(s) for s in part] for part in (arg, res, aux)],
                     "types": None if types is None or types[0] is None else
                     [[str(t.__name__) for t in part] for part in types]}
    for name, (sym, types) in infer_shape_cases.type_cases(mx).items():
        got = sym.infer_type_partial(**types)
        out[name] = {"arguments": sym.list_arguments(),
                     "partial_types": [[None if t is None else t.__name__ for t in part]
                                       for part in got]}
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "infer_shape.json")
    with open(dest, "w") as f:
        json.dump(out, f, indent=1, sort_keys=True)
    print(f"wrote {len(out)} cases to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
