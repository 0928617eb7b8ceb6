"""Start data-parallel workers: ``python -m mxgrad.launch -n 4 train.py args...``.

A thin wrapper over the ``mpiexec`` of the installed MPI (the ``mpich`` wheel that
``pip install 'mxgrad[dist]'`` brings puts it next to the Python executable), for
people who do not use ``mpiexec`` by habit; MXNet's ``tools/launch.py`` plays this
role. It runs ``mpiexec -n N <this python> -m mxgrad.launch --run train.py args...`` and
returns its exit code; each worker initializes MPI before the script runs and aborts all
workers when one raises, wherever that happens (see :func:`run_worker`). Inside the script, ``mx.kv.create('dist_sync')`` gives each worker its ``rank``
and ``num_workers``.

Options: ``-n/--num-workers N`` (default 2), ``-H/--hosts a,b`` (machines to run on,
as mpiexec's host list), ``--mpiexec PATH`` (another launcher), ``--dry-run`` (print
the command only).

Examples
--------
>>> import sys
>>> from mxgrad.launch import build_command
>>> cmd = build_command(['-n', '3', 'train.py', '--epochs', '1'], mpiexec='mpiexec')
>>> cmd[:3], cmd[4:]
(['mpiexec', '-n', '3'], ['-m', 'mxgrad.launch', '--run', 'train.py', '--epochs', '1'])
>>> cmd[3] == sys.executable
True
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import sysconfig
from typing import List, Optional

from .base import MXNetError

__all__ = ["find_mpiexec", "build_command", "run_worker", "main"]


class LaunchError(MXNetError, FileNotFoundError):
    """No ``mpiexec`` could be found."""


def find_mpiexec() -> str:
    """The ``mpiexec`` next to this Python (pip's MPICH wheel), else the first on PATH."""
    here = [os.path.dirname(sys.executable), sysconfig.get_path("scripts")]
    for d in here:
        for name in ("mpiexec", "mpirun", "mpiexec.exe"):
            cand = os.path.join(d, name)
            if os.path.isfile(cand) and os.access(cand, os.X_OK):
                return cand
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found:
        return found
    raise LaunchError("mpiexec was not found next to this Python or on PATH; install MPI "
                      "with: pip install 'mxgrad[dist]' (or give --mpiexec PATH)")


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m mxgrad.launch",
                                description="Run a training script on N MPI workers.")
    p.add_argument("-n", "--num-workers", type=int, default=2,
                   help="number of worker processes (default 2)")
    p.add_argument("-H", "--hosts", default=None,
                   help="comma-separated machines to run on (default: this one)")
    p.add_argument("--mpiexec", default=None, help="the mpiexec to use")
    p.add_argument("--dry-run", action="store_true", help="print the command only")
    p.add_argument("script", help="the training script")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the script's arguments")
    return p


def _is_open_mpi(mpiexec: str) -> bool:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return "open mpi" in (out.stdout + out.stderr).lower()


def build_command(argv: List[str], mpiexec: Optional[str] = None) -> List[str]:
    """The mpiexec command line for launcher arguments ``argv``."""
    opts = _parser().parse_args(argv)
    if opts.num_workers < 1:
        raise MXNetError(f"-n/--num-workers must be at least 1, got {opts.num_workers}")
    exe = mpiexec or opts.mpiexec or find_mpiexec()
    cmd = [exe, "-n", str(opts.num_workers)]
    if opts.hosts:
        cmd += ["-hosts", opts.hosts]
    # each worker starts MPI before the script runs and aborts every rank when the
    # script raises anywhere (also before its kvstore exists): see run_worker
    return cmd + [sys.executable, "-m", "mxgrad.launch", "--run", opts.script] + \
        list(opts.args)


def run_worker(script: str, args: List[str]) -> None:
    """Run ``script`` as ``__main__`` in an MPI worker: MPI is initialized first (so no
    rank can wait forever for one that failed early), and an uncaught exception or a
    non-zero ``sys.exit`` prints the error and aborts all ranks (``MPI_Abort``)."""
    import runpy
    import traceback
    from .kvstore._comm import world
    comm = world()
    sys.argv = [script] + list(args)
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
    except SystemExit as exc:
        if exc.code not in (None, 0):
            sys.stderr.write(f"mxgrad: rank {comm.rank} exited with {exc.code!r}; "
                             f"aborting all ranks\n")
            comm.abort(exc.code if isinstance(exc.code, int) else 1)
        raise
    except BaseException:
        sys.stderr.write(f"mxgrad: uncaught exception on rank {comm.rank} of "
                         f"{comm.size}; aborting all ranks\n")
        traceback.print_exc()
        comm.abort(1)


def main(argv: Optional[List[str]] = None) -> int:
    """Run the workers; returns mpiexec's exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--run"]:          # inside a worker (started by mpiexec)
        if len(argv) < 2:
            raise MXNetError("--run needs a script")
        run_worker(argv[1], argv[2:])
        return 0
    cmd = build_command(argv)
    env = dict(os.environ)
    if _is_open_mpi(cmd[0]):
        i = cmd.index("-n") + 2
        cmd[i:i] = ["--oversubscribe"]
        if "-hosts" in cmd:
            cmd[cmd.index("-hosts")] = "--host"
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    opts = _parser().parse_args(argv)
    if opts.dry_run:
        print(" ".join(cmd))
        return 0
    return subprocess.call(cmd, env=env)


if __name__ == "__main__":
    sys.exit(main())
