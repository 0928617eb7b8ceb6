"""Basic layers: containers, ``Dense``, ``Dropout``, normalization, ``Embedding``,
``Flatten``, ``Lambda``/``HybridLambda``.

Examples
--------
>>> import mxgrad as mx
>>> from mxgrad.gluon import nn
>>> net = nn.HybridSequential()
>>> net.add(nn.Dense(8, activation='relu'), nn.Dropout(0.5), nn.Dense(3))
>>> net.initialize()
>>> net(mx.nd.ones((2, 4))).shape          # Dropout is the identity outside training
(2, 3)
>>> net[0]
Dense(4 -> 8, Activation(relu))
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, List, Optional, Sequence, Union

import warnings

import numpy as np

from ...util import is_np_shape
from ...base import DTypeError, ShapeError, StateError
from ... import ndarray as nd
from ..._engine.ndarray import NDArray
from ..block import Block, HybridBlock
from ..utils import _indent
from .activations import Activation
from ._layer import ArrayLayer
from ..._typing import DTypeLike, InitLike

if TYPE_CHECKING:
    from ..parameter import Parameter, ParameterDict

__all__ = ["Sequential", "HybridSequential", "Dense", "Dropout", "Embedding", "BatchNorm",
           "InstanceNorm", "LayerNorm", "GroupNorm", "Flatten", "Lambda", "HybridLambda",
           "Identity"]


def _container_repr(block):
    modstr = "\n".join([f"  ({key}): {_indent(repr(b), 2)}"
                        for key, b in block._children.items()])
    return f"{block.__class__.__name__}(\n{modstr}\n)"


class _ChildList:
    """What Sequential and HybridSequential share: indexing, slicing, length, iteration
    and MXNet's container repr."""

    def __repr__(self):
        return _container_repr(self)

    def __getitem__(self, key):
        layers = list(self._children.values())[key]
        if isinstance(layers, list):
            net = type(self)(prefix=self._prefix)
            with net.name_scope():
                net.add(*layers)
            return net
        return layers

    def __len__(self):
        return len(self._children)

    def __iter__(self):
        return iter(list(self._children.values()))


class Sequential(_ChildList, Block):
    """Stacks blocks sequentially; ``add``, indexing (slices give a new Sequential)
    and ``len`` work as in MXNet.

    Examples
    --------
    >>> import mxgrad as mx
    >>> net = Sequential()
    >>> with net.name_scope():
    ...     net.add(Dense(3), Dense(2))
    >>> len(net), type(net[1:]).__name__
    (2, 'Sequential')
    """

    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None
                 ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._layers: List[Block] = []

    def add(self, *blocks: Block) -> None:
        """Add blocks at the end."""
        for block in blocks:
            if not isinstance(block, Block):
                raise DTypeError(f"{self.__class__.__name__}.add takes Blocks, got "
                                 f"{type(block).__name__}")
            self._layers.append(block)
            self.register_child(block)

    def forward(self, x, *args):
        for block in self._children.values():
            x = block(x, *args)
            args = []
            if isinstance(x, (tuple, list)):
                args = x[1:]
                x = x[0]
        if args:
            x = tuple([x] + list(args))
        return x


    def hybridize(self, active: bool = True, **kwargs: Any) -> None:
        """Hybridize the children (warns when all of them are HybridBlocks)."""
        if self._children and all(isinstance(c, HybridBlock)
                                  for c in self._children.values()):
            warnings.warn(f"All children of this Sequential layer '{self.prefix}' are "
                          f"HybridBlocks. Consider using HybridSequential for the best "
                          f"performance.", stacklevel=2)
        super().hybridize(active, **kwargs)


