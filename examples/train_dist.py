"""Data-parallel training with ``mx.kv``: the same script on one or several processes.

    python examples/train_dist.py                          # one process
    python -m mxgrad.launch -n 2 examples/train_dist.py    # two (or: mpiexec -n 2 python ...)

An MLP on the 8x8 digits bundled with mxgrad, global batch 64. With N workers each
process computes the gradient of its 64/N samples of every global batch, the Trainer
sums the gradients over the workers (MPI allreduce) and every worker applies the same
update. Each worker takes its slice of the same shuffled global batch, so 1 and 2
processes train the same model and print the same numbers (up to float32 rounding).
In a real job each worker would rather read only its own part of the data, e.g.
``gluon.data.SplitSampler(len(ds), num_parts=kv.num_workers, part_index=kv.rank)``.
"""
import argparse

import numpy as np

import mxgrad as mx
from mxgrad import autograd, gluon
from mxgrad.demo import load_digits


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64, help="global batch size")
    ap.add_argument("--lr", type=float, default=0.1)
    args = ap.parse_args()

    kv = mx.kv.create("dist_sync")          # rank 0 of 1 when started without a launcher
    if args.batch_size % kv.num_workers:
        raise SystemExit("--batch-size must be a multiple of the number of workers")
    per_worker = args.batch_size // kv.num_workers
    (x_train, y_train), (x_test, y_test) = load_digits()
    x_np, y_np = x_train.asnumpy(), y_train.asnumpy()

    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(128, activation="relu", in_units=64),
            gluon.nn.Dense(64, activation="relu", in_units=128),
            gluon.nn.Dense(10, in_units=64))
    net.initialize(mx.init.Xavier())        # rank 0's weights are broadcast by the Trainer
    trainer = gluon.Trainer(net.collect_params(), "sgd",
                            {"learning_rate": args.lr, "momentum": 0.9}, kvstore=kv)
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
    stats = mx.kv.create("dist_sync")       # a second store (no optimizer) for the loss
    stats.init("loss", mx.nd.zeros(1))
    order = np.random.default_rng(0)        # the same shuffle on every worker
    steps = len(x_np) // args.batch_size
    if kv.rank == 0:
        print(f"{kv.num_workers} worker(s), {per_worker} samples each per step")
    for epoch in range(args.epochs):
        perm = order.permutation(len(x_np))
        total = mx.nd.zeros(1)
        for k in range(steps):
            start = k * args.batch_size + kv.rank * per_worker
            idx = perm[start:start + per_worker]
            x, y = mx.nd.array(x_np[idx]), mx.nd.array(y_np[idx])
            with autograd.record():
                loss = loss_fn(net(x), y)
            loss.backward()
            trainer.step(args.batch_size)   # global batch: gradients are summed
            total += loss.sum()
        stats.pushpull("loss", total)       # sum over the workers
        with autograd.predict_mode():
            pred = net(x_test).asnumpy().argmax(axis=1)
        acc = float((pred == y_test.asnumpy()).mean())
        if kv.rank == 0:
            print(f"epoch {epoch}: loss {total.asscalar() / (steps * args.batch_size):.6f}"
                  f"  test accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
