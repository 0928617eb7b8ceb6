"""Build the tutorial notebooks in ``notebooks/`` from the Python source below and execute
them, so the stored outputs are real ones.

Usage::

    python tools/make_notebooks.py            # build and run all notebooks defined here
    python tools/make_notebooks.py 01 05      # only those whose file name starts with 01 / 05
    python tools/make_notebooks.py --no-run   # write them without outputs

Each notebook is a list of cells written with :func:`md` (markdown) and :func:`code`.
``02_custom_functions.ipynb`` is written by hand and is not touched here.
Needs ``nbformat``, ``nbclient``, ``ipykernel`` and ``matplotlib`` (the ``test`` extra).
"""
import os
import sys
import textwrap

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NB_DIR = os.path.join(ROOT, "notebooks")


def md(text):
    return new_markdown_cell(textwrap.dedent(text).strip("\n"))


def code(*parts):
    """A code cell from one or more source pieces, each dedented on its own.

    Dedenting every piece separately (not their concatenation) matters: a piece written flush
    left, such as ``PLOT_SETUP``, would otherwise stop ``dedent`` from removing the others'
    indentation, and the stored cell would start with an ``IndentationError``.
    """
    return new_code_cell("\n".join(textwrap.dedent(p).strip("\n") for p in parts if p.strip()))


# Shared first lines: inline figures sharp enough to read (100 dpi: a 6x3 in figure is
# 600x300 px), while the notebooks stay small.
PLOT_SETUP = """
import matplotlib.pyplot as plt
plt.rcParams["figure.dpi"] = 100
plt.rcParams["figure.figsize"] = (6, 3)
"""

# --------------------------------------------------------------------------------------
# 00 NDArray first steps
# --------------------------------------------------------------------------------------


def nb00():
    return [
        md("""
        # NDArray first steps

        `mx.nd.NDArray` is MXNet's n-dimensional array, and mxgrad's: a thin wrapper around a
        NumPy array that autograd can track. This notebook covers what you do with arrays
        before any training: creating them, their attributes, indexing, arithmetic and
        broadcasting, in-place updates, converting to NumPy, contexts and saving to files.
        Everything here is MXNet 1.x code; only the import line differs.
        """),
        code("""
        import numpy as np
        import mxgrad as mx                 # was: import mxnet as mx
        from mxgrad import nd
        """),
        md("""
        ## Creating arrays

        Arrays are **float32 by default**, also when made from Python integers or from a
        float64 NumPy array (as in MXNet). Pass `dtype=` to get another type.
        """),
        code("""
        a = nd.array([[1, 2, 3], [4, 5, 6]])
        print(a)
        print("dtype:", a.dtype.__name__, "| from float64 NumPy:", nd.array(np.ones(2)).dtype.__name__,
              "| explicit int32:", nd.array([1, 2], dtype="int32").dtype.__name__)

        print(nd.zeros((2, 3)))
        print(nd.ones((2, 2)) * 7, nd.full((1, 3), 0.5))
        print(nd.arange(6).reshape((2, 3)))
        mx.random.seed(0)
        print(nd.random.uniform(low=-1, high=1, shape=(2, 2)))
        """),
        md("""
        ## Attributes

        `shape`, `dtype`, `size`, `ndim` and `context` (where the array lives: always the
        CPU in mxgrad).
        """),
        code("""
        x = nd.arange(12).reshape((3, 4))
        print("shape", x.shape, "| size", x.size, "| ndim", x.ndim, "| context", x.context)
        """),
        md("""
        ## Indexing and slicing

        Basic indexing works as in NumPy, with one MXNet rule: **there are no 0-d arrays**.
        Picking one element gives an array of shape `(1,)`; `asscalar()` turns it into a
        Python number.
        """),
        code("""
        print(x[1])                 # a row
        print(x[:, 1])              # a column
        print(x[1:, ::2])           # slices with a step
        e = x[2, 3]
        print("x[2, 3] has shape", e.shape, "and value", e.asscalar())
        """),
        md("""
        Assignment writes into the array: a slice, a single element or everything (`x[:]`).
        """),
        code("""
        y = nd.zeros((2, 3))
        y[0] = 1                    # a whole row
        y[1, 2] = 5
        y[:, 0] = nd.array([8, 9])  # a column, from another array
        print(y)
        """),
        md("""
        ## Arithmetic and broadcasting

        Operators work element by element. Arrays of different shapes are **broadcast** as in
        NumPy: a `(2, 3)` array plus a `(3,)` row adds the row to every row. `nd.dot` is the
        matrix product.
        """),
        code("""
        m = nd.array([[1, 2, 3], [4, 5, 6]])
        row = nd.array([10, 20, 30])
        col = nd.array([[100], [200]])
        print(m + row)              # (2, 3) + (3,)
        print(m * col)              # (2, 3) * (2, 1)
        print(nd.exp(nd.array([0, 1])), m ** 2)
        print(nd.dot(m, m.T))       # (2, 3) @ (3, 2)
        """),
        md("""
        Reductions take an `axis`; a reduction over everything has shape `(1,)`.
        """),
        code("""
        print(m.sum(axis=0), m.mean(axis=1))
        total = m.sum()
        print("sum of all:", total.shape, total.asscalar(), "| max:", m.max().asscalar())
        print("argmax per row:", nd.argmax(m, axis=1))   # float32, as in MXNet
        """),
        md("""
        ## In-place updates

        `+=`, `x[:] = ...` and the `out=` argument write into the existing array instead of
        making a new one (the Python object stays the same). A plain `z = z + 1` makes a new
        array.
        """),
        code("""
        z = nd.ones((2, 2))
        before = id(z)
        z += 1
        z[:] = z * 3
        nd.elemwise_add(z, z, out=z)
        print(z, "same object:", id(z) == before)
        z = z + 1
        print("after z = z + 1, same object:", id(z) == before)
        """),
        md("""
        ## To and from NumPy

        `asnumpy()` returns a NumPy **copy**: changing it does not change the NDArray.
        `nd.array(numpy_array)` copies the other way (and makes float32 unless `dtype=`).
        """),
        code("""
        w = nd.array([1, 2, 3])
        n = w.asnumpy()
        n[0] = 100
        print("a NumPy array:", isinstance(n, np.ndarray), n, "| the NDArray is unchanged:", w)
        print(nd.array(np.eye(2)), "from NumPy")
        print("a one-element array as a Python number:", nd.array([2.5]).asscalar())
        """),
        md("""
        ## Contexts

        MXNet code says where arrays live with a context (`ctx=`). mxgrad computes on the CPU:
        `mx.cpu()` works everywhere, `mx.context.num_gpus()` is 0, and the usual idiom picks
        the CPU. Putting data on `mx.gpu()` is an error that says so (as in MXNet built
        without CUDA).
        """),
        code("""
        ctx = mx.gpu() if mx.context.num_gpus() > 0 else mx.cpu()
        v = nd.ones((2,), ctx=ctx)
        print("ctx:", ctx, "| array on:", v.context, "| as_in_context:", v.as_in_context(mx.cpu()).context)
        try:
            nd.ones((2,), ctx=mx.gpu(0))
        except mx.MXNetError as err:
            print(type(err).__name__, ":", err)
        """),
        md("""
        ## Saving and loading

        `nd.save` writes a list or a dict of arrays in MXNet's binary format (the same bytes
        MXNet 1.x writes, so the files move both ways); `nd.load` reads it back.
        """),
        code("""
        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "arrays.nd")
        nd.save(path, {"weights": m, "bias": row})
        loaded = nd.load(path)
        print(sorted(loaded), loaded["weights"])
        nd.save(path, [m, row])                 # a list works too
        print([t.shape for t in nd.load(path)])
        """),
        md("""
        ## Next

        * `01_autograd_basics`: gradients with `attach_grad`, `autograd.record` and `backward`.
        * `03_training_dropout_batchnorm`: training Gluon networks.
        * `04_coming_from_mxnet`: what is the same as MXNet 1.x and what differs.
        """),
    ]


# --------------------------------------------------------------------------------------
# 01 autograd basics
# --------------------------------------------------------------------------------------


