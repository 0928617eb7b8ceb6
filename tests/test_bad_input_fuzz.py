"""The attacker's suite: every public entry point driven with wrong types, NaN/Inf,
empty and huge sizes. Whatever happens, an error must be an ``MXNetError`` (also the
natural built-in) and a failed call must not change its input arrays.

The cases are generated from the functions' signatures (each parameter in turn gets
each bad value, the other required ones a valid array), so a new op is covered the day
it is added; ``hypothesis`` compares indexing and reductions with NumPy's own rules.
"""
import inspect
import math

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st, HealthCheck

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError, ShapeError
from mxgrad.gluon.parameter import DeferredInitializationError

BAD_VALUES = [None, "a", float("nan"), math.inf, -1, 2.5, (), [1, 2], np.ones(2), 10 ** 20,
              object(), nd.zeros((0,)), nd.ones((2, 3, 4, 5, 6))]
SKIP = {"save", "load", "load_frombuffer", "waitall", "concatenate_numpy"}


def _nd_functions():
    for name in sorted(dir(nd)):
        f = getattr(nd, name)
        if name.startswith("_") or name in SKIP or inspect.isclass(f) \
                or inspect.ismodule(f) or not callable(f):
            continue
        try:
            sig = inspect.signature(f)
        except (TypeError, ValueError):
            continue
        yield name, f, sig


def _run_all_params(name, f, sig):
    """Call ``f`` with each parameter set to each bad value; return the bare errors and
    the failed calls that changed an input."""
    req = [p for p in sig.parameters.values()
           if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.default is p.empty]
    opt = [p for p in sig.parameters.values()
           if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.default is not p.empty]
    bare, changed = [], []
    for target in req + opt:
        for bad in BAD_VALUES:
            kw = {p.name: nd.array([[1.0, 2.0], [3.0, 4.0]]) for p in req}
            kw[target.name] = bad
            before = {k: v.asnumpy().copy() for k, v in kw.items()
                      if isinstance(v, nd.NDArray) and k != "out"}
            try:
                f(**kw)
            except MXNetError:
                for k, v in before.items():
                    if not np.array_equal(kw[k].asnumpy(), v, equal_nan=True):
                        changed.append(f"{name}({target.name}={bad!r:.20}) changed {k}")
            except Exception as err:  # noqa: BLE001 - that is the finding
                bare.append(f"{name}({target.name}={bad!r:.20}): {type(err).__name__}: "
                            f"{str(err)[:80]}")
    return bare, changed


FUNCTIONS = list(_nd_functions())


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("chunk", range(4))
def test_every_nd_function_raises_only_mxnet_errors_and_keeps_its_inputs(chunk):
    bare, changed = [], []
    for name, f, sig in FUNCTIONS[chunk::4]:
        b, c = _run_all_params(name, f, sig)
        bare += b
        changed += c
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])
    assert not changed, "\n".join(changed[:30])


def test_the_fuzz_covers_the_namespace():
    assert len(FUNCTIONS) > 200


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_ndarray_methods_raise_only_mxnet_errors():
    bare = []
    x0 = nd.array([[1.0, 2.0], [3.0, 4.0]])
    for name in sorted(dir(nd.NDArray)):
        if name.startswith("_") or not callable(getattr(nd.NDArray, name)):
            continue
        for args in [(b,) for b in BAD_VALUES] + [(x0, b) for b in BAD_VALUES]:
            x = x0.copy()
            try:
                getattr(x, name)(*args)
            except MXNetError:
                pass
            except Exception as err:  # noqa: BLE001
                bare.append(f"NDArray.{name}{args!r:.30}: {type(err).__name__}: {err}"[:160])
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])


# ------------------------------------------------------------------ indexing vs NumPy
_index_items = st.one_of(
    st.integers(-5, 5), st.none(), st.just(Ellipsis),
    st.builds(slice, st.none() | st.integers(-5, 5), st.none() | st.integers(-5, 5),
              st.none() | st.integers(-3, 3).filter(lambda s: s != 0)),
    st.lists(st.integers(-4, 4), min_size=1, max_size=3),
    st.sampled_from(["a", 1.5, object(), {}]))
