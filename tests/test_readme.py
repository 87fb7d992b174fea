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


def test_readme_design_study_example_runs_as_one_batch(tmp_path, monkeypatch) -> None:
    """The design-study example, as written: a planar slider-crank (redundant rows) over
    crank radius, rod length and the drive's speed (drive.omega: each variant's own
    motion).  Its 18 variants sweep as one batch; the six with the 0.05 m rod lock up, as
    the example says, and leave the batch for their own sweeps' errors; every other variant
    equals its own sweep, and twice the speed takes more torque."""
    import numpy as np
    from solver.study import engine
    got = []
    real = engine.batch_sweep
    monkeypatch.setattr(engine, "batch_sweep",
                        lambda models, *a: got.append(real(models, *a)) or got[-1])
    monkeypatch.chdir(tmp_path)                          # the example writes study.csv
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    start = (text.index("```python\nimport numpy as np\nfrom solver import Mechanism, grid")
             + len("```python\n"))
    code = text[start:text.index("```", start)]
    scope: dict = {}
    exec(compile(code, "README.md", "exec"), scope)     # our own documentation, not user input
    res, m = scope["res"], scope["m"]
    short = [i for i, row in enumerate(res.variants) if row["rod_B.position.x"] == 0.05]
    assert sorted(res.failures) == short == [4, 5, 10, 11, 16, 17]
    assert all("lock-up at t = " in res.failures[i] for i in short)
    assert len(got) == 1 and [r is None for r in got[0]] == [i in short for i in range(18)]
    assert (tmp_path / "study.csv").exists()
    from solver.study import Study
    study = Study(m, res.variants)
    for i in (0, 1, 13):
        alone = study.variant(i).solve(1.0, 48)
        assert np.abs(res.result(i)._r - alone._r).max() <= 1e-10
        d = np.abs(res.result(i).effort("drive") - alone.effort("drive")).max()
        assert d <= 1e-9 * np.abs(alone.effort("drive")).max()
    fast, slow = res.result(1).effort("drive"), res.result(0).effort("drive")
    assert np.abs(fast).max() > 2 * np.abs(slow).max()

