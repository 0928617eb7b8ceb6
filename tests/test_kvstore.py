"""mx.kv in one process, parameters on several contexts, the Trainer's kvstore paths,
SplitSampler and the launcher's command line. (Several processes: tests/test_dist.py.)"""
import copy
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import MXNetError, ShapeError, StateError
from mxgrad.kvstore import KVStoreError, DistUnavailableError, _comm


@pytest.fixture(autouse=True)
def _keep_global_generator():
    """These tests seed mx.random: give later tests the generator they would have had."""
    saved = copy.deepcopy(mx.random._rng[0])
    yield
    mx.random._rng[0] = saved


# ------------------------------------------------------------------ KVStore API
def test_create_types_and_properties():
    for name in ("local", "device", "nccl"):
        kv = mx.kv.create(name)
        assert (kv.type, kv.rank, kv.num_workers) == (name, 0, 1)
    assert mx.kvstore.create(kv) is kv
    with pytest.raises(KVStoreError, match="unknown kvstore type 'dist_foo'"):
        mx.kv.create("dist_foo")
    with pytest.raises(TypeError):
        mx.kv.create(3)


def test_push_sums_devices_and_pull_copies():
    kv = mx.kv.create("device")
    kv.init(3, nd.ones((2, 3)))
    kv.push(3, [nd.ones((2, 3)) * 2, nd.ones((2, 3)) * 5])
    outs = [nd.zeros((2, 3)), nd.zeros((2, 3))]
    kv.pull(3, out=outs)
    for o in outs:
        np.testing.assert_array_equal(o.asnumpy(), np.full((2, 3), 7.0))


def test_list_of_keys_str_keys_and_pushpull():
    kv = mx.kv.create("local")
    kv.init(["a", "b"], [nd.zeros(2), nd.zeros((2, 2))])
    a, b = nd.array([1.0, 2.0]), nd.ones((2, 2))
    kv.push(["a", "b"], [a, [b, b, b]])
    oa, ob = nd.zeros(2), nd.zeros((2, 2))
    kv.pull(["a", "b"], out=[oa, ob])
    assert oa.asnumpy().tolist() == [1.0, 2.0] and ob.asnumpy().sum() == 12.0
    g = [nd.array([1.0, 1.0]), nd.array([2.0, 3.0])]
    kv.pushpull("a", g)                   # out=None: written back into the values
    assert [x.asnumpy().tolist() for x in g] == [[3.0, 4.0], [3.0, 4.0]]
    out = nd.zeros(2)
    kv.pushpull("a", nd.array([5.0, 5.0]), out=out)
    assert out.asnumpy().tolist() == [5.0, 5.0]
    # a value is not changed by push
    v = nd.array([1.0, 1.0])
    kv.push("a", v)
    assert v.asnumpy().tolist() == [1.0, 1.0]


def test_broadcast_and_optimizer_on_store(tmp_path):
    kv = mx.kv.create("local")
    w = nd.zeros(3)
    kv.broadcast(0, nd.array([1.0, 2.0, 3.0]), out=w)
    assert w.asnumpy().tolist() == [1.0, 2.0, 3.0]
    kv.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kv.push(0, nd.ones(3))
    kv.push(0, nd.ones(3))
    kv.pull(0, out=w)
    # mom = -0.1, then -0.09 - 0.1: w = x - 0.1 - 0.19
    np.testing.assert_allclose(w.asnumpy(), [0.71, 1.71, 2.71], rtol=1e-6)
    f = str(tmp_path / "kv.states")
    kv.save_optimizer_states(f)
    kv2 = mx.kv.create("local")
    kv2.init(0, w)
    kv2.set_optimizer(mx.optimizer.SGD(learning_rate=0.1, momentum=0.9))
    kv2.load_optimizer_states(f)
    kv.push(0, nd.ones(3))
    kv2.push(0, nd.ones(3))
    a, b = nd.zeros(3), nd.zeros(3)
    kv.pull(0, out=a)
    kv2.pull(0, out=b)
    np.testing.assert_array_equal(a.asnumpy(), b.asnumpy())
    kv.barrier()
    kv._barrier()


