"""The documentation as a product: every Python example in README.md and docs/ runs as
written and gives the physics it claims, docs/python.md names every public call, and the
docs link only to files that exist."""
from __future__ import annotations

import glob
import inspect
import os
import re

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOCS = [os.path.join(ROOT, "README.md"), *sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))]
G = 9.81


def read(path: str) -> str:
    with open(path, encoding="utf-8") as f:
        return f.read()


def python_blocks(path: str) -> list[str]:
    """The ```python blocks of a Markdown file, in order."""
    return re.findall(r"```python\n(.*?)```", read(path), re.S)


def run_examples(path: str) -> dict:
    """Run a page's Python blocks in order in one namespace (a later block may use what an
    earlier one made, as a reader following the page does); the namespace at the end."""
    scope: dict = {"__name__": "__doc_example__"}
    for k, code in enumerate(python_blocks(path)):
        exec(compile(code, f"{os.path.relpath(path, ROOT)} block {k + 1}", "exec"), scope)   # noqa: S102 - our own docs
    return scope


# the pages with Python examples, each run as written by a test below that checks its physics
CHECKED = {"README.md", os.path.join("docs", "python.md"), os.path.join("docs", "studies.md")}


def test_every_page_with_examples_has_them_run() -> None:
    """A page with Python examples is one the tests below run (a new page's examples need a
    test that runs them and checks what they claim)."""
    pages = {os.path.relpath(p, ROOT) for p in DOCS if python_blocks(p)}
    assert pages == CHECKED, pages ^ CHECKED


def test_readme_pendulum_gives_the_pin_force_at_release(tmp_path, monkeypatch) -> None:
    """Released from horizontal, the arm's centre of mass (l = 0.5 m, I_O = I_c + m l^2)
    accelerates down at l^2 m g / I_O, so the pin carries m g (1 - m l^2 / I_O) up; and the
    arm keeps its energy (a dynamic run at the default tolerance: 1e-6 of m g l)."""
    monkeypatch.chdir(tmp_path)
    scope = run_examples(os.path.join(ROOT, "README.md"))
    r, force = scope["r"], scope["force"]
    m, l, i_c = 1.0, 0.5, 1e-2
    assert r.analysis == "dynamic" and len(r.times) == 49
    assert force[0] == pytest.approx([0.0, 0.0, m * G * (1 - m * l * l / (i_c + m * l * l))], abs=1e-9)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-6 * m * G * l


