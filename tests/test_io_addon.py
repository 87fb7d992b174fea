"""The add-on's pure logic (addon/io/) without Blender: plain Python and numpy, real numbers.

The repository root is imported as the package ``mechanism_animator`` (what Blender calls
it, without the ``bl_ext`` prefix), so addon/io/ reaches the solver with its relative
imports as it does inside Blender; addon/__init__.py imports nothing at load, so no bpy is
needed.  Files named test_addon_*.py are the real-Blender tier.
"""
from __future__ import annotations

import ast
import importlib
import importlib.util
import os
import re
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "mechanism_animator"
IO_DIR = os.path.join(ROOT, "addon", "io")
IO_MODULES = sorted(f[:-3] for f in os.listdir(IO_DIR) if f.endswith(".py") and f != "__init__.py")


def package():
    """The repository as the package PACKAGE (its __init__.py imports nothing at load)."""
    if PACKAGE not in sys.modules:
        spec = importlib.util.spec_from_file_location(PACKAGE, os.path.join(ROOT, "__init__.py"),
                                                      submodule_search_locations=[ROOT])
        mod = importlib.util.module_from_spec(spec)
        sys.modules[PACKAGE] = mod
        spec.loader.exec_module(mod)
    return sys.modules[PACKAGE]


def io(name: str):
    """addon/io/<name>.py as a module of the package."""
    package()
    return importlib.import_module(f"{PACKAGE}.addon.io.{name}")


solver = importlib.import_module(f"{package().__name__}.solver")
rotations = importlib.import_module(f"{PACKAGE}.solver.base.rotations")
arrows, csv_table = io("arrows"), io("csv_table")
keyframes, part_frames = io("keyframes"), io("part_frames")
plots, timeline = io("plots"), io("timeline")


# ---------------------------------------------------------------- no Blender in addon/io
def test_io_modules_import_without_blender() -> None:
    """A fresh interpreter in which bpy, mathutils, bmesh and gpu cannot be imported loads every
    module of addon/io (and the package around it)."""
    code = (f"import sys\nfor m in ('bpy', 'mathutils', 'bmesh', 'gpu', 'bpy_extras'):\n"
            f"    sys.modules[m] = None\n"
            f"sys.path.insert(0, {os.path.dirname(__file__)!r})\n"
            f"import test_io_addon as t\n"
            f"for m in {IO_MODULES!r}:\n    t.io(m)\n"
            f"print('loaded', len({IO_MODULES!r}))\n")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                       cwd=ROOT)
    assert p.returncode == 0, p.stderr
    assert p.stdout.split() == ["loaded", str(len(IO_MODULES))]
    assert "bpy" not in p.stderr


