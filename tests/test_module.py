"""mx.mod (issue 25 item 4): Module, BucketingModule, SequentialModule, PythonLossModule.

Numbers that must equal MXNet 1.9.1's come from tests/data/mxnet/module/ (made by
tools/make_module_fixtures.py with real MXNet); the networks are loaded from MXNet's JSON.
"""
import logging
import os
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import DTypeError, FileFormatError, MXNetError, StateError
from mxgrad.module import ModuleStateError

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "module")
SGD = {"learning_rate": 0.1, "momentum": 0.9, "wd": 1e-3}


@pytest.fixture(scope="module")
def mlp():
    return np.load(os.path.join(DATA, "mlp.npz"))


def _init(f, tag="init"):
    arg = {k.split(":", 1)[1]: mx.nd.array(f[k]) for k in f.files
           if k.startswith(tag + ":") and "moving" not in k}
    aux = {k.split(":", 1)[1]: mx.nd.array(f[k]) for k in f.files
           if k.startswith(tag + ":") and "moving" in k}
    return arg, aux


def _check_params(mod, f, tag, rtol=1e-5, atol=1e-6):
    arg, aux = mod.get_params()
    expected = sorted(k.split(":", 1)[1] for k in f.files if k.startswith(tag + ":"))
    assert sorted(list(arg) + list(aux)) == expected
    for name, value in {**arg, **aux}.items():
        np.testing.assert_allclose(value.asnumpy(), f[f"{tag}:{name}"], rtol=rtol, atol=atol,
                                   err_msg=name)


def _fit_mlp(f, context, num_epoch, **kwargs):
    sym = mx.sym.load(os.path.join(DATA, "mlp-symbol.json"))
    train = mx.io.NDArrayIter(f["x"], f["y"], batch_size=8, shuffle=False)
    mod = mx.mod.Module(sym, context=context, **kwargs)
    arg, aux = _init(f)
    mod.fit(train, num_epoch=num_epoch, optimizer="sgd", optimizer_params=SGD,
            arg_params=arg, aux_params=aux)
    return mod, train


class _Batches(mx.io.DataIter):
    """Fixed batches in a fixed order; provide_data/label of the default bucket."""

    def __init__(self, batches, provide_data, provide_label):
        super().__init__(batches[0].data[0].shape[0])
        self.batches = batches
        self.provide_data = provide_data
        self.provide_label = provide_label
        self.i = 0

    def reset(self):
        self.i = 0

    def next(self):
        if self.i == len(self.batches):
            raise StopIteration
        self.i += 1
        return self.batches[self.i - 1]


# ---------------------------------------------------------------- numbers equal to MXNet's
def test_fit_one_context_equals_mxnet(mlp):
    mod, train = _fit_mlp(mlp, mx.cpu(), 2)
    _check_params(mod, mlp, "fit1")
    pred = mod.predict(mx.io.NDArrayIter(mlp["x"], batch_size=8))
    np.testing.assert_allclose(pred.asnumpy(), mlp["pred"], rtol=1e-5, atol=1e-6)
    assert mod.score(train, "acc")[0][1] == pytest.approx(float(mlp["acc"][0]))


def test_fit_two_contexts_splits_the_batch_as_mxnet(mlp):
    mod, _ = _fit_mlp(mlp, [mx.cpu(0), mx.cpu(1)], 2)
    _check_params(mod, mlp, "fit2")
    assert mod._kvstore is not None and mod._update_on_kvstore    # MXNet's default
    execs = mod._exec_group.execs
    assert len(execs) == 2 and execs[0].arg_dict["data"].shape == (4, 6)


