"""mx.viz: DOT source of recorded graphs and Blocks (labels, shapes, edges, clusters,
saved values), rendering with and without Graphviz's `dot`, the missing-package error,
and print_summary's table."""
import json
import os
import re
import shutil
import sys

import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import GraphError, MXNetError, ShapeError
from mxgrad.gluon import nn
from mxgrad.viz import plot as viz_plot

graphviz = pytest.importorskip("graphviz")   # the test extra installs it


def nodes(source):
    """{node id: label} of the DOT source (labels with their \\n escapes)."""
    found = re.findall(r'^\s*(\w+) \[label=(?:"([^"]*)"|([^" ]+))', source, re.M)
    return {name: quoted or bare for name, quoted, bare in found}


def edges(source):
    """[(tail, head, label)] in order."""
    return [(a, b, lab) for a, b, lab in
            re.findall(r'^\s*(\w+) -> (\w+) \[label="?([^" ]*)"?', source, re.M)]


def small_graph():
    x = nd.array([[1., 2., 3.], [4., 5., 6.]]); x.attach_grad()
    w = nd.array([[0.5, -1., 2.]]); w.attach_grad(grad_req="add")
    with autograd.record():
        y = (x * w).exp().sum()
    return x, w, y


def test_recorded_graph_nodes_edges_and_shapes():
    x, w, y = small_graph()
    dot = mx.viz.plot_network(y, names={"x": x, "w": w})
    assert isinstance(dot, graphviz.Digraph)
    src = dot.source
    assert src.startswith("digraph plot {")
    assert nodes(src) == {
        "x": r"x\n2x3\ngrad_req=write",
        "w": r"w\n1x3\ngrad_req=add",
        "multiply0": r"multiply\n2x3",
        "exp0": r"exp\n2x3",
        "sum0": r"sum\n1",
    }
    # op -> input, drawn backwards (data flows up), labelled with the input's shape
    assert edges(src) == [("multiply0", "x", "2x3"), ("multiply0", "w", "1x3"),
                          ("exp0", "multiply0", "2x3"), ("sum0", "exp0", "2x3")]
    assert src.count("dir=back") == 4 and 'shape=oval' in src


def test_unnamed_variables_and_reused_input():
    a = nd.ones((3,)); a.attach_grad()
    with autograd.record():
        y = a * a + a
    src = mx.viz.plot_network([y], title="g").source
    assert src.startswith("digraph g {")
    assert nodes(src)["var0"] == r"var0\n3\ngrad_req=write"
    # a is used three times: three edges to the one variable node
    assert [e for e in edges(src) if e[1] == "var0"] == [
        ("multiply0", "var0", "3"), ("multiply0", "var0", "3"), ("add0", "var0", "3")]


def test_multi_output_edges_name_the_output():
    x = nd.arange(6).reshape((2, 3)); x.attach_grad()
    with autograd.record():
        a, b = nd.split(x, num_outputs=2, axis=0)
        y = a * b
    src = mx.viz.plot_network(y, names={"x": x}).source
    assert nodes(src)["split0"] == r"split\n1x3, 1x3"
    assert ("multiply0", "split0", "1x3") in edges(src)
    assert 'multiply0 -> split0 [label="out1: 1x3"' in src


def test_saved_values_and_their_size_then_freed():
    x, w, y = small_graph()
    src = mx.viz.plot_network(y, names={"x": x, "w": w}, show_saved=True).source
    n = nodes(src)
    # multiply keeps both inputs (2x3 + 1x3 float32 = 36 bytes), exp its output (24 bytes)
    assert n["multiply0"] == r"multiply\n2x3\nsaved: 2 (36 B)"
    assert n["exp0"] == r"exp\n2x3\nsaved: 1 (24 B)"
    assert n["sum0"] == r"sum\n1"                 # needs only the input shape
    assert "saved: 2x3 float32, 1x3 float32" in src   # tooltip lists them
    y.backward()
    n = nodes(mx.viz.plot_network(y, names={"x": x, "w": w}, show_saved=True).source)
    assert n["multiply0"] == r"multiply\n2x3\nsaved: freed"
    big = nd.ones((16, 48)); big.attach_grad()
    with autograd.record():
        z = big.exp()                             # keeps its 3072-byte output
    n = nodes(mx.viz.plot_network(z, show_saved=True).source)
    assert n["exp0"] == r"exp\n16x48\nsaved: 1 (3.0 KB)"


def test_names_from_parameter_dict_and_hide_weights():
    net = nn.Dense(2, in_units=3); net.initialize()
    x = nd.ones((4, 3))
    with autograd.record():
        loss = gluon.loss.L2Loss()(net(x), nd.zeros((4, 2)))
    shown = nodes(mx.viz.plot_network(loss, names=net.collect_params(),
                                      hide_weights=False).source)
    assert shown[net.weight.name] == net.weight.name + r"\n2x3\ngrad_req=write"
    assert shown[net.bias.name] == net.bias.name + r"\n2\ngrad_req=write"
    assert shown["fullyconnected0"] == r"FullyConnected\n4x2"
    hidden = mx.viz.plot_network(loss, names=net.collect_params()).source
    assert net.weight.name not in hidden and "fullyconnected0" in hidden
    assert not any(e[1] == net.weight.name for e in edges(hidden))


