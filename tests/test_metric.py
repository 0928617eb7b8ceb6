"""mx.metric: every metric against values computed by hand, multi-batch accumulation, local vs
global statistics, resets, CompositeEvalMetric, CustomMetric, create/register and errors."""
import json
import math

import numpy as np
import pytest

import mxgrad as mx
import mxgrad.metric as metric
from mxgrad.base import ShapeError, StateError

A = mx.nd.array
PROBS = A([[0.3, 0.7], [0.0, 1.0], [0.4, 0.6]])
LABELS = A([0, 1, 1])


def close(a, b, tol=1e-9):
    return abs(a - b) <= tol * max(1.0, abs(b))


# ------------------------------------------------------------------ base behaviour
def test_empty_metric_is_nan_and_values_are_python_floats():
    acc = metric.Accuracy()
    name, value = acc.get()
    assert name == "accuracy" and math.isnan(value)
    assert math.isnan(acc.get_global()[1])
    acc.update([LABELS], [PROBS])
    value = acc.get()[1]
    assert type(value) is float
    assert acc.num_inst == 3 and acc.sum_metric == 2
    assert acc.global_num_inst == 3 and acc.global_sum_metric == 2


def test_str_and_name_value():
    acc = metric.Accuracy()
    acc.update([A([1, 1])], [A([1, 0])])
    assert acc.get_name_value() == [("accuracy", 0.5)]
    assert acc.get_global_name_value() == [("accuracy", 0.5)]
    assert str(acc) == "EvalMetric: {'accuracy': 0.5}"


def test_reset_local_keeps_global_and_reset_clears_both():
    acc = metric.Accuracy()
    acc.update([A([0, 1])], [A([0, 1])])          # 2/2
    acc.reset_local()
    acc.update([A([0, 1, 1, 1])], [A([1, 1, 0, 0])])  # 1/4
    assert acc.get()[1] == 0.25
    assert acc.get_global()[1] == 3 / 6
    acc.reset()
    assert math.isnan(acc.get()[1]) and math.isnan(acc.get_global()[1])
    assert acc.num_inst == acc.global_num_inst == 0


def test_user_subclass_without_global_stats_falls_back_to_local():
    class Count(metric.EvalMetric):
        def __init__(self):
            super().__init__("count")

        def update(self, labels, preds):
            self.sum_metric += 3
            self.num_inst += 1

    m = Count()
    m.update(None, None)
    assert m.get() == ("count", 3.0)
    assert m.get_global() == ("count", 3.0)
    m.reset_local()
    assert math.isnan(m.get_global()[1])


def test_base_update_not_implemented():
    with pytest.raises(NotImplementedError):
        metric.EvalMetric("x").update([], [])


# ------------------------------------------------------------------ Accuracy
def test_accuracy_scores_and_indices():
    acc = metric.Accuracy()
    acc.update(labels=[LABELS], preds=[PROBS])
    assert acc.get() == ("accuracy", 2 / 3)
    # predictions already class indices (same shape as labels)
    acc2 = metric.Accuracy()
    acc2.update([A([0, 1, 2, 2])], [A([0, 2, 2, 1])])
    assert acc2.get()[1] == 0.5


def test_accuracy_accumulates_over_batches_and_list_entries():
    acc = metric.Accuracy()
    acc.update([A([0, 1]), A([2])], [A([[1, 0, 0], [0, 0, 1]]), A([[0, 0, 1]])])  # 1 + 1
    acc.update(A([1, 1]), A([[0.9, 0.1], [0.2, 0.8]]))  # bare NDArrays: 1
    assert acc.num_inst == 5 and acc.sum_metric == 3
    assert acc.get()[1] == 3 / 5


def test_accuracy_axis_and_float_labels_truncated():
    acc = metric.Accuracy(axis=0)
    # classes along axis 0: columns are samples
    acc.update([A([1, 0, 1])], [A([[0.1, 0.9, 0.2], [0.9, 0.1, 0.8]])])
    assert acc.get()[1] == 1.0
    acc = metric.Accuracy()
    acc.update([A([0.9, 1.2])], [A([0, 1])])  # labels cast to int32: 0, 1
    assert acc.get()[1] == 1.0