def test_resume_from_mxnets_checkpoint_and_pickled_states_equals_mxnet(mlp):
    prefix = os.path.join(DATA, "mlp")
    mod = mx.mod.Module.load(prefix, 2)
    train = mx.io.NDArrayIter(mlp["x"], mlp["y"], batch_size=8, shuffle=False)
    mod.bind(train.provide_data, train.provide_label)
    mod.init_optimizer(optimizer="sgd", optimizer_params=SGD)
    with pytest.raises(FileFormatError, match="pickle"):     # no unpickling unless asked
        mod.load_optimizer_states(prefix + "-0002.states")
    with pytest.warns(UserWarning, match="allow_pickle=True"):
        mod.load_optimizer_states(prefix + "-0002.states", allow_pickle=True)
    with pytest.warns(UserWarning, match="init_params call ignored"):
        mod.fit(train, begin_epoch=2, num_epoch=3, optimizer="sgd", optimizer_params=SGD)
    _check_params(mod, mlp, "fit3")


def test_two_contexts_updating_on_the_devices_gives_the_same_numbers(mlp, monkeypatch):
    # MXNET_UPDATE_ON_KVSTORE=0: the kvstore only sums gradients, each device updates
    monkeypatch.setenv("MXNET_UPDATE_ON_KVSTORE", "0")
    mod, _ = _fit_mlp(mlp, [mx.cpu(0), mx.cpu(1)], 2)
    assert mod._kvstore is not None and not mod._update_on_kvstore
    assert sorted(mod._updater.states) == list(range(12))   # index*num_device + device
    _check_params(mod, mlp, "fit2")


def test_fixed_param_names_are_not_trained(mlp):
    mod, _ = _fit_mlp(mlp, mx.cpu(), 1, fixed_param_names=["fc1_weight"])
    _check_params(mod, mlp, "fixed")
    np.testing.assert_array_equal(mod.get_params()[0]["fc1_weight"].asnumpy(),
                                  mlp["init:fc1_weight"])


def test_backward_with_out_grads_equals_mxnet(mlp):
    sym = mx.sym.load(os.path.join(DATA, "mlp-symbol.json")).get_internals()["fc2_output"]
    mod = mx.mod.Module(sym, label_names=None)
    mod.bind(data_shapes=[("data", (8, 6))])
    arg, aux = _init(mlp)
    mod.init_params(arg_params=arg, aux_params=aux, allow_extra=True)
    mod.forward(mx.io.DataBatch([mx.nd.array(mlp["x"][:8])]), is_train=True)
    mod.backward([mx.nd.ones((8, 3))])
    grad = mod._exec_group.execs[0].grad_dict["fc1_weight"]
    np.testing.assert_allclose(grad.asnumpy(), mlp["pygrad"], rtol=1e-4, atol=1e-5)


def test_bucketing_fit_equals_mxnet():
    f = np.load(os.path.join(DATA, "bucket.npz"))

    def sym_gen(key):   # MXNet's own symbols for each bucket
        return (mx.sym.load(os.path.join(DATA, f"bucket-{key}-symbol.json")), ("data",),
                ("softmax_label",))

    batches = [mx.io.DataBatch([mx.nd.array(f[f"tokens{i}"])], [mx.nd.array(f[f"labels{i}"])],
                               bucket_key=int(f[f"key{i}"][0]),
                               provide_data=[mx.io.DataDesc("data", f[f"tokens{i}"].shape)],
                               provide_label=[mx.io.DataDesc("softmax_label", (4,))])
               for i in range(5)]

    it = _Batches(batches, [mx.io.DataDesc("data", (4, 5))],
                  [mx.io.DataDesc("softmax_label", (4,))])
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    arg, _ = _init(f)
    mod.fit(it, num_epoch=2, optimizer="sgd", optimizer_params=SGD, arg_params=arg)
    _check_params(mod, f, "fit")
    assert sorted(mod._buckets) == [3, 5]
    shared = mod._buckets[3]._exec_group.execs[0].arg_dict["fc_weight"]
    assert shared is mod._buckets[5]._exec_group.execs[0].arg_dict["fc_weight"]


