"""Data parallelism for Module: one executor per context, each on a slice of the batch
(MXNet 1.9.1's ``DataParallelExecutorGroup``).

The batch axis of each input is the position of ``'N'`` in its DataDesc's layout (0 by
default; an input whose layout has no ``'N'`` is copied whole to every executor). The
batch is split in proportion to ``workload`` (equal by default) as MXNet splits it; the
outputs are concatenated back along their ``__layout__`` batch axis. Every executor
holds its own copy of the parameters; Module keeps them equal (kvstore or identical
updates). mxgrad's contexts are all the host CPU, so several contexts give MXNet's
numbers and semantics, not extra speed.
"""
from __future__ import annotations

import logging
from collections import OrderedDict
from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from .. import context as ctx
from .. import ndarray as nd
from ..base import DTypeError, ShapeError, StateError
from ..executor import _copy_into as _copy_params
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup"]


def _split_input_slice(batch_size: int, work_load_list: Sequence[float]) -> List[slice]:
    """Slices of ``range(batch_size)`` in proportion to ``work_load_list`` (MXNet's rule:
    rounded shares, the remainder to the last).

    Examples
    --------
    >>> _split_input_slice(7, [1, 1])
    [slice(0, 4, None), slice(4, 7, None)]
    """
    total = sum(work_load_list)
    nums = [round(w * batch_size / total) for w in work_load_list]
    if sum(nums) < batch_size:
        nums[-1] += batch_size - sum(nums)
    slices = []
    end = 0
    for num in nums:
        begin = int(min(end, batch_size))
        end = int(min(begin + num, batch_size))
        if begin >= end:
            raise ShapeError(f"cannot split a batch of {batch_size} over {len(nums)} "
                             f"contexts (workload {list(work_load_list)}): some slices "
                             f"would be empty; use fewer contexts or a larger batch")
        slices.append(slice(begin, end))
    return slices


def _copy_into(src, dst) -> None:
    """Copy ``src`` (an NDArray, NumPy array or list) into the bound NDArray ``dst``."""
    if not isinstance(src, nd.NDArray):
        src = nd.array(np.asarray(src), dtype=dst.dtype)
    if src.shape != dst.shape:
        raise ShapeError(f"a batch array of shape {src.shape} does not fit the bound "
                         f"input of shape {dst.shape}; reshape the module (or pass a "
                         f"batch of the bound shape)")
    _copy_params(dst, src, "the batch")     # the executor's copy (casts to the bound dtype)


def _load_general(data, targets, major_axis) -> None:
    """Copy each source array into its targets: whole, per device, or slices per
    device along its batch axis."""
    for d_src, d_targets, axis in zip(data, targets, major_axis):
        if isinstance(d_targets, nd.NDArray):
            _copy_into(d_src, d_targets)
        elif isinstance(d_src, (list, tuple)):
            for src, dst in zip(d_src, d_targets):
                _copy_into(src, dst)
        else:
            if not isinstance(d_src, nd.NDArray):
                d_src = nd.array(d_src)
            for slice_idx, d_dst in d_targets:
                if axis >= 0 and (slice_idx.start != 0 or d_src.shape[axis] != slice_idx.stop):
                    part = nd.slice_axis(d_src, axis=axis, begin=slice_idx.start,
                                         end=slice_idx.stop)
                    _copy_into(part, d_dst)
                else:
                    _copy_into(d_src, d_dst)


def _load_data(batch, targets, major_axis) -> None:
    if isinstance(batch, list):
        new_batch = [[b.data[i] for b in batch] for i in range(len(targets))]
        new_targets = [[dst for _, dst in d_target] for d_target in targets]
        _load_general(new_batch, new_targets, major_axis)
    else:
        _load_general(batch.data, targets, major_axis)


