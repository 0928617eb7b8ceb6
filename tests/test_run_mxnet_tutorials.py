"""tools/run_mxnet_tutorials.py takes an MXNet tutorial page's Python cells and makes its
synthetic datasets in the formats gluon.data.vision reads."""
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "tools"))
import run_mxnet_tutorials as r  # noqa: E402

PAGE = '''\
# A page

```python
from __future__ import print_function
%matplotlib inline
import mxnet as mx
epochs = 10
```

Output, as shown in the docs:

```
[1. 2.]
```

```{.python .input  n=2}
for epoch in range(10):
    pass
print("Loss is 0.3")  <!--notebook-skip-line-->
assert metric.get()[1] > 0.94
```

```bash
pip install mxnet
```

Inline ```x = 1``` is text.
'''

BARE = '''\
```
from mxnet import autograd
```

```
[1. 2.]
```

```
$ python train.py
```
'''


def test_code_cells_are_python_fences_only():
    cells = r.code_cells(PAGE)
    assert len(cells) == 2
    assert cells[0].startswith("from __future__") and "pip" not in "".join(cells)
    assert "Loss is" not in cells[1]


def test_script_moves_future_first_limits_epochs_and_prints_quality_checks():
    body = r.script_of(PAGE, 1, display=False)
    lines = body.splitlines()
    assert lines[0] == "from __future__ import print_function"
    assert body.count("from __future__") == 1
    assert "%matplotlib" not in body
    assert "epochs = 1\n" in body and "for epoch in range(1):" in body
    assert "assert metric" not in body
    assert "print('metric (not checked on synthetic data):', metric.get()[1])" in body
    script = r._with_prelude(body, "PRELUDE")
    assert script.splitlines()[:2] == ["from __future__ import print_function", "PRELUDE"]
    compile(script, "page.py", "exec")


def test_bare_fences_count_only_on_pages_without_python_fences():
    assert r.code_cells(BARE) == ["from mxnet import autograd"]   # others do not parse
    assert r.code_cells("```\nx = 1\n```\n") == []          # no mxnet import: not a code page
    assert r.script_of("text only\n", 1) is None


def test_classify():
    assert r.classify(0, "") == ("pass", "")
    assert r.classify(1, "x\nModuleNotFoundError: No module named 'gluoncv'\n")[0] == \
        "needs package"
    assert r.classify(1, "ModuleNotFoundError: No module named 'mxnet.contrib.onnx'")[0] == "fail"
    assert r.classify(1, "urlopen error [Errno -2]\nMXNetError: could not download x")[0] == \
        "needs download"
    assert r.classify(1, "MXNetError: Operator _ones is not implemented for GPU.")[0] == \
        "needs GPU"


def test_fake_cifar10_is_the_binary_format(tmp_path):
    r.fake_datasets(str(tmp_path / "home"), 10, 4)
    root = tmp_path / "home" / "datasets"
    assert sorted(os.listdir(root)) == ["cifar10", "fashion-mnist", "mnist"]
    raw = np.fromfile(root / "cifar10" / "data_batch_1.bin", dtype=np.uint8).reshape(-1, 3073)
    assert raw.shape == (2, 3073) and raw[:, 0].max() < 10
    assert os.path.getsize(root / "cifar10" / "test_batch.bin") == 4 * 3073
    import mxgrad as mx
    train = mx.gluon.data.vision.CIFAR10(root=str(root / "cifar10"), train=True)
    img, label = train[0]
    assert len(train) == 10 and img.shape == (32, 32, 3) and label == raw[0, 0]
    assert (img.asnumpy() == raw[0, 1:].reshape(3, 32, 32).transpose(1, 2, 0)).all()
    mnist = mx.gluon.data.vision.MNIST(root=str(root / "mnist"), train=False)
    assert len(mnist) == 4 and mnist[0][0].shape == (28, 28, 1)
