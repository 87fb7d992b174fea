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


@pytest.mark.slow
def test_readme_couplers_and_curves_example_runs() -> None:
    """The second example: the gears keep their ratio (gear 2 at -0.4 of gear 1's angle),
    the bead stays on its track, the mesh transmits torque."""
    import numpy as np
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    start = text.index("```python\nfrom solver import Mechanism\nfrom solver.base.curves") + len("```python\n")
    code = text[start:text.index("```", start)]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)     # our own documentation, not user input
    gr = scope["gr"]
    q1, q2 = gr.orientation("gear1"), gr.orientation("gear2")
    th1 = np.unwrap(2 * np.arctan2(q1[:, 3], q1[:, 0]))     # 15 deg a frame: unwraps
    th2 = 2 * np.arctan2(q2[:, 3], q2[:, 0])
    wrap = lambda a: (a + np.pi) % (2 * np.pi) - np.pi   # noqa: E731
    assert np.abs(wrap(th2 + 0.4 * th1)).max() < 1e-9
    origin, _ = gr.marker_frame("track")
    d = gr.position("bead") - origin
    assert np.abs(np.linalg.norm(d, axis=1) - 0.2).max() < 1e-9
    assert np.abs(gr.coupler("mesh")).max() > 1e-3
    assert gr.impacts and gr.impacts[0][1] == ("stops",)        # the arm hits its lower stop
    q = gr.orientation("arm")
    assert (2 * np.arctan2(q[:, 3], q[:, 0])).min() > -1.0 - 1e-9
    assert np.abs(gr.friction("bearing")).max() > 0.0
    ke, pe, work = gr.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-6