def test_python_guide_examples_give_their_physics(tmp_path, monkeypatch) -> None:
    """docs/python.md: the sprung crank keeps KE + PE - work; statics is one frame; its mode
    is the torsion spring's; the gears
    keep their ratio (gear 2 at -0.4 of gear 1's angle), the bead stays on its track, the
    arm hits its lower stop and its dry bearing acts; the energy balance holds; the ball
    dropped on a floor bounces back up."""
    monkeypatch.chdir(tmp_path)
    scope = run_examples(os.path.join(ROOT, "docs", "python.md"))
    kinetic, potential, work = scope["kinetic"], scope["potential"], scope["work"]
    total = kinetic + potential - work
    assert np.abs(total - total[0]).max() < 1e-4 * max(1.0, np.abs(total).max())
    assert scope["eq"].reaction("pin")[0].shape == (1, 3)
    # the shaft's two bearings share the 500 N tooth force by the lever rule: the one at
    # b = 0.15 m carries 500 (0.1 - a) / (b - a), the one at a = -0.05 m the rest, against it
    # (a constant spin about a principal axis adds no moment: 1e-9 N is rounding)
    n = len(scope["held"].times)
    assert scope["load_b"] == pytest.approx(np.tile([0.0, -375.0, 0.0], (n, 1)), abs=1e-9)
    assert scope["load_a"] == pytest.approx(np.tile([0.0, -125.0, 0.0], (n, 1)), abs=1e-9)
    # the CSV written reads back as the crank's times, motor torque and pin force
    curve = scope["curve"]
    written = np.loadtxt(tmp_path / "motor.csv", delimiter=",", skiprows=1)
    assert written.shape == (25, 5)
    assert np.array_equal(written, np.column_stack([curve.times, curve.effort("drive"),
                                                    curve.reaction("pin")[0]]))
    # the crank's angle read from its pin's markers is its motion, pi/6 + 2 pi t, turns
    # kept (to 1e-9 rad: the sweep's poses are exact to rounding)
    t = curve.times
    assert scope["crank_angle"] == pytest.approx(np.pi / 6 + 2 * np.pi * t, abs=1e-9)
    assert np.array_equal(scope["torque_curve"][:, 1], curve.effort("drive"))
    # the crank turns about the vertical: only the torsion spring (k 2 N m/rad, c 0.1 N m s)
    # holds it (the shock's line is vertical, so it acts at second order); I_O = 0.02 +
    # 2 * 0.05^2 kg m^2
    modes, i_o = scope["modes"], 0.02 + 2.0 * 0.05 ** 2
    omega = np.sqrt(2.0 / i_o)
    assert modes.frequencies == pytest.approx([omega / (2 * np.pi)], rel=1e-7)
    assert modes.damping_ratios == pytest.approx([0.1 / (2 * omega * i_o)], rel=1e-7)
    assert set(scope["poses"]) == {"crank"} and scope["poses"]["crank"][1].shape == (2, 4)
    # the arm's tip on its circle (the placements as written put it at the start's target)
    tip, _ = scope["traced"].marker_frame("tip")
    t = scope["traced"].times
    assert np.abs(tip[:, 0] - (0.6 + 0.1 * np.cos(2 * np.pi * t))).max() < 1e-12
    assert scope["push"].shape == (len(t), 3) and np.allclose(scope["push"][:, 2], 0.0)
    # the flywheel under its motor's torque-speed line: w0 (1 - exp(-T0 t / (I w0)))
    t = scope["spin"].times
    assert scope["speed"] == pytest.approx(30.0 * (1 - np.exp(-8.0 * t / (0.4 * 30.0))), abs=1e-6)
    assert scope["motor_torque"][:, 2] == pytest.approx(8.0 * (1 - scope["speed"] / 30.0), abs=1e-9)
    # the engine on its bushing sags by m g / k_z, the bushing carries its weight, and its
    # six frequencies are sqrt(k / m) and sqrt(k_r / I) (the bushing at the centre of mass)
    assert scope["sag"][0] == pytest.approx([0.0, 0.0, -80.0 * G / 4e5], abs=1e-12)
    assert scope["force"][0] == pytest.approx([0.0, 0.0, 80.0 * G], rel=1e-9)
    six = np.sqrt(np.array([2e5, 2e5, 4e5, 8e3, 8e3, 6e3]) / [80.0, 80.0, 80.0, 2.0, 3.0, 2.5])
    assert scope["mount"].modes().frequencies == pytest.approx(np.sort(six) / (2 * np.pi), rel=1e-7)
    gr = scope["gr"]
    q1, q2 = gr.orientation("gear1"), gr.orientation("gear2")
    th1 = np.unwrap(2 * np.arctan2(q1[:, 3], q1[:, 0]))
    th2 = 2 * np.arctan2(q2[:, 3], q2[:, 0])
    wrap = lambda a: (a + np.pi) % (2 * np.pi) - np.pi   # noqa: E731
    assert np.abs(wrap(th2 + 0.4 * th1)).max() < 1e-9
    origin, _ = gr.marker_frame("track")
    assert np.abs(np.linalg.norm(gr.position("bead") - origin, axis=1) - 0.2).max() < 1e-9
    assert gr.impacts and tuple(gr.impacts[0])[1] == ("stops",)
    q = gr.orientation("arm")
    assert (2 * np.arctan2(q[:, 3], q[:, 0])).min() > -1.0 - 1e-9
    assert np.abs(gr.friction("bearing")).max() > 0.0
    ke, pe, w = gr.energy()
    assert np.abs(ke + pe - w - (ke + pe - w)[0]).max() < 1e-6
    # the dropped ball bounces back up, to at most the height its restitution allows
    top = scope["bounced"].position("ball")[6:, 2].max()
    assert 0.01 + 0.5 * 0.09 < top < 0.01 + 0.8 ** 2 * 0.09
    four_bar_obeys_newton(scope["fb"], scope["loop"], tmp_path / "four_bar.png")
    # the URDF arm's six revolute joints come in free, go out to MuJoCo and back as six
    assert scope["robot"].check().dof == 6 and (tmp_path / "robot_arm.xml").exists()
    assert scope["again"].check().dof == 6 and len(scope["again"].joints) == 6


