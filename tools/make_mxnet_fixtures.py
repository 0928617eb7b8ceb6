"""Write the MXNet-format fixtures under tests/data/mxnet/ with real MXNet 1.9.1.

Needs MXNet (not run in CI):  /tmp/mxvenv/bin/python tools/make_mxnet_fixtures.py

Every array's values are a function of its dtype and shape only (see ``values``), so the
tests rebuild the same arrays with NumPy, save them with mxgrad and compare bytes.
"""
import os
import sys
import warnings

import numpy as np
import mxnet as mx

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "tests", "data",
                   "mxnet")
DTYPES = ["float16", "float32", "float64", "uint8", "int8", "int32", "int64", "bool"]


def values(dtype, shape):
    """Deterministic test values (tests/test_io_mxnet.py has the same function)."""
    n = int(np.prod(shape))
    base = (np.arange(n) * 7 % 11 - 3).astype(np.float64)
    if dtype == "bool":
        return (base > 0).reshape(shape)
    if dtype in ("float16", "float32", "float64"):
        return (base / 4).astype(dtype).reshape(shape)
    if dtype == "uint8":
        return (base + 3).astype(dtype).reshape(shape)
    return base.astype(dtype).reshape(shape)


def path(name):
    return os.path.join(OUT, name)


def main():
    os.makedirs(OUT, exist_ok=True)
    for dt in DTYPES:
        a = mx.nd.array(values(dt, (2, 3)), dtype=dt)
        b = mx.nd.array(values(dt, (4,)), dtype=dt)
        mx.nd.save(path(f"list_{dt}.nd"), [a, b])
        mx.nd.save(path(f"dict_{dt}.nd"), {"a": a, "b_é": b})
    mx.nd.save(path("single.nd"), mx.nd.array(values("float32", (3,))))
    mx.nd.save(path("empty_list.nd"), [])
    mx.nd.save(path("mixed.nd"), {"w": mx.nd.array(values("float32", (2, 0, 3))),
                                  "i": mx.nd.array(values("int64", (1, 1, 1, 5)),
                                                   dtype="int64")})

    # a small Gluon net: Dense + BatchNorm, with values from ``values``
    net = mx.gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(mx.gluon.nn.Dense(3, in_units=4))
        net.add(mx.gluon.nn.BatchNorm(in_channels=3))
    net.initialize()
    for name, p in sorted(net.collect_params().items()):
        p.set_data(mx.nd.array(values("float32", p.shape)))
    net.save_parameters(path("net.params"))                 # 0.weight, 1.gamma, ...
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.save_params(path("net_legacy.params"))          # dense0_weight, ...
    net.collect_params().save(path("net_paramdict.params"))  # net_dense0_weight, ...
    print(sorted(mx.nd.load(path("net.params"))), file=sys.stderr)
    print(sorted(mx.nd.load(path("net_legacy.params"))), file=sys.stderr)

    # shared parameters: save_parameters(deduplicate=True) keeps the last name of each
    shared = mx.gluon.nn.HybridSequential(prefix="s_")
    with shared.name_scope():
        d0 = mx.gluon.nn.Dense(2, in_units=2)
        shared.add(d0, mx.gluon.nn.Dense(2, in_units=2, params=d0.collect_params()),
                   mx.gluon.nn.Dense(1, in_units=2))
    shared.initialize()
    for name, p in sorted(shared.collect_params().items()):
        p.set_data(mx.nd.array(values("float32", p.shape)))
    shared.save_parameters(path("shared_dedup.params"), deduplicate=True)
    shared.save_parameters(path("shared.params"))

    # a Module-style checkpoint's params file (arg:/aux: keys)
    arg = {"fc_weight": mx.nd.array(values("float32", (3, 4))),
           "fc_bias": mx.nd.array(values("float32", (3,)))}
    aux = {"bn_moving_mean": mx.nd.array(values("float32", (3,)))}
    sym = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=3, name="fc")
    mx.model.save_checkpoint(path("module"), 3, sym, arg, aux)
    os.remove(path("module-symbol.json"))

    # sparse records
    rsp = mx.nd.sparse.row_sparse_array(
        (values("float32", (2, 3)), np.array([1, 4], dtype=np.int64)), shape=(5, 3))
    csr = mx.nd.sparse.csr_matrix(
        (np.array([1.5, -2.0, 3.0], dtype=np.float32), np.array([0, 2, 1]),
         np.array([0, 2, 2, 3])), shape=(3, 4))
    mx.nd.save(path("sparse.nd"), {"rsp": rsp, "csr": csr,
                                   "dense": mx.nd.array(values("float32", (2,)))})

    # NumPy-semantics records (magic V3): a 0-d scalar and a zero-size array
    mx.npx.set_np()
    mx.npx.save(path("npx_v3.nd"), {"a": mx.np.array(values("float32", (1, 2))),
                                    "s": mx.np.array(3.0), "z": mx.np.zeros((0, 2))})
    mx.npx.reset_np()

    # a pickled Trainer states file (MXNet's own format), for the allow_pickle path
    net2 = mx.gluon.nn.Dense(2, in_units=3, prefix="d_")
    net2.initialize()
    for p in net2.collect_params().values():
        p.set_data(mx.nd.array(values("float32", p.shape)))
    tr = mx.gluon.Trainer(net2.collect_params(), "sgd",
                          {"learning_rate": 0.1, "momentum": 0.9})
    x = mx.nd.array(values("float32", (2, 3)))
    with mx.autograd.record():
        loss = net2(x).sum()
    loss.backward()
    tr.step(2)
    tr.save_states(path("trainer_sgd.states"))
    mx.nd.save(path("trainer_sgd_expected.nd"),
               {str(k): v for k, v in tr._updaters[0].states.items()})
    for f in sorted(os.listdir(OUT)):
        print(f, os.path.getsize(path(f)), file=sys.stderr)


if __name__ == "__main__":
    main()
