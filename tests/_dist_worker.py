"""Worker program of the MPI tests (tests/test_dist.py) and the same training code run
as a single-process reference. Run by ``mpiexec -n N python _dist_worker.py MODE OUT``.

MODE ``train``: every training configuration of ``CONFIGS`` on this rank's shard; each
rank writes its parameters to ``OUT.rank<r>.npz``. MODE ``api``: KVStore calls across
ranks, results to ``OUT.rank<r>.json``. MODE ``fail``: rank 1 raises in forward while
the others go on to ``trainer.step`` (must abort, not hang); ``early``: rank 1 fails
before MPI starts (the launcher must abort all). MODE ``single``: a dist
kvstore without mpiexec (rank 0 of 1). ``mismatch``/``extra``: kvstore calls that do not
match across ranks (issue 24).
"""
import json
import sys

import numpy as np

import mxgrad as mx
from mxgrad import autograd, gluon

B = 4          # per-worker batch
STEPS = 3
CONFIGS = [
    # (name, optimizer, optimizer params, model, update_on_kvstore, split step)
    ("sgd", "sgd", {"learning_rate": 0.1}, "mlp", None, False),
    ("momentum", "sgd", {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}, "mlp",
     False, False),
    ("adam", "adam", {"learning_rate": 0.01}, "mlp", None, False),
    ("adam_split", "adam", {"learning_rate": 0.01}, "mlp", False, True),
    ("bn", "sgd", {"learning_rate": 0.1, "momentum": 0.9}, "bn", None, False),
    ("dropout", "adam", {"learning_rate": 0.01}, "dropout", False, False),
    ("deferred", "sgd", {"learning_rate": 0.1, "momentum": 0.5}, "deferred", True, False),
]


def build(model):
    net = gluon.nn.HybridSequential(prefix="net_")
    with net.name_scope():
        if model == "deferred":
            net.add(gluon.nn.Dense(8, activation="relu"), gluon.nn.Dense(3))
        else:
            net.add(gluon.nn.Dense(8, in_units=5))
            if model == "bn":
                net.add(gluon.nn.BatchNorm(in_channels=8))
            net.add(gluon.nn.Activation("relu"))
            if model == "dropout":
                net.add(gluon.nn.Dropout(0.5))
            net.add(gluon.nn.Dense(3, in_units=8))
    return net


def batches(n_workers):
    rng = np.random.default_rng(0)
    for _ in range(STEPS):
        yield (rng.standard_normal((n_workers * B, 5)).astype(np.float32),
               rng.standard_normal((n_workers * B, 3)).astype(np.float32))


def train(config, n_workers, kv=None, ctx=None, dropout_gens=None):
    """Train one configuration; with ``kv`` (a dist kvstore) on this rank's shard, else
    in one process on ``ctx`` (a list: one shard per context, summed in context order).
    ``dropout_gens`` (reference only): the generator each shard's forward draws from.
    Returns {parameter name: [array per copy]}."""
    name, optim, optim_params, model, upd, split = config
    mx.random.seed(100)        # rank-dependent under MPI: the broadcast must fix it
    net = build(model)
    ctx = ctx or [mx.cpu()]
    net.initialize(mx.init.Xavier(), ctx=ctx)
    trainer = gluon.Trainer(net.collect_params(), optim, dict(optim_params),
                            kvstore=kv if kv is not None else "device",
                            update_on_kvstore=upd)
    mx.random.seed(7)          # Dropout masks: (7, rank) under MPI
    loss_fn = gluon.loss.L2Loss()
    for x, y in batches(n_workers):
        if kv is not None:
            xs = [mx.nd.array(x[kv.rank * B:(kv.rank + 1) * B])]
            ys = [mx.nd.array(y[kv.rank * B:(kv.rank + 1) * B])]
        else:
            xs = gluon.utils.split_and_load(mx.nd.array(x), ctx)
            ys = gluon.utils.split_and_load(mx.nd.array(y), ctx)
        with autograd.record():
            losses = []
            for i, (a, b) in enumerate(zip(xs, ys)):
                if dropout_gens is not None:
                    mx.random._rng[0] = dropout_gens[i]
                losses.append(loss_fn(net(a), b))
        autograd.backward(losses)
        if split:
            trainer.allreduce_grads()
            trainer.update(n_workers * B)
        else:
            trainer.step(n_workers * B)
    return {k: [a.asnumpy() for a in p.list_data()]
            for k, p in net.collect_params().items()}


def mode_train(out):
    result = {}
    for config in CONFIGS:
        kv = mx.kv.create("dist_sync")
        for k, arrs in train(config, kv.num_workers, kv=kv).items():
            result[f"{config[0]}/{k}"] = arrs[0]
    np.savez(f"{out}.rank{kv.rank}.npz", **result)