def com_motion(r, part: str, com) -> tuple[np.ndarray, np.ndarray]:
    """A part's centre-of-mass velocity and acceleration (n, 3), world, from its origin's
    and its angular rates: v + w x c, a + alpha x c + w x (w x c), c = R com."""
    from solver import quat_to_matrix
    c = quat_to_matrix(r.orientation(part)) @ np.asarray(com, float)
    w, alpha = r.angular_velocity(part), r.angular_acceleration(part)
    return (r.velocity(part) + np.cross(w, c),
            r.acceleration(part) + np.cross(alpha, c) + np.cross(w, np.cross(w, c)))


def four_bar_obeys_newton(fb, loop, png) -> None:
    """python.md's four-bar: Check finds its three redundant equations; the rocker's
    in-plane forces (its pin's reaction, minus pin B's on the coupler) are its mass times
    its centre of mass's acceleration, and the motor's power is the rate of the links'
    kinetic energy (gravity along the pins does no work), each to 1e-9 of the largest
    term (the sweep's accelerations are exact to rounding); the plot is written."""
    assert sum(len(v) for v in fb.check().redundant.values()) == 3
    # the one note: the three redundant components' share among the joints is not unique
    assert len(loop.notes) == 1 and "reactions not unique" in loop.notes[0] and png.exists()
    assert all(f"'{j}'" in loop.notes[0] for j in ("crank_pin", "pin_A", "pin_B", "rocker_pin"))
    rocker = fb.parts["rocker"]
    a_c = com_motion(loop, "rocker", rocker.center_of_mass)[1]
    net = loop.reaction("rocker_pin")[0] - loop.reaction("pin_B")[0]
    assert np.abs(net[:, :2] - rocker.mass * a_c[:, :2]).max() < 1e-9 * np.abs(net).max()
    kinetic_rate = 0.0
    for name in ("crank", "coupler", "rocker"):
        part = fb.parts[name]
        v_c, a_c = com_motion(loop, name, part.center_of_mass)
        w, alpha = loop.angular_velocity(name), loop.angular_acceleration(name)
        kinetic_rate = kinetic_rate + part.mass * np.sum(v_c * a_c, axis=1) + \
            part.inertia[2, 2] * w[:, 2] * alpha[:, 2]        # turning about z only
    power = loop.effort("drive") * 2 * np.pi
    assert np.abs(power - kinetic_rate).max() < 1e-9 * np.abs(power).max()


@pytest.mark.slow
def test_design_study_example_runs_as_one_batch(tmp_path, monkeypatch) -> None:
    """docs/studies.md's study as written: its 18 variants sweep as one batch; the six with
    the 0.05 m rod lock up, as the page says, and leave the batch for their own sweeps'
    errors; every other variant equals its own sweep, and twice the speed takes more
    torque."""
    from solver.study import Study, engine
    got = []
    real = engine._sweeps
    monkeypatch.setattr(engine, "_sweeps",
                        lambda models, *a: got.append(real(models, *a)) or got[-1])
    monkeypatch.chdir(tmp_path)
    scope = run_examples(os.path.join(ROOT, "docs", "studies.md"))
    res, m = scope["res"], scope["m"]
    short = [i for i, row in enumerate(res.variants) if row["rod_B.position.x"] == 0.05]
    assert sorted(res.failures) == short == [4, 5, 10, 11, 16, 17]
    assert all("lock-up at t = " in res.failures[i] for i in short)
    assert len(got) == 1 and [r is None for r in got[0]] == [i in short for i in range(18)]
    assert {"peak reaction wrist", "rms reaction wrist", "peak effort drive", "min slide slide",
            "max crank_pin angle", "stroke"} <= set(res.summary)
    assert np.allclose(res.summary["stroke"][[0, 6, 12]], [0.16, 0.2, 0.24], rtol=1e-9)
    assert (tmp_path / "study.csv").exists() and len(scope["lhs"]) == 20
    study = Study(m, res.variants)
    for i in (0, 1, 13):
        alone = study.variant(i).solve(1.0, 48)
        assert np.abs(res.result(i).position("slider") - alone.position("slider")).max() <= 1e-10
        d = np.abs(res.result(i).effort("drive") - alone.effort("drive")).max()
        assert d <= 1e-9 * np.abs(alone.effort("drive")).max()
    fast, slow = res.result(1).effort("drive"), res.result(0).effort("drive")
    assert np.abs(fast).max() > 2 * np.abs(slow).max()