def test_accuracy_numpy_inputs_and_multidim_labels():
    acc = metric.Accuracy(axis=-1)
    pred = np.zeros((2, 3, 4), dtype=np.float32)
    lab = np.array([[0, 1, 2], [3, 3, 0]])
    for i in range(2):
        for j in range(3):
            pred[i, j, lab[i, j]] = 1
    pred[1, 2] = [0, 1, 0, 0]  # one wrong
    acc.update([lab], [pred])
    assert acc.get()[1] == 5 / 6


def test_accuracy_shape_errors():
    acc = metric.Accuracy()
    with pytest.raises(ShapeError, match="does not match"):
        acc.update([LABELS, LABELS], [PROBS])
    with pytest.raises(ValueError):
        acc.update([A([0, 1])], [PROBS])


# ------------------------------------------------------------------ TopKAccuracy
def test_top_k_accuracy_by_hand():
    m = metric.TopKAccuracy(top_k=2)
    assert m.name == "top_k_accuracy_2"
    preds = A([[0.1, 0.5, 0.4], [0.1, 0.5, 0.4], [0.3, 0.2, 0.5], [0.6, 0.3, 0.1]])
    # top-2 sets: {1,2}, {1,2}, {2,0}, {0,1}
    m.update([A([2, 0, 0, 2])], [preds])
    assert m.get()[1] == 2 / 4
    m.update([A([1])], [A([[0.2, 0.3, 0.5]])])
    assert m.get()[1] == 3 / 5
    assert m.get_global()[1] == 3 / 5


def test_top_k_larger_than_classes_counts_all():
    m = metric.TopKAccuracy(top_k=5)
    m.update([A([0, 1])], [A([[0.9, 0.1], [0.8, 0.2]])])
    assert m.get()[1] == 1.0


def test_top_k_needs_k_above_one():
    with pytest.raises(StateError, match="Accuracy"):
        metric.TopKAccuracy()
    with pytest.raises(ShapeError):
        metric.TopKAccuracy(top_k=2).update([A([0])], [mx.nd.zeros((1, 2, 2))])


# ------------------------------------------------------------------ F1 / MCC
def _f1(tp, fp, fn):
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return 2 * p * r / (p + r) if p + r else 0.0


def _mcc(tp, fp, fn, tn):
    d = 1.0
    for t in (tp + fp, tp + fn, tn + fp, tn + fn):
        if t:
            d *= t
    return (tp * tn - fp * fn) / math.sqrt(d)


B1_L, B1_P = A([0, 1, 1, 0, 1]), A([[0.2, 0.8], [0.3, 0.7], [0.9, 0.1], [0.6, 0.4], [0.1, 0.9]])
# batch 1: preds 1,1,0,0,1 -> tp=2 fp=1 fn=1 tn=1
B2_L, B2_P = A([1, 0, 0]), A([[0.4, 0.6], [0.3, 0.7], [0.8, 0.2]])
# batch 2: preds 1,1,0 -> tp=1 fp=1 fn=0 tn=1


def test_f1_macro_averages_batches():
    f1 = metric.F1()
    f1.update([LABELS], [PROBS])
    assert close(f1.get()[1], 0.8)
    f1.reset()
    f1.update([B1_L], [B1_P])
    f1.update([B2_L], [B2_P])
    expect = (_f1(2, 1, 1) + _f1(1, 1, 0)) / 2
    assert close(f1.get()[1], expect)
    assert close(f1.get_global()[1], expect)
    assert f1.num_inst == 2


def test_f1_micro_pools_counts():
    f1 = metric.F1(average="micro")
    f1.update([B1_L], [B1_P])
    f1.update([B2_L], [B2_P])
    assert close(f1.get()[1], _f1(3, 2, 1))
    assert f1.num_inst == 8
    f1.reset_local()
    f1.update([B2_L], [B2_P])
    assert close(f1.get()[1], _f1(1, 1, 0))
    assert close(f1.get_global()[1], _f1(4, 3, 1))


