"""The README's main job: ``python -m mxgrad.demo`` trains to >= 95% test accuracy."""
import os
import subprocess
import sys

import pytest

from mxgrad import demo

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture(scope="module")
def result():
    return demo.main(["--seed", "0", "--quiet"])


def test_demo_reaches_95_percent(result):
    assert result["test_acc"] >= 0.95
    assert result["train_acc"] >= 0.95
    assert len(result["losses"]) == len(result["test_accs"]) == 20


def test_demo_loss_falls(result):
    losses = result["losses"]
    assert losses[-1] < 0.5 * losses[0]
    assert min(losses[-3:]) < min(losses[:3])
    assert all(loss > 0 for loss in losses)


def test_demo_is_deterministic():
    a = demo.main(["--epochs", "2", "--seed", "3", "--quiet"])
    b = demo.main(["--epochs", "2", "--seed", "3", "--quiet"])
    c = demo.main(["--epochs", "2", "--seed", "4", "--quiet"])
    assert a["losses"] == b["losses"] and a["test_acc"] == b["test_acc"]
    assert a["losses"] != c["losses"]


def test_demo_prints_progress(capsys):
    demo.main(["--epochs", "2", "--batch-size", "128"])
    text = capsys.readouterr().out
    lines = [ln for ln in text.splitlines() if ln.startswith("epoch")]
    assert len(lines) == 2
    assert "[" + "#" * 30 + "] 12/12" in lines[0]
    assert "loss" in lines[0] and "train acc" in lines[0] and "test acc" in lines[0]
    assert "final test accuracy" in text


def test_demo_quiet_prints_nothing(capsys):
    demo.main(["--epochs", "1", "--quiet"])
    assert capsys.readouterr().out == ""


def test_demo_plot(tmp_path):
    pytest.importorskip("matplotlib")
    path = tmp_path / "loss.png"
    demo.main(["--epochs", "2", "--quiet", "--plot", str(path)])
    assert path.exists() and path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_demo_plot_without_matplotlib_says_how_to_install_it(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "matplotlib", None)     # import matplotlib fails
    path = tmp_path / "loss.png"
    demo.main(["--epochs", "1", "--quiet", "--plot", str(path)])
    err = capsys.readouterr().err
    assert not path.exists()
    assert "--plot needs matplotlib" in err and "pip install matplotlib" in err


def test_demo_with_the_estimator_has_one_display_counting_epochs_from_0(capsys):
    demo.main(["--epochs", "2", "--estimator", "--batch-size", "128"])
    out = capsys.readouterr().out
    assert not [ln for ln in out.splitlines() if ln.startswith("epoch")]   # no second display
    for e in (0, 1):      # the Estimator's numbering, its log and the accuracies side by side
        assert f"[Epoch {e}] Begin" in out and f"[Epoch {e}] Finished" in out
        assert f"[Epoch {e}] train acc 0." in out and "test acc 0." in out
    assert "[Epoch 2]" not in out and "final test accuracy" in out


def test_demo_rejects_bad_arguments():
    with pytest.raises(SystemExit):
        demo.main(["--epochs", "0"])


def test_demo_module_runs_as_script():
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.run([sys.executable, "-m", "mxgrad.demo", "--epochs", "1", "--quiet"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