def test_kvstore_errors():
    kv = mx.kv.create("local")
    with pytest.raises(KVStoreError, match="key 'x' has not been initialized"):
        kv.push("x", nd.ones(2))
    kv.init("x", nd.ones(2))
    with pytest.raises(KVStoreError, match="already initialized"):
        kv.init("x", nd.ones(2))
    with pytest.raises(KVStoreError, match="2 keys but 1 values"):
        kv.push(["x", "y"], [nd.ones(2)])
    with pytest.raises(ShapeError, match="has shape"):
        kv.push("x", nd.ones(3))
    with pytest.raises(ShapeError, match="one shape"):
        kv.push("x", [nd.ones(2), nd.ones(3)])
    with pytest.raises(TypeError, match="NDArrays"):
        kv.push("x", np.ones(2))
    with pytest.raises(KVStoreError, match="int or str"):
        kv.init(1.5, nd.ones(2))
    with pytest.raises(KVStoreError, match="out="):
        kv.pull("x")
    with pytest.raises(StateError, match="set_optimizer"):
        kv.save_optimizer_states("unused")
    with pytest.raises(MXNetError, match="compression"):
        kv.set_gradient_compression({"type": "2bit"})


def test_dist_without_mpi_says_how_to_install(monkeypatch):
    monkeypatch.setattr(_comm, "_world", [])
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.delitem(sys.modules, "mpi4py.MPI", raising=False)
    with pytest.raises(DistUnavailableError, match=r"pip install 'mxgrad\[dist\]'"):
        mx.kv.create("dist_sync")
    with pytest.raises(ImportError):
        gluon.Trainer(gluon.nn.Dense(1, in_units=1).collect_params(), "sgd",
                      kvstore="dist_sync")


def test_dist_async_warns_and_runs_synchronously(monkeypatch):
    monkeypatch.setattr(_comm, "_world", [_comm.LocalComm()])
    with pytest.warns(UserWarning, match="synchronous"):
        kv = mx.kv.create("dist_async")
    assert (kv.type, kv.rank, kv.num_workers) == ("dist_async", 0, 1)


def test_fixed_order_allreduce_layout():
    """The reduce-scatter + all-gather of MPIComm on a buffer that does not split evenly
    (7 floats, 3 ranks: padded chunks of 3), with fake collectives for 3 identical
    ranks: rank 0 adds chunk 0 of every rank."""
    class FakeMPI:
        def Alltoall(self, send, recv):
            recv[...] = send[0]            # each identical rank sends rank 0 its chunk 0

        def Allgather(self, part, out):
            out.reshape(3, -1)[...] = part   # every rank's summed part equals rank 0's

    comm = _comm.MPIComm.__new__(_comm.MPIComm)
    comm._comm, comm.rank, comm.size, comm._scratch = FakeMPI(), 0, 3, {}
    buf = np.arange(7, dtype=np.float32)
    comm.allreduce_(buf)
    assert buf.tolist() == [0.0, 3.0, 6.0, 0.0, 3.0, 6.0, 0.0]


# ------------------------------------------------------------------ contexts
CTX = [mx.cpu(0), mx.cpu(1)]


def _net(ctx=CTX, **kw):
    net = gluon.nn.Sequential()
    net.add(gluon.nn.Dense(4, activation="relu", in_units=3), gluon.nn.Dense(2, in_units=4))
    net.initialize(mx.init.Xavier(), ctx=ctx, **kw)
    return net


def test_parameter_keeps_one_copy_per_context():
    mx.random.seed(0)
    net = _net()
    w = net[0].weight
    assert w.list_ctx() == CTX and len(w.list_data()) == 2 and len(w.list_grad()) == 2
    a, b = w.list_data()
    assert a is not b and np.array_equal(a.asnumpy(), b.asnumpy())
    assert w.data(mx.cpu(1)) is b and w.data() is a
    with mx.cpu(1):
        assert w.data() is b
    with pytest.raises(StateError, match="not initialized on context cpu\\(2\\)"):
        w.data(mx.cpu(2))
    w.set_data(nd.ones((4, 3)))
    assert all(x.asnumpy().sum() == 12 for x in w.list_data())


