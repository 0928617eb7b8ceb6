"""The README's example runs and prints what it says."""
import contextlib
import io
import os
import re

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _python_blocks():
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return re.findall(r"```python\n(.*?)```", text, flags=re.S)


def test_readme_example_runs_and_matches_its_comments():
    blocks = _python_blocks()
    assert blocks, "README has no python example"
    for code in blocks:
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            exec(compile(code, "README.md", "exec"), {})
        out = buf.getvalue()
        # each `print(...)  # expected` comment must appear in the output
        for expected in re.findall(r"print\(.*\)\s+#\s*(.+)", code):
            assert expected.strip() in out, f"README promises {expected!r}, got {out!r}"


def test_readme_commands_match_ci():
    readme = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    ci = open(os.path.join(ROOT, ".ci", "run"), encoding="utf-8").read()
    test_cmd = "pip install -e '.[test]' && python -m pytest"
    assert test_cmd in readme
    assert test_cmd in ci