def test_f1_probability_vector_predictions():
    f1 = metric.F1()
    f1.update([A([1, 0, 1, 1])], [A([0.9, 0.6, 0.2, 0.7])])  # preds 1 1 0 1: tp2 fp1 fn1
    assert close(f1.get()[1], _f1(2, 1, 1))


def test_f1_binary_only_and_bad_average():
    with pytest.raises(StateError, match="binary"):
        metric.F1().update([A([0, 1, 2])], [A([[1, 0], [0, 1], [1, 0]])])
    with pytest.raises(StateError):
        metric.F1(average="weighted")


def test_mcc_macro_and_micro():
    m = metric.MCC()
    m.update([B1_L], [B1_P])
    m.update([B2_L], [B2_P])
    assert close(m.get()[1], (_mcc(2, 1, 1, 1) + _mcc(1, 1, 0, 1)) / 2)
    mi = metric.MCC(average="micro")
    mi.update([B1_L], [B1_P])
    mi.update([B2_L], [B2_P])
    assert close(mi.get()[1], _mcc(3, 2, 1, 2))
    assert mi.name == "mcc"


def test_mcc_example_from_mxnet_docs():
    fp, tn, fn, tp = 1000, 1, 1, 10000
    preds = A([[.3, .7]] * fp + [[.7, .3]] * tn + [[.7, .3]] * fn + [[.3, .7]] * tp)
    labels = A([0.] * (fp + tn) + [1.] * (fn + tp))
    f1, mcc = metric.F1(), metric.MCC()
    f1.update([labels], [preds])
    mcc.update([labels], [preds])
    assert close(f1.get()[1], 0.95233560306652054, 1e-12)
    assert close(mcc.get()[1], 0.01917751877733392, 1e-12)


# ------------------------------------------------------------------ Perplexity
def test_perplexity_by_hand():
    p = metric.Perplexity(ignore_label=None)
    p.update([LABELS], [PROBS])
    expect = math.exp(-(math.log(0.3) + math.log(1.0) + math.log(0.6)) / 3)
    assert close(p.get()[1], expect, 1e-6)
    assert p.get()[0] == "perplexity"


def test_perplexity_ignore_label_and_accumulation():
    p = metric.Perplexity(ignore_label=-1)
    p.update([A([0, -1, 1])], [A([[0.5, 0.5], [0.9, 0.1], [0.2, 0.8]])])
    p.update([A([1])], [A([[0.75, 0.25]])])
    expect = math.exp(-(math.log(0.5) + math.log(0.8) + math.log(0.25)) / 3)
    assert close(p.get()[1], expect, 1e-6)
    assert p.num_inst == 3
    p.reset_local()
    p.update([A([0])], [A([[0.5, 0.5]])])
    assert close(p.get()[1], 2.0, 1e-6)
    expect_g = math.exp(-(math.log(0.5) * 2 + math.log(0.8) + math.log(0.25)) / 4)
    assert close(p.get_global()[1], expect_g, 1e-6)


def test_perplexity_sequence_predictions_and_axis():
    p = metric.Perplexity(ignore_label=None)
    pred = np.full((2, 3, 4), 0.25, dtype=np.float32)   # (batch, time, vocab)
    p.update([np.zeros((2, 3))], [pred])
    assert close(p.get()[1], 4.0, 1e-6)
    # classes along axis 0: column j holds the class probabilities of sample j
    q = metric.Perplexity(ignore_label=None, axis=0)
    q.update([A([1, 0])], [A([[0.5, 0.25], [0.5, 0.75]])])  # p = 0.5 and 0.25
    assert q.num_inst == 2
    assert close(q.get()[1], math.exp(-(math.log(0.5) + math.log(0.25)) / 2), 1e-6)
    with pytest.raises(ShapeError):
        p.update([A([0, 1, 0])], [A([[0.5, 0.5]])])