def nb01():
    return [
        md("""
        # Autograd basics

        `mxgrad` runs MXNet 1.x's imperative API on NumPy: `import mxgrad as mx` and the usual
        `mx.nd` / `mx.autograd` code works. This notebook walks through the autograd API:

        * `attach_grad`, `autograd.record`, `backward`
        * head gradients (vector-Jacobian products)
        * `grad_req='add'` and zeroing gradients
        * `mark_variables` with gradient buffers you own
        * `pause`, `train_mode` / `predict_mode`, `is_recording` / `is_training`
        * `autograd.grad(..., create_graph=True)` for second derivatives, plotted
        """),
        code("""
        import numpy as np
        import mxgrad as mx
        from mxgrad import nd, autograd
        np.set_printoptions(precision=4, suppress=True)
        """, PLOT_SETUP),
        md("""
        ## `attach_grad`, `record`, `backward`

        `x.attach_grad()` allocates a gradient buffer `x.grad` (zeros) and marks `x` as a variable.
        Operations inside `with autograd.record():` are recorded; `y.backward()` then writes
        dy/dx into `x.grad`.
        """),
        code("""
        x = nd.array([1., 2., 3.])
        x.attach_grad()
        with autograd.record():
            y = x * x + 2 * x          # dy/dx = 2x + 2
        y.backward()
        print(x.grad)
        """),
        md("""
        `y` is not a scalar here. Like MXNet, `backward()` without arguments uses a head gradient
        of ones of `y`'s shape, i.e. it differentiates `y.sum()`.

        ## Head gradients

        `y.backward(head)` computes the vector-Jacobian product `headᵀ · dy/dx`: the gradient of
        `(head * y).sum()`. This is how a gradient flowing in from a later part of a network is
        passed on. The head must have `y`'s shape (mxgrad checks it).
        """),
        code("""
        with autograd.record():
            y = x * x                  # dy_i/dx_i = 2 x_i
        y.backward(nd.array([1., 0.1, 0.01]))
        print(x.grad)                  # [2*1*1, 2*2*0.1, 2*3*0.01]

        try:
            with autograd.record():
                y = x * x
            y.backward(nd.ones((2,)))  # wrong shape
        except mx.MXNetError as e:
            print(type(e).__name__, ":", e)
        """),
        md("""
        ## `grad_req`: `'write'` (default), `'add'`, `'null'`

        With the default `'write'`, every backward overwrites `x.grad`. With `'add'` the
        gradients of several backward passes accumulate (useful for gradient accumulation over
        micro-batches). The buffer is then never cleared for you: zero it yourself with
        `x.grad[:] = 0`. The buffer is shared: a reference taken earlier sees every update.
        """),
        code("""
        x = nd.array([1., 2., 3.])
        x.attach_grad(grad_req='add')
        g = x.grad                     # the same buffer all along
        for step in range(3):
            with autograd.record():
                y = (x * x).sum()
            y.backward()
            print("after backward", step + 1, ":", g.asnumpy())

        x.grad[:] = 0                  # zero by hand
        print("zeroed:", g.asnumpy())
        """),
        md("""
        ## `mark_variables`: your own gradient buffers

        `attach_grad` is a shortcut for `autograd.mark_variables(x, nd.zeros_like(x))`. You can
        pass buffers you allocated yourself (for example one big flat buffer viewed as pieces)
        and a `grad_req` per variable.
        """),
        code("""
        w = nd.array([0.5, -1.0])
        b = nd.array([2.0])
        gw, gb = nd.zeros((2,)), nd.zeros((1,))
        autograd.mark_variables([w, b], [gw, gb], grad_reqs=['write', 'add'])

        for _ in range(2):
            with autograd.record():
                z = (w ** 3).sum() + 3 * b
            z.backward()
        print("gw =", gw.asnumpy(), "(3 w^2, written)")
        print("gb =", gb.asnumpy(), "(3 + 3, added)")
        print("w.grad is gw:", w.grad is gw)
        """),
        md("""
        ## `pause`: computations that are not recorded

        Inside `autograd.pause()` operations run without being recorded, so no gradient flows
        through them: their results act as constants.
        """),
        code("""
        x = nd.array([1., 2., 3.])
        x.attach_grad()
        with autograd.record():
            a = 2 * x
            with autograd.pause():
                c = 3 * x              # treated as a constant
            y = a + c
        y.backward()
        print(x.grad)                  # 2, not 5
        """),
        md("""
        ## Recording and training are two separate flags

        * `is_recording()`: are operations being recorded for `backward`?
        * `is_training()`: should layers like Dropout and BatchNorm behave as in training?

        `record()` turns on both (unless `record(train_mode=False)`), `pause()` turns off both
        (unless `pause(train_mode=True)`), `train_mode()` / `predict_mode()` change only the
        training flag.
        """),
        code("""
        def state(where):
            print(f"{where:42s} recording={autograd.is_recording()!s:5s} "
                  f"training={autograd.is_training()}")

        state("outside")
        with autograd.record():
            state("record()")
            with autograd.pause():
                state("record() > pause()")
            with autograd.predict_mode():
                state("record() > predict_mode()")
        with autograd.record(train_mode=False):
            state("record(train_mode=False)")
        with autograd.train_mode():
            state("train_mode()")
        """),
        md("""
        The training flag is what Dropout looks at: it drops (and rescales by `1/(1-p)`) only in
        training mode, and is the identity otherwise.
        """),
        code("""
        mx.random.seed(0)
        ones = nd.ones((2, 6))
        with autograd.train_mode():
            print(nd.Dropout(ones, p=0.5))
        print(nd.Dropout(ones, p=0.5))       # predict mode: identity
        """),
        md("""
        ## A recorded graph is used once

        `backward` frees the graph it walked. Pass `retain_graph=True` to walk it again.
        Writing in place into a variable while recording is refused (it would corrupt the graph).
        Both errors are raised right away, with a message that says what to do.
        """),
        code("""
        x = nd.array([1., 2., 3.]); x.attach_grad()
        with autograd.record():
            y = (x * x).sum()
        y.backward(retain_graph=True)
        y.backward()                   # fine: the graph was retained
        try:
            y.backward()               # the graph is gone now
        except mx.MXNetError as e:
            print(type(e).__name__, ":", e)

        with autograd.record():
            try:
                x += 1
            except mx.MXNetError as e:
                print(type(e).__name__, ":", e)
        """),
        md("""
        ## Higher-order derivatives with `autograd.grad(create_graph=True)`

        `autograd.grad(heads, variables)` returns the gradients as a list instead of writing
        them to `x.grad`. With `create_graph=True` the backward pass is itself recorded, so the
        gradient can be differentiated again. In mxgrad every differentiable op supports this
        (MXNet 1.9 only supports it for a short list of ops, mostly unary).

        Take `f(x) = x sin x`: `f'(x) = sin x + x cos x`, `f''(x) = 2 cos x - x sin x`.
        """),
        code("""
        x = nd.array([1.0])
        x.attach_grad()
        with autograd.record():
            f = x * nd.sin(x)
            df = autograd.grad(f, [x], create_graph=True)[0]
        df.backward()                  # d/dx of f'(x)
        print("f'(1)  =", df.asscalar(), " closed form:", np.sin(1) + np.cos(1))
        print("f''(1) =", x.grad.asscalar(), " closed form:", 2 * np.cos(1) - np.sin(1))
        """),
        md("""
        The same works over a whole grid at once: the function is elementwise, so the gradient
        of `f.sum()` is the vector of derivatives `f'(x_i)`. Differentiating once more gives
        `f''(x_i)`.
        """),
        code("""
        def derivatives(fn, x, order):
            \"\"\"[f, f', ..., f^(order)] of an elementwise fn at the points x.\"\"\"
            x = x.copy()
            x.attach_grad()
            outs = []
            with autograd.record():
                y = fn(x)
                outs.append(y)
                for k in range(order):
                    (y,) = autograd.grad(y, [x], create_graph=k + 1 < order,
                                         retain_graph=True)
                    outs.append(y)
            return [o.asnumpy() for o in outs]

        grid = nd.array(np.linspace(-2 * np.pi, 2 * np.pi, 201), dtype="float64")
        f, df, d2f = derivatives(lambda t: t * nd.sin(t), grid, order=2)

        t = grid.asnumpy()
        print("max |f' - closed form| :", np.abs(df - (np.sin(t) + t * np.cos(t))).max())
        print("max |f''- closed form| :", np.abs(d2f - (2 * np.cos(t) - t * np.sin(t))).max())

        plt.plot(t, f, label="f(x) = x sin x")
        plt.plot(t, df, label="f'(x)")
        plt.plot(t, d2f, label="f''(x)")
        plt.xlabel("x"); plt.legend(fontsize=8); plt.tight_layout()
        plt.show()
        """),
        md("""
        And `tanh` up to the third derivative, the classic example:
        `tanh' = 1 - tanh²`, `tanh'' = -2 tanh (1 - tanh²)`,
        `tanh''' = (6 tanh² - 2)(1 - tanh²)`.
        """),
        code("""
        grid = nd.array(np.linspace(-3, 3, 121), dtype="float64")
        ds = derivatives(nd.tanh, grid, order=3)
        th = np.tanh(grid.asnumpy())
        closed = [th, 1 - th**2, -2 * th * (1 - th**2), (6 * th**2 - 2) * (1 - th**2)]
        for k, (d, c) in enumerate(zip(ds, closed)):
            print(f"order {k}: max error {np.abs(d - c).max():.1e}")

        for k, d in enumerate(ds):
            plt.plot(grid.asnumpy(), d, label="tanh" + "'" * k)
        plt.xlabel("x"); plt.legend(fontsize=8); plt.tight_layout()
        plt.show()
        """),
    ]


# --------------------------------------------------------------------------------------
# 03 training with Dropout and BatchNorm
# --------------------------------------------------------------------------------------


