"""Train a small Gluon network on the bundled 8x8 digits: ``python -m mxgrad.demo``.

An MLP with BatchNorm and Dropout (64-128-BN-ReLU-Dropout-64-BN-ReLU-Dropout-10) is
trained with ``autograd.record()``, ``gluon.Trainer`` (Adam),
``SoftmaxCrossEntropyLoss`` and a shuffling ``DataLoader`` on the 1,442 training
images of :class:`mxgrad.gluon.data.vision.Digits`, then evaluated in predict mode on
the 355 held-out test images. It prints a progress bar, the mean loss and the train
and test accuracy after every epoch, and reaches about 97% test accuracy in a few
seconds on a laptop CPU.

Options: ``--epochs N`` (20), ``--batch-size B`` (64), ``--lr`` (0.005), ``--seed S``
(0; the run is deterministic for a given seed), ``--quiet`` (no output) and
``--plot FILE`` (save the loss curve as an image; needs matplotlib, which is imported
only then, with the non-interactive Agg backend) and ``--estimator`` (train with
``gluon.contrib.estimator.Estimator`` and its logging instead of the hand-written loop;
the same results).

From Python, :func:`main` takes the same arguments as a list and returns a dict with
the final ``test_acc``, ``train_acc``, the per-epoch ``losses``, ``train_accs``,
``test_accs`` and the wall time in ``seconds``.

Examples
--------
>>> from mxgrad.demo import main
>>> result = main(['--epochs', '1', '--quiet'])
>>> sorted(result)
['losses', 'seconds', 'test_acc', 'test_accs', 'train_acc', 'train_accs']
>>> len(result['losses'])
1
"""
from __future__ import annotations

import argparse
import sys
import time
from typing import Dict, List, Optional, Sequence

import numpy as np

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.gluon import nn
from mxgrad.gluon.data import ArrayDataset, DataLoader
from mxgrad.gluon.data.vision import Digits

__all__ = ["main", "build_net", "load_digits", "evaluate"]


def build_net(dropout: float = 0.2) -> "nn.Sequential":
    """The demo's network: 64 inputs -> 128 -> 64 -> 10 scores, each hidden layer
    followed by BatchNorm, ReLU and Dropout."""
    net = nn.Sequential()
    net.add(nn.Dense(128, in_units=64), nn.BatchNorm(in_channels=128), nn.Activation("relu"),
            nn.Dropout(dropout),
            nn.Dense(64, in_units=128), nn.BatchNorm(in_channels=64), nn.Activation("relu"),
            nn.Dropout(dropout),
            nn.Dense(10, in_units=64))
    return net


def load_digits():
    """Train and test arrays of the bundled digits: images flattened to 64 float32
    values scaled to [0, 1], labels as float32 class indices."""
    arrays = []
    for train in (True, False):
        ds = Digits(train=train)
        x, y = next(iter(DataLoader(ds, batch_size=len(ds))))   # the whole split
        arrays.append((x.reshape((len(ds), 64)).astype("float32") / 16.0,
                       y.astype("float32")))
    return arrays


def evaluate(net, x: "nd.NDArray", y: "nd.NDArray") -> float:
    """Accuracy of ``net`` on ``(x, y)``, computed in predict mode (BatchNorm uses
    its running statistics, Dropout is off)."""
    with autograd.predict_mode():
        scores = net(x)
    pred = scores.asnumpy().argmax(axis=1)
    return float((pred == y.asnumpy().astype(np.int64)).mean())


def _bar(done: int, total: int, width: int = 30) -> str:
    filled = int(round(width * done / total)) if total else width
    return "[" + "#" * filled + "." * (width - filled) + f"] {done}/{total}"


def _plot(losses: Sequence[float], path: str, out) -> None:
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print(f"--plot needs matplotlib, which is not installed: no plot written to {path}. "
              f"Install it with `pip install matplotlib` (or mxgrad's [notebooks] extra).",
              file=sys.stderr)
        return
    fig, ax = plt.subplots(figsize=(5, 3.2))
    ax.plot(range(1, len(losses) + 1), losses, marker="o")
    ax.set_xlabel("epoch")
    ax.set_ylabel("mean training loss")
    ax.set_title("mxgrad demo: MLP on 8x8 digits")
    ax.grid(alpha=0.3)
    ax.xaxis.get_major_locator().set_params(integer=True)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    if out is not None:
        print(f"loss curve saved to {path}", file=out)