def test_perplexity_clamps_zero_probability():
    p = metric.Perplexity(ignore_label=None)
    p.update([A([0])], [A([[0.0, 1.0]])])
    assert close(p.get()[1], 1e10, 1e-6)


# ------------------------------------------------------------------ regression
def test_mae_mse_rmse_by_hand():
    lab, pred = A([2.5, 0.0, 2, 8]), A([3, -0.5, 2, 7])
    for cls, value in ((metric.MAE, 0.5), (metric.MSE, 0.375),
                       (metric.RMSE, math.sqrt(0.375))):
        m = cls()
        m.update([lab], [pred])
        assert close(m.get()[1], value), cls


def test_regression_metrics_average_per_batch():
    # MXNet 1.x: each label/pred pair counts once, whatever its size
    m = metric.MAE()
    m.update([A([1., 2., 3., 4.])], [A([2., 3., 4., 5.])])  # 1.0 over 4 samples
    m.update([A([0.])], [A([3.])])                          # 3.0 over 1 sample
    assert m.num_inst == 2 and close(m.get()[1], 2.0)
    r = metric.RMSE()
    r.update([A([0., 0.]), A([1.])], [A([3., 4.]), A([1.])])  # sqrt(12.5), 0
    assert close(r.get()[1], math.sqrt(12.5) / 2)
    s = metric.MSE()
    s.update([A([[1., 2.], [3., 4.]])], [A([[1., 2.], [3., 6.]])])
    assert close(s.get()[1], 1.0)
    s.reset_local()
    s.update([A([0.])], [A([1.])])
    assert close(s.get()[1], 1.0) and close(s.get_global()[1], 1.0)


def test_regression_column_vs_vector_shapes():
    m = metric.MSE()
    m.update([A([1., 2.])], [A([[2.], [4.]])])  # label (2,) reshaped to (2, 1)
    assert close(m.get()[1], 2.5)


# ------------------------------------------------------------------ cross entropy
def test_cross_entropy_and_nll_by_hand():
    expect = -(math.log(0.3 + 1e-12) + math.log(1.0 + 1e-12) + math.log(0.6 + 1e-12)) / 3
    ce = metric.CrossEntropy()
    ce.update([LABELS], [PROBS])
    assert close(ce.get()[1], expect, 1e-6) and ce.get()[0] == "cross-entropy"
    nll = metric.NegativeLogLikelihood()
    nll.update([LABELS], [PROBS])
    assert close(nll.get()[1], expect, 1e-6) and nll.get()[0] == "nll-loss"


def test_cross_entropy_eps_and_accumulation():
    ce = metric.CrossEntropy(eps=0.5)
    ce.update([A([0])], [A([[0.5, 0.5]])])
    ce.update([A([1, 1])], [A([[0.5, 0.0], [0.5, 0.5]])])
    expect = -(math.log(1.0) + math.log(0.5) + math.log(1.0)) / 3
    assert close(ce.get()[1], expect, 1e-6) and ce.num_inst == 3
    with pytest.raises(ShapeError):
        ce.update([A([0, 1, 1])], [A([[0.5, 0.5]])])


# ------------------------------------------------------------------ correlation
def test_pearson_macro_by_hand():
    pr = metric.PearsonCorrelation()
    lab = A([[1, 0], [0, 1], [0, 1]])
    pr.update([lab], [PROBS])
    x = np.array([0.3, 0.7, 0, 1, 0.4, 0.6])
    y = np.array([1, 0, 0, 1, 0, 1.])
    r = ((x - x.mean()) * (y - y.mean())).sum() / math.sqrt(
        ((x - x.mean()) ** 2).sum() * ((y - y.mean()) ** 2).sum())
    assert close(pr.get()[1], r, 1e-6)
    assert close(pr.get()[1], 0.42163704544016178, 1e-6)
    pr.update([A([1., 2., 3.])], [A([2., 4., 6.])])
    assert close(pr.get()[1], (r + 1) / 2, 1e-6)
    assert metric.create("pearsonr").name == "pearsonr"


