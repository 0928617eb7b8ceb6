"""Write ``tests/data/mxnet/executor.npz``: MXNet 1.9.1's outputs, gradients and auxiliary
states for the executor cases of ``tests/executor_cases.py`` (two forward/backward rounds
each, ``simple_bind``). Needs MXNet (not run in CI)::

    /tmp/mxvenv/bin/python tools/make_executor_fixtures.py
"""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tests"))

import mxnet as mx  # noqa: E402

import executor_cases  # noqa: E402


def main() -> None:
    out = {}
    for name in executor_cases.CASES:
        for k, v in executor_cases.run(mx, name).items():
            out[f"{name}/{k}"] = v
    dest = os.path.join(HERE, os.pardir, "tests", "data", "mxnet", "executor.npz")
    np.savez_compressed(dest, **out)
    print(f"wrote {len(out)} arrays to {dest} (MXNet {mx.__version__})")


if __name__ == "__main__":
    main()
