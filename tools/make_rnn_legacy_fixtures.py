"""Write ``tests/data/mxnet/rnn_legacy.npz``: MXNet 1.9.1's outputs and gradients for the
``mx.rnn`` cases of ``tests/rnn_legacy_cases.py`` (cells unrolled, ``simple_bind``, one
forward/backward), the batches of ``mx.rnn.BucketSentenceIter`` on a small corpus, and
two RNN checkpoints (``tests/data/mxnet/rnn_legacy_ckpt/``), a FusedRNN initializer's
values and a small bucketing LSTM language model trained by BucketingModule.fit.
Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_rnn_legacy_fixtures.py
"""
import os
import random
import sys
import warnings

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import rnn_legacy_cases  # noqa: E402


def bucket_batches(out):
    """Every batch of two epochs of BucketSentenceIter (layouts NT and TN), seeded."""
    corpus = rnn_legacy_cases.corpus()
    for layout in ("NT", "TN"):
        for buckets in (None, [3, 5, 8]):
            key = "bucket/%s/%s" % (layout, "auto" if buckets is None else "given")
            random.seed(3)
            np.random.seed(3)
            it = mx.rnn.BucketSentenceIter(corpus, 3, buckets=buckets, invalid_label=-1,
                                           layout=layout)
            out[key + "/buckets"] = np.array(it.buckets)
            out[key + "/provide"] = np.array([it.provide_data[0].shape,
                                              it.provide_label[0].shape])
            for epoch in range(2):
                if epoch:
                    it.reset()
                for b, batch in enumerate(it):
                    pre = "%s/%d/%d" % (key, epoch, b)
                    out[pre + "/data"] = batch.data[0].asnumpy()
                    out[pre + "/label"] = batch.label[0].asnumpy()
                    out[pre + "/key"] = np.array(batch.bucket_key)


def checkpoints(out):
    """``tests/data/mxnet/rnn_legacy_ckpt/``: save_rnn_checkpoint of a stack of step cells
    and of a FusedRNNCell (epoch 3); the packed parameters go to ``out``."""
    folder = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "rnn_legacy_ckpt")
    os.makedirs(folder, exist_ok=True)
    for name, cells in rnn_legacy_cases.checkpoint_cells(mx).items():
        sym, args = rnn_legacy_cases.checkpoint_model(mx, cells)
        for k, v in args.items():
            out["ckpt/%s/%s" % (name, k)] = v.asnumpy()
        mx.rnn.save_rnn_checkpoint(cells, os.path.join(folder, name), 3, sym, args, {})


def fused_initializer(out):
    """A FusedRNN initializer (as a FusedRNNCell's parameters carry it) under a global
    Constant(0.5): weights 0.5, biases 0, LSTM forget-gate biases forget_bias."""
    for mode, size in rnn_legacy_cases.FUSED_INIT_CASES:
        init = mx.init.FusedRNN(None, 2, 1, mode, forget_bias=3.0)
        arr = mx.nd.zeros((size,))
        mx.init.Constant(0.5)(mx.init.InitDesc("f_parameters",
                                               {"__init__": init.dumps()}), arr)
        out["fusedinit/%s" % mode] = arr.asnumpy()


def main() -> None:
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in rnn_legacy_cases.CASES:
            for k, v in rnn_legacy_cases.run(mx, name).items():
                out[f"{name}/{k}"] = v
    bucket_batches(out)
    checkpoints(out)
    fused_initializer(out)
    for k, v in rnn_legacy_cases.merge_table(mx).items():
        out["merge/" + k] = np.array(v)
    for k, v in rnn_legacy_cases.bucketing_lm(mx).items():
        out["lm/" + k] = v
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "rnn_legacy.npz")
    np.savez_compressed(dest, **out)
    print(f"wrote {len(out)} arrays to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