def test_pearson_micro_pools_samples():
    rng = np.random.default_rng(0)
    xs = [rng.normal(size=n) for n in (5, 3, 7)]
    ys = [x * 0.5 + rng.normal(size=x.size) for x in xs]
    pr = metric.PearsonCorrelation(average="micro")
    for x, y in zip(xs, ys):
        pr.update([A(y, dtype="float64")], [A(x, dtype="float64")])
    allx, ally = np.concatenate(xs), np.concatenate(ys)
    assert close(pr.get()[1], np.corrcoef(allx, ally)[0, 1], 1e-10)
    pr.reset_local()
    pr.update([A(ys[0], dtype="float64")], [A(xs[0], dtype="float64")])
    assert close(pr.get()[1], np.corrcoef(xs[0], ys[0])[0, 1], 1e-10)
    gx, gy = np.concatenate(xs + [xs[0]]), np.concatenate(ys + [ys[0]])
    assert close(pr.get_global()[1], np.corrcoef(gx, gy)[0, 1], 1e-10)


def test_pearson_shape_mismatch():
    with pytest.raises(ShapeError):
        metric.PearsonCorrelation().update([A([1., 2.])], [A([[1., 2.]])])


def test_pcc_matches_mcc_for_binary_and_multiclass_formula():
    pcc, mcc = metric.PCC(), metric.MCC(average="micro")
    for lab, pred in ((B1_L, B1_P), (B2_L, B2_P)):
        pcc.update([lab], [pred])
        mcc.update([lab], [pred])
    assert close(pcc.get()[1], mcc.get()[1], 1e-12)
    # three classes, predictions as indices: confusion matrix by hand
    p = metric.PCC()
    labels = np.array([0, 1, 2, 2, 1, 0])
    preds = np.array([0, 2, 2, 2, 1, 1])
    p.update([A(labels)], [A(preds)])
    c = np.zeros((3, 3))
    for a, b in zip(preds, labels):
        c[a, b] += 1
    n = c.sum()
    x, y = c.sum(1), c.sum(0)
    expect = (np.trace(c) * n - (x * y).sum()) / math.sqrt(
        ((x * (n - x)).sum()) * ((y * (n - y)).sum()))
    assert close(p.get()[1], expect, 1e-12)
    p.reset_local()
    assert math.isnan(p.get()[1])
    assert close(p.get_global()[1], expect, 1e-12)


# ------------------------------------------------------------------ Loss / Custom
def test_loss_averages_all_elements():
    m = metric.Loss()
    m.update(None, A([0.5, 1.5]))
    m.update(None, [A([[4.0]]), A([0.0, 0.0])])
    assert m.num_inst == 5 and close(m.get()[1], 6.0 / 5)
    assert metric.Torch().name == "torch" and metric.Caffe().name == "caffe"
    assert isinstance(metric.create("loss"), metric.Loss)


def test_custom_metric_value_and_tuple():
    m = metric.CustomMetric(lambda label, pred: (label + pred).mean())
    assert m.name == "custom(<lambda>)"
    m.update([A([2.5, 0.0, 2, 8])], [A([3, -0.5, 2, 7])])
    assert m.get()[1] == 6.0

    def summed(label, pred):
        assert isinstance(label, np.ndarray) and isinstance(pred, np.ndarray)
        return float(np.abs(label - pred).sum()), label.size

    s = metric.CustomMetric(summed)
    s.update([A([1., 2.]), A([0.])], [A([2., 2.]), A([3.])])
    assert s.name == "summed" and s.num_inst == 3 and close(s.get()[1], 4 / 3)
    with pytest.raises(NotImplementedError):
        s.get_config()