def nb03():
    return [
        md("""
        # Training with Dropout and BatchNorm

        Dropout and BatchNorm behave differently while training and while predicting.
        This notebook trains an MLP and a small CNN with both layers on the 8×8 digits bundled
        with mxgrad (`gluon.data.vision.Digits`, no download), using the usual Gluon pieces
        (`nn.Sequential`, `gluon.Trainer`, `SoftmaxCrossEntropyLoss`, `DataLoader`), and
        then looks at what the two layers do in each mode. It runs in a few seconds.
        """),
        code("""
        import time
        import numpy as np
        import mxgrad as mx
        from mxgrad import nd, autograd, gluon
        from mxgrad.gluon import nn
        from mxgrad.gluon.data import ArrayDataset, DataLoader
        from mxgrad.gluon.data.vision import Digits
        np.set_printoptions(precision=3, suppress=True)
        """, PLOT_SETUP, """
        mx.random.seed(0)
        np.random.seed(0)
        """),
        md("""
        ## The data

        `Digits` holds 1,797 grayscale 8×8 images with pixel values 0..16 (1,442 for
        training, 355 for testing). We load each split as one batch, flatten the images to
        64 values in [0, 1] and keep the labels as float32 class indices.
        """),
        code("""
        def load(train):
            ds = Digits(train=train)
            x, y = next(iter(DataLoader(ds, batch_size=len(ds))))   # the whole split
            return x.reshape((len(ds), 64)).astype("float32") / 16, y.astype("float32")

        x_train, y_train = load(train=True)
        x_test, y_test = load(train=False)
        print("train", x_train.shape, "test", x_test.shape, "labels", y_train[:10].asnumpy())

        fig, axes = plt.subplots(1, 8, figsize=(8, 1.4))
        for ax, img, lab in zip(axes, x_train[:8].asnumpy(), y_train[:8].asnumpy()):
            ax.imshow(img.reshape(8, 8), cmap="gray_r"); ax.set_title(int(lab), fontsize=8)
            ax.axis("off")
        plt.show()
        """),
        md("""
        ## An MLP with BatchNorm and Dropout

        `Dense → BatchNorm → ReLU → Dropout → Dense`. We give the input sizes (`in_units`,
        `in_channels`) so the parameters exist right after `initialize()` and we can look at
        BatchNorm's running statistics before training: the running mean starts at 0 and the
        running variance at 1. Both have `grad_req='null'`: the Trainer does not touch them.
        """),
        code("""
        mlp = nn.Sequential()
        mlp.add(nn.Dense(64, in_units=64),
                nn.BatchNorm(in_channels=64),
                nn.Activation("relu"),
                nn.Dropout(0.3),
                nn.Dense(10, in_units=64))
        mlp.initialize(mx.init.Xavier())
        print(mlp)

        bn = mlp[1]
        mean_before = bn.running_mean.data().copy()
        var_before = bn.running_var.data().copy()
        print("running_mean[:6]", mean_before[:6].asnumpy(), " grad_req:", bn.running_mean.grad_req)
        print("running_var[:6] ", var_before[:6].asnumpy(), " grad_req:", bn.running_var.grad_req)
        """),
        md("""
        ### A picture of the network

        `mx.viz.print_summary` prints MXNet's layer table, and `mx.viz.plot_network` draws
        the network: it runs it once on a dummy batch of the given shape under
        `autograd.record()` (leaving parameters and running statistics as they were) and
        draws the recorded ops, framed by the layer that made them, with the shape of every
        tensor. The data flows upwards. Drawing needs the optional `graphviz` package
        (`pip install 'mxgrad[viz]'`); rendering the picture needs Graphviz's `dot` program
        (`apt-get install graphviz`): without it the cell shows the graph's DOT text.
        """),
        code("""
        mx.viz.print_summary(mlp, shape=(1, 64), line_length=90)
        mx.viz.plot_network(mlp, shape=(1, 64), title="mlp")
        """),
        md("""
        The training loop is the standard Gluon one: forward under `autograd.record()` (which
        also switches Dropout and BatchNorm to training mode), `backward()`,
        `trainer.step(batch_size)`. Accuracy is measured in predict mode, the default
        outside `record()`.
        """),
        code("""
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()

        def accuracy(net, x, y):
            return (net(x).argmax(axis=1) == y).mean().asscalar()   # predict mode

        def train(net, x, y, epochs, lr=0.01, batch_size=64):
            trainer = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": lr})
            loader = DataLoader(ArrayDataset(x, y), batch_size=batch_size, shuffle=True)
            batch_losses = []
            for epoch in range(epochs):
                for xb, yb in loader:
                    with autograd.record():
                        loss = loss_fn(net(xb), yb)
                    loss.backward()
                    trainer.step(xb.shape[0])
                    batch_losses.append(loss.mean().asscalar())
            return batch_losses

        start = time.time()
        mlp_losses = train(mlp, x_train, y_train, epochs=8)
        print(f"MLP: {len(mlp_losses)} steps in {time.time() - start:.1f} s, "
              f"test accuracy {accuracy(mlp, x_test, y_test):.3f}")
        """),
        md("""
        ## A small CNN

        The same images as `(N, 1, 8, 8)`: two `Conv2D → BatchNorm → ReLU → MaxPool2D`
        blocks, then Dropout and a Dense classifier. Here BatchNorm normalizes each channel
        over the batch and both spatial axes.
        """),
        code("""
        cnn = nn.Sequential()
        cnn.add(nn.Conv2D(16, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2),
                nn.Conv2D(32, kernel_size=3, padding=1), nn.BatchNorm(), nn.Activation("relu"),
                nn.MaxPool2D(2),
                nn.Flatten(), nn.Dropout(0.3), nn.Dense(10))
        cnn.initialize(mx.init.Xavier())

        x_train_img = x_train.reshape((-1, 1, 8, 8))
        x_test_img = x_test.reshape((-1, 1, 8, 8))
        start = time.time()
        cnn_losses = train(cnn, x_train_img, y_train, epochs=5)
        print(f"CNN: {len(cnn_losses)} steps in {time.time() - start:.1f} s, "
              f"test accuracy {accuracy(cnn, x_test_img, y_test):.3f}")
        print(cnn)
        """),
        md("""
        ## Loss curves

        The loss of every mini-batch (light) and a running average over 10 batches (dark).
        """),
        code("""
        def smooth(v, k=10):
            return np.convolve(v, np.ones(k) / k, mode="valid")

        for losses, label, color in [(mlp_losses, "MLP", "C0"), (cnn_losses, "CNN", "C1")]:
            plt.plot(losses, color=color, alpha=0.3)
            plt.plot(np.arange(9, len(losses)), smooth(losses), color=color, label=label)
        plt.xlabel("step"); plt.ylabel("cross-entropy"); plt.yscale("log")
        plt.legend(fontsize=8); plt.tight_layout()
        plt.show()
        """),
        md("""
        ## The same batch in training and in predict mode

        In **training mode** Dropout draws a new random mask at every call, so two calls on
        the same batch give different outputs. In **predict mode** Dropout is the identity
        and BatchNorm uses its running statistics: the net is a deterministic function.

        (`autograd.train_mode()` switches to training mode without recording a graph.)
        """),
        code("""
        bn = mlp[1]
        after_training = bn.running_mean.data().copy(), bn.running_var.data().copy()

        batch = x_test[:5]
        with autograd.train_mode():
            t1, t2 = mlp(batch), mlp(batch)
        p1, p2 = mlp(batch), mlp(batch)
        print("training mode, max |call1 - call2|:", np.abs((t1 - t2).asnumpy()).max())
        print("predict mode,  max |call1 - call2|:", np.abs((p1 - p2).asnumpy()).max())
        print("predicted classes, training mode:", t1.argmax(axis=1).asnumpy(),
              t2.argmax(axis=1).asnumpy())
        print("predicted classes, predict mode: ", p1.argmax(axis=1).asnumpy(),
              " labels:", y_test[:5].asnumpy())
        """),
        md("""
        ### What Dropout does

        With rate `p`, training mode zeroes each element with probability `p` and scales the
        kept ones by `1/(1-p)` (inverted dropout), so the expected value is unchanged and
        predict mode needs no rescaling.
        """),
        code("""
        drop = nn.Dropout(0.3)
        ones = nd.ones((4, 10000))
        with autograd.train_mode():
            y = drop(ones)
        print("training: fraction zeroed", (y == 0).mean().asscalar(),
              "| kept values", np.unique(y.asnumpy()), "| mean", y.mean().asscalar())
        print("predict:  unchanged", (drop(ones) == ones).min().asscalar() == 1)
        """),
        md("""
        ### What BatchNorm does

        In training mode BatchNorm normalizes with the statistics of the current batch, so a
        sample's output depends on the other samples in its batch. In predict mode it uses the
        running statistics and each sample is treated on its own. Look at the BatchNorm
        output for one image inside two different batches:
        """),
        code("""
        dense = mlp[0]
        sample = x_test[:1]
        batch_a = nd.concat(sample, x_test[1:32], dim=0)
        batch_b = nd.concat(sample, x_test[100:131], dim=0)

        with autograd.train_mode():
            ta, tb = bn(dense(batch_a))[0], bn(dense(batch_b))[0]
            tb_out = bn(dense(batch_b))
        pa, pb = bn(dense(batch_a))[0], bn(dense(batch_b))[0]
        print("training mode, same image, batch A vs B: max diff", np.abs((ta - tb).asnumpy()).max())
        print("predict mode,  same image, batch A vs B: max diff", np.abs((pa - pb).asnumpy()).max())
        # undo the learned scale and shift: what is left is the batch-standardized input
        z = ((tb_out - bn.beta.data()) / bn.gamma.data()).asnumpy()
        print("training mode, (output - beta) / gamma over the batch: "
              f"|mean| <= {np.abs(z.mean(axis=0)).max():.1e}, std in [{z.std(axis=0).min():.3f}, "
              f"{z.std(axis=0).max():.3f}]")
        """),
        md("""
        Note that the training-mode calls above **changed the running statistics**:
        mxgrad updates them in every training-mode forward pass, with or without a backward
        pass (MXNet's CPU kernel updates them during backward instead). That is why you
        evaluate in predict mode. Restore the saved values:
        """),
        code("""
        moved = np.abs((bn.running_mean.data() - after_training[0]).asnumpy()).max()
        print("running_mean moved by up to", moved)
        bn.running_mean.set_data(after_training[0])
        bn.running_var.set_data(after_training[1])
        print("restored:", (bn.running_mean.data() == after_training[0]).min().asscalar() == 1)
        """),
        md("""
        ## Running statistics before and after training

        Each training step moves them: `running = 0.9 * running + 0.1 * batch_statistic`
        (`momentum=0.9`, biased batch variance). After training they track the mean and
        variance of the Dense layer's outputs over the training data (not exactly, since
        the weights kept changing while they were averaged).
        """),
        code("""
        h = dense(x_train).asnumpy()
        rows = [("running_mean before", mean_before.asnumpy()),
                ("running_mean after ", bn.running_mean.data().asnumpy()),
                ("mean over train set", h.mean(axis=0)),
                ("running_var before ", var_before.asnumpy()),
                ("running_var after  ", bn.running_var.data().asnumpy()),
                ("var over train set ", h.var(axis=0))]
        for name, v in rows:
            print(name, v[:6])

        fig, axes = plt.subplots(1, 2, figsize=(6, 2.6))
        axes[0].scatter(h.mean(axis=0), bn.running_mean.data().asnumpy(), s=8)
        axes[0].set_xlabel("mean over train set"); axes[0].set_ylabel("running_mean")
        axes[1].scatter(h.var(axis=0), bn.running_var.data().asnumpy(), s=8, color="C1")
        axes[1].set_xlabel("variance over train set"); axes[1].set_ylabel("running_var")
        for ax in axes:
            lo, hi = ax.get_xlim(); ax.plot([lo, hi], [lo, hi], "k--", lw=0.8)
        plt.tight_layout()
        plt.show()
        """),
        md("""
        The CNN's BatchNorm layers keep one statistic per channel:
        """),
        code("""
        for layer in (cnn[1], cnn[5]):
            print(layer.name, "running_mean shape", layer.running_mean.shape,
                  "first values", layer.running_mean.data()[:4].asnumpy())
        """),
        md("""
        ## The same training with the Estimator

        MXNet 1.6+'s `gluon.contrib.estimator` runs the loop above for you:
        `Estimator(net, loss, train_metrics, trainer).fit(train_data, val_data, epochs)`.
        Event handlers hook into it (`train_begin`, `epoch_begin`, `batch_begin`,
        `batch_end`, `epoch_end`, `train_end`); by default it updates the metrics, validates
        after every epoch and logs, with a progress bar per epoch when `tqdm` is installed.
        Here a `CheckpointHandler` also keeps the parameters and trainer states of the last
        epochs and of the best validation accuracy.
        """),
        code("""
        import os, tempfile
        from mxgrad.gluon.contrib.estimator import Estimator, CheckpointHandler

        net = nn.Sequential()
        net.add(nn.Dense(64, in_units=64), nn.BatchNorm(in_channels=64), nn.Activation("relu"),
                nn.Dropout(0.3), nn.Dense(10, in_units=64))
        net.initialize(mx.init.Xavier())
        est = Estimator(net, loss_fn, train_metrics=[mx.metric.Accuracy(), mx.metric.Loss()],
                        trainer=gluon.Trainer(net.collect_params(), "adam",
                                              {"learning_rate": 0.01}))
        train_data = DataLoader(ArrayDataset(x_train, y_train), batch_size=64, shuffle=True)
        test_data = DataLoader(ArrayDataset(x_test, y_test), batch_size=512)
        model_dir = tempfile.mkdtemp()
        checkpoints = CheckpointHandler(model_dir, monitor=est.val_metrics[0], save_best=True,
                                        max_checkpoints=2)
        est.fit(train_data, val_data=test_data, epochs=3, event_handlers=[checkpoints])
        print(sorted(os.listdir(model_dir)))
        print("best validation accuracy", checkpoints.best)
        """),
    ]


