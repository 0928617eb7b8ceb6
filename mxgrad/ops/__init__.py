"""The op table: one module per family of ops, each op declared once with its forward,
gradient rules and tangent rules.

Where things live
-----------------
``_core``
    :func:`~mxgrad.ops._core.defop` and the :class:`~mxgrad.ops._core.Op` it returns
    (including ``Op.backward``, which runs the rules and fits their gradients). Op
    modules import their helpers from here, as always.
``_apply``
    The one home of applying an op: every applier (``call``/``call1``/``call2``, and
    per op and face ``unary_fast``, ``binary_fast``, ``operator``) is
    generated from one template that writes the forward, the output array, the record
    decision, the node and the tangents once; also gradient fitting. Op modules do not
    build arrays or nodes, and do not read ``autograd`` state to guess whether an op
    will record: they ask ``_apply.records(*arrays)``.
``_mxnet_op``, ``_shape_rules``, ``_dtype_rules``
    An MXNet operator's record (its name, inputs, parameters, aux states, outputs, how a
    Symbol node runs it, its shape and dtype rules) and the vocabulary its rules are
    written in. ``mx.sym``'s table, ``infer_shape``/``infer_type`` and deferred
    initialization read the records.
``elemwise``, ``reduce``, ``shape``, ``indexing``, ``ordering``, ``linalg``, ``nn``, ``conv``, ...
    Rule tables (``creation`` too), and the records of the MXNet operators their functions
    run. ``mx.nd`` (``mxgrad/ndarray/__init__.py``) gathers their ``__all__``.

How to add an op
----------------
1. Write the NumPy forward and one gradient rule per input, with mxgrad ops (so the
   rule runs on NumPy arrays in an ordinary backward and is recorded under
   ``create_graph=True``: second order for free). ``grad(g, y, *inputs, **attrs)``
   gets the output gradient ``g`` and the output ``y``; return ``None`` for zero; a
   gradient that broadcasts to the input's shape is summed down for you.
2. Declare it with the helper of its shape:

   * an elementwise unary op: ``name = _unary("name", np_fwd, grad, save=..., doc=...)``
     in ``elemwise.py`` (``grad(g, y, x)`` doubles as the tangent rule; ``save=()`` and
     ``save_out=True`` when the rule reads only the output; ``method=False`` if it
     should not also be an NDArray method). Give ``raw=`` a NumPy-only version of the
     rule only when profiling shows the composed rule's temporaries cost (large arrays):
     it runs in an ordinary backward, may write into ``g`` when
     ``_core.reusable(g)`` is true, and must not modify anything else;
   * a piecewise-constant unary op (zero gradient): ``_piecewise("name", np_fwd, doc)``;
   * a broadcasting binary op: ``_binary("name", np_fwd, [grad_a, grad_b],
     [jvp_a, jvp_b], doc=..., scalar=(op_array_scalar, op_scalar_array))``;
   * anything else: ``OP = defop("name", fwd, grads=[...], jvps=[...], save=(...),
     save_out=..., nout=...)`` and a small public function that checks its arguments
     (raising an ``MXNetError`` subclass that names the argument) and calls
     ``call1(OP, x, attrs)``, ``call2(OP, a, b, attrs)`` or ``call(OP, args, attrs)``
     (attrs: a dict of the op's keyword parameters, passed to the forward and rules).
     The function never builds output arrays or nodes: ``call*`` do. If it must choose
     a path by whether the application will be recorded (a cheaper unrecorded one, a
     refusal), it asks ``records(*arrays)`` (``ops/_apply.py``).
     To make it an NDArray method too, add one line to the class body of
     ``NDArrayMethods`` (``mxgrad/ndarray/_methods.py``): ``name = _family.name`` (the
     function itself is the method; no frame added), or a short ``def`` when the
     method's arguments differ from the function's.
3. Put the function's name in the module's ``__all__`` (that makes it ``mx.nd.name``)
   and give it a NumPy-style docstring with a short doctest. If it is an MXNet operator
   (a name MXNet's JSON files use), that is all ``mx.sym`` needs when MXNet's input list
   (``symbol/_mxnet_op_inputs.py``, generated from MXNet) and the function's arguments say
   everything: the Symbol registry makes its record. Otherwise declare the operator's
   record right after the function (``ops/_mxnet_op.py``)::

       mxnet_op("FullyConnected", ("data", "weight", "bias"), params=("weight", "bias"),
                shape=_fc_shape)

   with its inputs, learnable ``params``, ``aux`` states, ``outputs``/``visible``/
   ``out_names``, ``aliases``, which inputs a node has with its attributes (``takes=
   optional_inputs(bias=flag_unset("no_bias"))``), a ``run(inputs, kwargs)`` when a node's inputs or
   attributes do not map onto the function's arguments, and its shape rule (``shape=``,
   written with ``ops/_shape_rules.py``'s vocabulary; without one the operator is run once
   on zeros to find its output shapes, which cannot size a parameter) and dtype rule
   (``dtype=``, ``ops/_dtype_rules.py``; default: one dtype for all).
4. Add one line to the op's test table (``tests/test_ops_<family>.py``), which checks
   the forward against NumPy, the gradient and the second-order gradient by float64
   central differences, and the tangent rule::

       OpCase("name", nd.name, [randn(3, 4)], np_reference),

How to add a layer
------------------
Subclass ``gluon.HybridBlock`` in ``mxgrad/gluon/nn/`` and write
``hybrid_forward(self, F, x, <parameter names>)`` with ``F`` ops only (so it also
traces for ``export``); create parameters in ``__init__`` with
``self.weight = self.params.get("weight", shape=..., init=...)`` (a 0 in a shape is
inferred at the first call, by tracing ``hybrid_forward`` through the operators' shape
rules (their records' ``shape=``; the pass is ``symbol/_shape.py``), as MXNet does: the layer has no shape code). No gradient
code: the ops record themselves. One file and its test: ``gluon/nn/batchnorm_relu.py``
and ``tests/test_batchnorm_relu.py`` are an example (checked against MXNet-made
fixtures). Test a layer against a NumPy reference or MXNet and, for new math, with
``mx.test_utils.check_numeric_gradient``.

How to add an optimizer
-----------------------
Subclass ``mxgrad.optimizer.Optimizer``, decorate it with ``@register`` (that makes
``Trainer(..., 'name')`` and ``mx.optimizer.create('name')`` work), write
``create_state(index, weight)`` (its state arrays, e.g. momenta, or None) and
``update(index, weight, grad, state)``, which updates ``weight`` in place with NumPy
on ``weight._data`` (start from ``self._prepare_raw(index, weight, grad)`` for the
learning rate, weight decay and raw buffers; bump ``weight._ver[0]`` once). Reuse an
existing helper for a shared formula rather than writing it twice. Test it against
MXNet's formula written out in NumPy in ``tests/test_optimizer.py``.
"""
