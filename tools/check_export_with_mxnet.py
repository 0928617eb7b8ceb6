"""Check by hand that real MXNet 1.9.1 imports what mxgrad's ``HybridBlock.export`` writes.

Run from the repository root (needs an MXNet interpreter, not run in CI):

    /tmp/freshvenv/bin/python tools/check_export_with_mxnet.py [/tmp/mxvenv/bin/python]

1. with mxgrad: build each model of tests/symbol_models.py, initialize it (Xavier, fixed
   running statistics), hybridize, run it, ``export`` it to a temporary folder and save
   the input and mxgrad's outputs (predict mode; training mode for models without
   dropout) next to the files;
   and the same for mxgrad's model zoo (tests/symbol_models.ZOO, deterministic weights)
   and NumPy-mode blocks (tests/symbol_models.NUMPY_BUILDERS: one per mx.sym.np case);
2. with MXNet (a subprocess running this file with ``--mxnet DIR``):
   ``gluon.SymbolBlock.imports`` each export, run it on the same input and print the
   largest difference to mxgrad's outputs (relative to the largest output when that
   is above 1). Exits non-zero when one exceeds 1e-5.
"""
import json
import os
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
TOL = 1e-5


def export_with_mxgrad(folder):
    sys.path.insert(0, os.path.join(HERE, ".."))
    sys.path.insert(0, os.path.join(HERE, "..", "tests"))
    import mxgrad as mx
    from symbol_models import BUILDERS, set_running_stats
    for name, build in BUILDERS.items():
        mx.random.seed(0)
        net, x = build(mx)
        net.initialize(mx.init.Xavier())
        net.hybridize()
        net(mx.nd.array(x))
        set_running_stats(net, mx)
        path = os.path.join(folder, name)
        net.export(path)
        res = {"x": x, "y_predict": net(mx.nd.array(x)).asnumpy()}
        if name != "mlp":           # no dropout: training mode is deterministic
            with mx.autograd.train_mode():
                res["y_train"] = net(mx.nd.array(x)).asnumpy()
        np.savez(path + "-mxgrad.npz", **res)
    # a NumPy-mode block (mx.sym.np operators in the graph)
    from symbol_models import NUMPY_BUILDERS
    mx.npx.set_np()
    try:
        for name, build in NUMPY_BUILDERS.items():
            net, x = build(mx)
            net.initialize(mx.init.Xavier())
            net.hybridize()
            net(mx.np.array(x))
            path = os.path.join(folder, name)
            net.export(path)
            np.savez(path + "-mxgrad.npz", x=x, numpy=True,
                     y_predict=net(mx.np.array(x)).asnumpy())
    finally:
        mx.npx.reset_np()
    # mxgrad's model zoo, deterministic weights, 16x16 batch
    from mxgrad.gluon.model_zoo import vision
    from symbol_models import ZOO, zoo_param_values, zoo_input
    for name in ZOO:
        net = vision.get_model(name, classes=10)
        x = zoo_input()
        net.initialize()
        net.hybridize()
        net(mx.nd.array(x))
        params = net.collect_params()
        for k, v in zoo_param_values({k: p.shape for k, p in params.items()}).items():
            params[k].set_data(mx.nd.array(v))
        path = os.path.join(folder, "zoo_" + name)
        net.export(path)
        np.savez(path + "-mxgrad.npz", x=x, y_predict=net(mx.nd.array(x)).asnumpy())


def check_with_mxnet(folder):
    import mxnet as mx
    worst = 0.0
    report = {}
    for f in sorted(os.listdir(folder)):
        if not f.endswith("-symbol.json"):
            continue
        name = f[:-len("-symbol.json")]
        path = os.path.join(folder, name)
        ref = np.load(path + "-mxgrad.npz")
        numpy_mode = "numpy" in ref.files
        if numpy_mode:
            mx.npx.set_np()
        blk = mx.gluon.SymbolBlock.imports(path + "-symbol.json", ["data"],
                                           path + "-0000.params")
        x = mx.np.array(ref["x"]) if numpy_mode else mx.nd.array(ref["x"])
        y = blk(x).asnumpy()
        if numpy_mode:
            mx.npx.reset_np()
        d = {"predict": float(np.abs(y - ref["y_predict"]).max()
                              / max(1.0, np.abs(ref["y_predict"]).max()))}
        if "y_train" in ref.files:
            with mx.autograd.train_mode():
                d["train"] = float(np.abs(blk(x).asnumpy() - ref["y_train"]).max()
                                   / max(1.0, np.abs(ref["y_train"]).max()))
        report[name] = d
        worst = max([worst] + list(d.values()))
    print(json.dumps({"mxnet": mx.__version__, "max_diff": report}))
    return 0 if worst <= TOL else 1


def main(argv):
    if len(argv) > 2 and argv[1] == "--mxnet":
        return check_with_mxnet(argv[2])
    mxpy = argv[1] if len(argv) > 1 else "/tmp/mxvenv/bin/python"
    folder = tempfile.mkdtemp(prefix="mxgrad-export-")
    export_with_mxgrad(folder)
    proc = subprocess.run([mxpy, os.path.abspath(__file__), "--mxnet", folder],
                          capture_output=True, text=True)
    out = [ln for ln in proc.stdout.splitlines() if ln.startswith("{")]
    print(out[-1] if out else proc.stdout + proc.stderr)
    print("OK" if proc.returncode == 0 else "FAILED", "(files in", folder + ")")
    return proc.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv))
