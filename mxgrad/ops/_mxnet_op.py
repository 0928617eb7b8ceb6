"""An MXNet operator's record: what a Symbol graph node of that operator is.

An MXNet operator (``FullyConnected``, ``_plus_scalar``, ``BatchNorm``...) is what MXNet's
JSON files and ``mx.sym`` name; mxgrad runs it with one ``mx.nd`` function, which may apply
several engine ops (``defop`` records). Its record, declared beside that function in the op
family's module with :func:`mxnet_op`, says everything the symbolic side needs:

* its canonical name and aliases (``_Plus`` is ``elemwise_add``);
* its array inputs in order, which of them are learnable parameters (a symbolic call that
  leaves them out creates the variables ``<name>_<input>``) and which are auxiliary states;
* how many outputs it has, how many a user sees, and their names;
* the ``mx.nd`` function that runs it (by name, resolved by the Symbol registry, so it runs
  with the namespace's argument guard), or a ``run(inputs, kwargs)`` of its own when its
  inputs or attributes do not map onto the function's arguments;
* the attributes it understands (``"auto"``: the function's keyword arguments);
* its shape rule and dtype rule for MXNet's ``InferShape``/``InferType`` passes (see
  :mod:`mxgrad.ops._shape_rules` and :mod:`mxgrad.ops._dtype_rules`; an operator without a
  shape rule is run once on zeros, one without a dtype rule makes its inputs and outputs one
  dtype).

``mx.sym``'s operator table (``symbol/_registry.py``), shape inference for deferred
initialization and ``export``, and the attribute check of a loaded graph are all read from
these records. The operators MXNet has that need no more than their ``mx.nd`` function and
MXNet's input list (generated from MXNet into ``symbol/_mxnet_op_inputs.py``) get their
record from the registry without a declaration.

Examples
--------
>>> rec = lookup('_Plus')
>>> rec.name, rec.inputs
('elemwise_add', ('lhs', 'rhs'))
>>> lookup('BatchNorm').aux, lookup('BatchNorm').num_visible({'output_mean_var': True})
((3, 4), 3)
"""
from __future__ import annotations

from typing import Any, Callable, Dict, Iterable, Optional, Sequence, Tuple, Union

__all__ = ["MXNetOp", "mxnet_op", "lookup", "RECORDS", "ALIASES", "Count", "optional_inputs",
           "is_set", "flag_set", "flag_unset"]

#: a number of outputs: fixed, or computed from a node's parsed attributes
Count = Union[int, Callable[[dict], int]]


class MXNetOp:
    """How one MXNet operator is described, run and shape-inferred.

    Attributes
    ----------
    name : str
        Canonical MXNet name (what JSON files hold).
    inputs : tuple of str or None
        Names of the array inputs in order; ``None`` for a variable number (``Concat``).
    params : tuple of str
        Inputs that are learnable parameters.
    aux : tuple of int
        Positions of inputs that are auxiliary states.
    nd_name : str
        The ``mx.nd`` function that runs it (a dotted name for a sub-namespace:
        ``contrib.box_nms``) when ``run`` is not given.
    run : callable or None
        ``run(inputs, kwargs)`` -> NDArray or tuple of NDArrays; ``None`` until the Symbol
        registry resolves ``nd_name``.
    np_run : callable or None
        How a node of a NumPy-mode graph runs it, when not as ``run``.
    attrs : frozenset, "auto" or None
        Attribute names the op understands (``"auto"``: the function's keyword arguments,
        filled in by the registry; ``None``: not checked).
    out_names : tuple of str or None
        Names of several visible outputs (``('output', 'mean', 'var')``).
    shape, dtype : callable or None
        ``rule(kwargs, in_shapes, out_shapes) -> (in_shapes, out_shapes)`` (the same for
        dtypes): from what is known, what more is.
    takes : callable or None
        ``takes(input, kwargs) -> bool``: whether a node with attributes ``kwargs`` has the
        input (``bias`` unless ``no_bias``; ``None``: every input). A symbolic call makes a
        variable for each input it leaves out that the node has (MXNet's Compose); see
        :func:`optional_inputs`.
    variant : callable or None
        ``variant(kwargs) -> MXNetOp``: the record of one node given its attributes, when
        its inputs depend on them (a bilinear ``UpSampling`` takes a weight; a ``Custom``
        node has its ``op_type``'s inputs); see :meth:`derive`.
    """

    __slots__ = ("name", "inputs", "params", "aux", "nd_name", "run", "np_run", "attrs",
                 "out_names", "shape", "dtype", "aliases", "takes", "variant", "_outputs",
                 "_visible")

    def __init__(self, name: str, inputs: Optional[Tuple[str, ...]] = ("data",), *,
                 params: Sequence[str] = (), aux: Sequence[int] = (),
                 nd_name: Optional[str] = None, run: Optional[Callable] = None,
                 attrs: Any = "auto", outputs: Count = 1, visible: Optional[Count] = None,
                 out_names: Optional[Tuple[str, ...]] = None, shape: Optional[Callable] = None,
                 dtype: Optional[Callable] = None, aliases: Iterable[str] = (),
                 takes: Optional[Callable[[str, dict], bool]] = None,
                 variant: Optional[Callable[[dict], "MXNetOp"]] = None) -> None:
        self.name = name
        self.inputs = inputs
        self.params = tuple(params)
        self.aux = tuple(aux)
        self.nd_name = nd_name or name
        self.run = run
        self.np_run: Optional[Callable] = None
        self.attrs = attrs
        self.out_names = out_names
        self.shape = shape
        self.dtype = dtype
        self.aliases = tuple(aliases)
        self.takes = takes
        self.variant = variant
        self._outputs = outputs
        self._visible = visible

    def num_outputs(self, kwargs: dict) -> int:
        """Number of outputs (visible and hidden) for parsed attributes ``kwargs``."""
        n = self._outputs
        return n(kwargs) if callable(n) else n

    def num_visible(self, kwargs: dict) -> int:
        """Number of outputs a user sees (``list_outputs``)."""
        n = self._visible
        if n is None:
            return self.num_outputs(kwargs)
        return n(kwargs) if callable(n) else n

    def takes_input(self, name: str, kwargs: dict) -> bool:
        """Whether a node with attributes ``kwargs`` has the input ``name``."""
        return self.takes is None or self.takes(name, kwargs)

    def derive(self, **fields: Any) -> "MXNetOp":
        """A copy with ``fields`` changed (a variant's record: the same run, attributes and
        rules, other inputs). Not put in the table.

        Examples
        --------
        >>> rec = lookup('UpSampling').derive(inputs=('data', 'weight'), params=('weight',))
        >>> rec.name, rec.inputs, rec.params, rec.shape is lookup('UpSampling').shape
        ('UpSampling', ('data', 'weight'), ('weight',), True)
        """
        new = MXNetOp.__new__(MXNetOp)
        for slot in MXNetOp.__slots__:
            setattr(new, slot, getattr(self, slot))
        for k, v in fields.items():
            setattr(new, k, tuple(v) if k in ("params", "aux") else v)
        return new

    def __repr__(self) -> str:
        return f"MXNetOp({self.name})"