# --------------------------------------------------------------------------------------
# 04 coming from MXNet
# --------------------------------------------------------------------------------------


def nb04():
    return [
        md("""
        # Coming from MXNet 1.x

        mxgrad implements MXNet 1.x's imperative API (`mx.nd`, `mx.autograd`, `mx.gluon`,
        `mx.init`, `mx.optimizer`, ...) on NumPy. Code written for MXNet runs after changing
        one import line. Below is the classic Gluon training cell from the MXNet 1.x MNIST
        tutorials, unchanged except for

        * `import mxgrad as mx` instead of `import mxnet as mx`,
        * the bundled 8×8 digits (`gluon.data.vision.Digits`, pixels 0..16, no download)
          instead of MNIST (`gluon.data.vision.MNIST` exists too, but downloads 11 MB).

        After it, a table of what differs from MXNet, with a cell checking each row, and the
        parts of MXNet that mxgrad does not provide, with the error each one gives.
        """),
        code("""
        import mxgrad as mx                      # was: import mxnet as mx
        from mxgrad import nd, autograd, gluon
        from mxgrad.gluon import nn

        ctx = mx.gpu() if mx.context.num_gpus() > 0 else mx.cpu()
        mx.random.seed(42)
        batch_size = 64
        num_inputs = 64                          # 8x8 digits (MNIST: 784)

        def transform(data, label):
            return data.astype('float32') / 16, label.astype('float32')

        train_dataset = gluon.data.vision.Digits(train=True).transform(transform)
        test_dataset = gluon.data.vision.Digits(train=False).transform(transform)
        num_examples = len(train_dataset)
        train_data = gluon.data.DataLoader(train_dataset, batch_size, shuffle=True)
        test_data = gluon.data.DataLoader(test_dataset, batch_size, shuffle=False)

        net = nn.Sequential()
        with net.name_scope():
            net.add(nn.Dense(128, activation='relu'))
            net.add(nn.Dense(64, activation='relu'))
            net.add(nn.Dense(10))
        net.initialize(mx.init.Xavier(magnitude=2.24), ctx=ctx)

        softmax_cross_entropy = gluon.loss.SoftmaxCrossEntropyLoss()
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1})

        def evaluate_accuracy(data_iterator, net):
            acc = mx.metric.Accuracy()
            for data, label in data_iterator:
                data = data.as_in_context(ctx).reshape((-1, num_inputs))
                label = label.as_in_context(ctx)
                output = net(data)
                predictions = nd.argmax(output, axis=1)
                acc.update(preds=predictions, labels=label)
            return acc.get()[1]

        epochs = 10
        for e in range(epochs):
            cumulative_loss = 0
            for i, (data, label) in enumerate(train_data):
                data = data.as_in_context(ctx).reshape((-1, num_inputs))
                label = label.as_in_context(ctx)
                with autograd.record():
                    output = net(data)
                    loss = softmax_cross_entropy(output, label)
                loss.backward()
                trainer.step(batch_size)
                cumulative_loss += nd.sum(loss).asscalar()
            nd.waitall()
            test_accuracy = evaluate_accuracy(test_data, net)
            train_accuracy = evaluate_accuracy(train_data, net)
            print("Epoch %s. Loss: %.4f, Train_acc %.4f, Test_acc %.4f" %
                  (e, cumulative_loss / num_examples, train_accuracy, test_accuracy))
        """),
        md("""
        The usual Gluon conveniences work as in MXNet: name scopes and parameter names,
        deferred shape inference (the `64 -> 128` below was inferred at the first batch),
        `collect_params`, `save_parameters`/`load_parameters`.
        """),
        code("""
        print(net)
        print(list(net.collect_params().keys()))

        import os, tempfile
        path = os.path.join(tempfile.mkdtemp(), "digits_mlp.params")
        net.save_parameters(path)
        net2 = nn.Sequential()
        with net2.name_scope():
            net2.add(nn.Dense(128, activation='relu'), nn.Dense(64, activation='relu'), nn.Dense(10))
        net2.load_parameters(path, ctx=ctx)
        x = nd.random.uniform(shape=(3, num_inputs))
        print("reloaded net gives the same outputs:", (net(x) == net2(x)).min().asscalar() == 1)
        """),
        md("""
        ## What differs from MXNet 1.9

        | | MXNet 1.9 | mxgrad |
        |---|---|---|
        | Devices | CPU and GPU | CPU only. `mx.context.num_gpus()` is 0, so the usual `mx.gpu() if mx.context.num_gpus() else mx.cpu()` picks the CPU; putting data on `mx.gpu()` raises `NotSupportedError` (as MXNet built without CUDA does) |
        | Threads | `OMP_NUM_THREADS` threads per operator | one BLAS thread per product, more for large products while cores are idle; `OMP_NUM_THREADS` / `MXNET_OMP_MAX_THREADS` or `mx.set_num_threads(n)` fix the number |
        | Execution | asynchronous engine; `nd.waitall()` / `wait_to_read()` wait for it | synchronous NumPy; `waitall()` / `wait_to_read()` exist and return at once |
        | Errors | shape and type errors at the call; errors inside an op's computation (e.g. `linalg_potrf` of a matrix that is not positive definite) only later, at `asnumpy()` / `wait_to_read()` | every error at the call that causes it |
        | Symbol API | `mx.sym`; `hybridize()` compiles the block to a graph; `export()`, `SymbolBlock`; executors (`bind`) | the same: `hybridize()` traces `hybrid_forward` once per input signature with `F = mx.sym` and runs the planned graph (NumPy kernels without per-op Python work; a tiny-op network runs in about half its imperative time); `Symbol.bind`/`simple_bind` run Symbols on the same plans; `export()` writes files MXNet imports, `SymbolBlock.imports` runs MXNet's exported models |
        | Higher-order gradients | a short list of ops, mostly unary (not e.g. `x**3` or `Convolution`) | every differentiable op |
        | BatchNorm running statistics | updated during backward (CPU kernel), so a training-mode forward without backward leaves them unchanged | updated in every training-mode forward pass |
        | Parameter files | MXNet's binary `.params` format | the same format, byte for byte: files move both ways; optimizer states are arrays + JSON instead of a pickle (MXNet's pickled states load with `allow_pickle=True`) |
        | Random numbers | MXNet's generators | a NumPy generator: `mx.random.seed` makes runs repeatable, but the numbers differ from MXNet's |
        | Data loading | worker processes in `DataLoader` | `num_workers` is accepted; batches are loaded in the calling process |
        | Several machines / processes | `kvstore='dist_sync'` with MXNet's parameter servers | `mx.kv.create('dist_sync')` over MPI (`python -m mxgrad.launch -n 2 train.py`, the `[dist]` extra) |
        | Not provided | | sparse storage (`mx.nd.sparse`, `tostype('csr')`), GPUs, mixed precision (`mx.contrib.amp`), C++ operator libraries; each raises an error saying what to use instead (last cell) |
        | Extras | | PyTorch-style `autograd.Function` (notebook 02), forward mode `autograd.forward_ad` and `autograd.functional` (`jacobian`, `hessian`, `hvp`, ...; notebook 05) |

        The cells below check each row.
        """),
        md("""
        ### Devices: CPU only
        """),
        code("""
        print("num_gpus:", mx.context.num_gpus(), "| ctx chosen above:", ctx)
        try:
            nd.ones((2, 3), ctx=mx.gpu(0))
        except mx.MXNetError as e:
            print(type(e).__name__, ":", e)
        """),
        md("""
        ### Threads: one BLAS thread unless a product is large

        `mx.get_num_threads()` is `None` under the automatic policy; `mx.set_num_threads(n)`
        (or `OMP_NUM_THREADS=n` before the process starts, as for MXNet) fixes the number.
        """),
        code("""
        print("policy:", mx.get_num_threads())
        previous = mx.set_num_threads(1)
        print("fixed:", mx.get_num_threads())
        mx.set_num_threads(previous)
        """),
        md("""
        ### Execution and errors: synchronous

        `waitall()` and `wait_to_read()` are there for compatibility and do nothing. An error
        is raised by the line that causes it. In MXNet the `linalg_potrf` error below would
        only appear at the next `asnumpy()` or `wait_to_read()`.
        """),
        code("""
        y = nd.ones((2,)) * 3
        print("wait_to_read:", y.wait_to_read(), "| waitall:", nd.waitall())

        not_positive_definite = nd.array([[1., 2.], [2., 1.]])
        try:
            L = nd.linalg_potrf(not_positive_definite)
            print("not reached")
        except mx.MXNetError as e:
            print(type(e).__name__, ":", e)

        try:
            nd.dot(nd.ones((2, 3)), nd.ones((2, 3)))
        except mx.MXNetError as e:
            print(type(e).__name__, ":", e)
        """),
        md("""
        ### `hybridize()` plans the graph; `export()` and `SymbolBlock` work

        A `HybridBlock` written for MXNet works. Before `hybridize()` its `hybrid_forward`
        runs with `F = mx.nd` at every call; after it, as in MXNet, `hybrid_forward` runs
        once per input signature with `F = mx.sym` (the `print` below shows it), and the
        traced graph is planned: later calls run its NumPy kernels directly, forward and
        backward. That graph is also what `export()` writes (`-symbol.json` +
        `-0000.params`, loadable by MXNet), and `SymbolBlock.imports` runs such files,
        MXNet's included.
        """),
        code("""
        class Scale(gluon.HybridBlock):
            def __init__(self, **kwargs):
                super().__init__(**kwargs)
                with self.name_scope():
                    self.scale = self.params.get('scale', shape=(1,), init=mx.init.Constant(2.0))

            def hybrid_forward(self, F, x, scale):
                print("F is", F.__name__)
                return F.broadcast_mul(x, scale)

        hnet = nn.HybridSequential()
        with hnet.name_scope():
            hnet.add(nn.Dense(4, in_units=3), Scale())
        hnet.initialize()
        print("imperative:", hnet(nd.ones((2, 3))).shape)
        hnet.hybridize()
        print("hybridized, first call:", hnet(nd.ones((2, 3))).shape)
        print("hybridized, second call:", hnet(nd.ones((2, 3))).shape)   # no print: planned
        print(hnet(mx.sym.var('data')))

        prefix = os.path.join(tempfile.mkdtemp(), "model")
        hnet.export(prefix)
        loaded = gluon.SymbolBlock.imports(prefix + "-symbol.json", ["data"],
                                           prefix + "-0000.params")
        print(loaded(nd.ones((2, 3))).shape, sorted(loaded.collect_params().keys())[-1])
        """),
        md("""
        ### Symbols, executors and `Module`

        MXNet's symbolic half runs on the same planned graph: a Symbol is bound to arrays with
        `simple_bind` (or `bind`), and `mx.mod.Module` trains it with `fit`, as in MXNet 1.x.
        """),
        code("""
        import numpy as np
        data = mx.sym.var('data')
        h = mx.sym.FullyConnected(data, num_hidden=16, name='fc1')
        h = mx.sym.Activation(h, act_type='relu')
        out = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(h, num_hidden=3, name='fc2'),
                                   name='softmax')
        ex = out.simple_bind(mx.cpu(), data=(4, 5))
        print("arguments:", [(n, a.shape) for n, a in ex.arg_dict.items()])

        rng = np.random.RandomState(0)
        X = rng.rand(60, 5).astype('float32')
        Y = (X[:, 0] * 3).astype('int64').clip(0, 2).astype('float32')   # three classes
        it = mx.io.NDArrayIter(X, Y, batch_size=10, shuffle=True)
        mod = mx.mod.Module(out, data_names=['data'], label_names=['softmax_label'])
        mod.fit(it, num_epoch=20, optimizer='sgd',
                optimizer_params={'learning_rate': 0.5}, initializer=mx.init.Xavier())
        print("training accuracy:", mod.score(it, 'acc')[0][1])
        """),
        md("""
        ### Bring your MXNet model

        `SymbolBlock.imports` loads what MXNet's `HybridBlock.export` wrote. The two files
        below were exported by real MXNet 1.9.1 (a small CNN with BatchNorm, shipped with
        mxgrad as data); mxgrad predicts what MXNet predicted, and the imported block trains
        like any Gluon block.
        """),
        code("""
        import numpy as np
        from mxgrad.data import path as data_path     # files shipped in the package
        cnn = gluon.SymbolBlock.imports(data_path("mxnet_cnn-symbol.json"), ["data"],
                                        data_path("mxnet_cnn-0000.params"))
        io = np.load(data_path("mxnet_cnn-io.npz"))
        x = nd.array(io["x"])
        pred = cnn(x)
        print("largest difference from MXNet's prediction:",
              float(np.abs(pred.asnumpy() - io["y_predict"]).max()))

        trainer = gluon.Trainer(cnn.collect_params(), "sgd", {"learning_rate": 0.1})
        loss_fn = gluon.loss.SoftmaxCrossEntropyLoss()
        labels = nd.array([0, 2])
        for step in range(3):                      # fine-tune: the training loss falls
            with autograd.record():
                loss = loss_fn(cnn(x), labels)
            loss.backward()
            trainer.step(x.shape[0])
            print(f"step {step}: loss {loss.mean().asscalar():.4f}")
        """),
        md("""
        ### Higher-order gradients for every op

        In MXNet 1.9 the second derivative of `x**3` raises an error (its backward op
        `_backward_power_scalar` has no gradient), and so does a gradient penalty through a
        convolution (`_backward_Convolution is non-differentiable`, apache/mxnet#10002). In
        mxgrad any op can be differentiated again. Here is a WGAN-GP style gradient penalty
        `|d out / d image|²` through a `Conv2D` layer, differentiated w.r.t. the weights.
        """),
        code("""
        x = nd.array([1.5])
        x.attach_grad()
        with autograd.record():
            y = x ** 3
            dy = autograd.grad(y, [x], create_graph=True)[0]
        dy.backward()
        print("d/dx x^3 =", dy.asscalar(), "(3x^2) | d2/dx2 x^3 =", x.grad.asscalar(), "(6x)")

        conv = nn.Conv2D(2, kernel_size=3, in_channels=1)
        conv.initialize()
        image = nd.random.uniform(shape=(1, 1, 5, 5))
        image.attach_grad()
        with autograd.record():
            score = nd.tanh(conv(image)).sum()
            g = autograd.grad(score, [image], create_graph=True)[0]
            penalty = (g ** 2).sum()
        penalty.backward()
        print("penalty:", penalty.asscalar(), "| d penalty / d weight has shape",
              conv.weight.grad().shape, "and norm", conv.weight.grad().norm().asscalar())
        """),
        md("""
        ### BatchNorm updates its running statistics in the forward pass

        One training-mode forward call, no backward: the running mean has moved from 0 to
        `0.1 * batch mean` (momentum 0.9). With MXNet on CPU it would still be 0 until a
        backward pass.
        """),
        code("""
        bn = nn.BatchNorm(in_channels=2)
        bn.initialize()
        batch = nd.array([[1., 2.], [3., 6.]])           # batch mean [2, 4]
        with autograd.train_mode():
            bn(batch)
        print("running_mean:", bn.running_mean.data().asnumpy())
        bn(batch)                                         # predict mode: no update
        print("after a predict-mode call:", bn.running_mean.data().asnumpy())
        """),
        md("""
        ### Parameter files are MXNet's own format

        `save_parameters` and `nd.save` write MXNet 1.x's binary NDArray-list format, byte for
        byte, so the same file loads in MXNet 1.9 and back; loading never unpickles anything.
        """),
        code("""
        with open(path, "rb") as f:
            magic = int.from_bytes(f.read(8), "little")
        print("file magic:", hex(magic), "(MXNet's NDArray list)")
        print(sorted(mx.nd.load(path)))
        """),
        md("""
        ### Random numbers: repeatable, but not MXNet's stream
        """),
        code("""
        mx.random.seed(7)
        a = nd.random.uniform(shape=(3,))
        mx.random.seed(7)
        b = nd.random.uniform(shape=(3,))
        print(a.asnumpy(), "repeatable:", (a == b).min().asscalar() == 1)
        print("generator:", type(mx.random.generator()).__name__)
        """),
        md("""
        ### Accepted for compatibility, run in process
        """),
        code("""
        t = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.1}, kvstore='device')
        loader = gluon.data.DataLoader(train_dataset, batch_size=500, num_workers=2)
        print("Trainer(kvstore='device') ok; DataLoader(num_workers=2) batches:",
              [d.shape[0] for d, l in loader])
        for name in ["metric", "io", "image", "recordio", "kv", "sym", "viz", "test_utils"]:
            print(f"mx.{name}:", "present" if hasattr(mx, name) else "not provided")
        """),
        md("""
        ### Not provided: each says so, and what to use instead
        """),
        code("""
        from mxgrad.contrib import amp
        attempts = {
            "nd.sparse.zeros": lambda: nd.sparse.zeros("csr", (2, 2)),
            "tostype('csr')": lambda: nd.ones((2, 2)).tostype("csr"),
            "amp.init()": lambda: amp.init(),
            "mx.library.load": lambda: mx.library.load("libmyops.so"),
        }
        for what, attempt in attempts.items():
            try:
                attempt()
            except mx.MXNetError as e:
                print(f"{what}:\\n    {type(e).__name__}: {e}")
        """),
    ]


