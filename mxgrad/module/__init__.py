"""``mx.mod`` / ``mx.module``: MXNet 1.x's Module API on Symbols and executors.

:class:`Module` trains one Symbol (``fit``, or ``bind``/``init_params``/
``init_optimizer`` and ``forward``/``backward``/``update``); :class:`BucketingModule`
keeps one Module per bucket sharing parameters; :class:`SequentialModule` chains
modules; :class:`PythonModule`/:class:`PythonLossModule` are modules written in Python.

Examples
--------
>>> import numpy as np
>>> import mxgrad as mx
>>> x = np.random.RandomState(0).randn(20, 4).astype('float32')
>>> y = (x[:, 0] > 0).astype('float32')
>>> net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=2, name='fc')
>>> net = mx.sym.SoftmaxOutput(net, name='softmax')
>>> mod = mx.mod.Module(net)
>>> train = mx.io.NDArrayIter(x, y, batch_size=5)
>>> mod.fit(train, num_epoch=5, optimizer_params={'learning_rate': 0.5})
>>> mod.score(train, 'acc')[0][1] > 0.8
True
"""
from .base_module import BaseModule, ModuleStateError
from .bucketing_module import BucketingModule
from .executor_group import DataParallelExecutorGroup
from .module import Module
from .python_module import PythonLossModule, PythonModule
from .sequential_module import SequentialModule

__all__ = ["BaseModule", "ModuleStateError", "Module", "BucketingModule", "SequentialModule",
           "PythonModule", "PythonLossModule", "DataParallelExecutorGroup"]