class HybridSequential(_ChildList, HybridBlock):
    """Stacks HybridBlocks sequentially.

    Examples
    --------
    >>> import mxgrad as mx
    >>> net = HybridSequential(); net.add(Dense(2, in_units=3)); net.initialize()
    >>> net.hybridize(); net(mx.nd.ones((1, 3))).shape
    (1, 2)
    """

    def __init__(self, prefix: Optional[str] = None, params: Optional[ParameterDict] = None
                 ) -> None:
        super().__init__(prefix=prefix, params=params)
        self._layers: List[Block] = []

    def add(self, *blocks: Block) -> None:
        """Add blocks at the end."""
        for block in blocks:
            if not isinstance(block, Block):
                raise DTypeError(f"{self.__class__.__name__}.add takes Blocks, got "
                                 f"{type(block).__name__}")
            self._layers.append(block)
            self.register_child(block)

    def hybrid_forward(self, F, x, *args):
        for block in self._children.values():
            x = block(x, *args) if args else block(x)
            args = ()
            if type(x) is not NDArray and isinstance(x, (tuple, list)):
                args = x[1:]
                x = x[0]
        if args:
            x = tuple([x] + list(args))
        return x



class Dense(ArrayLayer):
    """Fully connected layer: ``activation(dot(x, weight.T) + bias)``.

    Parameters
    ----------
    units : int
        Output size.
    activation : str, optional
        Name of an activation (see :class:`Activation`).
    use_bias : bool, default True
    flatten : bool, default True
        Flatten all but the first axis of the input; otherwise apply to the last axis.
    dtype : str, default 'float32'
    weight_initializer, bias_initializer : Initializer or str
        ``bias_initializer`` defaults to ``'zeros'``; the weight uses the global one.
    in_units : int, default 0
        Input size; 0 means inferred at the first forward.

    The weight has shape ``(units, in_units)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> d = Dense(3, in_units=2, weight_initializer='ones'); d.initialize()
    >>> d(mx.nd.array([[1.0, 2.0]])).asnumpy().tolist()
    [[3.0, 3.0, 3.0]]
    """

    def __init__(self, units: int, activation: Optional[str] = None, use_bias: bool = True,
                 flatten: bool = True, dtype: DTypeLike = "float32",
                 weight_initializer: InitLike = None, bias_initializer: InitLike = "zeros",
                 in_units: int = 0, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._flatten = flatten
        with self.name_scope():
            self._units = units
            self._in_units = in_units
            self.weight = self.params.get("weight", shape=(units, in_units),
                                          init=weight_initializer, dtype=dtype,
                                          allow_deferred_init=True)
            self.bias: Optional[Parameter]
            self.act: Optional[Activation]
            if use_bias:
                self.bias = self.params.get("bias", shape=(units,), init=bias_initializer,
                                            dtype=dtype, allow_deferred_init=True)
            else:
                self.bias = None
            if activation is not None:
                self.act = Activation(activation, prefix=activation + "_")
            else:
                self.act = None


    def hybrid_forward(self, F, x, weight, bias=None):
        act = F.FullyConnected(x, weight, bias, no_bias=bias is None, num_hidden=self._units,
                               flatten=self._flatten, name="fwd")
        if self.act is not None:
            act = self.act(act)
        return act

    def __repr__(self):
        shape = self.weight.shape
        layout = f"{shape[1] if shape[1] else (-1 if is_np_shape() else None)} -> {shape[0]}"
        return f"{self.__class__.__name__}({layout}, {self.act if self.act else 'linear'})"


class Dropout(ArrayLayer):
    """Inverted dropout: while training, zero each element with probability ``rate``
    and scale the rest by ``1/(1-rate)``; the identity in predict mode.

    It follows ``autograd.is_training()`` at call time: active inside ``record()``,
    ``train_mode()`` and ``pause(train_mode=True)``; off in ``predict_mode()`` and
    ``record(train_mode=False)``.

    Parameters
    ----------
    rate : float
        Fraction of the input units to drop, in [0, 1).
    axes : tuple of int
        Axes along which the same mask is shared (variational dropout).

    Examples
    --------
    >>> import mxgrad as mx
    >>> drop = Dropout(0.5)
    >>> drop(mx.nd.ones((2, 2))).asnumpy().tolist()          # predicting: identity
    [[1.0, 1.0], [1.0, 1.0]]
    >>> with mx.autograd.train_mode():
    ...     y = drop(mx.nd.ones((1000,)))
    >>> sorted(set(y.asnumpy().tolist()))
    [0.0, 2.0]
    """

    def __init__(self, rate: float, axes: Sequence[int] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        if not 0 <= rate < 1:
            raise StateError(f"Dropout rate must be in [0, 1), got {rate}")
        self._rate = rate
        self._axes = axes

    def hybrid_forward(self, F, x):
        if self._rate > 0:
            return F.Dropout(x, p=self._rate, axes=self._axes, name="fwd", cudnn_off=False)
        return x.copy()

    def __repr__(self):
        return f"{self.__class__.__name__}(p = {self._rate}, axes={self._axes})"


class BatchNorm(ArrayLayer):
    """Batch normalization over the channel ``axis``.

    In training mode (``autograd.is_training()``) it normalizes with the batch mean
    and biased variance and updates ``running = momentum * running + (1 - momentum) *
    batch`` in the same forward call (MXNet does it in backward); in predict mode, or
    always with ``use_global_stats=True``, it uses the running statistics.

    Parameters
    ----------
    axis : int, default 1
    momentum : float, default 0.9
    epsilon : float, default 1e-5
    center : bool, default True
        Learn the offset ``beta``.
    scale : bool, default True
        Learn the scale ``gamma`` (``False``: gamma fixed at 1).
    use_global_stats : bool, default False
    beta_initializer, gamma_initializer, running_mean_initializer,
    running_variance_initializer : Initializer or str
    in_channels : int, default 0
        Number of channels; 0 means inferred at the first forward.

    ``running_mean``/``running_var`` have ``grad_req='null'``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> bn = BatchNorm(); bn.initialize()
    >>> x = mx.nd.array([[1.0], [3.0]])
    >>> with mx.autograd.record():
    ...     y = bn(x)
    >>> y.asnumpy().astype(float).round(3).tolist()
    [[-1.0], [1.0]]
    >>> bn.running_mean.data().asnumpy().astype(float).round(3).tolist()   # 0.9*0 + 0.1*2
    [0.2]
    """

    def __init__(self, axis: int = 1, momentum: float = 0.9, epsilon: float = 1e-5,
                 center: bool = True, scale: bool = True, use_global_stats: bool = False,
                 beta_initializer: InitLike = "zeros", gamma_initializer: InitLike = "ones",
                 running_mean_initializer: InitLike = "zeros",
                 running_variance_initializer: InitLike = "ones", in_channels: int = 0,
                 **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self._kwargs = {"axis": axis, "eps": epsilon, "momentum": momentum,
                        "fix_gamma": not scale, "use_global_stats": use_global_stats}
        self._axis = axis
        if in_channels != 0:
            self.in_channels = in_channels
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True, differentiable=scale)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True, differentiable=center)
        self.running_mean = self.params.get("running_mean", grad_req="null",
                                            shape=(in_channels,),
                                            init=running_mean_initializer,
                                            allow_deferred_init=True, differentiable=False)
        self.running_var = self.params.get("running_var", grad_req="null",
                                           shape=(in_channels,),
                                           init=running_variance_initializer,
                                           allow_deferred_init=True, differentiable=False)


    def cast(self, dtype: DTypeLike) -> None:
        if np.dtype(dtype).name == "float16":
            dtype = "float32"
        super().cast(dtype)

    def hybrid_forward(self, F, x, gamma, beta, running_mean, running_var):
        return F.BatchNorm(x, gamma, beta, running_mean, running_var, name="fwd",
                           **self._kwargs)

    def __repr__(self):
        in_channels = self.gamma.shape[0]
        content = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return (f"{self.__class__.__name__}({content}, "
                f"in_channels={in_channels if in_channels else None})")


class Embedding(ArrayLayer):
    """Map integer indices to rows of a ``(input_dim, output_dim)`` weight.

    Examples
    --------
    >>> import mxgrad as mx
    >>> e = Embedding(4, 2, weight_initializer='ones'); e.initialize()
    >>> e(mx.nd.array([[0, 3]])).shape
    (1, 2, 2)
    """

    def __init__(self, input_dim: int, output_dim: int, dtype: DTypeLike = "float32",
                 weight_initializer: InitLike = None, sparse_grad: bool = False, **kwargs: Any
                 ) -> None:
        super().__init__(**kwargs)
        self._kwargs = {"input_dim": input_dim, "output_dim": output_dim, "dtype": dtype,
                        "sparse_grad": sparse_grad}
        self.weight = self.params.get("weight", shape=(input_dim, output_dim),
                                      init=weight_initializer, dtype=dtype,
                                      allow_deferred_init=True,
                                      grad_stype="row_sparse" if sparse_grad else "default")

    def hybrid_forward(self, F, x, weight):
        return F.Embedding(x, weight, name="fwd", **self._kwargs)

    def __repr__(self):
        return (f"{self.__class__.__name__}({self._kwargs['input_dim']} -> "
                f"{self._kwargs['output_dim']}, {self._kwargs['dtype']})")


class Flatten(ArrayLayer):
    """Flatten all axes but the first: ``(N, d1, d2, ...)`` to ``(N, d1*d2*...)``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> Flatten()(mx.nd.zeros((2, 3, 4))).shape
    (2, 12)
    """

    def hybrid_forward(self, F, x):
        return F.Flatten(x)

    def __repr__(self):
        return self.__class__.__name__


class Identity(ArrayLayer):
    """Return the input unchanged (useful as a placeholder layer)."""

    def hybrid_forward(self, F, x):
        return x


class _AffineNorm(ArrayLayer):
    """What InstanceNorm, LayerNorm and GroupNorm share: learnable per-channel ``gamma``
    and ``beta`` (frozen when ``scale``/``center`` is off) and MXNet's repr."""

    def _affine_params(self, scale, center, in_channels, gamma_initializer,
                       beta_initializer):
        self.gamma = self.params.get("gamma", grad_req="write" if scale else "null",
                                     shape=(in_channels,), init=gamma_initializer,
                                     allow_deferred_init=True)
        self.beta = self.params.get("beta", grad_req="write" if center else "null",
                                    shape=(in_channels,), init=beta_initializer,
                                    allow_deferred_init=True)

    def __repr__(self):
        content = ", ".join(f"{k}={v!r}" for k, v in self._kwargs.items())
        return f"{self.__class__.__name__}({content}, in_channels={self.gamma.shape[0]})"


class InstanceNorm(_AffineNorm):
    """Instance normalization: normalize each sample and channel over its spatial
    axes, then ``gamma * x_hat + beta`` (per channel).

    Note MXNet's default ``scale=False`` (gamma stays 1 and is not learned).

    Examples
    --------
    >>> import mxgrad as mx
    >>> n = InstanceNorm(); n.initialize()
    >>> n(mx.nd.array([[[1.0, 3.0]]])).asnumpy().astype(float).round(3).tolist()
    [[[-1.0, 1.0]]]
    """

    def __init__(self, axis: int = 1, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = False, beta_initializer: InitLike = "zeros",
                 gamma_initializer: InitLike = "ones", in_channels: int = 0, **kwargs: Any
                 ) -> None:
        super().__init__(**kwargs)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._affine_params(scale, center, in_channels, gamma_initializer, beta_initializer)


    def hybrid_forward(self, F, x, gamma, beta):
        if self._axis == 1:
            return F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon)
        x = F.swapaxes(x, dim1=1, dim2=self._axis)
        return F.swapaxes(F.InstanceNorm(x, gamma, beta, name="fwd", eps=self._epsilon),
                          dim1=1, dim2=self._axis)