def test_feedforward_with_epoch_size_equals_mxnet(mlp, tmp_path, caplog):
    sym = mx.sym.load(os.path.join(DATA, "mlp-symbol.json"))
    arg, aux = _init(mlp)
    with pytest.warns(DeprecationWarning, match="Please use mxnet.mod.Module"):
        model = mx.model.FeedForward(sym, num_epoch=2, epoch_size=2, arg_params=arg,
                                     aux_params=aux, **SGD)
    seen = []
    with caplog.at_level(logging.INFO):
        model.fit(mx.io.NDArrayIter(mlp["x"], mlp["y"], batch_size=8, shuffle=False),
                  batch_end_callback=lambda p: seen.append((p.epoch, p.nbatch)))
    assert seen == [(0, 1), (0, 2), (1, 1), (1, 2)]      # nbatch counts from 1 here
    assert "Epoch[1] Resetting Data Iterator" in [r.getMessage() for r in caplog.records]
    for name, value in {**model.arg_params, **model.aux_params}.items():
        np.testing.assert_allclose(value.asnumpy(), mlp["ff:" + name], rtol=1e-5, atol=1e-6,
                                   err_msg=name)
    np.testing.assert_allclose(model.predict(mlp["x"]), mlp["ffpred"], rtol=1e-5, atol=1e-6)
    model.save(str(tmp_path / "ff"))
    with pytest.warns(DeprecationWarning):
        again = mx.model.FeedForward.load(str(tmp_path / "ff"), 2)
    assert again.begin_epoch == 2
    np.testing.assert_allclose(again.predict(mlp["x"]), mlp["ffpred"], rtol=1e-5, atol=1e-6)


def test_bucketing_lstm_language_model_equals_mxnet():
    # a hand-unrolled LSTM (MXNet's symbols per bucket), begin states as zero inputs
    f = np.load(os.path.join(DATA, "lstm.npz"))
    hidden, batch = 8, 3

    def sym_gen(key):
        return (mx.sym.load(os.path.join(DATA, f"lstm-{key}-symbol.json")),
                ("data", "init_h", "init_c"), ("softmax_label",))

    def descs(key):
        return ([mx.io.DataDesc("data", (batch, key)), mx.io.DataDesc("init_h", (batch, hidden)),
                 mx.io.DataDesc("init_c", (batch, hidden))],
                [mx.io.DataDesc("softmax_label", (batch, key))])

    batches = []
    for i in range(5):
        tokens, key = f[f"tokens{i}"], int(f[f"key{i}"][0])
        zeros = mx.nd.zeros((batch, hidden))
        data, label = descs(key)
        batches.append(mx.io.DataBatch([mx.nd.array(tokens[:, :-1]), zeros, zeros],
                                       [mx.nd.array(tokens[:, 1:])], bucket_key=key,
                                       provide_data=data, provide_label=label))
    it = _Batches(batches, *descs(5))
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=5)
    arg, _ = _init(f)
    mod.fit(it, num_epoch=3, optimizer="sgd", optimizer_params=SGD,
            eval_metric=mx.metric.Perplexity(None), arg_params=arg)
    _check_params(mod, f, "fit", rtol=1e-4, atol=1e-5)
    perplexity = mod.score(it, mx.metric.Perplexity(None))[0][1]
    assert perplexity == pytest.approx(float(f["perplexity"][0]), rel=1e-4)
    assert sorted(mod._buckets) == [3, 5]


# ---------------------------------------------------------------- the examples
def _mnist_like(n=64, seed=0):
    rs = np.random.RandomState(seed)
    y = rs.randint(0, 10, n).astype("float32")
    x = rs.rand(n, 1, 28, 28).astype("float32") * 0.1
    x[np.arange(n), 0, (y * 2.5).astype(int), :] += 1.0     # a learnable stripe per class
    return x, y


def _mlp_sym():
    data = mx.sym.flatten(mx.sym.var("data"))
    h = mx.sym.Activation(mx.sym.FullyConnected(data, num_hidden=32, name="fc1"), "relu",
                          name="relu1")
    h = mx.sym.FullyConnected(h, num_hidden=10, name="fc2")
    return mx.sym.SoftmaxOutput(h, name="softmax")