def public_names(cls) -> set[str]:
    """A class's public methods, properties and instance attributes."""
    names = {n for n in vars(cls) if not n.startswith("_")}
    try:
        src = inspect.getsource(cls.__init__)
        names |= set(re.findall(r"self\.([a-z][a-z0-9_]*)\s*(?::[^=]+)?=", src))
    except (TypeError, OSError):
        pass
    return names


def test_the_python_reference_names_every_public_call() -> None:
    """Every public method and attribute of what users build and read is in docs/reference.md
    (or docs/studies.md for the study's classes), as `name`: a new public name fails this
    until it is documented."""
    import solver
    from solver.base.curves import Curve
    from solver.model.results import Result
    from solver.model.impacts import Impact
    from solver.vocabulary.builder import Builder
    guide = read(os.path.join(ROOT, "docs", "reference.md"))
    studies = read(os.path.join(ROOT, "docs", "studies.md"))
    missing = []
    for cls, page in ((Builder, guide), (solver.Mechanism, guide), (Result, guide),
                      (solver.CheckReport, guide), (Curve, guide), (Impact, guide),
                      (solver.Poser, guide), (solver.Modes, guide),
                      (solver.StudyResult, studies), (solver.Study, studies)):
        for name in sorted(public_names(cls)):
            if not re.search(rf"`[^`]*\b{re.escape(name)}\b[^`]*`", page):
                missing.append(f"{cls.__name__}.{name}")
    for name in solver.__all__:
        if f"`{name}`" not in guide + studies:
            missing.append(f"solver.{name}")
    assert not missing, f"not in docs/reference.md or docs/studies.md: {missing}"