_keys = st.one_of(_index_items, st.tuples(_index_items, _index_items),
                  st.tuples(_index_items, _index_items, _index_items))


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=_keys)
def test_indexing_agrees_with_numpy_or_raises_our_error(key):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = nd.array(a)
    try:
        expected = a[key]
    except Exception:  # noqa: BLE001 - NumPy refuses: we must refuse with our error
        with pytest.raises(MXNetError):
            x[key]
        return
    try:
        got = x[key]
    except MXNetError:
        return        # MXNet is stricter than NumPy in places (0-d results...)
    np.testing.assert_array_equal(got.asnumpy().reshape(expected.shape), expected)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=_keys, value=st.sampled_from([0.5, "a", None, [1.0, 2.0], np.ones(7),
                                         float("nan"), object()]))
def test_setitem_raises_our_error_and_keeps_the_array(key, value):
    x = nd.array(np.arange(12, dtype=np.float32).reshape(3, 4))
    before = x.asnumpy().copy()
    try:
        x[key] = value
    except MXNetError:
        np.testing.assert_array_equal(x.asnumpy(), before)


@settings(max_examples=200, deadline=None, suppress_health_check=list(HealthCheck))
@given(axis=st.one_of(st.none(), st.integers(-4, 4),
                      st.lists(st.integers(-3, 3), max_size=4).map(tuple)),
       op=st.sampled_from(["sum", "mean", "max", "min", "prod"]))
def test_reduction_axes_agree_with_numpy(axis, op):
    a = np.arange(24, dtype=np.float32).reshape(2, 3, 4) + 1
    try:
        expected = getattr(np, op)(a, axis=axis)
    except Exception:  # noqa: BLE001 - duplicates, out of range: our error too
        with pytest.raises(MXNetError):
            getattr(nd, op)(nd.array(a), axis=axis)
        return
    if axis == ():
        return           # MXNet reads axis=() as every axis, NumPy as none
    got = getattr(nd, op)(nd.array(a), axis=axis).asnumpy()
    np.testing.assert_allclose(got.reshape(np.shape(expected)), expected, rtol=1e-5)


# ------------------------------------------------------------------ Gluon layers
LAYERS = {
    "Dense": (lambda **k: gluon.nn.Dense(**{"units": 3, **k}), (2, 3)),
    "Conv1D": (lambda **k: gluon.nn.Conv1D(**{"channels": 2, "kernel_size": 3, **k}), (2, 3, 8)),
    "Conv2D": (lambda **k: gluon.nn.Conv2D(**{"channels": 2, "kernel_size": 3, **k}),
               (2, 3, 8, 8)),
    "Conv2DTranspose": (lambda **k: gluon.nn.Conv2DTranspose(
        **{"channels": 2, "kernel_size": 3, **k}), (2, 3, 8, 8)),
    "MaxPool2D": (lambda **k: gluon.nn.MaxPool2D(**k), (2, 3, 8, 8)),
    "AvgPool2D": (lambda **k: gluon.nn.AvgPool2D(**k), (2, 3, 8, 8)),
    "GlobalAvgPool2D": (lambda **k: gluon.nn.GlobalAvgPool2D(**k), (2, 3, 8, 8)),
    "BatchNorm": (lambda **k: gluon.nn.BatchNorm(**k), (2, 3, 8, 8)),
    "LayerNorm": (lambda **k: gluon.nn.LayerNorm(**k), (2, 3)),
    "InstanceNorm": (lambda **k: gluon.nn.InstanceNorm(**k), (2, 3, 8, 8)),
    "GroupNorm": (lambda **k: gluon.nn.GroupNorm(**k), (2, 3, 8, 8)),
    "Dropout": (lambda **k: gluon.nn.Dropout(**{"rate": 0.5, **k}), (2, 3)),
    "Embedding": (lambda **k: gluon.nn.Embedding(**{"input_dim": 5, "output_dim": 3, **k}),
                  (2, 3)),
    "Activation": (lambda **k: gluon.nn.Activation(**{"activation": "relu", **k}), (2, 3)),
    "LeakyReLU": (lambda **k: gluon.nn.LeakyReLU(**{"alpha": 0.1, **k}), (2, 3)),
    "PReLU": (lambda **k: gluon.nn.PReLU(**k), (2, 3)),
    "ELU": (lambda **k: gluon.nn.ELU(**k), (2, 3)),
    "Swish": (lambda **k: gluon.nn.Swish(**k), (2, 3)),
    "Flatten": (lambda **k: gluon.nn.Flatten(**k), (2, 3)),
}


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("name", sorted(LAYERS))
def test_gluon_layers_reject_bad_arguments_and_inputs_with_our_errors(name):
    make, shape = LAYERS[name]
    bare = []
    sig = inspect.signature(type(make()).__init__)
    for p in list(sig.parameters.values())[1:]:
        if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL) or p.name in ("prefix", "params"):
            continue
        for bad in BAD_VALUES:
            try:
                layer = make(**{p.name: bad})
                layer.initialize()
                layer(nd.ones(shape))
            except MXNetError:
                pass
            except Exception as err:  # noqa: BLE001
                bare.append(f"{name}({p.name}={bad!r:.20}): {type(err).__name__}: {err}"[:160])
    for bad in BAD_VALUES + [nd.ones((2,)), nd.ones((2, 3, 4, 5, 6, 7)), nd.zeros((0, 3))]:
        layer = make()
        layer.initialize()
        try:
            layer(bad)
        except MXNetError:
            pass
        except Exception as err:  # noqa: BLE001
            bare.append(f"{name}()({bad!r:.20}): {type(err).__name__}: {err}"[:160])
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])