def _load_label(batch, targets, major_axis) -> None:
    if isinstance(batch, list):
        new_batch = [[b.label[i] for b in batch] for i in range(len(targets))]
        new_targets = [[dst for _, dst in d_target] for d_target in targets]
        _load_general(new_batch, new_targets, major_axis)
    else:
        _load_general(batch.label, targets, major_axis)


def _merge_multi_context(outputs, major_axis) -> list:
    """One array per output: the devices' parts concatenated along the batch axis."""
    rets = []
    for tensors, axis in zip(outputs, major_axis):
        if axis >= 0 and len(tensors) > 1:
            rets.append(nd.concat(*tensors, dim=axis))
        else:
            rets.append(tensors[0])
    return rets


def _prepare_group2ctxs(group2ctxs, ctx_len: int) -> list:
    """One ``group2ctx`` dict (or None) per context."""
    if group2ctxs is None:
        return [None] * ctx_len
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != ctx_len:
            raise ShapeError(f"group2ctxs: a list needs one dict per context ({ctx_len}), "
                             f"got {len(group2ctxs)}")
        return group2ctxs
    if isinstance(group2ctxs, dict):
        ret: List[Dict[str, Any]] = [{} for _ in range(ctx_len)]
        for k, v in group2ctxs.items():
            if isinstance(v, ctx.Context):
                ctxs = [v] * ctx_len
            elif len(v) == 1:
                ctxs = list(v) * ctx_len
            elif len(v) == ctx_len:
                ctxs = list(v)
            else:
                raise ShapeError(f"group2ctxs[{k!r}]: give one context or {ctx_len}, "
                                 f"got {len(v)}")
            for i in range(ctx_len):
                ret[i][k] = ctxs[i]
        return ret
    raise DTypeError("group2ctxs must be a dict of str to context (or list of contexts), or a "
                     "list of such dicts, one per context")


def _batch_axis(layout: Optional[str]) -> int:
    return DataDesc.get_batch_axis(layout)