def _fit_estimator(net, loss_fn, trainer, loader, epochs, out, losses, train, test):
    """The same training with ``gluon.contrib.estimator.Estimator``: its LoggingHandler
    is the only display (its log lines, and a bar per epoch when tqdm is installed); a small
    handler records the per-epoch loss and accuracies and logs them through the estimator's
    logger, numbering epochs from 0 as the Estimator does."""
    from mxgrad.gluon.contrib.estimator import Estimator, EpochEnd, LoggingHandler

    class Record(EpochEnd):
        priority = 10    # after the metrics are complete, before the log line

        def epoch_end(self, estimator, *args, **kwargs):
            losses.append(estimator.train_metrics[0].get()[1])
            for x, y, accs in (train, test):
                accs.append(evaluate(net, x, y))
            estimator.logger.info(f"[Epoch {len(losses) - 1}] train acc {train[2][-1]:.3f}, "
                                  f"test acc {test[2][-1]:.3f}")

    est = Estimator(net, loss_fn, train_metrics=[mx.metric.Loss()], trainer=trainer)
    if out is None:
        est.logger.setLevel("WARNING")
    logging_handler = LoggingHandler(metrics=est.train_metrics,
                                     progress=None if out is not None else False)
    est.fit(loader, epochs=epochs, event_handlers=[Record(), logging_handler])


def _parse(argv: Optional[Sequence[str]]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m mxgrad.demo",
                                description="Train an MLP with BatchNorm and Dropout on "
                                            "the bundled 8x8 digits with mxgrad's Gluon.")
    p.add_argument("--epochs", type=int, default=20, help="training epochs (default 20)")
    p.add_argument("--batch-size", type=int, default=64, help="mini-batch size (default 64)")
    p.add_argument("--lr", type=float, default=0.005, help="Adam learning rate (default 0.005)")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--quiet", action="store_true", help="print nothing")
    p.add_argument("--plot", metavar="FILE", default=None,
                   help="save the loss curve to FILE (needs matplotlib)")
    p.add_argument("--estimator", action="store_true",
                   help="train with gluon.contrib.estimator.Estimator instead of the "
                        "hand-written loop (same results)")
    args = p.parse_args(argv)
    if args.epochs < 1 or args.batch_size < 1:
        p.error("--epochs and --batch-size must be positive")
    return args


def main(argv: Optional[Sequence[str]] = None) -> Dict[str, object]:
    """Run the demo with command-line style arguments; return the results (see the
    module docstring)."""
    args = _parse(argv)
    out = None if args.quiet else sys.stdout
    live = out is not None and out.isatty()
    start = time.perf_counter()

    mx.random.seed(args.seed)
    np.random.seed(args.seed)
    (x_train, y_train), (x_test, y_test) = load_digits()
    loader = DataLoader(ArrayDataset(x_train, y_train), batch_size=args.batch_size,
                        shuffle=True)

    net = build_net()
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": args.lr})
    loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

    losses: List[float] = []
    train_accs: List[float] = []
    test_accs: List[float] = []
    n_batches = len(loader)
    if args.estimator:
        _fit_estimator(net, loss_fn, trainer, loader, args.epochs, out, losses,
                       (x_train, y_train, train_accs), (x_test, y_test, test_accs))
    for epoch in range(1, 0 if args.estimator else args.epochs + 1):
        total, count = 0.0, 0
        for i, (xb, yb) in enumerate(loader, 1):
            with autograd.record():
                loss = loss_fn(net(xb), yb)
            loss.backward()
            trainer.step(xb.shape[0])
            total += float(loss.sum().asscalar())
            count += xb.shape[0]
            if live:
                print(f"\repoch {epoch:>3}/{args.epochs} {_bar(i, n_batches)}", end="",
                      file=out, flush=True)
        losses.append(total / count)
        train_accs.append(evaluate(net, x_train, y_train))
        test_accs.append(evaluate(net, x_test, y_test))
        if out is not None:
            prefix = "\r" if live else ""
            print(f"{prefix}epoch {epoch:>3}/{args.epochs} {_bar(n_batches, n_batches)} "
                  f"loss {losses[-1]:.4f}  train acc {train_accs[-1]:.3f}  "
                  f"test acc {test_accs[-1]:.3f}", file=out, flush=True)
    seconds = time.perf_counter() - start
    if out is not None:
        print(f"final test accuracy {test_accs[-1]:.2%} ({len(y_test)} images) "
              f"in {seconds:.1f} s", file=out)
    if args.plot:
        _plot(losses, args.plot, out)
    return {"test_acc": test_accs[-1], "train_acc": train_accs[-1], "losses": losses,
            "train_accs": train_accs, "test_accs": test_accs, "seconds": seconds}


if __name__ == "__main__":
    main()