def test_layer_arguments_are_checked_at_construction():
    for make, word in [(lambda: gluon.nn.Dense("a"), "units"),
                       (lambda: gluon.nn.Dense(-3), "units"),
                       (lambda: gluon.nn.Dropout(1.5), "rate"),
                       (lambda: gluon.nn.Conv2D(2, kernel_size=0), "kernel_size"),
                       (lambda: gluon.nn.Conv2D(2, 3, padding=-1), "padding"),
                       (lambda: gluon.nn.BatchNorm(momentum=2), "momentum"),
                       (lambda: gluon.nn.BatchNorm(epsilon=-1e-5), "epsilon"),
                       (lambda: gluon.nn.Embedding(5, 3, dtype=object), "dtype"),
                       (lambda: gluon.nn.Dense(3, activation=3), "activation")]:
        with pytest.raises(MXNetError) as info:
            make()
        assert word in str(info.value)
    # valid spellings still work
    gluon.nn.Dense(np.int64(3), use_bias=0)
    # MXNet builds a 0-unit layer (MXNet's test_block_attr_list_of_block keeps Dense(0) in
    # a list); calling it is MXNet's deferred-initialization error, naming the parameter
    d0 = gluon.nn.Dense(0)
    d0.initialize()
    with pytest.raises(DeferredInitializationError, match="dense.*_weight"):
        d0(nd.ones((2, 3)))
    gluon.nn.Conv2D(2, (3, 3), strides=(1, 2), padding=(0, 1))
    gluon.nn.MaxPool2D(pool_size=2, strides=None)


def test_errors_in_user_code_called_by_mxgrad_pass_unchanged():
    class Boom(autograd.Function):
        def forward(self, x):
            return x * 1

        def backward(self, dy):
            raise KeyError("boom")

    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = Boom()(x)
    with pytest.raises(KeyError, match="boom"):
        y.backward()


# ------------------------------------------- initializers, optimizers, data, scopes, files
def _collect(bare, tag, call):
    try:
        call()
    except MXNetError:
        pass
    except Exception as err:  # noqa: BLE001
        bare.append(f"{tag}: {type(err).__name__}: {err}"[:160])


def _train_once(optimizer, params):
    net = gluon.nn.Dense(3, in_units=2)
    net.initialize()
    tr = gluon.Trainer(net.collect_params(), optimizer, params)
    with autograd.record():
        loss = net(nd.ones((1, 2))).sum()
    loss.backward()
    tr.step(1)


