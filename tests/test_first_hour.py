"""Issue 23's smaller first-hour items: what a newcomer sees when printing objects, drawing
a loss, or misspelling a layer argument."""
import numpy as np
import pytest

import mxgrad as mx
from mxgrad import autograd, gluon, nd
from mxgrad.base import UnknownArgumentError


def test_parameter_reprs_spell_dtypes_one_way():
    net = gluon.nn.Dense(2, in_units=3, prefix="dense0_")
    net.initialize()
    assert repr(net.weight) == "Parameter dense0_weight (shape=(2, 3), dtype=float32)"
    assert repr(gluon.Parameter("p", shape=(2,), dtype="float16")) == \
        "Parameter p (shape=(2,), dtype=float16)"
    assert repr(gluon.Parameter("q", shape=(1,), dtype=np.float64)) == \
        "Parameter q (shape=(1,), dtype=float64)"
    assert repr(gluon.Constant("c", nd.ones((2,)))) == "Constant c (shape=(2,), dtype=float32)"


def test_trainer_and_metric_reprs_say_what_they_are():
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    t = gluon.Trainer(net.collect_params(), "adam", {"learning_rate": 0.01})
    assert repr(t) == "Trainer(Adam(learning_rate=0.01, wd=0.0), 2 parameters, kvstore='device')"
    t = gluon.Trainer(net.collect_params(), mx.optimizer.SGD(learning_rate=0.5), kvstore=None)
    assert repr(t) == "Trainer(SGD(learning_rate=0.5, wd=0.0), 2 parameters, kvstore=None)"
    acc = mx.metric.Accuracy()
    acc.update(labels=[nd.array([0, 1])], preds=[nd.array([[0.9, 0.1], [0.8, 0.2]])])
    assert repr(acc) == "Accuracy({'accuracy': 0.5})"
    assert str(acc) == "EvalMetric: {'accuracy': 0.5}"        # MXNet's str is kept
    assert repr(mx.metric.create(["acc", "ce"])) == \
        "CompositeEvalMetric({'accuracy': nan, 'cross-entropy': nan})"


def test_symbol_block_prints_its_graph():
    x = mx.sym.var("data")
    y = mx.sym.FullyConnected(mx.sym.relu(mx.sym.FullyConnected(x, num_hidden=4, name="fc1")),
                              num_hidden=2, name="fc2")
    blk = gluon.SymbolBlock(y, [x])
    assert str(blk) == ("SymbolBlock(\n  inputs: data\n  outputs: fc2_output\n"
                        "  ops: FullyConnected x2, relu\n  parameters: fc1_weight (deferred), "
                        "fc1_bias (deferred), fc2_weight (deferred), fc2_bias (deferred)\n)")
    blk.initialize()
    blk(nd.ones((1, 3)))
    assert "fc1_weight (4, 3), fc1_bias (4,), fc2_weight (2, 4), fc2_bias (2,)" in str(blk)


@pytest.mark.parametrize("make, words", [
    (lambda: gluon.nn.Dense(3, in_unit=4),
     "Dense got an unexpected keyword argument 'in_unit' (did you mean 'in_units'?)"),
    (lambda: gluon.nn.Conv2D(8, 3, in_channel=1),
     "Conv2D got an unexpected keyword argument 'in_channel' (did you mean 'in_channels'?)"),
    (lambda: gluon.nn.BatchNorm(axs=1), "BatchNorm got an unexpected keyword argument 'axs'"),
    (lambda: gluon.nn.Dense(3, zzz=1), "Dense got an unexpected keyword argument 'zzz'; "
                                       "Dense takes units, activation"),
])
def test_a_misspelt_layer_argument_names_the_layer_and_the_fix(make, words):
    with pytest.raises(UnknownArgumentError) as info:
        make()
    assert words in str(info.value) and "HybridBlock" not in str(info.value)
    assert isinstance(info.value, TypeError)


def test_forwarded_arguments_that_exist_still_work():
    assert gluon.nn.Dense(3, prefix="d_").prefix == "d_"
    assert gluon.nn.Conv2D(8, 3, in_channels=1).weight.shape == (8, 1, 3, 3)


def test_plot_network_of_a_loss_names_parameters():
    pytest.importorskip("graphviz")
    net = gluon.nn.HybridSequential()
    net.add(gluon.nn.Dense(4, activation="relu"), gluon.nn.Dense(2))
    net.initialize()
    with autograd.record():
        loss = gluon.loss.SoftmaxCrossEntropyLoss()(net(nd.ones((3, 5))), nd.array([0, 1, 1]))
    src = mx.viz.plot_network(loss, hide_weights=False).source
    for p, shape in [(net[0].weight, "4x5"), (net[0].bias, "4"),
                     (net[1].weight, "2x4"), (net[1].bias, "2")]:
        assert f'{p.name} [label="{p.name}\\n{shape}\\ngrad_req=write"' in src
    assert "var0" not in src
    # MXNet's default hides weights and biases: only the ops remain
    assert "grad_req" not in mx.viz.plot_network(loss).source
    # an explicit name still wins, and a variable that is no parameter is var0
    x = nd.ones((2,))
    x.attach_grad()
    with autograd.record():
        y = (x * net[1].bias.data()).sum()
    src = mx.viz.plot_network(y, hide_weights=False, names={"x": x}).source
    assert 'x [label="x\\n2' in src and f"{net[1].bias.name} [label" in src
    x2 = nd.ones((2,))
    x2.attach_grad()
    with autograd.record():
        z = (x2 * 2).sum()
    assert 'var0 [label="var0\\n2' in mx.viz.plot_network(z).source


def test_warnings_point_at_the_users_line():
    import warnings

    class Holder(gluon.Block):
        def __init__(self):
            super().__init__()
            self.layers = [gluon.nn.Dense(2)]      # a list: not registered

        def forward(self, x):
            return x

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Holder().initialize()
    msgs = [w for w in caught if "unregistered container" in str(w.message)]
    assert msgs and msgs[0].filename == __file__, msgs[0].filename


def test_optimizer_and_estimator_warnings_point_at_the_users_line():
    import warnings
    from mxgrad.gluon.contrib.estimator import Estimator
    net = gluon.nn.Dense(2, in_units=3)
    net.initialize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mx.optimizer.SGD(learning_rate=0.1, lr_scheduler=mx.lr_scheduler.FactorScheduler(10))
        Estimator(net, gluon.loss.L2Loss(), initializer=mx.init.One())
    texts = {str(w.message)[:20]: w.filename for w in caught}
    assert any(t.startswith("learning rate from") for t in texts), texts
    assert any(t.startswith("Network already") for t in texts), texts
    assert any(t.startswith("No trainer specified") for t in texts), texts
    assert set(texts.values()) == {__file__}, texts


def test_already_initialized_warning_points_at_the_users_line():
    import warnings
    net = gluon.nn.Dense(2, in_units=2)
    net.initialize()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        net.initialize()
    assert caught and caught[0].filename == __file__
    assert "already initialized" in str(caught[0].message)