# --------------------------------------------------------------------------------------
# 05 beyond MXNet
# --------------------------------------------------------------------------------------


def nb05():
    return [
        md("""
        # Beyond MXNet: higher-order gradients, Jacobians, Hessian-vector products, forward mode

        MXNet 1.9 can differentiate twice only through a short list of ops, mostly unary, and has no
        Jacobian/Hessian helpers and no forward mode. In mxgrad every differentiable op has
        gradient rules written with differentiable ops (so gradients of any order work) and a
        tangent rule (so forward mode works), and `mx.autograd.functional` offers PyTorch's
        `jacobian`, `hessian`, `hvp`, `vhp`, `vjp`, `jvp`.

        We use float64 arrays throughout so the checks against closed forms and finite
        differences are tight.
        """),
        code("""
        import numpy as np
        import mxgrad as mx
        from mxgrad import nd, autograd
        from mxgrad.autograd import functional as F
        from mxgrad.autograd import forward_ad as fwAD
        np.set_printoptions(precision=4, suppress=True)
        """, PLOT_SETUP),
        md("""
        ## Higher-order gradients of any op

        Differentiate `tanh` three times by calling `autograd.grad(..., create_graph=True)`
        on its own result, and compare with the closed form
        tanh‴ = (6 tanh² − 2)(1 − tanh²).
        """),
        code("""
        x = nd.array([-1.0, 0.0, 0.5, 2.0], dtype="float64")
        x.attach_grad()
        with autograd.record():
            y = nd.tanh(x)
            d1 = autograd.grad(y, [x], create_graph=True)[0]
            d2 = autograd.grad(d1, [x], create_graph=True)[0]
        d2.backward()                   # third derivative into x.grad

        t = np.tanh(x.asnumpy())
        print("tanh'''(x)  :", x.grad.asnumpy())
        print("closed form :", (6 * t**2 - 2) * (1 - t**2))
        """),
        md("""
        Ops with several inputs and reductions work just as well, e.g. the mixed partial
        ∂³/∂a²∂b of `sum(a² b³)` is `6 b²`:
        """),
        code("""
        a = nd.array([1.0, 2.0], dtype="float64"); a.attach_grad()
        b = nd.array([3.0, -1.0], dtype="float64"); b.attach_grad()
        with autograd.record():
            f = (a ** 2 * b ** 3).sum()
            fa = autograd.grad(f, [a], create_graph=True)[0]      # 2 a b^3
            faa = autograd.grad(fa, [a], create_graph=True)[0]    # 2 b^3
        faa.backward()
        print("d3f/da2db:", b.grad.asnumpy(), " closed form 6 b^2:", 6 * b.asnumpy() ** 2)
        """),
        md("""
        ### Second derivative through `log_softmax`

        The cross-entropy of logits `z` with class `k` is `L(z) = -log_softmax(z)[k]`. Its
        gradient is `softmax(z) - onehot(k)` and its Hessian is `diag(s) - s sᵀ` with
        `s = softmax(z)`, whatever `k` is. Build the Hessian row by row from a
        gradient-of-gradient (each row is the gradient of one component of the gradient):
        """),
        code("""
        z = nd.array([1.0, 2.0, 0.5, -1.0], dtype="float64")
        z.attach_grad()
        k = nd.array([1.0])
        with autograd.record():
            L = -nd.pick(nd.log_softmax(z), k, axis=0)
            g = autograd.grad(L, [z], create_graph=True)[0]
            g_parts = [g[i:i + 1] for i in range(4)]    # slice while recording
        H = np.stack([autograd.grad(gi, [z], retain_graph=True)[0].asnumpy() for gi in g_parts])

        s = nd.softmax(z).asnumpy()
        print("gradient   :", g.asnumpy())
        print("s - onehot :", s - np.eye(4)[1])
        print("Hessian:")
        print(H)
        print("max |H - (diag(s) - s s^T)| =", np.abs(H - (np.diag(s) - np.outer(s, s))).max())
        """),
        md("""
        `F.hessian` does the same in one call:
        """),
        code("""
        H2 = F.hessian(lambda z: -nd.pick(nd.log_softmax(z), k, axis=0), z)
        print(H2.shape, "max difference to the loop:", np.abs(H2.asnumpy() - H).max())
        """),
        md("""
        ## Jacobian of softmax

        `F.jacobian(func, x)` returns an array of shape `out.shape + x.shape`. For
        `s = softmax(z)` the Jacobian is `diag(s) - s sᵀ` (the same matrix as the Hessian
        above, since the gradient of the cross-entropy is `s - onehot`). Reverse mode runs one
        backward pass per output; `strategy='forward-mode'` one forward pass per input.
        """),
        code("""
        J_rev = F.jacobian(nd.softmax, z)
        J_fwd = F.jacobian(nd.softmax, z, strategy="forward-mode")
        closed = np.diag(s) - np.outer(s, s)
        print("reverse mode, max error:", np.abs(J_rev.asnumpy() - closed).max())
        print("forward mode, max error:", np.abs(J_fwd.asnumpy() - closed).max())

        fig, axes = plt.subplots(1, 2, figsize=(6, 2.6))
        for ax, m, title in zip(axes, [J_rev.asnumpy(), closed],
                                ["F.jacobian(nd.softmax, z)", "diag(s) - s s^T"]):
            im = ax.imshow(m, cmap="RdBu", vmin=-0.3, vmax=0.3)
            ax.set_title(title, fontsize=9); ax.set_xticks([]); ax.set_yticks([])
        fig.colorbar(im, ax=axes, shrink=0.8)
        plt.show()
        """),
        md("""
        With a batch, the Jacobian has shape `(batch, classes, batch, classes)` and is zero
        between different rows:
        """),
        code("""
        zb = nd.array(np.random.RandomState(0).randn(2, 3), dtype="float64")
        Jb = F.jacobian(nd.softmax, zb)
        print(Jb.shape)
        print("block between rows 0 and 1 is zero:", np.abs(Jb.asnumpy()[0, :, 1, :]).max() == 0)
        """),
        md("""
        ## Hessian-vector product of an MLP loss

        A small MLP (3 → 5 → 2, tanh) with a cross-entropy loss, written with plain `nd` ops
        as a function of its parameters. `F.hvp(loss, params, v)` returns the loss and
        `H v` (one array per parameter) without forming the Hessian. We check it against
        central differences of the gradient: `(∇L(w + εv) - ∇L(w - εv)) / 2ε`.
        """),
        code("""
        rng = np.random.RandomState(0)
        X = nd.array(rng.randn(8, 3), dtype="float64")
        labels = nd.array(rng.randint(0, 2, 8), dtype="float64")
        params = (nd.array(rng.randn(5, 3) * 0.5, dtype="float64"),   # W1
                  nd.zeros((5,), dtype="float64"),                     # b1
                  nd.array(rng.randn(2, 5) * 0.5, dtype="float64"),   # W2
                  nd.zeros((2,), dtype="float64"))                     # b2
        names = ["W1", "b1", "W2", "b2"]

        def loss(W1, b1, W2, b2):
            h = nd.tanh(nd.FullyConnected(X, W1, b1, num_hidden=5))
            logits = nd.FullyConnected(h, W2, b2, num_hidden=2)
            return -nd.pick(nd.log_softmax(logits), labels).mean()

        def gradient(ps):
            ps = [p.copy() for p in ps]
            for p in ps:
                p.attach_grad()
            with autograd.record():
                L = loss(*ps)
            L.backward()
            return [p.grad.asnumpy() for p in ps]

        v = tuple(nd.array(rng.randn(*p.shape), dtype="float64") for p in params)
        L0, Hv = F.hvp(loss, params, v)

        eps = 1e-5
        g_plus = gradient([p + eps * d for p, d in zip(params, v)])
        g_minus = gradient([p - eps * d for p, d in zip(params, v)])
        print("loss:", L0.asscalar())
        for name, hv, gp, gm in zip(names, Hv, g_plus, g_minus):
            err = np.abs(hv.asnumpy() - (gp - gm) / (2 * eps)).max()
            print(f"{name}: shape {hv.shape}, max |Hv - finite differences| = {err:.1e}")
        """),
        md("""
        The full Hessian with respect to the output layer's weights `W2` (10 × 10 after
        flattening), and a check that `hvp` agrees with it. Half of its eigenvalues are zero:
        adding the same vector to both rows of `W2` adds the same number to both logits,
        which leaves the softmax, and so the loss, unchanged.
        """),
        code("""
        W1, b1, W2, b2 = params
        loss_W2 = lambda W: loss(W1, b1, W, b2)
        H_W2 = F.hessian(loss_W2, W2).asnumpy().reshape(10, 10)
        _, hv_W2 = F.hvp(loss_W2, W2, v[2])
        print("symmetric:", np.allclose(H_W2, H_W2.T))
        print("max |H v - hvp| =",
              np.abs(H_W2 @ v[2].asnumpy().ravel() - hv_W2.asnumpy().ravel()).max())
        print("eigenvalues:", np.linalg.eigvalsh(H_W2).round(4) + 0.0)

        m = np.abs(H_W2).max()
        plt.figure(figsize=(3.2, 2.6))
        plt.imshow(H_W2, cmap="RdBu", vmin=-m, vmax=m)
        plt.title("Hessian of the loss w.r.t. W2", fontsize=9); plt.colorbar()
        plt.show()
        """),
        md("""
        ## Forward mode: `dual_level`, `make_dual`, `unpack_dual`

        Inside `with fwAD.dual_level():`, `make_dual(x, t)` attaches a tangent `t` to `x`.
        Every op then also computes the tangent of its result, so after one forward pass
        `unpack_dual(y).tangent` is the Jacobian-vector product `J t` (the directional
        derivative). No graph is recorded and no backward pass is needed.
        """),
        code("""
        t = nd.array([1.0, 0.0, -1.0, 0.5], dtype="float64")
        with fwAD.dual_level():
            zd = fwAD.make_dual(z, t)
            primal, tangent = fwAD.unpack_dual(nd.softmax(zd))
        print("softmax(z)          :", primal.asnumpy())
        print("tangent J t         :", tangent.asnumpy())
        print("J @ t (closed form) :", closed @ t.asnumpy())
        """),
        md("""
        The directional derivative of the MLP loss along `v` (all four parameters at once),
        in one forward pass, equals `∇L · v` from reverse mode:
        """),
        code("""
        with fwAD.dual_level():
            duals = [fwAD.make_dual(p, d) for p, d in zip(params, v)]
            directional = fwAD.unpack_dual(loss(*duals)).tangent

        grads = gradient(params)
        print("forward mode :", directional.asscalar())
        print("reverse mode :", sum((g * d.asnumpy()).sum() for g, d in zip(grads, v)))
        print("F.jvp        :", F.jvp(loss, params, v)[1].asscalar())
        """),
        md("""
        Forward mode composes with reverse mode. Forward-over-reverse: compute the gradient
        with `create_graph=True` from dual inputs; the gradient's tangent is then the
        Hessian-vector product `H v`, the same as `F.hvp` above.
        """),
        code("""
        with fwAD.dual_level():
            duals = []
            for p, d in zip(params, v):
                p = p.copy()
                p.attach_grad()
                duals.append(fwAD.make_dual(p, d))
            with autograd.record():
                L = loss(*duals)
                grads = autograd.grad(L, duals, create_graph=True)
            hv_fwd = [fwAD.unpack_dual(g).tangent for g in grads]

        for name, a, b in zip(names, hv_fwd, Hv):
            err = np.abs(a.asnumpy() - b.asnumpy()).max()
            print(f"{name}: max |forward-over-reverse - F.hvp| = {err:.1e}")
        """),
    ]