MISC_BAD = [None, "a", float("nan"), math.inf, -1, 2.5, (), [1, 2], np.ones(2), 10 ** 20,
            object(), 0]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_initializers_reject_bad_arguments_with_our_errors():
    bare = []
    for name in ["Uniform", "Normal", "Xavier", "MSRAPrelu", "Constant", "Orthogonal",
                 "LSTMBias"]:
        cls = getattr(mx.init, name)
        for p in list(inspect.signature(cls.__init__).parameters.values())[1:]:
            if p.kind in (p.VAR_KEYWORD, p.VAR_POSITIONAL):
                continue
            for bad in MISC_BAD:
                def call():
                    net = gluon.nn.Dense(3, in_units=2)
                    net.initialize(cls(**{p.name: bad}))
                    net(nd.ones((1, 2)))
                _collect(bare, f"init.{name}({p.name}={bad!r:.15})", call)
    for bad in MISC_BAD:
        _collect(bare, f"initialize({bad!r:.15})",
                 lambda: gluon.nn.Dense(3, in_units=2).initialize(bad))
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("optimizer", ["sgd", "adam", "rmsprop", "adagrad", "adadelta", "nag",
                                       "signum", "ftml", "lamb", "ftrl", "adamax", "nadam",
                                       "dcasgd", "sgld"])
def test_optimizers_reject_bad_settings_with_our_errors(optimizer):
    bare = []
    for key in ["learning_rate", "wd", "momentum", "beta1", "clip_gradient", "rescale_grad",
                "lr_scheduler", "multi_precision", "epsilon"]:
        for bad in MISC_BAD:
            _collect(bare, f"{optimizer}({key}={bad!r:.15})",
                     lambda: _train_once(optimizer, {key: bad}))
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])


def test_data_loader_and_datasets_reject_bad_arguments_with_our_errors():
    bare = []
    ds = gluon.data.ArrayDataset(nd.ones((5, 2)), nd.ones((5,)))
    for key in ["batch_size", "shuffle", "sampler", "last_batch", "batch_sampler",
                "batchify_fn", "num_workers"]:
        extra = {} if key in ("batch_size", "batch_sampler") else {"batch_size": 2}
        for bad in MISC_BAD:
            _collect(bare, f"DataLoader({key}={bad!r:.15})",
                     lambda: list(gluon.data.DataLoader(ds, **extra, **{key: bad})))
    for bad in MISC_BAD:
        _collect(bare, f"DataLoader({bad!r:.15})",
                 lambda: list(gluon.data.DataLoader(bad, batch_size=2)))
        _collect(bare, f"ArrayDataset({bad!r:.15})",
                 lambda: gluon.data.ArrayDataset(bad, nd.ones(3))[0])
        _collect(bare, f"ds[{bad!r:.15}]", lambda: ds[bad])
        _collect(bare, f"SimpleDataset({bad!r:.15})", lambda: gluon.data.SimpleDataset(bad)[0])
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])


def test_files_and_scopes_reject_bad_arguments_with_our_errors(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)       # a str among the bad values is a valid file name
    bare = []
    for bad in MISC_BAD + [str(tmp_path), str(tmp_path / "missing" / "f")]:
        _collect(bare, f"nd.save({bad!r:.15})", lambda: nd.save(bad, nd.ones(1)))
        _collect(bare, f"nd.load({bad!r:.15})", lambda: nd.load(bad))
        _collect(bare, f"save_parameters({bad!r:.15})",
                 lambda: gluon.nn.Dense(2, in_units=2).save_parameters(bad))
        _collect(bare, f"load_parameters({bad!r:.15})",
                 lambda: gluon.nn.Dense(2, in_units=2).load_parameters(bad))
        _collect(bare, f"load_frombuffer({bad!r:.15})", lambda: nd.load_frombuffer(bad))
    for bad in MISC_BAD:
        _collect(bare, f"record({bad!r:.15})", lambda: autograd.record(bad))
        _collect(bare, f"pause({bad!r:.15})", lambda: autograd.pause(bad))
        _collect(bare, f"set_recording({bad!r:.15})", lambda: autograd.set_recording(bad))
        _collect(bare, f"set_training({bad!r:.15})", lambda: autograd.set_training(bad))
        _collect(bare, f"attach_grad({bad!r:.15})", lambda: nd.ones(2).attach_grad(bad))
    assert not autograd.is_recording() and not autograd.is_training()
    assert not bare, f"{len(bare)} bare errors:\n" + "\n".join(bare[:30])