#: canonical name -> record
RECORDS: Dict[str, MXNetOp] = {}
#: alias -> canonical name
ALIASES: Dict[str, str] = {}


def add(rec: MXNetOp) -> MXNetOp:
    """Put ``rec`` (and its aliases) in the table; a later record of a name replaces it."""
    RECORDS[rec.name] = rec
    for a in rec.aliases:
        ALIASES[a] = rec.name
    return rec


def mxnet_op(name: str, inputs: Optional[Tuple[str, ...]] = ("data",), **fields: Any) -> MXNetOp:
    """Declare the MXNet operator ``name`` (fields as :class:`MXNetOp`'s arguments).

    Examples
    --------
    >>> def _rule(kw, ins, outs):
    ...     return list(ins), [ins[0]]
    >>> rec = mxnet_op('_doc_example_op', ('data',), nd_name='relu', shape=_rule)
    >>> lookup('_doc_example_op').shape is _rule
    True
    >>> _ = RECORDS.pop('_doc_example_op')
    """
    return add(MXNetOp(name, inputs, **fields))


def lookup(op: str) -> Optional[MXNetOp]:
    """The record of ``op`` (canonical name or alias), or ``None``."""
    rec = RECORDS.get(op)
    if rec is None:
        canon = ALIASES.get(op)
        if canon is not None:
            rec = RECORDS[canon]
    return rec


# ------------------------------------------------------------------ inputs attributes switch
def is_set(value: Any) -> bool:
    """A flag attribute's truth, from Python or MXNet's strings (``'True'``, ``'1'``)."""
    if isinstance(value, str):
        return value.strip() in ("True", "true", "1")
    return bool(value)


def flag_set(flag: str, default: bool = False) -> Callable[[dict], bool]:
    """The predicate "attribute ``flag`` is set" (``use_length``)."""
    return lambda kw: is_set(kw.get(flag, default))


def flag_unset(flag: str, default: bool = False) -> Callable[[dict], bool]:
    """The predicate "attribute ``flag`` is not set" (``no_bias``)."""
    return lambda kw: not is_set(kw.get(flag, default))


def optional_inputs(**when: Callable[[dict], bool]) -> Callable[[str, dict], bool]:
    """A record's ``takes``: the inputs named here exist when their predicate holds for the
    node's attributes, every other input always.

    Examples
    --------
    >>> takes = optional_inputs(bias=flag_unset('no_bias'))
    >>> takes('bias', {'no_bias': 'True'}), takes('bias', {}), takes('weight', {'no_bias': 1})
    (False, True, True)
    """
    def takes(name: str, kwargs: dict) -> bool:
        holds = when.get(name)
        return holds is None or holds(kwargs)
    return takes
