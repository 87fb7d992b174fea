"""Kinematic sweeps of a slider-crank and a four-bar against hand-derived closed forms
(tests/mechanisms.py) and against finite differences of the solver's own output.

Scale: lengths 0.1-1 m, crank speed 2 pi rad/s (one revolution per second, 25 frames at
24 fps), so positions are O(1 m), velocities O(1-10) and accelerations O(1-100) in SI
units.  Positions are solved by Newton to a scaled residual of 1e-12 (about 1e-12 m here)
and velocities/accelerations from linear solves with well-conditioned Jacobians (error a
few ulps times the condition number), so 1e-9 absolute leaves a margin of >= 100 while
any wrong term of a closed form (O(0.01-100)) would fail by many orders.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Callable

import numpy as np
import pytest

import mechanisms as mk
from solver import Mechanism

FPS, DURATION = 24, 1.0            # one full crank revolution at 2 pi rad/s
H = 1.0 / FPS
TOL = 1e-9                         # m, m/s, m/s^2, rad, rad/s, rad/s^2 (see module docstring)
GAP_TOL = 1e-10                    # m: joint closure; Newton leaves ~1e-12 m at this scale
R, L = 0.1, 0.3                    # slider-crank crank and rod, m
BAR = dict(a=0.4, b=1.0, c=0.8, d=1.0)   # Grashof crank-rocker: 0.4 + 1.0 <= 0.8 + 1.0
WOBBLE = 0.3                       # non-uniform drive: theta = 2 pi t + 0.3 sin(2 pi t)


# ---------------------------------------------------------------- shared runs
@lru_cache(maxsize=None)
def slider_run(variant: str, offset: float, wobble: float):
    """(mechanism, result) of a slider-crank swept over one revolution."""
    m = mk.slider_crank(r=R, l=L, offset=offset, wobble=wobble, variant=variant)
    return m, m.solve(DURATION, FPS)


@lru_cache(maxsize=None)
def bar_run(branch: int, wobble: float):
    """(mechanism, result) of the crank-rocker swept over one revolution."""
    m = mk.four_bar(**BAR, branch=branch, wobble=wobble)
    return m, m.solve(DURATION, FPS)


def slider_cf(t: np.ndarray, offset: float, wobble: float) -> mk.SliderCrankState:
    return mk.slider_crank_closed_form(*mk.crank_angle(t, wobble=wobble), r=R, l=L, offset=offset)


def bar_cf(t: np.ndarray, branch: int, wobble: float) -> mk.FourBarState:
    return mk.four_bar_closed_form(*mk.crank_angle(t, wobble=wobble), **BAR, branch=branch)


def fd_check(f: np.ndarray, df_solver: np.ndarray, df_exact: Callable, t: np.ndarray) -> None:
    """Central differences of solver samples f against the solver's derivative df_solver.

    (f(t+h) - f(t-h)) / 2h = f'(t) + h^2/6 f'''(xi) for some xi in (t-h, t+h) (Taylor with
    the intermediate value theorem), so the error is at most h^2/6 max |f'''| over the
    window.  f''' is the second derivative of the closed-form f' (central second difference,
    step 1e-3 s: truncation ~1e-7 relative, round-off ~1e-10), sampled at 41 points in the
    window; x1.25 covers the sampling of the max.  1e-9 absorbs the solver's position
    error / h (~1e-11).  The bound is within ~25% of the true error, so an O(h^2)-sized
    mistake in the solver's derivative would fail.
    """
    fd = (f[2:] - f[:-2]) / (2 * H)
    s = t[1:-1, None] + np.linspace(-H, H, 41)[None, :]
    dd = 1e-3
    f3 = (df_exact(s + dd) - 2 * df_exact(s) + df_exact(s - dd)) / dd ** 2
    bound = 1.25 * H * H / 6 * np.abs(f3).max(axis=1) + 1e-9
    err = np.abs(fd - df_solver[1:-1])
    assert np.all(err <= bound), f"worst ratio {np.max(err / bound):.3g}"


def angle_err(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(mk.wrap(a - b)).max())


VARIANTS = list(mk.SLIDER_CRANK_VARIANTS)


# ---------------------------------------------------------------- slider-crank
@pytest.mark.parametrize("wobble", [0.0, WOBBLE])
@pytest.mark.parametrize("offset", [0.0, 0.05])
@pytest.mark.parametrize("variant", VARIANTS)
def test_slider_crank_matches_closed_form(variant: str, offset: float, wobble: float) -> None:
    m, r = slider_run(variant, offset, wobble)
    t = r.times
    assert t[-1] == pytest.approx(DURATION) and len(t) == 25
    cf = slider_cf(t, offset, wobble)
    th = mk.crank_angle(t, wobble=wobble)
    # crank follows its motion; the crank and the rod stay in the xy plane
    assert angle_err(mk.planar_angle(r.orientation("crank")), th[0]) < TOL
    for part in ("crank", "rod"):
        assert np.abs(r.orientation(part)[:, 1:3]).max() < TOL
    # slider: x from the closed form, on the line y = offset, z = 0
    pos, vel, acc = r.position("slider"), r.velocity("slider"), r.acceleration("slider")
    np.testing.assert_allclose(pos[:, 0], cf.x, rtol=0, atol=TOL)
    np.testing.assert_allclose(vel[:, 0], cf.v, rtol=0, atol=TOL)
    np.testing.assert_allclose(acc[:, 0], cf.a, rtol=0, atol=TOL)
    np.testing.assert_allclose(pos[:, 1:], np.tile([offset, 0.0], (len(t), 1)), rtol=0, atol=TOL)
    np.testing.assert_allclose(vel[:, 1:], 0.0, atol=TOL)
    np.testing.assert_allclose(acc[:, 1:], 0.0, atol=TOL)
    # rod angle, angular velocity and acceleration about z
    assert angle_err(mk.planar_angle(r.orientation("rod")), cf.phi) < TOL
    np.testing.assert_allclose(r.angular_velocity("rod")[:, 2], cf.dphi, rtol=0, atol=TOL)
    np.testing.assert_allclose(r.angular_acceleration("rod")[:, 2], cf.ddphi, rtol=0, atol=TOL)
    # the crank pin A moves on its circle: a check of the rod's origin too
    A = R * np.stack([np.cos(th[0]), np.sin(th[0])], 1)
    np.testing.assert_allclose(r.position("rod")[:, :2], A, rtol=0, atol=TOL)


@pytest.mark.parametrize("wobble", [0.0, WOBBLE])
@pytest.mark.parametrize("offset", [0.0, 0.05])
@pytest.mark.parametrize("variant", VARIANTS)
def test_slider_crank_derivatives_match_finite_differences(variant: str, offset: float,
                                                           wobble: float) -> None:
    _, r = slider_run(variant, offset, wobble)
    t = r.times
    x, v, a = (r.position("slider")[:, 0], r.velocity("slider")[:, 0],
               r.acceleration("slider")[:, 0])
    fd_check(x, v, lambda s: slider_cf(s, offset, wobble).v, t)
    fd_check(v, a, lambda s: slider_cf(s, offset, wobble).a, t)


@pytest.mark.parametrize("variant, redundant", [("RRRP", 3), ("RSUP", 0), ("RRLP", 0),
                                               ("RRSP", 1)])
def test_slider_crank_joint_counts(variant: str, redundant: int) -> None:
    """1 dof, fully driven; the all-revolute + prismatic model has 20 - 17 = 3 redundant
    equations, the spatial models none, the ball wrist 18 - 17 = 1 (see
    SLIDER_CRANK_VARIANTS)."""
    rep = mk.slider_crank(variant=variant).check()
    assert (rep.dof, rep.driven_dof) == (1, 0)
    assert sum(len(v) for v in rep.redundant.values()) == redundant
    assert rep.ok


# ---------------------------------------------------------------- four-bar
@pytest.mark.parametrize("wobble", [0.0, WOBBLE])
@pytest.mark.parametrize("branch", [1, -1])
def test_four_bar_matches_closed_form(branch: int, wobble: float) -> None:
    _, r = bar_run(branch, wobble)
    t = r.times
    cf = bar_cf(t, branch, wobble)
    th2 = mk.crank_angle(t, wobble=wobble)[0]
    assert angle_err(mk.planar_angle(r.orientation("crank")), th2) < TOL
    for part, th, w, al in (("coupler", cf.theta3, cf.omega3, cf.alpha3),
                            ("rocker", cf.theta4, cf.omega4, cf.alpha4)):
        assert np.abs(r.orientation(part)[:, 1:3]).max() < TOL     # stays planar
        assert angle_err(mk.planar_angle(r.orientation(part)), th) < TOL
        np.testing.assert_allclose(r.angular_velocity(part)[:, 2], w, rtol=0, atol=TOL)
        np.testing.assert_allclose(r.angular_acceleration(part)[:, 2], al, rtol=0, atol=TOL)
        np.testing.assert_allclose(r.angular_velocity(part)[:, :2], 0.0, atol=TOL)
    # the rocker pivots on O4 = (d, 0, 0)
    np.testing.assert_allclose(r.position("rocker"), np.tile([BAR["d"], 0, 0], (len(t), 1)),
                               rtol=0, atol=TOL)
    np.testing.assert_allclose(r.velocity("rocker"), 0.0, atol=TOL)


@pytest.mark.parametrize("wobble", [0.0, WOBBLE])
@pytest.mark.parametrize("branch", [1, -1])
def test_four_bar_derivatives_match_finite_differences(branch: int, wobble: float) -> None:
    _, r = bar_run(branch, wobble)
    t = r.times
    th4 = np.unwrap(mk.planar_angle(r.orientation("rocker")))
    w4, al4 = r.angular_velocity("rocker")[:, 2], r.angular_acceleration("rocker")[:, 2]
    fd_check(th4, w4, lambda s: bar_cf(s, branch, wobble).omega4, t)
    fd_check(w4, al4, lambda s: bar_cf(s, branch, wobble).alpha4, t)


def test_four_bar_branches_are_distinct() -> None:
    """Open and crossed circuits differ by 2 gamma (gamma the angle at O4 in triangle A B O4,
    44..90 degrees for these lengths), and each run stays on the circuit it was placed on."""
    (_, ro), (_, rc) = bar_run(1, 0.0), bar_run(-1, 0.0)
    t = ro.times
    th_o, th_c = (mk.planar_angle(x.orientation("rocker")) for x in (ro, rc))
    assert np.abs(mk.wrap(th_o - th_c)).min() > 1.0
    for res, th, branch in ((ro, th_o, 1), (rc, th_c, -1)):
        own, other = bar_cf(t, branch, 0.0), bar_cf(t, -branch, 0.0)
        assert angle_err(th, own.theta4) < TOL
        assert np.abs(mk.wrap(th - other.theta4)).min() > 1.0
        mu = th - mk.planar_angle(res.orientation("coupler"))   # transmission angle sign
        assert np.all(np.sign(np.sin(mu)) == branch)


def test_four_bar_joint_counts() -> None:
    """Four revolutes in space: 20 equations, 18 coordinates, 1 dof -> 3 redundant."""
    rep = mk.four_bar(**BAR).check()
    assert (rep.dof, rep.driven_dof) == (1, 0)
    assert sum(len(v) for v in rep.redundant.values()) == 3


# ---------------------------------------------------------------- assembly
def test_motion_offset_moves_parts_to_start_angle() -> None:
    """Parts placed at 0 degrees, motion 'pi/6 + 2*pi*t': assembly turns the crank to 30."""
    m = mk.slider_crank(r=R, l=L, drive="pi/6 + 2*pi*t", place_theta=0.0, variant="RSUP")
    assert abs(mk.planar_angle(m.pose("crank")[1])) < 0.1          # placed near 0
    m.assemble()
    cf = mk.slider_crank_closed_form(np.pi / 6, 2 * np.pi, 0.0, r=R, l=L)
    assert abs(mk.planar_angle(m.pose("crank")[1]) - np.pi / 6) < TOL
    assert abs(m.pose("slider")[0][0] - cf.x) < TOL
    r = m.solve(DURATION, FPS)
    cf = mk.slider_crank_closed_form(*mk.crank_angle(r.times, theta0=np.pi / 6), r=R, l=L)
    np.testing.assert_allclose(r.position("slider")[:, 0], cf.x, rtol=0, atol=TOL)
    np.testing.assert_allclose(r.velocity("slider")[:, 0], cf.v, rtol=0, atol=TOL)


@pytest.mark.parametrize("branch", [1, -1])
def test_four_bar_motion_offset_keeps_branch(branch: int) -> None:
    m = mk.four_bar(**BAR, branch=branch, drive="pi/6 + 2*pi*t", place_theta=0.0)
    r = m.solve(DURATION, FPS)
    cf = mk.four_bar_closed_form(*mk.crank_angle(r.times, theta0=np.pi / 6), **BAR,
                                 branch=branch)
    assert abs(mk.planar_angle(r.orientation("crank")[0]) - np.pi / 6) < TOL
    assert angle_err(mk.planar_angle(r.orientation("rocker")), cf.theta4) < TOL


def _exact_poses(name: str, branch: int) -> dict[str, tuple[np.ndarray, float]]:
    """Closed-form (origin, angle about z) of each moving part at t = 0 (theta = 0)."""
    if name == "four_bar":
        th3, th4 = (float(z) for z in mk.four_bar_angles(0.0, **BAR, branch=branch))
        return {"crank": (np.zeros(3), 0.0), "coupler": (np.array([BAR["a"], 0, 0]), th3),
                "rocker": (np.array([BAR["d"], 0, 0]), th4)}
    cf = mk.slider_crank_closed_form(0.0, 0.0, 0.0, r=R, l=L, offset=0.05)
    return {"crank": (np.zeros(3), 0.0), "rod": (np.array([R, 0, 0]), float(cf.phi)),
            "slider": (np.array([float(cf.x), 0.05, 0]), 0.0)}


@pytest.mark.parametrize("name, branch", [("RRRP", 1), ("RSUP", 1), ("RRLP", 1), ("RRSP", 1),
                                          ("four_bar", 1), ("four_bar", -1)])
def test_rough_placement_assembles_and_closes_joints(name: str, branch: int) -> None:
    """Parts 5 degrees (2.5 of tilt) and ~3 cm off: assembly lands on the exact pose of the
    intended branch and every joint closes in every frame."""
    rough = dict(error_deg=5.0, error_m=0.03)
    if name == "four_bar":
        m: Mechanism = mk.four_bar(**BAR, branch=branch, **rough)
    else:
        m = mk.slider_crank(r=R, l=L, offset=0.05, variant=name, **rough)
    exact = _exact_poses(name, branch)
    before = max(np.linalg.norm(m.pose(p)[0] - pos) for p, (pos, _) in exact.items())
    assert before > 0.01                                   # really placed off
    m.assemble()
    for part, (pos, ang) in exact.items():
        p, q = m.pose(part)
        np.testing.assert_allclose(p, pos, rtol=0, atol=TOL)
        qe = mk.quat_z(ang)
        np.testing.assert_allclose(q * np.sign(q @ qe), qe, rtol=0, atol=TOL)   # q ~ -q
    r = m.solve(DURATION, FPS)
    gaps = mk.joint_gaps(m, r)
    assert set(gaps) == set(m.joints)
    assert max(gaps.values()) < GAP_TOL, gaps