class DataParallelExecutorGroup:
    """The executors of one Module: one per context, bound with the sliced shapes.

    Parameters
    ----------
    symbol : Symbol
    contexts : list of Context
    workload : list of float
        Relative share of the batch per context.
    data_shapes, label_shapes : list of DataDesc or (name, shape)
    param_names : list of str
        The arguments that are parameters (trained, shared between buckets).
    for_training, inputs_need_grad : bool
    shared_group : DataParallelExecutorGroup, optional
        Share parameters (and input buffers) with this group's executors (buckets).
    fixed_param_names : list of str, optional
        Parameters that get no gradient.
    grad_req : str, list or dict
        ``'write'``/``'add'``/``'null'`` for parameters (and inputs with
        ``inputs_need_grad``), or per argument.
    state_names : list of str, optional
        Arguments that are states (``set_states``), not parameters or data.
    group2ctxs : dict or list of dict, optional
        ``ctx_group`` attribute to context, per context.
    """

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names,
                 for_training: bool, inputs_need_grad: bool, shared_group=None,
                 logger: Any = logging, fixed_param_names=None, grad_req="write",
                 state_names=None, group2ctxs=None) -> None:
        self.param_names = list(param_names)
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = list(contexts)
        self.workload = list(workload) if workload is not None else [1] * len(self.contexts)
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(self.contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self._total_exec_bytes = 0
        self.fixed_param_names = list(fixed_param_names or [])
        self.state_names = list(state_names or [])
        if not for_training:
            grad_req = "null"
        data_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x) for x in data_shapes]
        if label_shapes is not None:
            label_shapes = [x if isinstance(x, DataDesc) else DataDesc(*x)
                            for x in label_shapes]
        data_names = [x.name for x in data_shapes]
        self.grad_req = self._grad_req_dict(grad_req, data_names)
        if shared_group is not None:
            self.shared_data_arrays = shared_group.shared_data_arrays
        else:
            self.shared_data_arrays = [{} for _ in self.contexts]

        self.batch_size: Optional[int] = None
        self.slices: Any = None           # one slice of the batch per context
        self.execs: List[Any] = []
        self._default_execs: Any = None   # the executors as first bound (reshape source)
        self.data_arrays: Any = None
        self.label_arrays: Any = None
        self.param_arrays: Any = None
        self.state_arrays: Any = None
        self.grad_arrays: Any = None
        self.aux_arrays: Any = None
        self.input_grad_arrays: Any = None
        self.data_shapes: Any = None
        self.label_shapes: Any = None
        self.data_names: Any = None
        self.label_names: Any = None
        self.data_layouts: Any = None
        self.label_layouts: Any = None
        self.output_names = self.symbol.list_outputs()
        self.num_outputs = len(self.output_names)
        self.output_layouts = [_batch_axis(self.symbol[i].attr("__layout__"))
                               for i in range(self.num_outputs)]
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_req_dict(self, grad_req, data_names) -> Dict[str, str]:
        def default(k: str, req: str) -> str:
            if k in self.param_names:
                return "null" if k in self.fixed_param_names else req
            if k in data_names:
                return req if self.inputs_need_grad else "null"
            return "null"
        if isinstance(grad_req, str):
            return {k: default(k, grad_req) for k in self.arg_names}
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise ShapeError(f"grad_req: a list needs one entry per argument "
                                 f"({len(self.arg_names)}: {self.arg_names}), got "
                                 f"{len(grad_req)}")
            return dict(zip(self.arg_names, grad_req))
        if isinstance(grad_req, dict):
            reqs = {k: default(k, "write") for k in self.arg_names}
            reqs.update(grad_req)
            return reqs
        raise DTypeError(f"grad_req must be a str, list, tuple or dict, got "
                         f"{type(grad_req).__name__}")

    # ------------------------------------------------------------ binding
    def decide_slices(self, data_shapes) -> List[int]:
        """The batch axis of each input; sets ``batch_size`` and ``slices``."""
        if not data_shapes:
            raise StateError("bind: no data inputs were given (data_shapes is empty)")
        major_axis = [_batch_axis(x.layout) for x in data_shapes]
        for (name, shape), axis in zip(data_shapes, major_axis):
            if axis == -1:
                continue
            batch_size = shape[axis]
            if self.batch_size is not None:
                if batch_size != self.batch_size:
                    raise ShapeError(f"all data must have the same batch size: batch_size = "
                                     f"{self.batch_size}, but {name} has shape {shape}")
            else:
                self.batch_size = batch_size
                self.slices = _split_input_slice(self.batch_size, self.workload)
        return major_axis

    def _collect_arrays(self) -> None:
        """The per-context lists of data, label, parameter, gradient and aux arrays."""
        execs = self.execs
        slices = self.slices or [slice(i, i + 1) for i in range(len(execs))]
        self.data_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                            for name, _ in self.data_shapes]
        self.state_arrays = [[e.arg_dict[name] for e in execs] for name in self.state_names]
        if self.label_shapes is not None:
            self.label_arrays = [[(slices[i], e.arg_dict[name]) for i, e in enumerate(execs)]
                                 for name, _ in self.label_shapes]
        else:
            self.label_arrays = None
        self.param_arrays = [[e.arg_arrays[i] for e in execs]
                             for i, name in enumerate(self.arg_names)
                             if name in self.param_names]
        if self.for_training:
            self.grad_arrays = [[e.grad_arrays[i] for e in execs]
                                for i, name in enumerate(self.arg_names)
                                if name in self.param_names]
        else:
            self.grad_arrays = None
        data_names = [x[0] for x in self.data_shapes]
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)]
                                       for e in execs]
                                      for name in data_names if name in self.arg_names]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [[e.aux_arrays[i] for e in execs] for i in range(len(self.aux_names))]

    def bind_exec(self, data_shapes, label_shapes, shared_group=None,
                  reshape: bool = False) -> None:
        """Bind (or, with ``reshape``, reshape) one executor per context."""
        if not reshape and self.execs:
            raise StateError("bind_exec: the executors are already bound; use reshape")
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        if label_shapes is not None:
            self.label_layouts = self.decide_slices(label_shapes)
        for i in range(len(self.contexts)):
            data_shapes_i = self._sliced_shape(data_shapes, i, self.data_layouts)
            if label_shapes is not None:
                label_shapes_i = self._sliced_shape(label_shapes, i, self.label_layouts)
            else:
                label_shapes_i = []
            if reshape:
                shapes = {d.name: d.shape for d in data_shapes_i + label_shapes_i}
                self.execs[i] = self._default_execs[i].reshape(allow_up_sizing=True,
                                                               **shapes)
            else:
                self.execs.append(self._bind_ith_exec(i, data_shapes_i, label_shapes_i,
                                                      shared_group))
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in self.data_shapes]
        if label_shapes is not None:
            self.label_names = [d.name for d in self.label_shapes]
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes) -> None:
        """Reshape the executors for new input shapes (parameters are kept)."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def set_params(self, arg_params, aux_params, allow_extra: bool = False) -> None:
        """Copy parameter values into every executor."""
        for exec_ in self.execs:
            exec_.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params) -> None:
        """Copy the executors' parameters (averaged over contexts) into the given dicts."""
        for name, block in zip(self.param_names, self.param_arrays):
            weight = block[0].copy() if len(block) == 1 else sum(block) / len(block)
            weight.astype(arg_params[name].dtype).copyto(arg_params[name])
        for name, block in zip(self.aux_names, self.aux_arrays):
            weight = block[0].copy() if len(block) == 1 else sum(block) / len(block)
            weight.astype(aux_params[name].dtype).copyto(aux_params[name])

    # ------------------------------------------------------------ computation
    def forward(self, data_batch, is_train: Optional[bool] = None) -> None:
        """Load the batch into the executors' inputs and run forward on each."""
        _load_data(data_batch, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        if isinstance(data_batch, list):
            if self.label_arrays is not None and data_batch and data_batch[0].label:
                _load_label(data_batch, self.label_arrays, self.label_layouts)
        elif self.label_arrays is not None and getattr(data_batch, "label", None):
            _load_label(data_batch, self.label_arrays, self.label_layouts)
        for exec_ in self.execs:
            exec_.forward(is_train=is_train)

    def get_output_shapes(self) -> list:
        """``[(name, shape)]`` of the merged outputs."""
        shapes = [out.shape for out in self.execs[0].outputs]
        if len(shapes) != self.num_outputs:   # before the first forward: infer them
            inputs = {name: arr.shape for name, arr in self.execs[0].arg_dict.items()}
            shapes = self.symbol.infer_shape(**inputs)[1]
        concat_shapes = []
        for key, the_shape, axis in zip(self.output_names, shapes, self.output_layouts):
            the_shape = list(the_shape)
            if axis >= 0:
                the_shape[axis] = self.batch_size
            concat_shapes.append((key, tuple(the_shape)))
        return concat_shapes

    def get_outputs(self, merge_multi_context: bool = True, begin: int = 0,
                    end: Optional[int] = None) -> list:
        """Outputs ``begin:end``: merged over contexts, or a list per output of the
        contexts' arrays."""
        if end is None:
            end = self.num_outputs
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            outputs = _merge_multi_context(outputs, self.output_layouts[begin:end])
        return outputs

    def get_states(self, merge_multi_context: bool = True) -> list:
        """The state arrays, a list per state of the contexts' arrays."""
        if merge_multi_context:
            raise StateError("get_states: merge_multi_context=True is not supported; pass "
                             "merge_multi_context=False")
        return self.state_arrays

    def set_states(self, states=None, value=None) -> None:
        """Set the states from arrays (as :meth:`get_states` returns) or to a value."""
        if states is not None:
            if value is not None:
                raise StateError("set_states: give states or value, not both")
            _load_general(states, self.state_arrays, (0,) * len(states))
        else:
            if value is None:
                raise StateError("set_states: give states or value")
            for d_dst in self.state_arrays:
                for dst in d_dst:
                    dst[:] = value

    def get_input_grads(self, merge_multi_context: bool = True) -> list:
        """Gradients of the data inputs (``inputs_need_grad=True``)."""
        if not self.inputs_need_grad:
            raise StateError("get_input_grads: bind with inputs_need_grad=True")
        if merge_multi_context:
            return _merge_multi_context(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def backward(self, out_grads=None) -> None:
        """Backward on each executor with its slice of ``out_grads``."""
        if not self.for_training:
            raise StateError("backward: re-bind with for_training=True to run backward")
        if all(req == "null" for req in self.grad_req.values()):
            return      # nothing needs a gradient (no parameters, no input gradients)
        out_grads = [] if out_grads is None else list(out_grads)
        slices = self.slices or [slice(None)] * len(self.execs)
        for exec_, islice in zip(self.execs, slices):
            grads = []
            for grad, axis in zip(out_grads, self.output_layouts):
                if axis >= 0 and len(self.execs) > 1:
                    grads.append(nd.slice_axis(grad, axis=axis, begin=islice.start,
                                               end=islice.stop))
                else:
                    grads.append(grad)
            exec_.backward(out_grads=grads if grads else None)

    def update_metric(self, eval_metric, labels, pre_sliced: bool) -> None:
        """Accumulate ``eval_metric`` over the contexts' outputs and label slices."""
        slices = self.slices or [slice(None)] * len(self.execs)
        label_layouts = self.label_layouts or [0] * len(labels or [])
        for i, (texec, islice) in enumerate(zip(self.execs, slices)):
            if pre_sliced:
                labels_slice = labels[i]
            else:
                labels_slice = []
                for label, axis in zip(labels or [], label_layouts):
                    if axis == 0 and len(self.execs) > 1:
                        labels_slice.append(label[islice])
                    elif axis > 0 and len(self.execs) > 1:
                        labels_slice.append(nd.slice_axis(label, axis=axis, begin=islice.start,
                                                          end=islice.stop))
                    else:
                        labels_slice.append(label)
            labels_ = OrderedDict(zip(self.label_names or [], labels_slice))
            preds = OrderedDict(zip(self.output_names, texec.outputs))
            eval_metric.update_dict(labels_, preds)

    def _bind_ith_exec(self, i: int, data_shapes, label_shapes, shared_group):
        """simple_bind the ``i``-th executor (sharing parameters with ``shared_group``)."""
        shared_exec = None if shared_group is None else shared_group.execs[i]
        input_shapes = {d.name: d.shape for d in data_shapes}
        input_shapes.update({d.name: d.shape for d in label_shapes})
        input_types = {d.name: d.dtype for d in data_shapes}
        input_types.update({d.name: d.dtype for d in label_shapes})
        executor = self.symbol.simple_bind(
            ctx=self.contexts[i], grad_req=self.grad_req, type_dict=input_types,
            shared_arg_names=self.param_names, shared_exec=shared_exec,
            group2ctx=self.group2ctxs[i], shared_buffer=self.shared_data_arrays[i],
            **input_shapes)
        self._total_exec_bytes += sum(
            int(a.size) * np.dtype(a.dtype).itemsize
            for a in list(executor.arg_arrays) + list(executor.aux_arrays)
            + [g for g in executor.grad_arrays if g is not None])
        return executor

    def _sliced_shape(self, shapes, i: int, major_axis) -> List[DataDesc]:
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            sliced.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return sliced

    def install_monitor(self, mon) -> None:
        """Install a Monitor on every executor."""
        for exe in self.execs:
            mon.install(exe)