class LayerNorm(_AffineNorm):
    """Layer normalization over ``axis`` (default the last), then ``gamma * x_hat +
    beta``.

    Examples
    --------
    >>> import mxgrad as mx
    >>> ln = LayerNorm(); ln.initialize()
    >>> ln(mx.nd.array([[1.0, 3.0]])).asnumpy().astype(float).round(3).tolist()
    [[-1.0, 1.0]]
    """

    def __init__(self, axis: int = -1, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = True, beta_initializer: InitLike = "zeros",
                 gamma_initializer: InitLike = "ones", in_channels: int = 0,
                 prefix: Optional[str] = None, params: Optional[ParameterDict] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "axis": axis, "center": center, "scale": scale}
        self._axis = axis
        self._epsilon = epsilon
        self._center = center
        self._scale = scale
        self._affine_params(scale, center, in_channels, gamma_initializer, beta_initializer)


    def hybrid_forward(self, F, data, gamma, beta):
        return F.LayerNorm(data, gamma=gamma, beta=beta, axis=self._axis, eps=self._epsilon)



class GroupNorm(_AffineNorm):
    """Group normalization: channels (axis 1) split into ``num_groups`` groups, each
    normalized over its channels and spatial axes; then ``gamma``/``beta`` with one value per
    group (shape ``(num_groups,)``, as in MXNet 1.9, so its ``.params`` files load and
    exports import in MXNet).

    Examples
    --------
    >>> import mxgrad as mx
    >>> g = GroupNorm(num_groups=1); g.initialize()
    >>> g(mx.nd.array([[[1.0], [3.0]]])).asnumpy().astype(float).round(3).tolist()
    [[[-1.0], [1.0]]]
    """

    def __init__(self, num_groups: int = 1, epsilon: float = 1e-5, center: bool = True,
                 scale: bool = True, beta_initializer: InitLike = "zeros",
                 gamma_initializer: InitLike = "ones", in_channels: int = 0,
                 prefix: Optional[str] = None, params: Optional[ParameterDict] = None) -> None:
        super().__init__(prefix=prefix, params=params)
        self._kwargs = {"eps": epsilon, "num_groups": num_groups, "center": center,
                        "scale": scale}
        self._num_groups = num_groups
        self._epsilon = epsilon
        # one gamma/beta per group, known now (in_channels is accepted and not needed)
        self._affine_params(scale, center, num_groups, gamma_initializer, beta_initializer)


    def hybrid_forward(self, F, x, gamma, beta):
        return F.GroupNorm(x, gamma, beta, num_groups=self._num_groups, eps=self._epsilon)