def test_mlp_fit_speedometer_do_checkpoint_and_resume(tmp_path, caplog):
    x, y = _mnist_like()
    prefix = str(tmp_path / "mlp")
    params = {"learning_rate": 0.1}

    def train():
        return mx.io.NDArrayIter(x, y, batch_size=16)

    mx.random.seed(3)
    full = mx.mod.Module(_mlp_sym())
    with caplog.at_level(logging.INFO):
        full.fit(train(), num_epoch=4, optimizer_params=params, initializer=mx.init.Xavier(),
                 batch_end_callback=mx.callback.Speedometer(16, 2),
                 epoch_end_callback=mx.callback.do_checkpoint(prefix, period=2))
    lines = [r.getMessage() for r in caplog.records]
    assert any(l.startswith("Epoch[0] Batch [0-2]\tSpeed: ") and "accuracy=" in l
               for l in lines)
    assert f'Saved checkpoint to "{prefix}-0002.params"' in lines
    assert any(l.startswith("Epoch[3] Train-accuracy=") for l in lines)
    assert sorted(os.listdir(tmp_path)) == ["mlp-0002.params", "mlp-0004.params",
                                            "mlp-symbol.json"]
    assert full.score(train(), "acc")[0][1] > 0.9

    sym, arg, aux = mx.model.load_checkpoint(prefix, 2)
    resumed = mx.mod.Module(sym)
    resumed.fit(train(), begin_epoch=2, num_epoch=4, optimizer_params=params,
                arg_params=arg, aux_params=aux)
    end, _ = full.get_params()
    for name, value in resumed.get_params()[0].items():
        np.testing.assert_allclose(value.asnumpy(), end[name].asnumpy(), rtol=1e-6,
                                   atol=1e-7, err_msg=name)


def test_resume_with_optimizer_states_equals_continuing(tmp_path):
    x, y = _mnist_like(32, seed=1)
    prefix = str(tmp_path / "m")
    params = {"learning_rate": 0.05, "momentum": 0.9}
    mx.random.seed(4)
    full = mx.mod.Module(_mlp_sym())
    full.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=3, optimizer_params=params,
             epoch_end_callback=mx.callback.module_checkpoint(full, prefix, 1, True))
    assert os.path.exists(prefix + "-0001.states")
    resumed = mx.mod.Module.load(prefix, 1, load_optimizer_states=True)
    with pytest.warns(UserWarning, match="init_params call ignored"):   # as MXNet
        resumed.fit(mx.io.NDArrayIter(x, y, batch_size=8), begin_epoch=1, num_epoch=3,
                    optimizer_params=params)
    for name, value in resumed.get_params()[0].items():
        np.testing.assert_allclose(value.asnumpy(), full.get_params()[0][name].asnumpy(),
                                   rtol=1e-6, atol=1e-7, err_msg=name)
    # without the states the momentum restarts: other numbers
    plain = mx.mod.Module.load(prefix, 1)
    with pytest.warns(UserWarning, match="init_params call ignored"):
        plain.fit(mx.io.NDArrayIter(x, y, batch_size=8), begin_epoch=1, num_epoch=3,
                  optimizer_params=params)
    assert not np.allclose(plain.get_params()[0]["fc2_weight"].asnumpy(),
                           full.get_params()[0]["fc2_weight"].asnumpy())


def _softmax_ce_grad(scores, labels):
    s = scores.asnumpy()
    p = np.exp(s - s.max(axis=1, keepdims=True))
    p /= p.sum(axis=1, keepdims=True)
    p[np.arange(len(p)), labels.asnumpy().astype(int)] -= 1
    return p


def _two_modules(x, y, last):
    body = mx.sym.Activation(mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=16,
                                                   name="fc1"), "relu")
    logits = mx.sym.FullyConnected(body, num_hidden=10, name="fc2")
    seq = mx.mod.SequentialModule()
    seq.add(mx.mod.Module(logits, label_names=None))
    seq.add(last, take_labels=True, auto_wiring=True)
    single = mx.mod.Module(mx.sym.SoftmaxOutput(logits, name="softmax"))
    mx.random.seed(5)
    init = mx.init.Xavier()
    for m in (seq, single):
        m.fit(mx.io.NDArrayIter(x, y, batch_size=8), num_epoch=2, initializer=init,
              optimizer_params={"learning_rate": 0.1}, arg_params=None)
        mx.random.seed(5)
    return seq, single