def test_unrecorded_array_is_a_clear_error():
    with pytest.raises(GraphError, match="not recorded"):
        mx.viz.plot_network(nd.ones((2,)))
    with pytest.raises(TypeError, match="plot_network draws"):
        mx.viz.plot_network("net")


def mlp():
    net = nn.HybridSequential()
    net.add(nn.Dense(4, activation="relu", in_units=3), nn.BatchNorm(in_channels=4),
            nn.Dropout(0.5), nn.Dense(2, in_units=4))
    net.initialize()
    return net


def test_block_clusters_per_layer_and_state_left_alone():
    net = mlp()
    before = {k: p.data().asnumpy().copy() for k, p in net.collect_params().items()}
    src = mx.viz.plot_network(net, shape=(5, 3)).source
    after = {k: p.data().asnumpy() for k, p in net.collect_params().items()}
    for k in before:    # running statistics too
        np.testing.assert_array_equal(before[k], after[k])
    n = nodes(src)
    assert n == {"data": r"data\n5x3\ngrad_req=write",
                 "fullyconnected0": r"FullyConnected\n5x4", "relu0": r"relu\n5x4",
                 "batchnorm0": r"BatchNorm\n5x4", "dropout0": r"Dropout\n5x4",
                 "fullyconnected1": r"FullyConnected\n5x2"}
    assert edges(src) == [("fullyconnected0", "data", "5x3"), ("relu0", "fullyconnected0", "5x4"),
                          ("batchnorm0", "relu0", "5x4"), ("dropout0", "batchnorm0", "5x4"),
                          ("fullyconnected1", "dropout0", "5x4")]
    dense0, act, bn, drop, dense1 = (net[0].name, net[0].act.name, net[1].name, net[2].name,
                                     net[3].name)
    labels = re.findall(r'label="(\w+) \((\w+)\)"', src)
    assert labels == [(dense0, "Dense"), (act, "Activation"), (bn, "BatchNorm"),
                      (drop, "Dropout"), (dense1, "Dense")]
    # the activation's cluster is nested in its Dense layer's cluster
    block = src[src.index(f'label="{dense0} (Dense)"'):]
    assert block.index(f'label="{act} (Activation)"') < block.index("}")
    # the plotted Sequential itself gets no frame
    assert "HybridSequential" not in src


def test_block_with_weights_deferred_init_and_named_input():
    net = nn.Dense(3)          # in_units unknown until the first call
    net.initialize()
    src = mx.viz.plot_network(net, shape={"pixels": (2, 5)}, hide_weights=False).source
    n = nodes(src)
    assert n["pixels"] == r"pixels\n2x5\ngrad_req=write"
    assert n[net.weight.name] == net.weight.name + r"\n3x5\ngrad_req=write"
    assert n["fullyconnected0"] == r"FullyConnected\n2x3"
    assert net.weight.shape == (3, 5)


def test_block_needs_a_shape():
    with pytest.raises(ShapeError, match="shape="):
        mx.viz.plot_network(mlp())
    with pytest.raises(ShapeError, match="positive integers"):
        mx.viz.plot_network(mlp(), shape=(5, -1))


class FakeSymbol:
    """An object with MXNet's Symbol.tojson() (the JSON a real MXNet 1.9.1 writes)."""

    conf = {"nodes": [
        {"op": "null", "name": "data", "inputs": []},
        {"op": "null", "name": "fc1_weight", "inputs": []},
        {"op": "null", "name": "fc1_bias", "inputs": []},
        {"op": "FullyConnected", "name": "fc1", "attrs": {"num_hidden": "8"},
         "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]},
        {"op": "Activation", "name": "relu1", "attrs": {"act_type": "relu"},
         "inputs": [[3, 0, 0]]}],
        "arg_nodes": [0, 1, 2], "heads": [[4, 0, 0]]}

    def tojson(self):
        return json.dumps(self.conf)


def test_symbol_json():
    src = mx.viz.plot_network(FakeSymbol(), title="sym").source
    assert nodes(src) == {"data": "data", "fc1": r"FullyConnected\n8",
                          "relu1": r"Activation\nrelu"}
    assert re.findall(r"(\w+) -> (\w+)", src) == [("fc1", "data"), ("relu1", "fc1")]


def test_render_or_clear_message():
    x, w, y = small_graph()
    dot = mx.viz.plot_network(y, names={"x": x, "w": w}, save_format="svg")
    if shutil.which("dot"):
        svg = dot.pipe(format="svg").decode()
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert ">multiply<" in svg and ">grad_req=add<" in svg
        bundle = dot._repr_mimebundle_()
        assert "image/svg+xml" in bundle
    else:
        with pytest.raises(mx.viz.DotNotFoundError, match="apt-get install graphviz"):
            dot.pipe(format="svg")


def test_render_to_file(tmp_path):
    dot = mx.viz.plot_network(mlp(), shape=(1, 3), save_format="svg", title="mlp")
    if shutil.which("dot"):
        path = dot.render(directory=str(tmp_path))
        assert path.endswith("mlp.gv.svg") and os.path.getsize(path) > 1000
        assert "FullyConnected" in open(path).read()
    else:
        with pytest.raises(mx.viz.DotNotFoundError):
            dot.render(directory=str(tmp_path))


def test_missing_dot_program(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))   # an empty folder: no `dot` anywhere
    assert not mx.viz.has_dot()
    x, w, y = small_graph()
    dot = mx.viz.plot_network(y, names={"x": x, "w": w})
    with pytest.raises(mx.viz.DotNotFoundError) as err:
        dot.pipe(format="svg")
    msg = str(err.value)
    assert "`dot` program" in msg and "sudo apt-get install graphviz" in msg
    assert "brew install graphviz" in msg and ".source" in msg
    assert isinstance(err.value, MXNetError) and isinstance(err.value, RuntimeError)
    with pytest.raises(mx.viz.DotNotFoundError):
        dot.render(directory=str(tmp_path))
    # Jupyter's display falls back to the message and the DOT text
    bundle = dot._repr_mimebundle_()
    assert list(bundle) == ["text/plain"]
    assert "apt-get install graphviz" in bundle["text/plain"]
    assert bundle["text/plain"].endswith(dot.source)
    assert nodes(dot.source)["exp0"] == r"exp\n2x3"