def test_per_device_backward_fills_each_copy():
    """grad_req 'write' with one backward per device keeps every device's gradient."""
    mx.random.seed(0)
    net = _net()
    x = nd.array(np.random.default_rng(0).standard_normal((6, 3)))
    xs = gluon.utils.split_and_load(x, CTX)
    assert [gluon.utils.placed_context(s) for s in xs] == CTX
    for s in xs:
        with autograd.record():
            loss = net(s).sum()
        loss.backward()
    g0, g1 = (g.asnumpy() for g in net[0].weight.list_grad())
    # the same gradients from a single-context net, shard by shard
    ref = _net(ctx=[mx.cpu()])
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        p.set_data(q.data())
    expect = []
    for s in xs:
        with autograd.record():
            loss = ref(nd.array(s.asnumpy())).sum()
        loss.backward()
        expect.append(ref[0].weight.grad().asnumpy())
    np.testing.assert_allclose(g0, expect[0], rtol=1e-6)
    np.testing.assert_allclose(g1, expect[1], rtol=1e-6)
    assert not np.allclose(g0, g1)
    net.collect_params().zero_grad()
    assert all(g.asnumpy().sum() == 0 for g in net[0].weight.list_grad())


def _train(ctx, opt, optp, kvstore="device", upd=None, split=False, steps=3):
    mx.random.seed(3)
    net = _net(ctx=ctx)
    tr = gluon.Trainer(net.collect_params(), opt, dict(optp), kvstore=kvstore,
                       update_on_kvstore=upd)
    rng = np.random.default_rng(0)
    for _ in range(steps):
        x = nd.array(rng.standard_normal((6, 3)))
        y = nd.array(rng.standard_normal((6, 2)))
        xs, ys = gluon.utils.split_and_load(x, ctx), gluon.utils.split_and_load(y, ctx)
        with autograd.record():
            losses = [((net(a) - b) ** 2).sum() for a, b in zip(xs, ys)]
        autograd.backward(losses)
        if split:
            tr.allreduce_grads()
            tr.update(6)
        else:
            tr.step(6)
    return net, tr


@pytest.mark.parametrize("opt,optp", [("sgd", {"learning_rate": 0.1}),
                                      ("sgd", {"learning_rate": 0.1, "momentum": 0.9}),
                                      ("adam", {"learning_rate": 0.01})])
@pytest.mark.parametrize("upd,split", [(None, False), (True, False), (False, False),
                                       (False, True)])
def test_several_contexts_train_like_one(opt, optp, upd, split):
    ref, _ = _train([mx.cpu()], opt, optp)
    net, tr = _train(CTX, opt, optp, upd=upd, split=split)
    assert tr._kvstore is not None and tr._update_on_kvstore == (upd is not False)
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        for replica in q.list_data():
            np.testing.assert_allclose(replica.asnumpy(), p.data().asnumpy(), rtol=1e-6,
                                       atol=1e-7)


def test_update_on_kvstore_forbids_split_step():
    net, tr = _train(CTX, "sgd", {"learning_rate": 0.1}, upd=True, steps=1)
    with pytest.raises(StateError, match="update_on_kvstore"):
        tr.allreduce_grads()
    with pytest.raises(StateError, match="update_on_kvstore"):
        tr.update(6)
    with pytest.raises(AssertionError):   # what MXNet 1.9.1 raises there (its tests expect it)
        tr.update(6)


def test_no_kvstore_updates_each_copy_with_its_own_gradient():
    net, tr = _train(CTX, "sgd", {"learning_rate": 0.1}, kvstore=None, steps=1)
    assert tr._kvstore is None
    a, b = net[0].weight.list_data()
    assert not np.allclose(a.asnumpy(), b.asnumpy())