def test_python_loss_module_trains_as_softmax_output():
    x, y = _mnist_like(32, seed=2)
    x = x.reshape(32, -1)
    loss = mx.mod.PythonLossModule(grad_func=_softmax_ce_grad)
    seq, single = _two_modules(x, y, loss)
    got, want = seq.get_params()[0], single.get_params()[0]
    assert sorted(got) == sorted(want) == ["fc1_bias", "fc1_weight", "fc2_bias", "fc2_weight"]
    for name in want:
        np.testing.assert_allclose(got[name].asnumpy(), want[name].asnumpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    assert loss.output_shapes == [("pyloss_output", (8, 10))]
    assert seq.output_shapes == [("pyloss_output", (8, 10))]


def test_sequential_module_of_two_symbolic_modules():
    x, y = _mnist_like(32, seed=3)
    x = x.reshape(32, -1)
    head = mx.mod.Module(mx.sym.SoftmaxOutput(mx.sym.var("data"), name="softmax"))
    seq, single = _two_modules(x, y, head)
    got, want = seq.get_params()[0], single.get_params()[0]
    for name in want:
        np.testing.assert_allclose(got[name].asnumpy(), want[name].asnumpy(), rtol=1e-5,
                                   atol=1e-6, err_msg=name)
    pred = seq.predict(mx.io.NDArrayIter(x, batch_size=8))
    np.testing.assert_allclose(pred.asnumpy(),
                               single.predict(mx.io.NDArrayIter(x, batch_size=8)).asnumpy(),
                               rtol=1e-5, atol=1e-6)
    assert seq.data_names == ["data"] and seq.output_names == ["softmax_output"]


# ---------------------------------------------------------------- MXNet's behaviours
def _fc(num_hidden=20):
    return mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=num_hidden, name="fc")


def test_reshape_and_update_on_two_contexts():
    # MXNet's test_module_reshape: lr 1, out_grads of ones
    mod = mx.mod.Module(_fc(), ("data",), None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (7, 20))])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 1})
    mod.forward(mx.io.DataBatch([mx.nd.ones((7, 20))]))
    mod.backward([mx.nd.ones((7, 20))])
    mod.update()
    assert mod.get_outputs()[0].shape == (7, 20)
    assert (mod.get_params()[0]["fc_bias"].asnumpy() == -1).all()
    mod.reshape(data_shapes=[("data", (14, 20))])
    mod.forward(mx.io.DataBatch([mx.nd.ones((14, 20))]))
    mod.backward([mx.nd.ones((14, 20))])
    mod.update()
    assert mod.get_outputs()[0].shape == (14, 20)
    assert (mod.get_params()[0]["fc_bias"].asnumpy() == -3).all()
    # a batch of another size reshapes by itself
    mod.forward(mx.io.DataBatch([mx.nd.ones((3, 20))]), is_train=False)
    assert mod.get_outputs()[0].shape == (3, 20) and mod.data_shapes[0].shape == (3, 20)


def test_input_grads_and_layouts():
    a, b, c = (mx.sym.var(n, __layout__="NC") for n in "abc")
    net = mx.mod.Module(a + 2 * b + 3 * c, data_names=["b", "c", "a"], label_names=None,
                        context=[mx.cpu(0), mx.cpu(1)])
    net.bind(data_shapes=[["b", (5, 5)], ["c", (5, 5)], ["a", (5, 5)]], inputs_need_grad=True)
    net.init_params()
    net.forward(mx.io.DataBatch([mx.nd.ones((5, 5))] * 3))
    net.backward(out_grads=[mx.nd.ones((5, 5))])
    b_grad, c_grad, a_grad = (g.asnumpy() for g in net.get_input_grads())
    assert (a_grad == 1).all() and (b_grad == 2).all() and (c_grad == 3).all()
    # the batch axis from the layout: 'TNC' splits axis 1
    sym = mx.sym.Activation(mx.sym.var("data"), act_type="relu", __layout__="TNC")
    mod = mx.mod.Module(sym, ("data",), None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[mx.io.DataDesc("data", (3, 8, 7), layout="TNC")])
    mod.init_params()
    mod.forward(mx.io.DataBatch([mx.nd.ones((3, 8, 7))]))
    assert mod.get_outputs()[0].shape == (3, 8, 7)
    assert [o.shape for o in mod.get_outputs(merge_multi_context=False)[0]] == [(3, 4, 7)] * 2


