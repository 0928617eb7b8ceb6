"""mx.profiler: per-op counts and times while running (MXNet's operator names for the
arithmetic operators), nothing when stopped or paused, MXNet's table and JSON layouts and
sort orders, the Chrome trace of ops and user ranges, and nothing left wrapped after stop."""
import json
import re

import pytest

import mxgrad as mx
from mxgrad import profiler
from mxgrad.base import MXNetError


@pytest.fixture
def prof(tmp_path):
    path = str(tmp_path / "profile.json")
    profiler.set_config(profile_all=True, aggregate_stats=True, filename=path)
    profiler.dumps(reset=True)
    yield path
    profiler.set_state("stop")
    profiler.dumps(reset=True)
    profiler.set_config(aggregate_stats=False, filename="profile.json")


def _ops():
    return json.loads(profiler.dumps(format="json"))["Time"].get("operator", {})


def test_counts_mxnet_names_and_backward(prof):
    profiler.set_state("run")
    inp = mx.nd.zeros(shape=(10, 10))
    mx.nd.sqrt(inp)
    inp = inp + 1
    inp = inp + 1
    x = mx.nd.ones((2, 2))
    x.attach_grad()
    with mx.autograd.record():
        y = (x * x).sum()
    y.backward()
    profiler.set_state("stop")
    ops = _ops()
    assert ops["sqrt"]["Count"] == 1 and ops["_plus_scalar"]["Count"] == 2
    assert ops["broadcast_mul"]["Count"] == 1 and ops["sum"]["Count"] == 1
    assert ops["_zeros"]["Count"] == 1 and ops["_ones"]["Count"] == 1
    assert any(name.startswith("_backward_") for name in ops)
    for row in ops.values():
        assert row["Min"] <= row["Avg"] <= row["Max"] and row["Total"] >= row["Max"]


def test_stopped_and_paused_record_nothing_and_stop_unwraps(prof):
    exp = mx.nd.exp
    profiler.set_state("run")
    assert mx.nd.exp is not exp                     # wrapped while running
    profiler.pause()
    mx.nd.exp(mx.nd.ones((1,)))
    profiler.resume()
    mx.nd.relu(mx.nd.ones((1,)))
    profiler.set_state("stop")
    mx.nd.tanh(mx.nd.ones((1,)))
    assert mx.nd.exp is exp
    assert not hasattr(mx.nd.NDArray.__add__, "__wrapped_by_profiler__")
    ops = _ops()
    assert "relu" in ops and "exp" not in ops and "tanh" not in ops


def test_nested_ops_count_once_and_gluon_layers_are_seen(prof):
    net = mx.gluon.nn.Dense(3, in_units=2)
    net.initialize()
    profiler.set_state("run")
    net(mx.nd.ones((4, 2)))
    profiler.set_state("stop")
    ops = _ops()
    assert ops["FullyConnected"]["Count"] == 1


def test_table_layout_and_sorting(prof):
    profiler.set_state("run")
    for _ in range(3):
        mx.nd.relu(mx.nd.ones((50, 50)))
    mx.nd.exp(mx.nd.ones((1,)))
    profiler.set_state("stop")
    table = profiler.dumps()
    lines = table.split("\n")
    assert lines[:3] == ["", "Profile Statistics:",
                         "\tNote the difference in units for different entries."]
    i = lines.index("operator")
    assert lines[i + 1] == "================="
    assert lines[i + 2] == ("Name                          Total Count        Time (ms)    "
                            "Min Time (ms)    Max Time (ms)    Avg Time (ms)")
    assert lines[i + 3] == ("----                          -----------        ---------    "
                            "-------------    -------------    -------------")
    row = next(l for l in lines if l.startswith("relu "))
    assert re.fullmatch(r"relu {21} {15}3( +\d+\.\d{4}){4}", row)
    for sort_by, key in (("count", "Count"), ("avg", "Avg"), ("max", "Max")):
        for asc in (False, True):
            d = json.loads(profiler.dumps(format="json", sort_by=sort_by, ascending=asc))
            values = [v[key] for v in d["Time"]["operator"].values()]
            assert values == sorted(values, reverse=not asc)
    with pytest.raises(MXNetError):
        profiler.dumps(format="xml")


def test_chrome_trace_and_user_ranges(prof):
    profiler.set_state("run")
    dom = profiler.Domain("PythonDomain")
    task = dom.new_task("work")
    task.start()
    mx.nd.exp(mx.nd.ones((3,)))
    task.stop()
    with profiler.Frame(dom, "frame"):
        pass
    counter = dom.new_counter("items", 5)
    counter += 2
    counter -= 1
    profiler.Marker(dom, "here").mark()
    profiler.Event("ev").start()
    profiler.set_state("stop")
    profiler.dump()
    trace = json.load(open(prof))
    evs = trace["traceEvents"]
    assert trace["displayTimeUnit"] == "ms"
    names = {(e.get("name"), e.get("ph")) for e in evs}
    assert {("exp", "B"), ("exp", "E"), ("work", "b"), ("work", "e"), ("frame", "("),
            ("frame", ")"), ("here", "n")} <= names
    assert [e["args"]["items"] for e in evs if e.get("ph") == "C"] == [5, 7, 6]
    begin = next(e for e in evs if e.get("name") == "exp" and e["ph"] == "B")
    end = next(e for e in evs if e.get("name") == "exp" and e["ph"] == "E")
    assert end["ts"] >= begin["ts"] and begin["cat"] == "operator"
    stats = json.loads(profiler.dumps(format="json"))["Time"]
    assert stats["PythonDomain"]["work"]["Count"] == 1
    assert stats["PythonDomain,frame"]["frame"]["Count"] == 1
    profiler.dump()                                   # finished: the next file starts afresh
    assert not [e for e in json.load(open(prof))["traceEvents"] if e.get("ph") == "B"]


def test_bad_configuration_is_refused():
    with pytest.raises(MXNetError, match="unknown option"):
        profiler.set_config(profile_everything=True)
    with pytest.raises(MXNetError, match="'run' or 'stop'"):
        profiler.set_state("go")
    with pytest.raises(MXNetError, match="worker"):
        profiler.set_state("run", profile_process="server")