def mode_api(out):
    kv = mx.kv.create("dist_device_sync")
    r, n = kv.rank, kv.num_workers
    res = {"type": kv.type, "rank": r, "num_workers": n}
    kv.init(3, mx.nd.ones((2, 3)) * (r + 1))            # rank 0's value wins
    o = mx.nd.zeros((2, 3))
    kv.pull(3, out=o)
    res["init"] = o.asnumpy().tolist()
    kv.push(3, [mx.nd.ones((2, 3)) * (r + 1), mx.nd.ones((2, 3))])   # two devices
    outs = [mx.nd.zeros((2, 3)), mx.nd.zeros((2, 3))]
    kv.pull(3, out=outs)
    res["push"] = [a.asnumpy().tolist() for a in outs]
    kv.init(["a", "b"], [mx.nd.zeros(3), mx.nd.zeros(5)])
    va, vb = mx.nd.array([1.0, 2.0, 3.0]) * (r + 1), mx.nd.ones(5) * r
    kv.pushpull(["a", "b"], [va, vb])
    res["pushpull"] = [va.asnumpy().tolist(), vb.asnumpy().tolist()]
    w = mx.nd.zeros(4)
    kv.broadcast("w", mx.nd.arange(4) + 10 * r, out=w)
    res["broadcast"] = w.asnumpy().tolist()
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.5))
    kv.push("w", mx.nd.ones(4))                            # w -= 0.5 * n
    kv.pull("w", out=w)
    res["optimizer"] = w.asnumpy().tolist()
    kv.barrier()
    kv._barrier()
    with open(f"{out}.rank{r}.json", "w") as f:
        json.dump(res, f)


def mode_fail(out):
    kv = mx.kv.create("dist_sync")
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", kvstore=kv)
    with autograd.record():
        if kv.rank == 1:
            raise RuntimeError("boom in forward on rank 1")
        loss = net(mx.nd.ones((2, 3))).sum()
    loss.backward()
    trainer.step(2)           # rank 0 waits here for rank 1: must be aborted


def mode_early(out):
    import os
    if os.environ.get("PMI_RANK") == "1":      # before MPI or any kvstore exists
        raise RuntimeError("early failure on rank 1")
    kv = mx.kv.create("dist_sync")
    kv.barrier()


def mode_single(out):
    kv = mx.kv.create("dist_sync")
    net = gluon.nn.Dense(2, in_units=3, weight_initializer="ones", bias_initializer="zeros")
    net.initialize()
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 1.0}, kvstore=kv)
    with autograd.record():
        loss = net(mx.nd.ones((1, 3))).sum()
    loss.backward()
    trainer.step(1)
    print(json.dumps({"rank": kv.rank, "num_workers": kv.num_workers, "type": kv.type,
                      "w": net.weight.data().asnumpy().tolist()}))


def mode_mismatch(out):
    """Issue 24: kvstore calls that do not match across 2 ranks, each caught; the
    messages go to OUT.rank<r>.json. The ranks stay in step after each error."""
    kv = mx.kv.create("dist_sync")
    r = kv.rank
    kv.init([0, 1, 2], [mx.nd.zeros(4), mx.nd.zeros(4), mx.nd.zeros((2, 3))])
    res = {}
    cases = {
        "keys": lambda: kv.push(r, mx.nd.ones(4)),            # key 0 on rank 0, 1 on 1
        "shapes": lambda: kv.push(2, mx.nd.ones((2, 3) if r == 0 else (3, 2))),
        "sizes": lambda: kv.init("s", mx.nd.zeros(2 + r)),   # before: raw MPI exception
        "count": lambda: kv.pushpull([0, 1][:1 + r], [mx.nd.ones(4)] * (1 + r)),
        "call": lambda: kv.push(0, mx.nd.ones(4)) if r == 0 else kv.barrier(),
        "dtype": lambda: kv.push(0, mx.nd.ones(4, dtype="float32" if r == 0 else "float64")),
    }
    for name, call in cases.items():
        try:
            call()
            res[name] = "no error"
        except mx.kv.CollectiveMismatchError as err:
            res[name] = str(err)
        except Exception as err:  # noqa: BLE001 - recorded for the test to show
            res[name] = f"{type(err).__name__}: {err}"
    kv.push(0, mx.nd.ones(4) * (r + 1))                 # still in step: 1 + 2
    o = mx.nd.zeros(4)
    kv.pull(0, out=o)
    res["after"] = o.asnumpy().tolist()
    with open(f"{out}.rank{r}.json", "w") as f:
        json.dump(res, f)


def mode_extra(out):
    """Issue 24: one extra push on rank 0 (rank 1 goes on to finish): rank 0 must fail
    within MXGRAD_KVSTORE_TIMEOUT naming itself and the key, and the job stop."""
    kv = mx.kv.create("dist_sync")
    kv.init("w", mx.nd.zeros(3))
    kv.push("w", mx.nd.ones(3))
    if kv.rank == 0:
        kv.push("w", mx.nd.ones(3))
    else:
        import time
        time.sleep(30)             # alive but elsewhere: a hang without the timeout


if __name__ == "__main__":
    {"train": mode_train, "api": mode_api, "fail": mode_fail, "early": mode_early,
     "single": mode_single, "mismatch": mode_mismatch,
     "extra": mode_extra}[sys.argv[1]](sys.argv[2] if len(sys.argv) > 2 else "")