# --------------------------------------------------------------------------------------
# 06 NumPy mode (mx.np / mx.npx)
# --------------------------------------------------------------------------------------


def nb06():
    return [
        md("""
        # NumPy mode: `mx.np` and `mx.npx`

        MXNet 1.6-1.9 added a second array interface that follows NumPy: `from mxnet import np,
        npx; npx.set_np()`. The current edition of *Dive into Deep Learning* and MXNet 2 are
        written in it. In mxgrad `mx.np.ndarray` is a second *face* of the same array: the same
        ops, graph, version counters and scopes as `mx.nd`, with NumPy's semantics on top
        (0-d arrays, `bool` comparisons, NumPy signatures) and MXNet's own twists (float32
        defaults). Converting between the faces is free and recorded through.
        """),
        code("""
        import numpy as onp
        import mxgrad as mx
        from mxgrad import np, npx, autograd, gluon
        npx.set_np()          # Gluon now hands out mx.np arrays
        """, PLOT_SETUP),
        md("""
        ## Arrays that behave like NumPy's

        Creation functions default to float32, as in MXNet (even from Python ints). Full
        reductions and integer indexing give 0-d arrays; comparisons give `bool` arrays;
        an integer array meeting a float array takes the float's dtype.
        """),
        code("""
        x = np.arange(12).reshape(3, 4)
        print(repr(x))
        print(repr(x.sum()), x.sum().shape, x[1, 2].shape, (x > 5).dtype)
        print((np.ones(2, dtype='int32') + np.ones(2)).dtype, (np.ones(2, dtype='int32') / 2).dtype)
        print(repr(x[x > 8]), repr(x[:, [0, 3]]))
        """),
        md("""
        ## Gradients, as with `mx.nd`

        Every function is the `mx.nd` op underneath, so `attach_grad`, `autograd.record`,
        `backward` and higher-order gradients work the same. Control flow on 0-d arrays works
        because they convert to Python numbers.
        """),
        code("""
        x = np.arange(4.0)
        x.attach_grad()
        with autograd.record():
            y = 2 * np.dot(x, x)
        y.backward()
        print(x.grad, x.grad == 4 * x)

        a = np.random.normal()
        a.attach_grad()
        with autograd.record():
            b = a * 2
            while np.linalg.norm(b) < 1000:
                b = b * 2
            c = b if b.sum() > 0 else 100 * b
        c.backward()
        print(bool(a.grad == c / a))
        """),
        md("""
        ## One engine, two faces

        `as_nd_ndarray()` and `as_np_ndarray()` are views: the same buffer, version box and
        place in the graph. A gradient through one face reaches the other's variable.
        """),
        code("""
        v = mx.nd.array([1.0, 2.0, 3.0])
        v.attach_grad()
        with autograd.record():
            y = (np.tanh(v.as_np_ndarray()) ** 2).sum()
        y.backward()
        print(type(y).__name__, y.shape, v.grad)
        """),
        md("""
        ## Gluon in NumPy mode

        After `npx.set_np()`, parameters, data loaders and layers give `mx.np` arrays, and
        `nn.Block.forward(self, x)` is written with `np`/`npx` functions, as the book does.
        """),
        code("""
        mx.random.seed(0)
        true_w, true_b = np.array([2.0, -3.4]), 4.2
        X = np.random.normal(0, 1, (1000, 2))
        y = (np.dot(X, true_w) + true_b + np.random.normal(0, 0.01, (1000,))).reshape(-1, 1)
        loader = gluon.data.DataLoader(gluon.data.ArrayDataset(X, y), 10, shuffle=True)

        class LinearRegression(gluon.nn.Block):     # as the book writes its models
            def __init__(self):
                super().__init__()
                self.out = gluon.nn.Dense(1)

            def forward(self, x):
                return self.out(x)

        net = LinearRegression()
        net.initialize(mx.init.Normal(0.01))
        trainer = gluon.Trainer(net.collect_params(), 'sgd', {'learning_rate': 0.03})
        loss = gluon.loss.L2Loss()
        losses = []
        for epoch in range(3):
            for xb, yb in loader:
                with autograd.record():
                    l = loss(net(xb), yb)
                l.backward()
                trainer.step(10)
            losses.append(float(loss(net(X), y).mean()))
        print([f'{v:.2e}' for v in losses], net.out.weight.data(), net.out.bias.data())
        plt.plot(range(1, 4), losses, marker='o')
        plt.xlabel('epoch'); plt.ylabel('training loss'); plt.yscale('log')
        plt.show()
        """),
        md("""
        ## Hybridizing in NumPy mode

        `hybridize()` traces `hybrid_forward` once per input signature with NumPy-interface
        Symbols (`F.np`, `F.npx` are `mx.sym.np`, `mx.sym.npx`; `print` shows `<_Symbol ...>`,
        once), then runs the planned graph; `export` writes MXNet's NumPy operators.
        """),
        code("""
        import json, os, tempfile

        class MLP(gluon.nn.HybridBlock):
            def __init__(self):
                super().__init__()
                self.hidden = gluon.nn.Dense(8)
                self.out = gluon.nn.Dense(1)

            def hybrid_forward(self, F, x):
                print('traced with', x)
                return self.out(F.npx.relu(self.hidden(x))) + F.np.sum(x, axis=1, keepdims=True)

        mlp = MLP()
        mlp.initialize()
        x = np.random.uniform(size=(4, 2))
        before = mlp(x)                       # imperative: prints the values
        mlp.hybridize()
        after = [mlp(x) for _ in range(3)]    # traced once, then planned
        print(bool((after[-1] == before).all()), type(after[-1]).__name__)
        path = os.path.join(tempfile.mkdtemp(), 'mlp')
        mlp.export(path)
        graph = json.load(open(path + '-symbol.json'))
        print([n['op'] for n in graph['nodes'] if n['op'] != 'null'])
        """),
        md("""
        ## Files

        `npx.save` writes MXNet's file format in NumPy shape mode (0-d and zero-size arrays
        kept), byte for byte as MXNet 1.9.1 does; `npx.load` reads MXNet's files.
        """),
        code("""
        import os, tempfile
        f = os.path.join(tempfile.mkdtemp(), 'arrays.npx')
        npx.save(f, {'scalar': np.array(2.5), 'empty': np.zeros((0, 2)), 'w': np.arange(3)})
        print(npx.load(f))
        npx.reset_np()
        """),
    ]