def test_stale_copy_is_named():
    mx.random.seed(0)
    net = _net()
    tr = gluon.Trainer(net.collect_params(), "sgd")
    xs = gluon.utils.split_and_load(nd.ones((4, 3)), CTX)
    with autograd.record():
        loss = net(xs[0]).sum()        # only cpu(0)'s copy gets a gradient
    loss.backward()
    with pytest.raises(gluon.trainer.StaleGradientError, match="context cpu\\(1\\)"):
        tr.step(4)


def test_trainer_argument_errors():
    params = _net().collect_params()
    with pytest.raises(StateError, match="compression"):
        gluon.Trainer(params, "sgd", compression_params={"type": "2bit"})
    with pytest.raises(TypeError, match="kvstore"):
        gluon.Trainer(params, "sgd", kvstore=3)


def test_reset_ctx_and_load_into_several_contexts(tmp_path):
    net = _net(ctx=[mx.cpu()])
    f = str(tmp_path / "n.params")
    net.save_parameters(f)
    net2 = gluon.nn.Sequential()
    net2.add(gluon.nn.Dense(4, activation="relu", in_units=3),
             gluon.nn.Dense(2, in_units=4))
    net2.load_parameters(f, ctx=CTX)
    for p, q in zip(net.collect_params().values(), net2.collect_params().values()):
        assert q.list_ctx() == CTX
        for c in q.list_data():
            np.testing.assert_array_equal(c.asnumpy(), p.data().asnumpy())
    net.collect_params().reset_ctx(CTX)
    assert len(net[0].weight.list_data()) == 2


def test_saving_copies_that_differ_saves_their_mean(tmp_path):
    """BatchNorm's running statistics differ per context; a saved file holds their mean
    (as MXNet's _reduce), equal copies are saved unchanged."""
    net = gluon.nn.BatchNorm(in_channels=2)
    net.initialize(ctx=CTX)
    xs = gluon.utils.split_and_load(nd.array([[0.0, 1.0], [2.0, 3.0], [4.0, 9.0],
                                              [6.0, 7.0]]), CTX)
    with autograd.record():
        for s in xs:
            net(s)
    a, b = (c.asnumpy() for c in net.running_mean.list_data())
    assert not np.allclose(a, b)
    f = str(tmp_path / "bn.params")
    net.save_parameters(f)
    saved = nd.load(f)
    np.testing.assert_allclose(saved["running_mean"].asnumpy(), (a + b) / 2, rtol=1e-6)
    np.testing.assert_array_equal(saved["gamma"].asnumpy(), net.gamma.data().asnumpy())


# ------------------------------------------------------------------ sampler, launcher
def test_split_sampler_parts_cover_the_data():
    parts = [sorted(gluon.data.SplitSampler(11, 3, i)) for i in range(3)]
    assert parts == [[0, 1, 2], [3, 4, 5], [6, 7, 8]]
    assert len(gluon.data.SplitSampler(11, 3, 2)) == 3
    with pytest.raises(StateError, match="part_index"):
        gluon.data.SplitSampler(10, 2, 2)


def test_launcher_command(monkeypatch):
    from mxgrad import launch
    cmd = launch.build_command(["-n", "4", "-H", "a,b", "train.py", "--lr", "0.1"],
                               mpiexec="/x/mpiexec")
    assert cmd == ["/x/mpiexec", "-n", "4", "-hosts", "a,b", sys.executable, "-m",
                   "mxgrad.launch", "--run", "train.py", "--lr", "0.1"]
    with pytest.raises(MXNetError, match="at least 1"):
        launch.build_command(["-n", "0", "t.py"], mpiexec="m")
    monkeypatch.setattr(launch.sys, "executable", "/nonexistent/python")
    monkeypatch.setattr(launch.sysconfig, "get_path", lambda _: "/nonexistent")
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(FileNotFoundError, match=r"mxgrad\[dist\]"):
        launch.find_mpiexec()


