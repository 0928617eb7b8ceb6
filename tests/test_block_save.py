"""Block.save(prefix) / Block.load(prefix) as MXNet 1.9.1: the JSON layout equals what MXNet
writes for the same network (tests/data/mxnet/block_save by
tools/make_block_save_fixtures.py), MXNet's files load into mxgrad (same output), and
mxgrad's files load back into a freshly built network."""
import json
import os

import numpy as np
import pytest

import mxgrad as mx
from mxgrad.base import FileFormatError, FileMissingError

import block_save_net

DATA = os.path.join(os.path.dirname(__file__), "data", "mxnet", "block_save")


def build():
    return block_save_net.build(mx.gluon.nn)


def _fresh_names():
    """Build the network where MXNet's automatic names started from 0, as in the fixture."""
    with mx.name.NameManager():
        return build()


def _strip(d):
    """The JSON without the traced graph's text (its node layout is the exporter's)."""
    return {k: _strip(v) if isinstance(v, dict) else v for k, v in d.items()
            if k not in ("symbol", "inputs")}


def test_layout_equals_mxnets(tmp_path):
    net = _fresh_names()
    net.initialize()
    net.save(str(tmp_path / "plain"))
    with open(tmp_path / "plain-model.json") as f, \
            open(os.path.join(DATA, "plain-model.json")) as g:
        assert json.load(f) == json.load(g)
    net.hybridize()
    net(mx.nd.ones((2, 3)))
    net.save(str(tmp_path / "net"))
    with open(tmp_path / "net-model.json") as f, open(os.path.join(DATA, "net-model.json")) as g:
        ours, theirs = json.load(f), json.load(g)
    assert _strip(ours) == _strip(theirs)
    top = ours["hybridsequential0"]
    assert top["hybridized"] is True and top["in_format"] == [0] and top["out_format"] == 0
    assert mx.sym.load_json(top["symbol"]).list_arguments()[0] == "data"


def test_mxnets_files_load():
    io = np.load(os.path.join(DATA, "io.npz"))
    net = build()                    # other automatic names: load gives the saved ones
    net.load(os.path.join(DATA, "net"))
    assert net.name == "hybridsequential0"
    assert net[1][0].name == "hybridsequential0_hybridsequential0_dense0"
    assert list(net[1]._children) == ["0", "1"]
    assert "hybridsequential0_dense0_weight" in net[0].params.keys()
    assert net._active and not net[0]._active
    np.testing.assert_allclose(net(mx.nd.array(io["x"])).asnumpy(), io["y"], rtol=1e-6,
                               atol=1e-7)


def test_roundtrip_and_errors(tmp_path):
    net = build()
    net.initialize(mx.init.Uniform(0.3))
    net.hybridize()
    x = mx.nd.array(np.random.default_rng(0).normal(size=(3, 3)))
    y = net(x).asnumpy()
    prefix = str(tmp_path / "m")
    net.save(prefix)
    net2 = build()
    net2.load(prefix)
    assert net2.name == net.name and net2[1][0].name == net[1][0].name
    np.testing.assert_array_equal(net2(x).asnumpy(), y)
    with pytest.raises(FileMissingError, match="nowhere-model.json"):
        net2.load(str(tmp_path / "nowhere"))
    other = mx.gluon.nn.HybridSequential()
    other.add(mx.gluon.nn.Dense(2, in_units=3))
    with pytest.raises(FileFormatError, match="hybridsequential0|dense"):
        mx.gluon.nn.Dense(2, in_units=3).load(prefix)
    (tmp_path / "bad-model.json").write_text("{not json")
    with pytest.raises(FileFormatError, match="not JSON"):
        other.load(str(tmp_path / "bad"))