def test_custom_metric_extra_outputs_and_np():
    m = metric.CustomMetric(lambda l, p: float((l == p).mean()), name="eq",
                            allow_extra_outputs=True)
    m.update([A([1., 2.])], [A([1., 0.]), A([9., 9.])])  # extra prediction ignored
    assert m.get() == ("eq", 0.5)
    with pytest.raises(ShapeError):
        metric.CustomMetric(lambda l, p: 0.0).update([A([1.])], [A([1.]), A([2.])])

    def max_err(label, pred):
        return np.abs(label - pred).max()

    n = metric.np(max_err)
    n.update([A([1., 2.])], [A([1., 5.])])
    assert n.get() == ("max_err", 3.0)
    assert type(n.get()[1]) is float


# ------------------------------------------------------------------ composite
def test_composite_lists_and_accessors():
    comp = metric.CompositeEvalMetric()
    comp.add(metric.Accuracy())
    comp.add("f1")
    comp.update([LABELS], [PROBS])
    assert comp.get() == (["accuracy", "f1"], [2 / 3, pytest.approx(0.8)])
    assert comp.get_name_value() == [("accuracy", 2 / 3), ("f1", pytest.approx(0.8))]
    assert comp.get_metric(0).name == "accuracy"
    with pytest.raises(StateError, match="out of range"):
        comp.get_metric(5)


def test_composite_reset_local_and_global():
    comp = metric.CompositeEvalMetric(["acc", metric.MSE()])
    comp.update([A([1., 0.])], [A([1., 1.])])
    comp.reset_local()
    comp.update([A([1., 1.])], [A([1., 1.])])
    names, values = comp.get()
    assert names == ["accuracy", "mse"] and values == [1.0, 0.0]
    assert comp.get_global() == (["accuracy", "mse"], [0.75, 0.25])
    comp.reset()
    assert all(math.isnan(v) for v in comp.get()[1])


def test_composite_nested_flattens():
    inner = metric.create(["mae", "rmse"])
    outer = metric.CompositeEvalMetric([inner, "mse"])
    outer.update([A([0., 0.])], [A([1., 3.])])
    assert outer.get() == (["mae", "rmse", "mse"], [2.0, math.sqrt(5.0), 5.0])


def test_update_dict_selects_names():
    m = metric.Accuracy(output_names=["out"], label_names=["lab"])
    m.update_dict({"lab": A([1, 0]), "other": A([0, 0])},
                  {"junk": A([0, 0]), "out": A([[0, 1], [0, 1]])})
    assert m.get()[1] == 0.5
    comp = metric.CompositeEvalMetric(["acc"], label_names=["lab"])
    comp.update_dict({"lab": A([1]), "x": A([0])}, {"o": A([[0.0, 1.0]])})
    assert comp.get()[1] == [1.0]


# ------------------------------------------------------------------ create / registry
@pytest.mark.parametrize("name,cls", [
    ("acc", metric.Accuracy), ("accuracy", metric.Accuracy), ("Accuracy", metric.Accuracy),
    ("ce", metric.CrossEntropy), ("crossentropy", metric.CrossEntropy),
    ("f1", metric.F1), ("mcc", metric.MCC), ("mae", metric.MAE), ("mse", metric.MSE),
    ("rmse", metric.RMSE), ("loss", metric.Loss), ("nll_loss", metric.NegativeLogLikelihood),
    ("negativeloglikelihood", metric.NegativeLogLikelihood),
    ("pearsonr", metric.PearsonCorrelation), ("pearsoncorrelation", metric.PearsonCorrelation),
    ("pcc", metric.PCC), ("composite", metric.CompositeEvalMetric),
    ("torch", metric.Torch), ("caffe", metric.Caffe),
])
def test_create_by_name(name, cls):
    assert type(metric.create(name)) is cls


def test_create_with_arguments():
    top = metric.create("top_k_accuracy", top_k=3)
    assert isinstance(top, metric.TopKAccuracy) and top.top_k == 3
    assert metric.create("top_k_acc", 2).name == "top_k_accuracy_2"
    p = metric.create("perplexity", ignore_label=-1)
    assert p.ignore_label == -1
    assert metric.create("acc", axis=2).axis == 2