def test_missing_graphviz_package(monkeypatch):
    monkeypatch.setitem(sys.modules, "graphviz", None)    # import graphviz fails
    monkeypatch.setattr(viz_plot, "_digraph_class", [])
    x, w, y = small_graph()
    with pytest.raises(mx.viz.MissingExtraError, match=r"mxgrad\[viz\]") as err:
        mx.viz.plot_network(y)
    assert isinstance(err.value, ImportError) and "apt-get install graphviz" in str(err.value)


def test_node_attrs_override():
    x, w, y = small_graph()
    src = mx.viz.plot_network(y, node_attrs={"shape": "ellipse", "fontsize": "20"}).source
    assert re.search(r'exp0 \[label="[^"]*" .*fontsize=20 .*shape=ellipse', src)


def summary_text(capsys, *args, **kwargs):
    mx.viz.print_summary(*args, **kwargs)
    return capsys.readouterr().out.splitlines()


def test_print_summary_table(capsys):
    net = mlp()
    lines = summary_text(capsys, net, shape=(5, 3), line_length=80)
    rows = [l.split() for l in lines if l and l[0] not in "_="]
    assert rows[0] == ["Layer", "(type)", "Output", "Shape", "Param", "#", "Previous", "Layer"]
    d0, act, bn, drop, d1 = (net[0].name, net[0].act.name, net[1].name, net[2].name,
                             net[3].name)
    assert rows[1:7] == [["data(null)", "3", "0"],
                         [f"{d0}(Dense)", "4", "16", "data"],     # 4x3 + 4
                         [f"{act}(Activation)", "4", "0", d0],
                         [f"{bn}(BatchNorm)", "4", "16", act],    # gamma, beta, 2 running
                         [f"{drop}(Dropout)", "4", "0", bn],
                         [f"{d1}(Dense)", "2", "10", drop]]       # 2x4 + 2
    assert lines[-4:] == ["Total params: 42", "Trainable params: 34",
                          "Non-trainable params: 8", "_" * 80]
    assert lines[0] == "_" * 80 and lines[2] == "=" * 80
    assert all(len(l) <= 80 for l in lines)


class TwoInputs(gluon.Block):
    def __init__(self, **kwargs):
        super().__init__(**kwargs)
        with self.name_scope():
            self.a = nn.Dense(2, in_units=3)
            self.b = nn.Dense(2, in_units=4)

    def forward(self, x, y):
        return self.a(x) * self.b(y)


def test_print_summary_two_inputs_and_own_ops(capsys):
    net = TwoInputs(prefix="two_"); net.initialize()
    lines = summary_text(capsys, net, shape={"x": (1, 3), "y": (1, 4)})
    rows = [l.split() for l in lines if l and l[0] not in "_="][1:]
    assert rows[:4] == [["x(null)", "3", "0"], ["y(null)", "4", "0"],
                        ["two_dense0(Dense)", "2", "8", "x"],
                        ["two_dense1(Dense)", "2", "10", "y"]]
    # the block's own multiply: a row fed by both layers
    assert rows[4] == ["two(TwoInputs)", "2", "0", "two_dense0"]
    assert rows[5] == ["two_dense1"]
    assert "Total params: 18" in lines
    # and the picture draws the two inputs into the product
    src = mx.viz.plot_network(net, shape={"x": (1, 3), "y": (1, 4)}).source
    assert ("multiply0", "fullyconnected0", "1x2") in edges(src)
    assert ("multiply0", "fullyconnected1", "1x2") in edges(src)


def test_print_summary_needs_a_block():
    with pytest.raises(TypeError, match="Block"):
        mx.viz.print_summary(FakeSymbol(), shape={"data": (1, 3)})
