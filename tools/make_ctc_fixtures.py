"""Write tests/data/mxnet/ctc.json: MXNet 1.9.1's CTCLoss values and input gradients for a few
random cases (both blank conventions, with and without lengths).

Needs real MXNet (``pip install mxnet==1.9.1 numpy==1.23.5`` in its own venv); not run in CI::

    /path/to/mxnet-venv/bin/python tools/make_ctc_fixtures.py
"""
import json
import os

import mxnet as mx
import numpy as np

OUT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "mxnet", "ctc.json")


def main():
    rng = np.random.RandomState(0)
    cases = []
    for (T, N, C, L, blank, use_dl, use_ll) in [(6, 3, 5, 3, "first", False, False),
                                                (7, 2, 4, 2, "last", True, True),
                                                (5, 2, 3, 2, "last", False, True),
                                                (8, 3, 6, 4, "first", True, False)]:
        data = rng.randn(T, N, C).astype("float32")
        if blank == "first":
            lab = rng.randint(1, C, size=(N, L)).astype("float32")
            lab[0, L - 1:] = 0
        else:
            lab = rng.randint(0, C - 1, size=(N, L)).astype("float32")
            lab[0, L - 1:] = -1
        dl = rng.randint(max(2 * L, 2), T + 1, size=(N,)).astype("float32")
        ll = np.array([L - 1] + [L] * (N - 1), dtype="float32")
        args = [mx.nd.array(data), mx.nd.array(lab)]
        if use_dl:
            args.append(mx.nd.array(dl))
        if use_ll:
            args.append(mx.nd.array(ll))
        args[0].attach_grad()
        with mx.autograd.record():
            loss = mx.nd.CTCLoss(*args, use_data_lengths=use_dl, use_label_lengths=use_ll,
                                 blank_label=blank)
        head = rng.rand(N).astype("float32")
        loss.backward(mx.nd.array(head))
        cases.append(dict(blank=blank, use_dl=use_dl, use_ll=use_ll, data=data.tolist(),
                          label=lab.tolist(), dl=dl.tolist(), ll=ll.tolist(), head=head.tolist(),
                          loss=loss.asnumpy().tolist(), grad=args[0].grad.asnumpy().tolist()))
    # MXNet's test_ctc_loss_grad shape: NaN activations past each sequence's data length
    # (they must give neither a value nor a gradient), both conventions, all lengths given
    for blank in ("first", "last"):
        T, N, C, L = 7, 2, 6, 5
        data = np.log(rng.rand(T, N, C)).astype("float32")
        data[5:] = np.nan
        lo, hi = (1, C) if blank == "first" else (0, C - 1)
        lab = rng.randint(lo, hi, size=(N, L)).astype("float32")
        lab[1, 4] = 0 if blank == "first" else -1
        dl = np.array([5, 5], dtype="float32")
        ll = np.array([5, 4], dtype="float32")
        x = mx.nd.array(data)
        x.attach_grad()
        with mx.autograd.record():
            loss = mx.nd.CTCLoss(x, mx.nd.array(lab), mx.nd.array(dl), mx.nd.array(ll),
                                 use_data_lengths=True, use_label_lengths=True,
                                 blank_label=blank)
        head = rng.rand(N).astype("float32")
        loss.backward(mx.nd.array(head))
        cases.append(dict(blank=blank, use_dl=True, use_ll=True,
                          data=np.where(np.isnan(data), None, data).tolist(),
                          label=lab.tolist(), dl=dl.tolist(), ll=ll.tolist(), head=head.tolist(),
                          loss=loss.asnumpy().tolist(), grad=x.grad.asnumpy().tolist()))
    with open(OUT, "w") as f:
        json.dump(cases, f)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