def test_create_instance_class_list_callable():
    acc = metric.Accuracy()
    assert metric.create(acc) is acc
    with pytest.raises(StateError):
        metric.create(acc, axis=0)
    assert type(metric.create(metric.MAE)) is metric.MAE
    comp = metric.create(["acc", metric.F1(), lambda l, p: 0.0])
    assert isinstance(comp, metric.CompositeEvalMetric)
    assert [type(m) for m in comp.metrics] == [metric.Accuracy, metric.F1,
                                               metric.CustomMetric]

    def my_feval(label, pred):
        return 1.0

    custom = metric.create(my_feval)
    assert isinstance(custom, metric.CustomMetric) and custom.name == "my_feval"


def test_create_from_config_and_json():
    acc = metric.Accuracy(axis=0, name="a0")
    config = acc.get_config()
    assert config == {"metric": "Accuracy", "name": "a0", "axis": 0, "output_names": None,
                      "label_names": None}
    again = metric.create(config)
    assert type(again) is metric.Accuracy and again.axis == 0 and again.name == "a0"
    comp = metric.create(metric.CompositeEvalMetric(["mse", "acc"]).get_config())
    assert [m.name for m in comp.metrics] == ["mse", "accuracy"]
    assert metric.create(json.dumps({"metric": "mae"})).name == "mae"
    assert metric.create('["top_k_accuracy", {"top_k": 4}]').top_k == 4


def test_create_unknown_name_lists_known_metrics():
    with pytest.raises(StateError) as err:
        metric.create("accuracyy")
    msg = str(err.value)
    assert "accuracyy" in msg and "acc" in msg and "rmse" in msg and "top_k_accuracy" in msg
    with pytest.raises(TypeError):
        metric.create(3)


def test_register_and_alias_custom_metric():
    @metric.register
    @metric.alias("always_one", "one")
    class AlwaysOne(metric.EvalMetric):
        def __init__(self, name="always_one"):
            super().__init__(name, has_global_stats=True)

        def update(self, labels, preds):
            self._add(1.0, 1)

    for name in ("alwaysone", "always_one", "ONE"):
        m = metric.create(name)
        assert type(m) is AlwaysOne
    m.update(None, None)
    assert m.get() == ("always_one", 1.0)
    with pytest.raises(TypeError):
        metric.register(object)


def test_check_label_shapes():
    lab, pred = metric.check_label_shapes(A([1, 2]), A([[1], [2]]), wrap=True)
    assert isinstance(lab, list) and isinstance(pred, list)
    with pytest.raises(ShapeError):
        metric.check_label_shapes(A([1, 2]), A([1, 2, 3]))
    with pytest.raises(ShapeError):
        metric.check_label_shapes(A([1, 2]), A([[1, 2]]), shape=True)
    # a bare array with a one-element list is compared as one label / one prediction
    lab, pred = metric.check_label_shapes(A([0, 1, 1]), [PROBS], wrap=True)
    assert len(lab) == len(pred) == 1


def test_metric_in_a_training_loop():
    """The typical MXNet pattern: update with the network outputs each batch, then log."""
    net = mx.gluon.nn.Dense(2)
    net.initialize(mx.init.Xavier())
    acc, loss_m = metric.Accuracy(), metric.Loss()
    loss_fn = mx.gluon.loss.SoftmaxCrossEntropyLoss()
    rng = np.random.default_rng(0)
    total_correct, total = 0, 0
    for _ in range(3):
        x = A(rng.normal(size=(4, 3)))
        y = A(rng.integers(0, 2, size=4))
        out = net(x)
        loss = loss_fn(out, y)
        acc.update(y, out)
        loss_m.update(None, loss)
        total_correct += int((out.asnumpy().argmax(1) == y.asnumpy()).sum())
        total += 4
    assert acc.get()[1] == total_correct / total
    assert loss_m.num_inst == 12