class Lambda(Block):
    """Wrap a function as a Block: a callable, or the name of an ``mx.nd`` function.

    Examples
    --------
    >>> import mxgrad as mx
    >>> Lambda('tanh')(mx.nd.zeros((2,))).asnumpy().tolist()
    [0.0, 0.0]
    >>> Lambda(lambda x: x * 2)(mx.nd.ones((1,))).asscalar()
    2.0
    """

    def __init__(self, function: Union[str, Callable[..., Any]], prefix: Optional[str] = None
                 ) -> None:
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise StateError(f"Function name {function} is not found in ndarray.")
            self._func_impl = getattr(nd, function)
        elif callable(function):
            self._func_impl = function
        else:
            raise StateError(f"Unrecognized function in lambda: {function} of type "
                             f"{type(function)}")

    def forward(self, *args):
        return self._func_impl(*args)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._func_impl.__name__})"


class HybridLambda(HybridBlock):
    """Wrap ``function(F, x, *args)`` (or the name of an ``F`` function) as a
    HybridBlock.

    Examples
    --------
    >>> import mxgrad as mx
    >>> HybridLambda(lambda F, x: F.relu(x))(mx.nd.array([-1.0, 1.0])).asnumpy().tolist()
    [0.0, 1.0]
    >>> HybridLambda('sigmoid')(mx.nd.zeros((1,))).asscalar()
    0.5
    """

    def __init__(self, function: Union[str, Callable[..., Any]], prefix: Optional[str] = None
                 ) -> None:
        super().__init__(prefix=prefix)
        if isinstance(function, str):
            if not hasattr(nd, function):
                raise StateError(f"Function name {function} is not found in ndarray.")
            self._func = lambda F, *args: getattr(F, function)(*args)
            self._func_name = function
        elif callable(function):
            self._func = function
            self._func_name = function.__name__
        else:
            raise StateError(f"Unrecognized function in lambda: {function} of type "
                             f"{type(function)}")

    def hybrid_forward(self, F, x, *args):
        return self._func(F, x, *args)

    def __repr__(self):
        return f"{self.__class__.__name__}({self._func_name})"