# --------------------------------------------------------------------------------------
# 07 The symbolic API
# --------------------------------------------------------------------------------------
def nb07():
    return [
        md("""
        # The symbolic API: Symbols, executors and Modules

        Much MXNet 1.x code, and most of MXNet's own `example/` scripts, build a graph first
        and run it later: `mx.sym` composes a `Symbol`, `infer_shape` works out every array's
        shape, `simple_bind` makes an executor, and `mx.mod.Module` trains it. In mxgrad a
        bound Symbol runs on the same planned graph as a hybridized Gluon block: a flat list
        of NumPy kernels for the forward and the backward, made once per input signature.
        """),
        code("""
        import numpy as onp
        import mxgrad as mx
        from mxgrad import nd, sym, autograd, gluon
        """),
        md("""
        ## A graph, and the shapes it implies

        Variables stand for arrays; layers name their parameters after the layer
        (`fc1_weight`...). Shapes given for some variables flow forward and backward through
        the operators' shape rules; `0` marks a dimension not known yet.
        """),
        code("""
        data = sym.var('data')
        fc1 = sym.FullyConnected(data, num_hidden=16, name='fc1')
        act = sym.Activation(fc1, act_type='relu', name='relu1')
        fc2 = sym.FullyConnected(act, num_hidden=2, name='fc2')
        net = sym.SoftmaxOutput(fc2, name='softmax')
        print(net.list_arguments())
        arg_shapes, out_shapes, _ = net.infer_shape(data=(8, 4))
        print(dict(zip(net.list_arguments(), arg_shapes)))
        print('outputs:', out_shapes, ' with an unknown batch:',
              net.infer_shape_partial(data=(0, 4))[1])
        """),
        md("""
        ## Bind, run forward and backward

        `simple_bind` allocates the arguments and their gradients from the shapes;
        `SoftmaxOutput`'s backward is the gradient of the cross-entropy loss. The executor's
        numbers are the ones the same computation gives imperatively under
        `autograd.record()`.
        """),
        code("""
        ex = net.simple_bind(mx.cpu(), data=(8, 4))
        mx.random.seed(0)
        for name, arr in ex.arg_dict.items():
            if name.endswith(('weight', 'bias')):
                arr[:] = nd.random.normal(0, 0.5, arr.shape)
        x, y = nd.random.normal(shape=(8, 4)), nd.array([0, 1] * 4)
        ex.forward(is_train=True, data=x, softmax_label=y)
        ex.backward()

        w1, b1, w2, b2 = (ex.arg_dict[k].copy() for k in
                          ('fc1_weight', 'fc1_bias', 'fc2_weight', 'fc2_bias'))
        w1.attach_grad()
        with autograd.record():
            h = nd.relu(nd.FullyConnected(x, w1, b1, num_hidden=16))
            p = nd.softmax(nd.FullyConnected(h, w2, b2, num_hidden=2))
            loss = -nd.pick(nd.log(p), y).sum()
        loss.backward()
        print('outputs equal:', onp.allclose(p.asnumpy(), ex.outputs[0].asnumpy()))
        print('fc1_weight gradients equal:',
              onp.allclose(w1.grad.asnumpy(), ex.grad_dict['fc1_weight'].asnumpy(), atol=1e-6))
        """),
        md("""
        ## Training with `mx.mod.Module`

        A Module binds the Symbol to data and label shapes from a data iterator, initializes
        the parameters and runs the optimizer: MXNet 1.x's high-level training loop.
        """),
        code("""
        rng = onp.random.RandomState(0)
        X = rng.normal(size=(512, 4)).astype('float32')
        Y = (X[:, 0] + X[:, 1] > 0).astype('float32')
        train = mx.io.NDArrayIter(X, Y, batch_size=32, shuffle=True, label_name='softmax_label')
        mod = mx.mod.Module(net, context=mx.cpu())
        mod.fit(train, num_epoch=5, optimizer='sgd', optimizer_params={'learning_rate': 0.1},
                initializer=mx.init.Xavier(), eval_metric='acc')
        test = mx.io.NDArrayIter(X, Y, batch_size=32, label_name='softmax_label')
        print(mod.score(test, 'acc'))
        """),
        md("""
        ## From Gluon to a Symbol and back

        A hybridized Gluon block exports the graph it traced and its parameters in MXNet's
        file formats (MXNet 1.9 loads them, and mxgrad loads MXNet's). The exported JSON is a
        Symbol; `SymbolBlock.imports` makes it a block again.
        """),
        code("""
        import os, tempfile
        block = gluon.nn.HybridSequential()
        block.add(gluon.nn.Dense(8, activation='tanh'), gluon.nn.Dense(3))
        block.initialize()
        block.hybridize()
        xb = nd.random.uniform(shape=(2, 5))
        before = block(xb)
        folder = tempfile.mkdtemp()
        block.export(os.path.join(folder, 'mlp'))
        graph = sym.load(os.path.join(folder, 'mlp-symbol.json'))
        print([n for n in graph.get_internals().list_outputs() if n.endswith('_output')])
        again = gluon.SymbolBlock.imports(os.path.join(folder, 'mlp-symbol.json'), ['data'],
                                          os.path.join(folder, 'mlp-0000.params'))
        print('same outputs:', onp.allclose(before.asnumpy(), again(xb).asnumpy()))
        """),
        md("""
        ## A custom operator in a graph

        `mx.operator.CustomOp` with its `CustomOpProp`, registered by name, runs inside a
        Symbol like any operator, forward and backward (here a scaled square).
        """),
        code("""
        class Square(mx.operator.CustomOp):
            def forward(self, is_train, req, in_data, out_data, aux):
                self.assign(out_data[0], req[0], 3 * in_data[0] ** 2)

            def backward(self, req, out_grad, in_data, out_data, in_grad, aux):
                self.assign(in_grad[0], req[0], 6 * in_data[0] * out_grad[0])

        @mx.operator.register('square3')
        class SquareProp(mx.operator.CustomOpProp):
            def list_arguments(self):
                return ['data']

            def infer_shape(self, in_shape):
                return in_shape, in_shape, []

            def create_operator(self, ctx, shapes, dtypes):
                return Square()

        s = sym.sum(sym.Custom(sym.var('v'), op_type='square3'))
        ex = s.simple_bind(mx.cpu(), v=(3,))
        ex.forward(is_train=True, v=nd.array([1, 2, 3]))
        ex.backward()
        print(ex.outputs[0], ex.grad_dict['v'])
        """),
    ]


