"""Write tests/data/mxnet/numeric_ops.json: MXNet 1.9.1's results of nd.histogram,
nd.multi_all_finite, nd.contrib.allclose and contrib.quantize/dequantize on small inputs (values and dtypes), and the
shapes and dtypes of the nd.sample_* operators.

Needs real MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_numeric_fixtures.py
"""
import json
import os
import warnings

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet", "numeric_ops.json")


def _res(a):
    return {"value": a.asnumpy().tolist(), "dtype": np.dtype(a.dtype).name,
            "shape": list(a.shape)}


def main():
    warnings.simplefilter("ignore")
    rs = np.random.RandomState(0)
    data = rs.randn(50).astype("float32") * 3
    out = {"data": data.tolist(), "histogram": {}, "allclose": {}, "multi_all_finite": {},
           "sample": {}}
    x = mx.nd.array(data)
    for key, kw in {"bins7_range": dict(bins=7, range=(-4, 5)),
                    "bins5_norange": dict(bins=5),
                    "edges": dict(bins=mx.nd.array([-10, -1, 0, 0.5, 3, 10]))}.items():
        h, e = mx.nd.histogram(x, **kw)
        out["histogram"][key] = [_res(h), _res(e)]
    a = mx.nd.array([1.0, 2.0, np.nan])
    cases = {"close": (a, a + 1e-6, {}), "far": (a, a + 1e-3, {}),
             "nan_unequal": (a, a, {"equal_nan": False}),
             "loose": (a, a + 1e-3, {"rtol": 1e-2})}
    for key, (p, q, kw) in cases.items():
        out["allclose"][key] = _res(mx.nd.contrib.allclose(p, q, **kw))
    fin, inf = mx.nd.ones((2, 3)), mx.nd.array([1.0, np.inf])
    out["multi_all_finite"]["finite"] = _res(mx.nd.multi_all_finite(fin, fin, num_arrays=2))
    out["multi_all_finite"]["inf"] = _res(mx.nd.multi_all_finite(fin, inf, num_arrays=2))
    p = mx.nd.array([[0.5, 1.0], [2.0, 3.0]])
    for name, args in {"sample_uniform": (p, p + 1), "sample_normal": (p, p),
                       "sample_gamma": (p, p), "sample_exponential": (p,),
                       "sample_poisson": (p,), "sample_negative_binomial": (p + 1, p / 4),
                       "sample_generalized_negative_binomial": (p, p)}.items():
        fn = getattr(mx.nd, name)
        out["sample"][name] = {"shape3": list(fn(*args, shape=3).shape),
                               "shape_none": list(fn(*args).shape),
                               "shape23": list(fn(*args, shape=(2, 3)).shape),
                               "dtype": np.dtype(fn(*args).dtype).name,
                               "dtype64": np.dtype(fn(*args, dtype="float64").dtype).name}
    q_in = np.array([0.1, 0.3, 0.45, 0.7, 0.9, 1.3, 2.0, -0.3, 0.1392, 0.5928, -1.7],
                    dtype="float32")
    out["quantize"] = []
    for lo, hi in [(0.2, 1.0), (0.0, 2.0), (-1.0, 1.0), (-0.5, 1.0), (-3.0, 0.5)]:
        for t in ("int8", "uint8"):
            q, m1, m2 = mx.nd.contrib.quantize(mx.nd.array(q_in), mx.nd.array([lo]),
                                               mx.nd.array([hi]), out_type=t)
            out["quantize"].append({"lo": lo, "hi": hi, "type": t, "q": _res(q),
                                    "min": _res(m1), "max": _res(m2),
                                    "deq": _res(mx.nd.contrib.dequantize(q, m1, m2))})
    out["quantize_input"] = q_in.tolist()
    with open(OUT, "w") as f:
        json.dump(out, f)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