@pytest.mark.parametrize("make", [lambda: mx.kv.create("local"), lambda: "horovod"])
def test_kvstore_instance_or_horovod_on_one_context(make, monkeypatch):
    monkeypatch.setattr(_comm, "_world", [_comm.LocalComm()])   # 1 worker, no MPI needed
    ref, _ = _train([mx.cpu()], "adam", {"learning_rate": 0.01}, kvstore=None)
    net, tr = _train([mx.cpu()], "adam", {"learning_rate": 0.01}, kvstore=make())
    assert tr._kvstore is not None
    assert tr._update_on_kvstore == (tr._kvstore.type != "horovod")
    for p, q in zip(ref.collect_params().values(), net.collect_params().values()):
        np.testing.assert_array_equal(q.data().asnumpy(), p.data().asnumpy())
    with pytest.raises(StateError, match="horovod"):
        gluon.Trainer(net.collect_params(), "sgd", kvstore="horovod",
                      update_on_kvstore=True)


def _train_mlp(kvstore, steps, mutate=None):
    mx.random.seed(3)
    net = gluon.nn.Dense(4, in_units=3)
    net.initialize(mx.init.Xavier())
    trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1,
                                                          "momentum": 0.9},
                            kvstore=kvstore, update_on_kvstore=False)
    x = nd.array(np.arange(15.0).reshape(5, 3) / 10)
    for i in range(steps):
        if mutate is not None and i == 2:
            mutate(net)
        with autograd.record():
            loss = (net(x) ** 2).sum()
        loss.backward()
        trainer.step(5)
    return net, trainer


def test_dist_trainer_reduces_gradients_in_fused_buffers():
    pytest.importorskip("mpi4py", reason="the dist extra is not installed")
    net, trainer = _train_mlp("dist_sync", 4)
    ref, _ = _train_mlp(None, 4)
    for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
        np.testing.assert_allclose(p.data().asnumpy(), q.data().asnumpy(), rtol=1e-6)
    # the gradients are views of one buffer (no packing), and stay so across backwards
    (flat,) = trainer._buckets
    assert all(np.shares_memory(p.grad()._data, flat)
               for p in net.collect_params().values())
    # a parameter whose gradient buffer is replaced (cast, re-initialization) is
    # noticed: the buckets are rebuilt and training stays exact
    for mutate in (lambda n: n.collect_params().initialize(mx.init.One(), force_reinit=True),
                   lambda n: n.weight.zero_grad()):
        net, trainer = _train_mlp("dist_sync", 5, mutate)
        ref, _ = _train_mlp(None, 5, mutate)
        for p, q in zip(net.collect_params().values(), ref.collect_params().values()):
            np.testing.assert_allclose(p.data().asnumpy(), q.data().asnumpy(), rtol=1e-6)
        assert all(np.shares_memory(p.grad()._data, trainer._buckets[0])
                   for p in net.collect_params().values())


def test_collective_timeout_setting(monkeypatch):
    from mxgrad.kvstore._comm import timeout, DEFAULT_TIMEOUT
    monkeypatch.delenv("MXGRAD_KVSTORE_TIMEOUT", raising=False)
    assert timeout() == DEFAULT_TIMEOUT == 1800.0
    monkeypatch.setenv("MXGRAD_KVSTORE_TIMEOUT", "2.5")
    assert timeout() == 2.5
    monkeypatch.setenv("MXGRAD_KVSTORE_TIMEOUT", "0")
    assert timeout() == float("inf")
    for bad in ("fast", "-3"):
        monkeypatch.setenv("MXGRAD_KVSTORE_TIMEOUT", bad)
        with pytest.raises(mx.MXNetError) as info:
            timeout()
        assert isinstance(info.value, ValueError)
        assert "MXGRAD_KVSTORE_TIMEOUT" in str(info.value) and bad in str(info.value)


def test_mismatch_message_names_ranks_and_keys():
    from mxgrad.kvstore._comm import _mismatch_message
    msg = _mismatch_message(["push\nkey 0 (4,) float32", "push\nkey 1 (4,) float32",
                             "push\nkey 0 (4,) float32"])
    assert "value 0 of push: rank 0 has key 0 (4,) float32 but rank 1 has key 1" in msg
    assert "rank 2" not in msg
