"""Gluon parameter files in MXNet's format: byte-identity with MXNet 1.9.1's
save_parameters / save_params / ParameterDict.save, and MXNet's loading rules."""
import os
import warnings

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import MXNetError
from mxgrad.gluon import nn

from test_io_mxnet import fixture, raw, values

NAMES = ["0.weight", "0.bias", "1.gamma", "1.beta", "1.running_mean", "1.running_var"]


def make_net(dtype="float32", init=True):
    net = nn.HybridSequential(prefix="net_")
    with net.name_scope():
        net.add(nn.Dense(3, in_units=4, dtype=dtype))
        net.add(nn.BatchNorm(in_channels=3))
    if init:
        net.initialize()
        for _, p in sorted(net.collect_params().items()):
            p.set_data(mx.nd.array(values("float32", p.shape)))
    return net


def check_values(net):
    for p in net.collect_params().values():
        np.testing.assert_array_equal(p.data().asnumpy(), values("float32", p.shape))


def test_writers_byte_identical_to_mxnet(tmp_path):
    net = make_net()
    f = str(tmp_path / "n.params")
    net.save_parameters(f)
    assert raw(f) == raw(fixture("net.params"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net.save_params(f)
    assert raw(f) == raw(fixture("net_legacy.params"))
    net.collect_params().save(f)
    assert raw(f) == raw(fixture("net_paramdict.params"))


@pytest.mark.parametrize("name", ["net.params", "net_legacy.params"])
def test_load_parameters_from_mxnet_files(name):
    net = make_net(init=False)
    net.load_parameters(fixture(name))            # initializes from the file
    check_values(net)
    net2 = make_net()
    for p in net2.collect_params().values():
        p.set_data(p.data() * 0)
    net2.load_parameters(fixture(name))
    check_values(net2)


def test_paramdict_and_module_files():
    net = make_net(init=False)
    net.collect_params().load(fixture("net_paramdict.params"))
    check_values(net)
    fc = nn.Dense(3, in_units=4, prefix="fc_")
    with pytest.raises(MXNetError, match="bn_moving_mean"):
        fc.collect_params().load(fixture("module-0003.params"))
    fc.collect_params().load(fixture("module-0003.params"), ignore_extra=True)
    np.testing.assert_array_equal(fc.weight.data().asnumpy(), values("float32", (3, 4)))
    loaded = mx.nd.load(fixture("module-0003.params"))
    fc3 = nn.Dense(3, in_units=4, prefix="fc_")
    fc3.collect_params().load_dict(loaded, ignore_extra=True)
    np.testing.assert_array_equal(fc3.weight.data().asnumpy(), values("float32", (3, 4)))
    fc4 = nn.Dense(3, in_units=4, prefix="fc_")     # list of pairs: no arg: stripping
    fc4.collect_params().load_dict([("fc_weight", loaded["arg:fc_weight"]),
                                    ("fc_bias", loaded["arg:fc_bias"])])
    np.testing.assert_array_equal(fc4.bias.data().asnumpy(), values("float32", (3,)))
    with pytest.raises(TypeError, match="param_dict"):
        fc4.collect_params().load_dict({"fc_weight": [1, 2]})


def test_missing_extra_and_shape_errors_name_the_parameter(tmp_path):
    small = nn.HybridSequential(prefix="net_")
    with small.name_scope():
        small.add(nn.Dense(3, in_units=4))
    with pytest.raises(ValueError, match="1.gamma.*ignore_extra") as info:
        small.load_parameters(fixture("net.params"))
    assert isinstance(info.value, MXNetError)
    small.load_parameters(fixture("net.params"), ignore_extra=True)
    np.testing.assert_array_equal(small[0].weight.data().asnumpy(), values("float32", (3, 4)))
    big = make_net(init=False)
    with big.name_scope():
        big.add(nn.Dense(2, in_units=3))
    with pytest.raises(AssertionError, match="2.weight.*allow_missing"):
        big.load_parameters(fixture("net.params"))
    big.load_parameters(fixture("net.params"), allow_missing=True)
    wrong = nn.HybridSequential(prefix="net_")
    with wrong.name_scope():
        wrong.add(nn.Dense(5, in_units=4), nn.BatchNorm(in_channels=3))
    wrong.initialize()
    before = wrong[1].gamma.data().asnumpy().copy()
    with pytest.raises(MXNetError, match="0.weight"):
        wrong.load_parameters(fixture("net.params"))
    np.testing.assert_array_equal(wrong[1].gamma.data().asnumpy(), before)  # untouched


def test_cast_dtype_and_dtype_source():
    net = make_net("float64", init=False)
    with pytest.raises(TypeError, match="0.weight.*cast_dtype"):
        net.load_parameters(fixture("net.params"))
    net.load_parameters(fixture("net.params"), cast_dtype=True)
    assert net[0].weight.data().dtype == np.float64
    np.testing.assert_array_equal(net[0].weight.data().asnumpy(), values("float32", (3, 4)))
    net = make_net("float64", init=False)
    net.load_parameters(fixture("net.params"), cast_dtype=True, dtype_source="saved")
    assert net[0].weight.data().dtype == np.float32 and net[0].weight.dtype == np.float32
    net = make_net("float64", init=False)
    net.collect_params().load(fixture("net_paramdict.params"), cast_dtype=True,
                              dtype_source="saved")
    assert net[0].weight.data().dtype == np.float32
    # an initialized parameter takes the saved dtype too (and keeps a gradient of it)
    net = make_net("float64", init=False)
    net.initialize()
    net.load_parameters(fixture("net.params"), cast_dtype=True, dtype_source="current")
    assert net[0].weight.data().dtype == np.float64
    net.load_parameters(fixture("net.params"), cast_dtype=True, dtype_source="saved")
    assert net[0].weight.data().dtype == np.float32 and net[0].weight.dtype == np.float32
    assert net[0].weight.grad().dtype == np.float32
    np.testing.assert_array_equal(net[0].weight.data().asnumpy(), values("float32", (3, 4)))
    with pytest.raises(ValueError, match="dtype_source"):
        net.load_parameters(fixture("net.params"), cast_dtype=True, dtype_source="file")
    with pytest.raises(ValueError, match="dtype_source"):
        net.collect_params().load(fixture("net_paramdict.params"), dtype_source="x")


def test_empty_net_and_list_files(tmp_path):
    f = str(tmp_path / "e.params")
    empty = nn.HybridSequential()
    empty.save_parameters(f)
    empty.load_parameters(f)
    net = make_net(init=False)
    with pytest.raises(AssertionError, match="missing"):
        net.load_parameters(f)
    with pytest.raises(MXNetError, match="unnamed"):
        net.load_parameters(fixture("list_float32.nd"))


def test_save_parameters_is_atomic_and_validated(tmp_path):
    f = tmp_path / "n.params"
    f.write_bytes(b"old")
    net = make_net(init=False)       # not initialized: saving fails before writing
    with pytest.raises(MXNetError):
        net.save_parameters(str(f))
    assert f.read_bytes() == b"old"
    assert os.listdir(tmp_path) == ["n.params"]


def test_shared_parameters_and_deduplicate_byte_identical(tmp_path):
    shared = nn.HybridSequential(prefix="s_")
    with shared.name_scope():
        d0 = nn.Dense(2, in_units=2)
        shared.add(d0, nn.Dense(2, in_units=2, params=d0.collect_params()),
                   nn.Dense(1, in_units=2))
    shared.initialize()
    for _, p in sorted(shared.collect_params().items()):
        p.set_data(mx.nd.array(values("float32", p.shape)))
    f = str(tmp_path / "s.params")
    shared.save_parameters(f, deduplicate=True)
    assert raw(f) == raw(fixture("shared_dedup.params"))
    assert list(mx.nd.load(f)) == ["1.weight", "1.bias", "2.weight", "2.bias"]
    shared.save_parameters(f)
    assert raw(f) == raw(fixture("shared.params"))
    for p in shared.collect_params().values():
        p.set_data(p.data() * 0)
    shared.load_parameters(fixture("shared_dedup.params"))   # one name is enough
    np.testing.assert_array_equal(shared[0].weight.data().asnumpy(),
                                  values("float32", (2, 2)))