def test_io_modules_import_no_blender_side_module() -> None:
    """Read from the source: no module of addon/io imports Blender or a module of addon/
    outside io/ (relative imports may reach io/ siblings and ...solver only)."""
    assert len(IO_MODULES) >= 2
    for name in IO_MODULES:
        tree = ast.parse(open(os.path.join(IO_DIR, name + ".py"), encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                mods = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                mods = [node.module or ""]
                if node.level == 2:
                    raise AssertionError(f"io/{name}: imports from addon/ ({node.module})")
                if node.level == 3:
                    assert (node.module or "").startswith("solver"), (name, node.module)
                    continue
            else:
                continue
            for m in mods:
                assert m.split(".")[0] not in ("bpy", "mathutils", "bmesh", "gpu", "gpu_extras",
                                               "bpy_extras", "addon_utils"), (name, m)


# ---------------------------------------------------------------- timeline: frames <-> times
def driven_crank():
    """A crank on a pin driven at 2 pi t: every degree of freedom driven (kinematic)."""
    m = solver.Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=1.0, center_of_mass=(0.5, 0, 0))
    m.add_marker("O", "ground")
    m.add_marker("A", "crank")
    m.add_joint("pin", "revolute", "A", "O")
    m.add_motion("spin", "pin", "2*pi*t")
    return m


@pytest.mark.parametrize("start, end, fps, base", [(1, 25, 24, 1.0), (0, 90, 30, 1.001),
                                                   (-10, 37, 25, 1.0), (101, 161, 60, 1.001)])
def test_times_are_the_frames_the_duration_form_gave(start, end, fps, base) -> None:
    """times = (frames - frame_start) / fps: the solver computes exactly those (Result.times
    equal them), and they are bit for bit the times of the duration/fps form the add-on used
    before, so a bake is unchanged; frame_of maps them back to the frames."""
    tl = timeline.Timeline.of_scene(start, end, fps, base)
    assert tl.fps == fps / base
    frames = tl.frames
    np.testing.assert_array_equal(frames, np.arange(start, end + 1))
    assert tl.times[0] == 0.0 and len(tl.times) == end - start + 1
    r_times = driven_crank().solve(times=tl.times).times
    r_duration = driven_crank().solve(tl.duration, tl.fps).times
    assert r_times.tolist() == tl.times.tolist() == r_duration.tolist()
    np.testing.assert_allclose(tl.frame_of(tl.times), frames, rtol=0, atol=1e-9)


def test_result_rows_map_to_frames_only_for_their_own_times() -> None:
    """Row k of a result solved at the timeline's times is frame frames[k]; a result of
    another range or rate is refused rather than written at the wrong frames."""
    tl = timeline.Timeline.of_scene(5, 29, 24, 1.0)
    r = driven_crank().solve(times=tl.times)
    np.testing.assert_array_equal(tl.frames_of(r.times), np.arange(5, 30))
    for other in (timeline.Timeline(5, 28, 24.0), timeline.Timeline(5, 29, 25.0)):
        with pytest.raises(ValueError, match="times are not"):
            other.frames_of(r.times)


def test_with_frame_names_the_scene_frame() -> None:
    wf = timeline.with_frame
    assert wf("lock-up of joint 'pin' at t = 0.08 s (frame 2)", 3.0) == \
        "lock-up of joint 'pin' at t = 0.08 s (frame 3)"
    assert wf("assembly failed", 12.4) == "assembly failed [frame 12]"
    assert wf("assembly failed (frame 0) (frame 0)", 7.0) == "assembly failed (frame 7) (frame 0)"
    assert wf("bad input", None) == "bad input"
    # an instant between two frames (scene frame 5.36): the scene's frames around it
    assert wf("stop at t = 0.1816 s (between frames 1 and 2): the motion", 5.36) == \
        "stop at t = 0.1816 s (between frames 5 and 6): the motion"
    assert wf("off at t = 0.25 s (between frames 1 and 2)", 7.0) == \
        "off at t = 0.25 s (between frames 6 and 7)"           # (on the later frame)


def test_with_scene_frame_maps_the_output_index() -> None:
    """A result note names output frame k; the user reads scene frame frames[k]."""
    ws = timeline.with_scene_frame
    frames = timeline.Timeline(5, 100, 24.0).frames
    assert ws("gap at t = 2.5 s (frame 60), the largest", frames) == "gap at t = 2.5 s (frame 65), the largest"
    assert ws("no frame named", frames) == "no frame named"
    assert ws("past the end (frame 500)", frames) == "past the end (frame 500)"
    assert ws("off at t = 0.1 s (between frames 2 and 3)", frames) == \
        "off at t = 0.1 s (between frames 7 and 8)"


# ---------------------------------------------------------------- keyframes: exact F-curves
K = keyframes.Key


def smoothstep_keys(interp: str = "BEZIER") -> list:
    """Keys (0, 0) and (3, 1), handles at a third: x(u) = 3u, y(u) = 3u^2 - 2u^3."""
    return [K(0.0, 0.0, (-1.0, 0.0), (1.0, 0.0), interp), K(3.0, 1.0, (2.0, 1.0), (4.0, 1.0), interp)]


@pytest.mark.parametrize("x, want", [(1.0, (7 / 27, 4 / 9, 2 / 9)), (1.5, (0.5, 0.5, 0.0)),
                                     (2.4, (0.896, 0.32, -2 / 5 * 1.0))])
def test_bezier_segment_by_hand(x: float, want: tuple) -> None:
    """x = 3u, y = 3u^2 - 2u^3: y' = (6u - 6u^2)/3, y'' = (6 - 12u)/9 per frame^2."""
    u = x / 3
    hand = (3 * u * u - 2 * u ** 3, (6 * u - 6 * u * u) / 3, (6 - 12 * u) / 9)
    np.testing.assert_allclose(hand, want, rtol=1e-12, atol=1e-15)     # the hand algebra
    f = keyframes.KeyframedFunction(smoothstep_keys())
    np.testing.assert_allclose(f(x), hand, rtol=1e-12, atol=1e-14)


def test_bezier_with_uneven_handles_against_the_polynomial() -> None:
    """Handles that make x(u) nonlinear: at x(u) for several u the value is the Bernstein
    polynomial's y(u), and the derivatives agree with central differences of the value."""
    k0 = K(2.0, 1.0, (1.0, 1.0), (5.5, 3.0), "BEZIER")
    k1 = K(8.0, -2.0, (6.5, -4.0), (9.0, 0.0), "BEZIER")
    f = keyframes.KeyframedFunction([k1, k0])                 # unsorted on purpose
    xs, ys = (2.0, 5.5, 6.5, 8.0), (1.0, 3.0, -4.0, -2.0)
    for u in (0.05, 0.3, 0.5, 0.77, 0.95):
        b = np.array([(1 - u) ** 3, 3 * (1 - u) ** 2 * u, 3 * (1 - u) * u * u, u ** 3])
        x, y = b @ xs, b @ ys
        v, d, dd = f(x)
        assert v == pytest.approx(y, abs=1e-12)
        h = 1e-4
        (a, da, _), (c, dc, _) = f(x - h), f(x + h)
        assert d == pytest.approx((c - a) / (2 * h), rel=1e-6, abs=1e-8)
        assert dd == pytest.approx((dc - da) / (2 * h), rel=1e-5, abs=1e-6)


def test_linear_constant_and_extrapolation() -> None:
    lin = [K(1.0, 0.0, (0, 0), (0, 0), "LINEAR"), K(5.0, 2.0, (0, 0), (0, 0), "CONSTANT"),
           K(9.0, -1.0, (0, 0), (0, 0), "LINEAR")]
    f = keyframes.KeyframedFunction(lin)
    assert f(3.0) == (1.0, 0.5, 0.0)
    assert f(7.0) == (2.0, 0.0, 0.0) and f(9.0) == (-1.0, 0.0, 0.0)
    assert f(0.0) == (0.0, 0.0, 0.0) and f(12.0) == (-1.0, 0.0, 0.0)     # constant extrapolation
    g = keyframes.KeyframedFunction(smoothstep_keys(), extrapolation="LINEAR")
    assert g(-2.0) == (0.0, 0.0, 0.0) and g(5.0) == (1.0, 0.0, 0.0)      # flat ends stay flat
    h = keyframes.KeyframedFunction(lin[:2], extrapolation="LINEAR")
    assert h(-1.0) == (-1.0, 0.5, 0.0)                                   # the first segment's slope
    assert keyframes.KeyframedFunction([lin[0]], extrapolation="LINEAR")(4.0) == (0.0, 0.0, 0.0)


def test_unsupported_interpolation_and_no_keys_are_named() -> None:
    keys = [K(1.0, 0.0, (0, 0), (0, 0), "ELASTIC"), K(5.0, 2.0, (0, 0), (0, 0), "LINEAR")]
    with pytest.raises(ValueError, match=r"joint 'j': keyframe at frame 1 uses ELASTIC"):
        keyframes.KeyframedFunction(keys, name="joint 'j'")
    keys[0] = K(1.0, 0.0, (0, 0), (0, 0), "LINEAR")
    keys[1] = K(5.0, 2.0, (0, 0), (0, 0), "ELASTIC")                    # the last key's own: unused
    assert keyframes.KeyframedFunction(keys)(3.0) == (1.0, 0.5, 0.0)
    with pytest.raises(ValueError, match="no keyframes"):
        keyframes.KeyframedFunction([], name="joint 'j'")


def test_time_derivatives_follow_the_timeline() -> None:
    """Value 2 per frame from frame 1 (LINEAR, extrapolated) at 24 fps, slide scale 0.01 m per
    unit: f(t) = 0.01 * 2 * 24 t, f' = 0.48, f'' = 0; a Bezier's second derivative gets fps^2."""
    tl = timeline.Timeline.of_scene(1, 25, 24, 1.0)
    keys = [K(1.0, 0.0, (0, 0), (0, 0), "LINEAR"), K(11.0, 20.0, (0, 0), (0, 0), "LINEAR")]
    f, df, ddf = keyframes.time_derivatives(
        keyframes.KeyframedFunction(keys, extrapolation="LINEAR"), tl, 0.01)
    for t in (0.0, 0.2, 1.0):
        assert f(t) == pytest.approx(0.48 * t, abs=1e-15)
        assert df(t) == pytest.approx(0.48) and ddf(t) == 0.0
    g, dg, ddg = keyframes.time_derivatives(keyframes.KeyframedFunction(smoothstep_keys()),
                                            timeline.Timeline(0, 3, 2.0))
    assert (g(0.5), dg(0.5), ddg(0.5)) == pytest.approx((7 / 27, 2 * 4 / 9, 4 * 2 / 9))


# ---------------------------------------------------------------- part frames and poses


def rot(axis: str, a: float) -> np.ndarray:
    """(3, 3) rotation by ``a`` rad about a world axis."""
    c, s = np.cos(a), np.sin(a)
    i, j = {"x": (1, 2), "y": (2, 0), "z": (0, 1)}[axis]
    R = np.eye(3)
    R[i, i], R[i, j], R[j, i], R[j, j] = c, -s, s, c
    return R


def affine(L: np.ndarray, t) -> np.ndarray:
    M = np.eye(4)
    M[:3, :3], M[:3, 3] = L, t
    return M


R0 = rot("z", 0.7) @ rot("x", -0.4)
S0 = np.diag([2.0, 0.5, 1.5])
M0 = affine(R0 @ S0, (1.0, -2.0, 3.0))             # a scaled, turned, moved part


def test_part_frame_takes_the_scale_out() -> None:
    f = part_frames.part_frame(M0)
    np.testing.assert_array_equal(f.matrix, M0)
    np.testing.assert_allclose(f.position, (1.0, -2.0, 3.0), rtol=0, atol=0)
    np.testing.assert_allclose(f.rotation, R0, atol=1e-15)
    np.testing.assert_allclose(f.stretch, S0, atol=1e-14)
    assert f.orientation[0] >= 0 and np.linalg.norm(f.orientation) == pytest.approx(1.0, abs=1e-15)
    with pytest.raises(ValueError):
        part_frames.part_frame(affine(np.diag([1.0, 0.0, 1.0]), (0, 0, 0)))


def test_pose_matrices_put_the_scale_back() -> None:
    """At its own pose (metres = Blender units times the scale) a part's matrix is the design
    matrix; turned by T about the world origin and moved, [T R0 S0, position / scale]."""
    f = part_frames.part_frame(M0)
    scale = 0.01
    np.testing.assert_allclose(part_frames.pose_matrices(f.position * scale, f.orientation, f.stretch,
                                                         scale), M0, atol=1e-14)
    turns = [rot("z", 0.5), rot("x", 1.2)]
    q = rotations.matrix_to_quat(np.array([T @ R0 for T in turns]))
    pos = np.array([[0.1, 0.2, 0.3], [-1.0, 0.0, 2.0]])
    W = part_frames.pose_matrices(pos, q, f.stretch, scale)
    assert W.shape == (2, 4, 4)
    for k, T in enumerate(turns):
        np.testing.assert_allclose(W[k], affine(T @ R0 @ S0, pos[k] / scale), atol=1e-12)


def test_marker_pose_in_the_part_frame() -> None:
    """A marker placed, then parented to the part, then the part moved to M0 (so
    matrix_parent_inverse is not M0's inverse): its frame as designed is the part's frame
    turned 90 degrees about the part's y axis and moved 1 BU along the part's x axis, so
    position (1, 0, 0) and that turn; its own scale (3) does not count."""
    f = part_frames.part_frame(M0)
    want_R = rot("y", np.pi / 2)
    target = affine(R0 @ want_R * 3.0, M0[:3, 3] + R0[:, 0])
    M_then = affine(rot("z", -0.3), (4.0, 0.0, 1.0))          # the part when parented
    parent_inverse = np.linalg.inv(M_then)
    basis = M_then @ np.linalg.inv(M0) @ target               # so M0 @ parent_inverse @ basis = target
    pos, q = part_frames.marker_pose(f, M0 @ parent_inverse @ basis)
    np.testing.assert_allclose(pos, (1.0, 0.0, 0.0), atol=1e-13)
    np.testing.assert_allclose(rotations.quat_to_matrix(q), want_R, atol=1e-13)


def test_basis_pose_of_a_parented_part() -> None:
    """Child keys in parent space: with world = parent_world @ parent_inverse @ basis, the
    basis's location and rotation come back (scale 2 in the basis is left to the scale
    channel), for a moving parent (n, 4, 4) and a fixed one (4, 4); quaternion signs stay
    continuous across a half turn."""
    n = 5
    angles = np.linspace(0.0, 2 * np.pi, n)               # through a full turn: w changes sign
    basis = np.array([affine(rot("z", a) * 2.0, (a, 1.0, -a)) for a in angles])
    parent_inverse = affine(rot("x", 0.3), (0.5, 0.0, 0.0))
    moving = np.array([affine(rot("y", 0.1 * k), (k, 0.0, 0.0)) for k in range(n)])
    for parent_world in (moving, M0):
        world = parent_world @ parent_inverse @ basis
        loc, quat = part_frames.basis_pose(world, parent_world, parent_inverse)
        np.testing.assert_allclose(loc, basis[:, :3, 3], atol=1e-13)
        R = rotations.quat_to_matrix(quat)
        np.testing.assert_allclose(R, [rot("z", a) for a in angles], atol=1e-13)
        assert np.all(np.sum(quat[1:] * quat[:-1], axis=1) > 0)


@pytest.mark.parametrize("scale", [(-2.0, 0.5, 1.5), (-2.0, -0.5, 1.5), (-2.0, -0.5, -1.5)])
def test_basis_pose_keeps_a_negative_scale_channel(scale) -> None:
    """An object without a parent whose scale channel has negative entries: its world matrix
    [R diag(s), t] gives back the rotation channel R (not the polar decomposition's, which
    folds the reflection or half turn into it) when the signs of s are passed; the part
    frame's pose matrices, turned, give the turned R."""
    R = rot("z", 0.7) @ rot("x", -0.4)
    M = affine(R @ np.diag(scale), (1.0, -2.0, 3.0))
    f = part_frames.part_frame(M)
    turns = [np.eye(3), rot("y", 0.5), rot("x", 2.0)]
    q = rotations.matrix_to_quat(np.array([T @ f.rotation for T in turns]))
    W = part_frames.pose_matrices(np.tile(f.position, (3, 1)), q, f.stretch, 1.0)
    I = np.eye(4)
    loc, quat = part_frames.basis_pose(W, I, I, np.sign(scale))
    np.testing.assert_allclose(loc, np.tile(f.position, (3, 1)), atol=1e-14)
    for k, T in enumerate(turns):
        Rk = rotations.quat_to_matrix(quat[k])
        np.testing.assert_allclose(Rk, T @ R, atol=1e-13)
        np.testing.assert_allclose(affine(Rk @ np.diag(scale), loc[k]), W[k], atol=1e-13)


# ---------------------------------------------------------------- what a bake writes


def screw_slider():
    """A crank on a pin driven at 2 pi t, and on it a slider on a cylindrical joint driven in
    angle and slide (efforts of both kinds on one joint); kinematic, 13 frames."""
    m = driven_crank()
    m.add_part("slider", mass=0.5, inertia=(0.01, 0.02, 0.03), position=(0.5, 0, 0))
    m.add_marker("B", "crank", position=(0.5, 0, 0), orientation=(np.sqrt(0.5), 0, np.sqrt(0.5), 0))
    m.add_marker("C", "slider", orientation=(np.sqrt(0.5), 0, np.sqrt(0.5), 0))
    m.add_joint("rail", "cylindrical", "C", "B")
    m.add_motion("turn", "rail", "sin(t)", coordinate="angle")
    m.add_motion("push", "rail", "0.1*t*t", coordinate="slide")
    return m.solve(times=timeline.Timeline(1, 13, 24.0).times)


def test_joint_plots_split_the_solvers_reactions() -> None:
    """Components are the Result's own numbers, magnitudes their norms; each motion's effort
    goes to its joint under its coordinate's property; a joint without motion has none."""
    r = screw_slider()
    got = plots.joint_plots(r, ["pin", "rail"], {"spin": ("pin", "angle"), "turn": ("rail", "angle"),
                                                 "push": ("rail", "slide")})
    assert list(got["pin"]) == list(plots.REACTION_PROPS) + ["motion_effort"]
    assert list(got["rail"]) == list(plots.REACTION_PROPS) + ["motion_effort", "motion_effort_slide"]
    for joint in ("pin", "rail"):
        F, T = r.reaction(joint)
        assert np.abs(F).max() > 1.0 and np.abs(T).max() > 0.01      # something to split
        for k, c in enumerate("xyz"):
            np.testing.assert_array_equal(got[joint][f"reaction_force_{c}"], F[:, k])
            np.testing.assert_array_equal(got[joint][f"reaction_torque_{c}"], T[:, k])
        np.testing.assert_allclose(got[joint]["reaction_force"] ** 2, np.sum(F * F, axis=1), rtol=1e-14)
        np.testing.assert_allclose(got[joint]["reaction_torque"] ** 2, np.sum(T * T, axis=1), rtol=1e-14)
    np.testing.assert_array_equal(got["rail"]["motion_effort_slide"], r.effort("push"))
    np.testing.assert_array_equal(got["rail"]["motion_effort"], r.effort("turn"))
    assert not np.array_equal(r.effort("push"), r.effort("turn"))
    assert list(plots.joint_plots(r, ["pin"], {})["pin"]) == list(plots.REACTION_PROPS)
    assert set(plots.BAKED_PROPS) == (set(plots.REACTION_PROPS) | {"motion_effort", "motion_effort_slide"}
                                      | {"contact_force", "limit_force", "friction_force"}
                                      | {"torsion_spring_torque", "spring_force", "spring_length"}
                                      | set(plots.COUPLER_PROPS) | set(plots.FOLLOW_PROPS) | set(plots.FOLLOW_TORQUE_PROPS)
                                      | set(plots.BALL_FRICTION_PROPS) | set(plots.BUSHING_PROPS)
                                      | set(plots.VECTOR_FORCE_PROPS + plots.PART_CONTACT_PROPS + plots.CONTACT_POINT_PROPS))
    assert plots.BUSHING_PROPS == tuple(p.replace("reaction", "bushing") for p in plots.REACTION_PROPS)
    assert set(plots.COUPLER_PROPS) == {f"coupler_{w}_{k}" for w in ("torque", "force")
                                        for k in (1, 2, 3)} | {"tooth_force"}


def test_csv_rows_parse_back_to_the_result(tmp_path) -> None:
    """Written and read back with the csv module: a header naming each column, one row per
    frame (frame numbers from the timeline), and every number the Result's to 9 digits; each
    joint's angle and slide its motions' closed forms (the pin 2 pi t, the rail sin t and
    0.1 t^2)."""
    import csv
    tl = timeline.Timeline(1, 13, 24.0)
    r = screw_slider()
    path = tmp_path / "out.csv"
    csv_table.write_rows(str(path), csv_table.csv_rows(r, tl.frames_of(r.times), ["crank", "slider"],
                                                       ["pin", "rail"],
                                                       {"spin": ("pin", "angle"), "turn": ("rail", "angle"),
                                                        "push": ("rail", "slide")}))
    rows = list(csv.reader(open(path, newline="")))
    header, data = rows[0], np.array(rows[1:], dtype=float)
    assert len(header) == 2 + 2 * 7 + 2 * 6 + 3 + 3 and data.shape == (13, len(header))
    col = dict(zip(header, data.T))
    np.testing.assert_array_equal(col["frame"], np.arange(1, 14))
    want = {"time_s": r.times, "rail motion_effort_slide_N": r.effort("push"),
            "rail motion_effort_Nm": r.effort("turn"),
            "rail Tz_Nm": r.reaction("rail")[1][:, 2], "pin Fy_N": r.reaction("pin")[0][:, 1],
            "slider x_m": r.position("slider")[:, 0], "slider qz": r.orientation("slider")[:, 3],
            "crank qw": r.orientation("crank")[:, 0], "pin motion_effort_Nm": r.effort("spin"),
            "pin angle_rad": 2 * np.pi * r.times, "rail angle_rad": np.sin(r.times),
            "rail slide_m": 0.1 * r.times ** 2}
    assert not any(c.startswith("slider motion") for c in col)
    assert "pin slide_m" not in col
    for name, values in want.items():
        np.testing.assert_allclose(col[name], values, rtol=5e-9, atol=1e-300, err_msg=name)
    assert rows[1][:2] == ["1", "0"] and rows[2][1] == "0.0416666667"
    with pytest.raises(solver.MechanismError, match="the folder .*missing' does not exist"):
        csv_table.write_rows(str(tmp_path / "missing" / "f.csv"), rows)


def test_a_failed_csv_write_keeps_the_file_there(tmp_path, monkeypatch) -> None:
    """A write that fails (here the final rename) names the file and its cause, leaves the
    file that was there as it was, and no partial file beside it."""
    path = tmp_path / "out.csv"
    path.write_text("kept\n")

    def refuse(src, dst):
        raise PermissionError(13, "Permission denied")
    monkeypatch.setattr(csv_table.os, "replace", refuse)
    with pytest.raises(solver.MechanismError, match=f"cannot write {re.escape(repr(str(path)))}: "
                                                    "Permission denied"):
        csv_table.write_rows(str(path), [["frame"], ["1"]])
    assert path.read_text() == "kept\n" and os.listdir(tmp_path) == ["out.csv"]


def test_export_path_needs_a_folder() -> None:
    """Export CSV's file: relative paths ('//' or plain) from the saved .blend file's folder,
    absolute ones as typed; relative in an unsaved file: refused with the path."""
    blend = os.path.join(os.sep, "work", "scenes", "crank.blend")
    folder = os.path.dirname(blend)
    assert csv_table.export_path("//mechanism.csv", blend) == os.path.join(folder, "mechanism.csv")
    up = os.path.join(os.sep, "work", "out", "f.csv")
    assert csv_table.export_path("//../out/f.csv", blend) == up
    assert csv_table.export_path("f.csv", blend) == os.path.join(folder, "f.csv")
    absolute = os.path.join(os.sep, "tmp", "f.csv")
    assert csv_table.export_path(absolute, "") == absolute
    for path in ("//mechanism.csv", "f.csv"):
        with pytest.raises(solver.MechanismError, match=f"'{path}' is relative to the .blend file"):
            csv_table.export_path(path, "")
    with pytest.raises(solver.MechanismError, match="give the CSV file's path"):
        csv_table.export_path(" ", blend)


# ---------------------------------------------------------------- viewport arrows


def test_arrow_segments() -> None:
    """Shaft from the origin to the tip, two head strokes of 20 % length ending at the tip."""
    seg = arrows.arrow_segments(np.array([1.0, 0, 0]), np.array([0, 0, 2.0]))
    np.testing.assert_allclose(seg[0], (1, 0, 0))
    np.testing.assert_allclose(seg[1], (1, 0, 2))
    for k in (3, 5):
        assert seg[k - 1].tolist() == seg[1].tolist()
        assert np.linalg.norm(seg[k] - seg[1]) == pytest.approx(0.4 * np.sqrt(1.25), rel=1e-12)
        assert seg[k][2] == pytest.approx(1.6)
    assert len(arrows.arrow_segments(np.zeros(3), np.zeros(3))) == 2


def test_force_arrows_scale_newtons_to_blender_units() -> None:
    """Two joints: 100 N along x at (1, 2, 3) is a 1 BU shaft ending at (2, 2, 3); no force
    draws a point; no joints, no vertices."""
    v = arrows.force_arrows([np.array([1.0, 2.0, 3.0]), np.zeros(3)], [(100.0, 0.0, 0.0), (0, 0, 0)])
    assert v.dtype == np.float32 and v.shape == (8, 3)
    np.testing.assert_array_equal(v[:2], [(1, 2, 3), (2, 2, 3)])
    np.testing.assert_array_equal(v[6:], np.zeros((2, 3)))
    assert arrows.force_arrows([], []).shape == (0, 3)


# ---------------------------------------------------------------- the modal bake's progress
def test_progress_callback_and_cancel() -> None:
    """solve(progress=...) is called once per frame; answering False cancels with the frames
    done so far (what the modal bake's Esc does)."""
    m = driven_crank()
    calls = []
    r = m.solve(1.0, 24, progress=lambda k, n: calls.append((k, n)))
    assert calls == [(k, 25) for k in range(1, 26)] and len(r) == 25
    with pytest.raises(solver.SolverCancelled) as info:
        m.solve(1.0, 24, progress=lambda k, n: k < 10)
    assert len(info.value.result) == 10
    m.motions.clear()                                # the same through a dynamic run
    with pytest.raises(solver.SolverCancelled) as info:
        m.solve(1.0, 24, progress=lambda k, n: k < 5)
    assert len(info.value.result) == 5 and info.value.result.analysis == "dynamic"


def test_modifier_stack_muted_modifiers_skipped_and_misplaced_cycles_named() -> None:
    """Muted modifiers play no part (Blender skips them); a Cycles modifier behind another one
    is not applied by Blender, so it is refused by name rather than followed; the Cycles
    modifier's repeat maps frame 3 + 1 to 1 (REPEAT over keys at 0 and 3)."""
    fn = keyframes.KeyframedFunction(smoothstep_keys())
    M = keyframes.Modifier
    noise = M("Noise", "NOISE", mute=True)
    assert keyframes.with_modifiers(fn, [noise], "joint 'j', keyframed Angle") is fn
    cycles = M("Cycles", "CYCLES", mode_before="REPEAT", mode_after="REPEAT")
    with pytest.raises(ValueError, match=r"joint 'j', keyframed Angle: its F-curve's Cycles "
                                         r"modifier 'Cycles' is not first"):
        keyframes.with_modifiers(fn, [noise, cycles], "joint 'j', keyframed Angle")
    looped = keyframes.with_modifiers(fn, [cycles, noise], "joint 'j'")
    assert looped(4.0) == pytest.approx(fn(1.0), abs=1e-15)
    assert looped(-2.0) == pytest.approx(fn(1.0), abs=1e-15)


def test_vertex_parent_matrix_moves_the_vertex_with_the_part_as_designed() -> None:
    """Blender's Vertex parent matrix is a translation to the vertex's world position, Vertex
    (Triangle)'s the parent's world matrix times the triangle's frame: a child shown at
    child_now with the part at M_then is placed, with the part at M0, at the same vertex
    (or triangle frame) in the part's object space."""
    M_then = affine(rot("z", -0.3) @ rot("x", 0.7) * 1.5, (4.0, 0.0, 1.0))
    local = affine(rot("y", 0.4), (0.1, -0.2, 0.3))
    vertex = np.array([0.5, -0.25, 0.75, 1.0])
    child_now = affine(np.eye(3), (M_then @ vertex)[:3]) @ local
    P = part_frames.vertex_parent_matrix("VERTEX", M0, M_then, child_now, local)
    np.testing.assert_allclose(P, affine(np.eye(3), (M0 @ vertex)[:3]), atol=1e-13)
    tri = affine(rot("x", 1.1), vertex[:3])
    P3 = part_frames.vertex_parent_matrix("VERTEX_3", M0, M_then, M_then @ tri @ local, local)
    np.testing.assert_allclose(P3, M0 @ tri, atol=1e-13)


def test_first_jump_finds_a_step_and_not_a_kink() -> None:
    """A Constant key whose next key differs steps at that key (frame 5, or 4.5 between
    whole frames); Linear keys only kink (the rate jumps, the value does not); a Repeat
    cycle whose last value differs from its first steps just after every seam (the first at
    frame 9, the last key); a step outside the range is none of its own."""
    step = [K(1.0, 0.0, (0, 0), (0, 0), "CONSTANT"), K(5.0, 2.0, (0, 0), (0, 0), "LINEAR"),
            K(9.0, -1.0, (0, 0), (0, 0), "LINEAR")]
    frames = np.arange(1.0, 21.0)
    assert keyframes.first_jump(keyframes.KeyframedFunction(step), frames) == 5.0
    half = [K(1.0, 0.0, (0, 0), (0, 0), "CONSTANT"), K(4.5, 2.0, (0, 0), (0, 0), "LINEAR")]
    assert keyframes.first_jump(keyframes.KeyframedFunction(half), frames) == 4.5
    assert keyframes.first_jump(keyframes.KeyframedFunction(half), np.arange(5.0, 9.0)) is None
    kinks = [K(f, v, (0, 0), (0, 0), "LINEAR") for f, v in ((1.0, 0.0), (5.0, 2.0), (9.0, -1.0))]
    assert keyframes.first_jump(keyframes.KeyframedFunction(kinks), frames) is None
    cycled = keyframes.with_modifiers(keyframes.KeyframedFunction(kinks),
                                      [keyframes.Modifier("Cycles", "CYCLES", mode_after="REPEAT")],
                                      "joint 'j'")
    assert keyframes.first_jump(cycled, frames) == 9.0
