"""tools/run_d2l_np.py takes a d2l-en section's MXNet cells as d2lbook builds them."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tools"))
import run_d2l_np as r  # noqa: E402

SECTION = '''\
```{.python .input  n=1}
%load_ext d2lbook.tab
tab.interact_select(['mxnet', 'pytorch', 'tensorflow', 'jax'])
```

# A section

```{.python .input  n=2}
%%tab mxnet
%matplotlib inline
from d2l import mxnet as d2l
from mxnet import np, npx
npx.set_np()
```

```{.python .input  n=3}
%%tab pytorch
import torch
```

```{.python .input}
%%tab pytorch, mxnet
class Net(d2l.Module):
    def __init__(self):
        super().__init__()
        if tab.selected('mxnet'):
            self.w = np.ones(3)
            self.w.attach_grad()
        if tab.selected('pytorch', 'tensorflow'):
            self.w = torch.ones(3)
        self.num_epochs = 7
```

```{.python .input}
#@tab all
trainer = d2l.Trainer(max_epochs=10, num_gpus=1)
num_epochs, lr = 20, 0.1
```

```{.python .input}
print('untabbed: the default tab, pytorch')
```

:begin_tab:`mxnet`
Text for MXNet readers.
:end_tab:

```python
print('a fence without .input is text')
```

```{.python .input}
%%tab jax
import jax
```
'''

EXPECTED = '''\
from d2l import mxnet as d2l
from mxnet import np, npx
npx.set_np()

class Net(d2l.Module):
    def __init__(self):
        super().__init__()
        self.w = np.ones(3)
        self.w.attach_grad()
        self.num_epochs = 1

trainer = d2l.Trainer(max_epochs=1, num_gpus=1)
num_epochs, lr = 1, 0.1
'''


def test_mxnet_script_of_a_section():
    assert r.script_of(SECTION, epochs=1) == EXPECTED


def test_other_tabs_and_default_tab():
    torch = r.script_of(SECTION, epochs=2, tab="pytorch")
    assert "import torch" in torch and "self.w = torch.ones(3)" in torch
    assert "print('untabbed: the default tab, pytorch')" in torch
    assert "np.ones" not in torch and "import jax" not in torch
    assert "max_epochs=2" in torch


def test_cells_and_tabs():
    cells = r.code_cells(SECTION)
    assert len(cells) == 7               # the ```python fence is text
    assert r.cell_tabs(cells[4]) == ["all"]
    assert r.cell_tabs(cells[3]) == ["pytorch", "mxnet"]
    assert r.cell_tabs(cells[5]) == ["pytorch"]          # untabbed: the default tab


def test_all_cells_alone_make_no_mxnet_notebook():
    md = "```{.python .input}\n%%tab all\nx = 1\n```\n\n```{.python .input}\n%%tab pytorch\ny = 2\n```\n"
    assert r.script_of(md, 1) is None
    assert r.script_of(md, 1, tab="pytorch") == "x = 1\n\ny = 2\n"
    assert r.script_of("# text only\n", 1) is None


def test_classify():
    assert r.classify(0, "") == ("pass", "")
    net = "requests.exceptions.ConnectionError: HTTPConnectionPool: Max retries exceeded"
    assert r.classify(1, "Traceback\n" + net) == ("needs download", net)
    assert r.classify(1, "Traceback\n  File x\nValueError: bad\n") == ("fail", "ValueError: bad")
    gpu = "chapter_computational-performance/multiple-gpus-concise"
    assert r.classify(1, "ZeroDivisionError: integer modulo by zero", gpu)[0] == "needs GPU"


def test_display_last():
    assert r.display_last("x = 1\nx") == "x = 1\n_d2l_display((\nx\n))"
    assert r.display_last("x = 1\nf(x,\n  2)  # two") == "x = 1\n_d2l_display((\nf(x,\n  2)\n))"
    assert r.display_last("plt.plot(x);") == "plt.plot(x);"
    assert r.display_last("for i in x:\n    i") == "for i in x:\n    i"
    assert r.display_last("x = 1") == "x = 1"
    out = r.script_of(SECTION, epochs=1, display=True)
    assert out == EXPECTED.replace("npx.set_np()\n", "_d2l_display((\nnpx.set_np()\n))\n")
    ns = {}
    exec(r.DISPLAY + r.display_last("y = [1]\ny"), ns)   # runs


def test_normalized_output():
    log = ("array([[ 0.1,  2. ],\n       [-3.5, 4e-05]], dtype=float32)\n<Figure size 350x250>\n"
           "loss 0.25, float32\n---- stderr ----\nignored 1.0\n")
    assert r.normalized_output(log) == ["array([[#,], [#,]], dtype=float32)", "loss #, float32"]
    assert r.normalized_output("array([1., 2.])\n") == r.normalized_output("array([ 7.5, -2.])\n")