def test_network_without_parameters_trains_as_a_no_op():
    # MXNet's test_module_update_no_pragram and test_module_dtype: nothing needs a gradient
    mod = mx.mod.Module(mx.sym.Dropout(mx.sym.var("data"), 0.5), label_names=None)
    mod.bind(data_shapes=[("data", (10, 10))])
    mod.init_params()
    mod.init_optimizer()
    mod.forward_backward(mx.io.DataBatch([mx.nd.ones((10, 10))]))
    mod.update()
    out = mod.get_outputs()[0].asnumpy()
    assert out.shape == (10, 10) and set(np.unique(out)) <= {0.0, 2.0}
    act = mx.sym.Activation(mx.sym.var("data"), act_type="relu")
    mod = mx.mod.Module(act, ("data",), None, context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[mx.io.DataDesc("data", (3, 8, 7), np.float16)])
    mod.init_params()
    mod.forward(mx.io.DataBatch([-mx.nd.ones((3, 8, 7), dtype=np.float16)]))
    mod.backward([mx.nd.ones((3, 8, 7), dtype=np.float16)])
    assert [o.dtype for o in mod.get_outputs()] == [np.float16]
    assert mod.get_outputs()[0].asnumpy().max() == 0


def test_state_names_get_and_set_states():
    net = mx.sym.var("data") + 2 * mx.sym.var("state", shape=(2, 3))  # per context
    mod = mx.mod.Module(net, label_names=None, state_names=["state"],
                        context=[mx.cpu(0), mx.cpu(1)])
    mod.bind(data_shapes=[("data", (4, 3))], for_training=False)
    mod.init_params()
    assert mod._param_names == []
    mod.set_states(value=1)
    batch = mx.io.DataBatch([mx.nd.zeros((4, 3))])
    mod.forward(batch)
    assert mod.get_outputs()[0].asnumpy().tolist() == [[2.0] * 3] * 4
    per_context = mod.get_outputs(merge_multi_context=False)
    mod.set_states(states=per_context)
    mod.forward(batch)
    assert mod.get_outputs()[0].asnumpy().tolist() == [[4.0] * 3] * 4
    states = mod.get_states(merge_multi_context=False)
    assert [s.shape for s in states[0]] == [(2, 3), (2, 3)]
    with pytest.raises(StateError, match="merge_multi_context"):
        mod.get_states()