NOTEBOOKS = {
    "00_ndarray_first_steps.ipynb": nb00,
    "01_autograd_basics.ipynb": nb01,
    "03_training_dropout_batchnorm.ipynb": nb03,
    "04_coming_from_mxnet.ipynb": nb04,
    "05_beyond_mxnet.ipynb": nb05,
    "06_numpy_mode.ipynb": nb06,
    "07_symbolic_api.ipynb": nb07,
}


def _merge_streams(nb):
    """Join consecutive stdout (or stderr) chunks of a cell: how the kernel split them
    depends on timing, and one chunk per stream keeps regenerated files identical."""
    for cell in nb.cells:
        merged = []
        for out in cell.get("outputs", []):
            if (merged and out.output_type == "stream" and merged[-1].output_type == "stream"
                    and merged[-1].name == out.name):
                merged[-1].text += out.text
            else:
                merged.append(out)
        if "outputs" in cell:
            cell.outputs = merged


def build(name, run=True):
    cells = NOTEBOOKS[name]()
    for i, cell in enumerate(cells):       # stable ids keep regenerated files' diffs small
        cell.id = f"nb{name[:2]}-cell{i:02d}"
    nb = new_notebook(cells=cells, metadata={
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"},
    })
    if run:
        import nbclient
        nbclient.NotebookClient(nb, timeout=600, kernel_name="python3", record_timing=False,
                                resources={"metadata": {"path": NB_DIR}}).execute()
        _merge_streams(nb)
    path = os.path.join(NB_DIR, name)
    nbformat.write(nb, path)
    print(f"wrote {path} ({os.path.getsize(path)} bytes)")


def main(argv):
    run = "--no-run" not in argv
    wanted = [a for a in argv if not a.startswith("--")]
    names = [n for n in NOTEBOOKS if not wanted or any(n.startswith(w) for w in wanted)]
    if not names:
        raise SystemExit(f"no notebook matches {wanted}; have {list(NOTEBOOKS)}")
    for name in names:
        build(name, run=run)


if __name__ == "__main__":
    main(sys.argv[1:])
