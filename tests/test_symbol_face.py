"""Symbol's face in two class bodies (issue 20 item 5, ARCHITECTURE.md "Symbol's face"): the
core ``Symbol`` (``symbol/_core.py``, the package's bottom) and its base ``SymbolMethods``
(``symbol/symbol.py``), installed as NDArray's is; every public path to the class, the
executor and the JSON functions is the same object as before the split."""
import copy
import pickle

import pytest

import mxgrad as mx
from test_ndarray_face import _INTERNAL, _not_in_class_body, _writes_to_class


def test_symbol_methods_are_its_class_bodies():
    from mxgrad.symbol._core import Symbol
    from mxgrad.symbol.symbol import SymbolMethods
    assert Symbol.__bases__ == (SymbolMethods,)
    assert SymbolMethods.__bases__ == (object,) and SymbolMethods.__slots__ == ()
    for cls, path in ((Symbol, ("symbol", "_core.py")),
                      (SymbolMethods, ("symbol", "symbol.py"))):
        assert _not_in_class_body(cls, path) == set(), cls.__name__
    # what each body holds: the core needs no module above it, the methods do
    assert {"list_arguments", "attr", "__call__", "copy", "as_np_ndarray"} <= set(vars(Symbol))
    assert {"infer_shape", "infer_type", "__add__", "reshape", "bind", "simple_bind", "eval",
            "tojson", "__reduce__", "asnumpy"} <= set(vars(SymbolMethods))
    shared = set(vars(Symbol)) & set(vars(SymbolMethods)) - _INTERNAL - {"__slots__"}
    assert shared == set()      # no method defined twice (the core's would hide the other)


def test_no_module_attaches_symbol_methods():
    assert _writes_to_class("Symbol") == [("symbol.py", "__bases__")]
    assert _writes_to_class("_Symbol") == []


def test_public_paths_are_the_same_objects():
    import mxgrad.symbol._core as core
    import mxgrad.symbol._executor as executor
    import mxgrad.symbol._json as json_format
    from mxgrad.symbol.numpy._symbol import _Symbol
    assert mx.sym.Symbol is mx.symbol.Symbol is mx.symbol.symbol.Symbol is core.Symbol
    assert mx.sym.np._Symbol is _Symbol and _Symbol.__mro__[1:] == core.Symbol.__mro__
    assert core.SYMBOL_FACES == {"nd": core.Symbol, "np": _Symbol}
    for name in ("Executor", "bind", "simple_bind"):
        assert getattr(mx.executor, name) is getattr(executor, name), name
    for name in ("load", "load_json"):
        assert getattr(mx.sym, name) is getattr(mx.symbol.symbol, name) \
            is getattr(json_format, name), name
    assert mx.sym.evaluate is mx.symbol.symbol.evaluate
    assert mx.sym.var is not core.var and mx.symbol.symbol.var is core.var  # mx.sym's: AttrScope
    assert mx.sym.split_v2 is mx.symbol.symbol.split_v2


def test_both_faces_keep_methods_pickling_and_copies():
    x = mx.sym.var('x')
    y = mx.sym.FullyConnected(x, num_hidden=2, name='fc') * 2
    assert isinstance(y, mx.sym.Symbol) and type(y) is mx.sym.Symbol
    assert y.infer_shape(x=(3, 4))[1] == [(3, 2)]
    for z in (pickle.loads(pickle.dumps(y)), copy.deepcopy(y)):
        assert type(z) is mx.sym.Symbol and z.tojson() == y.tojson()
    assert copy.copy(y)._outputs == y._outputs
    ex = y.simple_bind(mx.cpu(), x=(3, 4))
    assert isinstance(ex, mx.executor.Executor)
    n = x.as_np_ndarray()
    assert type(n) is mx.sym.np._Symbol and isinstance(n, mx.sym.Symbol)
    s = (n * 2 + 1).sum(axis=0)
    assert type(s) is mx.sym.np._Symbol and s.as_nd_ndarray().list_arguments() == ['x']
    assert s.eval(x=mx.np.array([[1.0, 2.0], [3.0, 4.0]]))[0].tolist() == [10.0, 14.0]
    with pytest.raises(mx.base.NotImplementedForSymbol):
        y.asnumpy()
    with pytest.raises(mx.base.NotImplementedForSymbol):
        bool(y)