def test_set_params_missing_and_extra():
    x = mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=2, name="fc_0")
    x = mx.sym.LinearRegressionOutput(x, name="softmax")
    mod = mx.mod.Module(x)
    mod.bind([("data", (1, 2))], label_shapes=[("softmax_label", (1, 2))])
    correct = {"fc_0_weight": mx.nd.array([[.15, .20], [.25, .30]]),
               "fc_0_bias": mx.nd.array([.35, .35])}
    mod.set_params(correct, {}, force_init=True)
    np.testing.assert_allclose(mod.get_params()[0]["fc_0_weight"].asnumpy(),
                               [[.15, .20], [.25, .30]])
    missing = {"fc_0_weight": correct["fc_0_weight"]}
    mod.set_params(missing, {}, allow_missing=True, force_init=True)
    with pytest.raises(MXNetError, match="fc_0_bias is not presented"):
        mod.set_params(missing, {}, force_init=True)
    extra = dict(correct, fc_2_weight=mx.nd.ones((2,)))
    mod.set_params(extra, {}, allow_missing=True, allow_extra=True, force_init=True)
    with pytest.raises(ValueError, match="fc_2_weight"):
        mod.set_params(extra, {}, allow_missing=True, allow_extra=False, force_init=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mod.init_params()                      # already initialized: ignored with a warning
    assert "init_params call ignored" in str(caught[0].message)


def test_predict_forms():
    mod = mx.mod.Module(mx.sym.var("data") * 2, label_names=None)
    mod.bind(data_shapes=[("data", (4, 3))], for_training=False)
    mod.init_params()
    x = np.arange(30, dtype="float32").reshape(10, 3)
    it = mx.io.NDArrayIter(x, batch_size=4)               # last batch padded by 2
    np.testing.assert_array_equal(mod.predict(it).asnumpy(), 2 * x)
    assert isinstance(mod.predict(it, always_output_list=True), list)
    per_batch = mod.predict(it, merge_batches=False)
    assert [len(b) for b in per_batch] == [1, 1, 1] and per_batch[2][0].shape == (2, 3)
    outs = [(o[0].shape, n) for o, n, _ in mod.iter_predict(it)]
    assert outs == [((4, 3), 0), ((4, 3), 1), ((2, 3), 2)]
    assert mod.predict(np.ones((1, 3), "float32")).asnumpy().tolist() == [[2, 2, 2]]
    assert mod.predict(it, num_batch=1).shape == (4, 3)


def test_save_load_with_optimizer_states(tmp_path):
    prefix = str(tmp_path / "t")
    mod = mx.mod.Module(_fc(100), ("data",), None)
    mod.bind(data_shapes=[("data", (10, 10))])
    mod.init_params()
    mod.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    mod.forward(mx.io.DataBatch([mx.nd.ones((10, 10))]), is_train=True)
    mod.backward([mx.nd.ones((10, 100))])
    mod.update()
    mod.save_checkpoint(prefix, 0, save_optimizer_states=True)
    mod2 = mx.mod.Module.load(prefix, 0, load_optimizer_states=True, data_names=("data",),
                              label_names=None)
    mod2.bind(data_shapes=[("data", (10, 10))])
    mod2.init_optimizer(optimizer_params={"learning_rate": 0.1, "momentum": 0.9})
    assert mod._symbol.tojson() == mod2._symbol.tojson()
    for k, v in mod.get_params()[0].items():
        np.testing.assert_array_equal(v.asnumpy(), mod2.get_params()[0][k].asnumpy())
    assert set(mod._updater.states) == set(mod2._updater.states) == {0, 1}
    for k, v in mod._updater.states.items():
        np.testing.assert_array_equal(v.asnumpy(), mod2._updater.states[k].asnumpy())
    assert np.abs(mod2._updater.states[0].asnumpy()).sum() > 0


def test_bucketing_save_load_and_grad_req(tmp_path):
    def sym_gen(key):
        data = mx.sym.var("data")
        weight = mx.sym.var("a", shape=(1,), init=mx.init.One())
        return mx.sym.make_loss(mx.sym.broadcast_mul(data, weight)), ("data",), None

    def batch(key):
        return mx.io.DataBatch([mx.nd.ones((2,))], None, bucket_key=key,
                               provide_data=[mx.io.DataDesc("data", (2,), layout="N")])

    for req, second in (("write", 2), ("add", 4)):
        mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=10)
        mod.bind(data_shapes=[["data", (2,)]], for_training=True, grad_req=req)
        mod.init_params()
        mod.forward_backward(batch(10))
        assert mod._curr_module._exec_group.execs[0].grad_dict["a"].asscalar() == 2
        mod.forward_backward(batch(5))
        assert mod._curr_module._exec_group.execs[0].grad_dict["a"].asscalar() == second
    prefix = str(tmp_path / "b")
    mod.save_checkpoint(prefix, 3)
    assert sorted(os.listdir(tmp_path)) == ["b-0003.params", "b-10-symbol.json",
                                            "b-5-symbol.json", "b.buckets"]
    loaded = mx.mod.BucketingModule.load(prefix, 3, sym_gen=sym_gen, default_bucket_key=10)
    loaded.bind(data_shapes=[["data", (2,)]])
    assert loaded.get_params()[0]["a"].asnumpy().tolist() == [1.0]


