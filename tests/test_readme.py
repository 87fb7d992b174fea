"""README's Python API example runs as written (so the front door stays true)."""
from __future__ import annotations

import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.mark.slow             # a 10 s dynamic run: about 4 s
def test_readme_api_example_runs() -> None:
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    start = text.index("```python\nfrom solver import Mechanism") + len("```python\n")
    code = text[start:text.index("```", start)]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)     # our own documentation, not user input
    r, eq = scope["r"], scope["eq"]
    kinetic, potential, work = scope["kinetic"], scope["potential"], scope["work"]
    assert len(r.times) == 241 and r.analysis == "dynamic"
    total = kinetic + potential - work
    assert abs(total - total[0]).max() < 1e-4 * max(1.0, abs(total).max())
    assert eq.reaction("pin")[0].shape == (1, 3)