def heading_anchors(path: str) -> set[str]:
    """The anchors GitHub gives a Markdown page's headings: lower case, punctuation but
    hyphens dropped, spaces to hyphens, a repeated one suffixed -1, -2, ..."""
    text = re.sub(r"```.*?```", "", read(path), flags=re.S)
    seen: dict[str, int] = {}
    out = set()
    for heading in re.findall(r"^#+\s+(.*?)\s*$", text, re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
        out.add(slug if slug not in seen else f"{slug}-{seen[slug]}")
        seen[slug] = seen.get(slug, 0) + 1
    return out


def test_links_between_the_pages_lead_somewhere() -> None:
    """Every relative link and image in README.md and docs/ names a file that exists, and a
    link to a heading (page.md#anchor, or #anchor on the same page) names one it has."""
    broken = []
    for path in [*DOCS, os.path.join(ROOT, "CONTRIBUTING.md"), os.path.join(ROOT, "CHANGELOG.md")]:
        for target, anchor in re.findall(r"\]\(([^)#\s]*)(?:#([^)\s]*))?\)", read(path)):
            if "://" in target or not (target or anchor):
                continue
            page = os.path.join(os.path.dirname(path), target) if target else path
            if not os.path.exists(page):
                broken.append(f"{os.path.relpath(path, ROOT)} -> {target}")
            elif anchor and page.endswith(".md") and anchor not in heading_anchors(page):
                broken.append(f"{os.path.relpath(path, ROOT)} -> {target}#{anchor}")
    assert not broken, broken


def test_readme_stays_a_short_front_door() -> None:
    assert len(read(os.path.join(ROOT, "README.md")).splitlines()) < 200


# the guard names its phrases by parts, so that it does not itself read as history
_ORDINALS = "first second third fourth fifth sixth seventh eighth ninth tenth".split()
_SITTING = "sess" + "ion"
HISTORY = re.compile(r"[Ii]ssues? \d+|\b[Ss]eeds? ?0\d\d|design\.md|shared/(docs|seeds)|"
                     rf"({'|'.join(_ORDINALS)}) {_SITTING}|"
                     r"\b[Rr]ound (one|two|three)\b")


def test_no_development_history_in_the_product() -> None:
    """README, docs/, the code, its tests, benches and samples name no issue number or
    round of development, and cite no file outside the repository (the history is the git
    log and CHANGELOG.md; the sources are docs/references.md's)."""
    found = []
    for folder in ("solver", "addon", "tests", "bench", "sample_scenes", "docs", ".ci"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*"), recursive=True):
            if os.path.isfile(path) and path.endswith((".py", ".md", ".toml", ".txt", "")) \
                    and "__pycache__" not in path and path != os.path.abspath(__file__):
                try:
                    text = read(path)
                except UnicodeDecodeError:
                    continue
                found += [f"{os.path.relpath(path, ROOT)}: {m.group(0)}" for m in HISTORY.finditer(text)]
    for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md", "blender_manifest.toml", "pyproject.toml"):
        found += [f"{name}: {m.group(0)}" for m in HISTORY.finditer(read(os.path.join(ROOT, name)))]
    assert not found, found


def test_every_source_the_code_cites_is_listed() -> None:
    """Each "Author year" (or "Author and Author year") the solver's and the add-on's
    docstrings cite is in docs/references.md."""
    listed = read(os.path.join(ROOT, "docs", "references.md"))
    cited = set()
    for folder in ("solver", "addon"):
        for path in glob.glob(os.path.join(ROOT, folder, "**", "*.py"), recursive=True):
            cited |= set(re.findall(r"\b([A-Z][a-z]+(?: (?:and|&) [A-Z][a-z]+)?),? ((?:19|20)\d\d)\b",
                                    read(path)))
    missing = sorted(f"{who} {year}" for who, year in cited
                     if who.split()[0] not in listed or year not in listed)
    assert not missing, missing


def test_every_table_row_has_as_many_cells_as_its_header() -> None:
    """A row with a cell too many or too few shows its values under the wrong columns (a
    test file under the agreement, a number under the test)."""
    ragged = []
    for path in DOCS:
        width = None
        for k, line in enumerate(read(path).splitlines(), 1):
            if not line.startswith("|"):
                width = None
                continue
            cells = len(re.findall(r"(?<!\\)\|", re.sub(r"`[^`]*`", "``", line))) - 1
            width = cells if width is None else width
            if cells != width:
                ragged.append(f"{os.path.relpath(path, ROOT)}:{k} has {cells} cells, its header {width}")
    assert not ragged, ragged


def test_the_guides_contents_list_every_section() -> None:
    """The contents at the top of blender.md and python.md (the first bullet list) link to
    every section of the page, so a reader scanning them finds each task."""
    unlisted = []
    for name in ("blender.md", "python.md"):
        path = os.path.join(ROOT, "docs", name)
        text = read(path)
        contents = re.search(r"^- .*?(?=\n\n)", text, re.M | re.S).group(0)
        linked = set(re.findall(r"\]\(#([^)]+)\)", contents))
        body = re.sub(r"```.*?```", "", text, flags=re.S)
        for heading in re.findall(r"^##\s+(.*?)\s*$", body, re.M):
            slug = re.sub(r"[^\w\- ]", "", heading.replace("`", "").lower()).replace(" ", "-")
            if slug not in linked:
                unlisted.append(f"{name}: {heading}")
    assert not unlisted, unlisted


def test_the_blender_guide_defines_every_equation_check_names() -> None:
    """Check's report names a joint's redundant equations by the solver's labels
    ("at-point x", "z_I . x_J", ...): each one a joint can have is defined in the guide."""
    from solver.vocabulary.joints import CURVE_JOINT_ROWS, JOINT_ROWS, label
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = f.read()
    labels = {label(p) for rows in [*JOINT_ROWS.values(), *CURVE_JOINT_ROWS.values()] for p in rows}
    assert not [x for x in sorted(labels) if f"`{x}`" not in guide]


def test_the_expressions_reference_names_every_function_and_says_what_each_gives() -> None:
    """conventions.md#expressions is the one reference of what a user may type: it names
    every function the parser knows, its step, step5 and ramp are the functions' values (to
    rounding, 1e-12), its switch example switches where it says, and what it says is
    refused is refused."""
    from solver import ExpressionError, parse_expression
    from solver.vocabulary.expressions import _FUNCS
    text = read(os.path.join(ROOT, "docs", "conventions.md"))
    section = re.search(r"^## Expressions\n(.*?)^## ", text, re.M | re.S).group(1)
    assert not [f for f in _FUNCS if f"`{f}" not in section]
    x0, x1, h0, h1 = 0.5, 2.0, -1.0, 3.0
    for x in np.linspace(0.0, 3.0, 61):
        s = min(max((x - x0) / (x1 - x0), 0.0), 1.0)
        step = parse_expression("step(t, 0.5, -1, 2, 3)")(t=x)
        step5 = parse_expression("step5(t, 0.5, -1, 2, 3)")(t=x)
        assert step == pytest.approx(h0 + (h1 - h0) * s * s * (3 - 2 * s), abs=1e-12)
        assert step5 == pytest.approx(h0 + (h1 - h0) * s ** 3 * (10 - 15 * s + 6 * s * s), abs=1e-12)
        if x >= x1:
            assert parse_expression("ramp(t, 0.5, 2)")(t=x) == pytest.approx(
                x - x1 + (x1 - x0) / 2, abs=1e-12)
    # the ramp's slope is step5(x, x0, 0, x1, 1): a central difference, error O(h^2) = 1e-8
    h = 1e-4
    for x in (0.3, 0.9, 1.25, 1.7, 2.5):
        ramp = parse_expression("ramp(t, 0.5, 2)")
        slope = (ramp(t=x + h) - ramp(t=x - h)) / (2 * h)
        assert slope == pytest.approx(parse_expression("step5(t, 0.5, 0, 2, 1)")(t=x), abs=1e-7)
    assert "`10*step(t, 1, 0, 1.01, 1)`: 10 from 1.01 s on" in " ".join(section.split())
    switch = parse_expression("10*step(t, 1, 0, 1.01, 1)")
    assert [switch(t=v) for v in (0.0, 1.0, 1.01, 5.0)] == [0.0, 0.0, 10.0, 10.0]
    assert parse_expression("atan2(0, -1)")(t=0.0) == pytest.approx(np.pi, abs=1e-15)
    for refused in ("2^t", "t % 2", "t // 2", "t > 1", "1 if t else 2", "t and 1", "Sin(t)"):
        with pytest.raises(ExpressionError):
            parse_expression(refused)


def test_a_duration_under_half_a_frame_is_refused_as_the_guide_says() -> None:
    """python.md: a duration above 0 under half a frame, 21 ms at 24 fps (1/48 s), is
    refused saying the fps it needs; one just over it keeps the start and one frame."""
    from solver import Mechanism, MechanismError
    assert "under half a frame\n(21 ms at 24 fps) is refused" in read(os.path.join(ROOT, "docs", "python.md"))
    m = Mechanism()
    m.add_part("ground", fixed=True); m.add_part("arm")
    m.add_marker("O", "ground"); m.add_marker("A", "arm")
    m.add_joint("pin", "revolute", "A", "O")
    with pytest.raises(MechanismError, match="ask for at least 50 fps"):
        m.solve(0.02, 24)
    assert len(m.solve(0.0215, 24).times) == 2


def _crank(**motion) -> "Mechanism":
    """A crank pinned at the ground's origin, a marker B 0.1 m out on it, a ground marker P
    there too, and the motion given (name, joint, expression), if any."""
    from solver import Mechanism
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True); m.add_part("crank")
    m.add_marker("O", "ground"); m.add_marker("A", "crank")
    m.add_marker("B", "crank", position=(0.1, 0, 0))
    m.add_marker("P", "ground", position=(0.1, 0, 0))
    m.add_joint("pin", "revolute", "A", "O")
    if motion:
        m.add_motion("drive", "pin", motion["expression"])
    return m


def _error_cases() -> dict:
    """Each message of python.md's table of errors -> a call that raises it."""
    import mechanisms as mk
    from solver import Mechanism

    def unclosed():
        m = _crank()
        m.add_marker("far", "ground", position=(1.0, 0, 0)); m.add_joint("tie", "spherical", "B", "far")
        m.solve(1.0, 24)

    def overdriven():
        m = _crank(expression="t"); m.add_joint("tie", "spherical", "B", "P"); m.solve(1.0, 24)

    def dead_centre():
        m = mk.slider_crank(error_deg=0.0, error_m=0.0, drive="0.1*t")
        m.motions.clear(); m.add_motion("push", "slide", "-0.1*t"); m.solve(1.0, 24)

    def flat_parallelogram():
        p = Mechanism(gravity=(0.0, -9.81, 0.0)); p.add_part("ground", fixed=True)
        for k, x in ((1, 0.0), (2, 0.5)):
            p.add_part(f"link{k}", position=(x, 0, 0)); p.add_marker(f"L{k}", f"link{k}")
            p.add_marker(f"G{k}", "ground", position=(x, 0, 0))
            p.add_marker(f"T{k}", f"link{k}", position=(0.3, 0, 0))
            p.add_joint(f"base{k}", "revolute", f"L{k}", f"G{k}")
        p.add_part("top", position=(0.3, 0, 0)); p.add_marker("C1", "top")
        p.add_marker("C2", "top", position=(0.5, 0, 0))
        p.add_joint("top1", "revolute", "C1", "T1"); p.add_joint("top2", "revolute", "C2", "T2")
        p.solve(1.0, 24)

    def through_stop():
        m = _crank(expression="t"); m.add_limit("stops", "pin", lower=-0.5, upper=0.5)
        m.solve(1.0, 24)

    def undefined():
        m = _crank(); m.add_force("push", "B", force=(0, "log(0.5 - t)", 0)); m.solve(1.0, 24)

    def out_of_reach():
        m = _crank()
        m.parts["crank"].orientation[:] = (np.cos(np.pi / 6), 0, 0, np.sin(np.pi / 6))
        m.add_general_motion("reach", "B", "O", x="0.05 + 0.13*t")  # B at x = 0.05: 60 deg
        m.solve(1.0, 24)                       # past its reach, 0.1 m, at 0.385 s, frame 10

    return {
        "unknown part": lambda: Mechanism().add_marker("A", part="arm"),
        "the joints cannot all be closed": unclosed,
        "the motions over-drive the mechanism": overdriven,
        "needs every degree of freedom driven": lambda: _crank().solve(1.0, 24, analysis="kinematic"),
        "starts at a dead centre": dead_centre,
        "starts at a singular position": flat_parallelogram,
        "lock-up at t =": lambda: mk.slider_crank(r=0.1, l=0.05).solve(1.0, 24),
        "the motion drives it through its stop": through_stop,
        "cannot be evaluated at t=": undefined,
        "out of reach by": out_of_reach,
    }


def test_the_table_of_errors_gives_what_the_solver_says() -> None:
    """Each message python.md's table of errors quotes is what the solver raises for the
    case it describes (so a reader can find the row by the text in front of them), and
    every row is checked here."""
    from solver import MechanismError, SolverError
    guide = read(os.path.join(ROOT, "docs", "python.md"))
    errors = guide[guide.index("## Errors\n"):]
    quoted = re.findall(r"^\| `([^`]+)`", errors, re.M)
    cases = _error_cases()
    assert quoted == list(cases)
    for text, call in cases.items():
        with pytest.raises((MechanismError, SolverError)) as info:
            call()
        assert text in str(info.value), (text, str(info.value))


def test_the_joint_table_lists_every_kind_with_its_equations() -> None:
    """conventions.md's joint table, the reference a user looks a kind up in, lists every
    kind the solver takes (and the curve joints) with as many equations as it holds."""
    from solver import CURVE_JOINT_ROWS, JOINT_ROWS
    text = read(os.path.join(ROOT, "docs", "conventions.md"))
    rows = dict(re.findall(r"^\| ([a-z-]+) \| [^|]+ \| (\d+) \|$", text, re.M))
    assert {k: int(n) for k, n in rows.items()} == \
        {k: len(v) for k, v in {**JOINT_ROWS, **CURVE_JOINT_ROWS}.items()}


def test_the_guides_limits_on_orientations_tolerance_and_times_hold() -> None:
    """python.md: an orientation within 1e-3 of unit length is normalized, one farther off
    refused; a tolerance outside 1e-14 to 0.1 and times not strictly increasing are
    refused."""
    from solver import Mechanism, MechanismError
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("arm", orientation=(1.0009, 0, 0, 0))
    assert np.array_equal(m.parts["arm"].orientation, [1.0, 0, 0, 0])
    with pytest.raises(MechanismError, match="not a unit quaternion"):
        m.add_marker("A", "arm", orientation=(1.0011, 0, 0, 0))
    m.add_marker("A", "arm"); m.add_marker("O", "ground")
    m.add_joint("pin", "revolute", "A", "O")
    for tolerance in (1e-14, 0.1):
        m.solve(0.1, 24, tolerance=tolerance)
    for bad in (dict(tolerance=1e-15), dict(tolerance=0.11), dict(times=[0.0, 0.1, 0.1])):
        with pytest.raises(MechanismError):
            m.solve(**({"duration": 0.1} if "times" not in bad else {}), **bad)