def test_monitor_collects_outputs_and_arguments():
    x = mx.sym.FullyConnected(mx.sym.var("data"), name="fc_0", num_hidden=2)
    x = mx.sym.Activation(x, name="act_0", act_type="sigmoid")
    x = mx.sym.LinearRegressionOutput(x, name="softmax")
    mon = mx.mon.Monitor(1, pattern=".*", sort=True)
    mod = mx.mod.Module(x)
    mod.bind([("data", (1, 2))], label_shapes=[("softmax_label", (1, 2))])
    mod.install_monitor(mon)
    mod.init_params(arg_params={"fc_0_weight": mx.nd.array([[.15, .20], [.25, .30]]),
                                "fc_0_bias": mx.nd.array([.35, .35])})
    mon.tic()
    mod.forward_backward(mx.io.DataBatch([mx.nd.array([[0.05, .10]])],
                                         [mx.nd.array([[.01, 0.99]])]))
    res = mon.toc()
    names = [k for _, k, _ in res]
    assert names == sorted(names)
    for arg in ("data", "fc_0_weight", "fc_0_bias", "softmax_label", "softmax_output"):
        assert arg in names
    stats = dict((k, v) for _, k, v in res)
    w = np.array([[.15, .20], [.25, .30]])
    assert float(stats["fc_0_weight"]) == pytest.approx(np.sqrt((w ** 2).mean()), rel=1e-6)
    mon.tic()                                   # interval 1: every batch
    assert mon.toc() != []


def test_fit_with_a_monitor_logs_its_statistics(caplog):
    x, y = _mnist_like(16, seed=6)
    mod = mx.mod.Module(_mlp_sym())
    mon = mx.mon.Monitor(2, pattern="fc2_.*")
    with caplog.at_level(logging.INFO):
        mod.fit(mx.io.NDArrayIter(x, y, batch_size=4), num_epoch=1, monitor=mon)
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Batch:")]
    names = sorted({line.split()[2] for line in lines})
    # forward outputs, arguments and (as MXNet's executors report) the gradients of the
    # node's three inputs
    assert names == ["fc2_backward_output0", "fc2_backward_output1", "fc2_backward_output2",
                     "fc2_bias", "fc2_output", "fc2_weight"]
    assert len(lines) == 2 * 6                   # batches 1 and 3 of 4 (interval 2)


# ---------------------------------------------------------------- errors
def test_errors_name_the_missing_step_or_bad_argument():
    mod = mx.mod.Module(_fc(), label_names=None)
    with pytest.raises(ModuleStateError, match="call bind"):
        mod.init_params()
    with pytest.raises(ModuleStateError, match="call bind"):
        mod.forward(mx.io.DataBatch([mx.nd.ones((2, 3))]))
    with pytest.raises(DTypeError, match="shape of 'data' must be a tuple of ints"):
        mod.bind(data_shapes=[("data", mx.nd.array([10, 10]))])
    assert not mod.binded
    with pytest.raises(StateError, match="don't match names"):
        mod.bind(data_shapes=[("x", (2, 3))])
    with pytest.raises(StateError, match="input with name 'image' is not found"):
        mx.mod.Module(_fc(), data_names=["image"])
    mod.bind(data_shapes=[("data", (2, 3))])
    mod.init_params()
    with pytest.raises(ModuleStateError, match="init_optimizer"):
        mod.update()
    with pytest.raises(ModuleStateError, match="inputs_need_grad=True"):
        mod.get_input_grads()
    with pytest.raises(DTypeError, match="optimizer must be"):
        mod.init_optimizer(optimizer=3)
    with pytest.raises(StateError, match="num_epoch"):
        mod.fit(mx.io.NDArrayIter(np.ones((2, 3))))
    with pytest.raises(DTypeError, match="context must be"):
        mx.mod.Module(_fc(), context="cpu")
