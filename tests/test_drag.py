"""Posing by hand (solver/analyses/posing/drag.py): a grabbed point dragged to a target with every
joint held, one joint coordinate set with the rest assembled, a coordinate's range; checked
against closed forms (a pendulum, a two-link arm, the Grashof four-bar of mechanisms.py)."""
from __future__ import annotations

import math

import numpy as np
import pytest

import mechanisms as mk
from solver import Mechanism, MechanismError, SolverError
from solver.algebra.newton import scaled_jacobian, step_pose
from solver.analyses.posing.drag import Poser, joint_kinds
from solver.analyses.posing.drag_newton import reduced_hessian
from solver.base.rotations import quat_to_matrix
from solver.kernels.constraints import body_arrays, evaluate, global_jacobian, motion_values, residual
from solver.model.compile import compile_model
from solver.model.state import read_state


def poser(mech, t: float = 0.0) -> Poser:
    model = compile_model(mech)
    st = read_state(model, mech, t)
    return Poser(model, st.r, st.p, t)


def gap(ps: Poser) -> float:
    """Largest residual of the joint, coupler and motion rows at the poser's pose (m or
    rad), the couplers' angles on the turns the poser follows."""
    model = ps.model
    ev = evaluate(model, *body_arrays(model, *ps.pose)[:2], ref=ps._track)
    res = residual(model, ev.phi, motion_values(model, ps.t))
    return float(np.max(np.abs(res[~model.switched])))


def world_point(ps: Poser, part: str, point) -> np.ndarray:
    pos, q = ps.part_poses()
    b = ps.model.body_part.index(part)
    return pos[b] + quat_to_matrix(q[b]) @ np.asarray(point, float)


def angle_of(ps: Poser, part: str) -> float:
    return float(mk.planar_angle(ps.part_poses()[1][ps.model.body_part.index(part)]))


# ---------------------------------------------------------------- drag
def test_reachable_target_is_reached_with_the_joints_held() -> None:
    """A two-link arm (1 m links on revolutes about z): its tip goes to a point 1.5 m away."""
    ps = poser(mk.chain([0.0, 0.0], kind="revolute"))
    ps.drag_to("link1", (1.0, 0.0, 0.0), (1.2, 0.9, 0.0))
    np.testing.assert_allclose(world_point(ps, "link1", (1, 0, 0)), (1.2, 0.9, 0.0), atol=1e-9)
    assert gap(ps) <= 1e-9
    # elbow on the side it started (the arm bends the least way): cos of the elbow angle
    d = 1.5
    assert math.isclose(np.cos(angle_of(ps, "link1") - angle_of(ps, "link0")),
                        (d * d - 2.0) / 2.0, abs_tol=1e-9)


@pytest.mark.parametrize("target, closest", [((3.0, 4.0, 0.0), (0.6, 0.8, 0.0)),
                                             ((0.0, 2.0, 0.5), (0.0, 1.0, 0.0)),
                                             ((-5.0, 0.1, 0.0), (-5.0, 0.1, 0.0)),
                                             ((-5.0, 0.0, 0.0), (-1.0, 0.0, 0.0))])
def test_unreachable_target_gives_the_closest_point(target, closest) -> None:
    """A 1 m pendulum about z dragged by its tip beyond its length: it points at the
    target's projection on its plane; straight behind its pivot too (it started along +x,
    the farthest pose, where no pull turns it: it stayed there)."""
    ps = poser(mk.pendulum())
    ps.drag_to("bob", (1.0, 0.0, 0.0), target)
    c = np.asarray(closest) / np.linalg.norm(closest)
    np.testing.assert_allclose(world_point(ps, "bob", (1, 0, 0)), c, atol=1e-8)
    assert gap(ps) <= 1e-9


def test_a_driven_joint_stays_at_its_motion() -> None:
    """The two-link arm with joint0 driven 0.3 + t, at t = 0.5: dragging the tip moves only
    the elbow; the tip ends on the line from the elbow to the target."""
    m = mk.chain([0.0, 0.0], kind="revolute")
    m.add_motion("drive", "joint0", "0.3 + t")
    ps = poser(m, t=0.5)
    assert math.isclose(ps.value("joint0"), 0.8, abs_tol=1e-12)
    target = np.array([-0.5, 1.5, 0.0])
    ps.drag_to("link1", (1.0, 0.0, 0.0), target)
    assert math.isclose(ps.value("joint0"), 0.8, abs_tol=1e-12)
    elbow = np.array([math.cos(0.8), math.sin(0.8), 0.0])
    want = elbow + (target - elbow) / np.linalg.norm(target - elbow)
    np.testing.assert_allclose(world_point(ps, "link1", (1, 0, 0)), want, atol=1e-8)
    assert gap(ps) <= 1e-9


def test_warm_start_keeps_the_branch() -> None:
    """The four-bar's coupler point dragged round a path in small steps (each from the last
    pose): the rocker stays on the open branch the mechanism was built on; every pose is the
    closed form's at its crank angle."""
    ps = poser(mk.four_bar(driven=False, theta2_0=0.3))
    for th2 in np.linspace(0.3, 2.0 * np.pi + 0.3, 73)[1:]:
        # where the crank's end A would be at th2: drag the crank's end there
        ps.drag_to("crank", (0.4, 0.0, 0.0), (0.4 * math.cos(th2), 0.4 * math.sin(th2), 0.0))
        th3, th4 = (float(v) for v in mk.four_bar_angles(th2, 0.4, 1.0, 0.8, 1.0, 1))
        assert abs(mk.wrap(angle_of(ps, "crank") - th2)) <= 1e-9
        assert abs(mk.wrap(angle_of(ps, "rocker") - th4)) <= 1e-8
        assert gap(ps) <= 1e-9


# ---------------------------------------------------------------- out of reach: one call
def closed_chain(n: int = 5, link: float = 0.25):
    """bench/bench_drag.py's closed chain: n links of ``link`` m on revolutes about z from
    the origin along a half circle's worth of turning, the last far end pinned at E."""
    angles = [math.pi / 2 - k * math.pi / n for k in range(n)]
    m = mk.chain(angles, lengths=link, kind="revolute")
    E = sum(link * np.array([math.cos(a), math.sin(a), 0.0]) for a in angles)
    m.add_marker("E", "ground", position=E)
    m.add_joint("anchor", "revolute", f"link{n - 1}_end", "E")
    return m, E


@pytest.mark.parametrize("target", [(5.0, 2.0, 0.0), (-4.0, -3.0, 0.5)])
def test_stretched_arm_grabbed_off_its_rod_lands_on_the_closest_pose(target) -> None:
    """A two-link arm (1 m links on revolutes about z, built bent at 0.3 and 1.2 rad)
    grabbed at (1, 0.3, 0) in link1's frame, off the rod, pulled far out of reach: the
    closest pose points the grabbed point along the target's direction phi in the plane at
    the arm's full reach 1 + sqrt(1.09) m, link0 at phi and link1 at phi - atan2(0.3, 1).
    One call lands there to 1e-9 m (Gauss-Newton stopped 0.42 m short of it: it converges
    linearly, or not at all, when the residual stays)."""
    ps = poser(mk.chain([0.3, 1.2], kind="revolute"))
    grab = (1.0, 0.3, 0.0)
    ps.drag_to("link1", grab, target)
    phi = math.atan2(target[1], target[0])
    reach = 1.0 + math.sqrt(1.09)
    np.testing.assert_allclose(world_point(ps, "link1", grab),
                               (reach * math.cos(phi), reach * math.sin(phi), 0.0), atol=1e-9)
    np.testing.assert_allclose(world_point(ps, "link1", (0, 0, 0)),
                               (math.cos(phi), math.sin(phi), 0.0), atol=1e-9)
    assert abs(mk.wrap(angle_of(ps, "link0") - phi)) <= 1e-9
    assert abs(mk.wrap(angle_of(ps, "link1") - phi + math.atan2(0.3, 1.0))) <= 1e-9
    assert gap(ps) <= 1e-9


def test_slider_pulled_past_its_stroke_stops_at_dead_centre() -> None:
    """The slider-crank (crank 0.1 m, rod 0.3 m, slider on the x axis) without its drive,
    built at crank angle 1 rad, its slider pulled to (0.6, 0.1, 0), past the outer dead
    centre x = 0.4: the closest pose is the dead centre, crank and rod along +x, to 1e-9 m
    in one call (the crank pin r theta, the rod's far end), and it stays there while the
    mouse stays (five more updates to the same target).  There the slider's x is flat in
    the crank angle: Gauss-Newton's steps wandered along it, 2.7e-8 m off after the five."""
    m = mk.slider_crank(theta0=1.0, error_deg=0.0, error_m=0.0)
    del m.motions["drive"]
    ps = poser(m)
    for _ in range(6):
        ps.drag_to("slider", (0.0, 0.0, 0.0), (0.6, 0.1, 0.0))
        assert abs(0.1 * angle_of(ps, "crank")) <= 1e-9
        assert abs(0.3 * angle_of(ps, "rod")) <= 1e-9
        assert abs(ps.value("slide") - 0.4) <= 1e-12
        assert gap(ps) <= 1e-9


@pytest.mark.parametrize("turn", [0.0, 0.3])
def test_closed_chain_pulled_past_its_reach(turn) -> None:
    """bench_drag's five-link closed chain grabbed at link2's far end P (0.476 m from the
    anchor E) and pulled to 0.7 m from E, along P - E turned ``turn`` rad: the last two
    links straighten, P lands on the circle of radius 0.5 m about E nearest the target
    (inside the 0.75 m the first three links reach), to 1e-9 m in one call.  Near that
    pose the Hessian has a negative curvature (Gauss-Newton swung the pair of links from
    one bend to the other, 30 steps a call, and stopped short)."""
    m, E = closed_chain()
    ps = poser(m)
    P0 = world_point(ps, "link2", (0.25, 0.0, 0.0))
    d = (P0 - E) / np.linalg.norm(P0 - E)
    c, s = math.cos(turn), math.sin(turn)
    d = np.array([c * d[0] - s * d[1], s * d[0] + c * d[1], 0.0])
    want = E + 0.5 * d
    assert np.linalg.norm(want) < 0.75
    ps.drag_to("link2", (0.25, 0.0, 0.0), E + 0.7 * d)
    np.testing.assert_allclose(world_point(ps, "link2", (0.25, 0.0, 0.0)), want, atol=1e-9)
    assert gap(ps) <= 1e-9


def test_reduced_hessian_is_the_curvature_along_the_joints() -> None:
    """drag_newton.reduced_hessian (forward differences of the Lagrangian's exact gradient)
    against second differences of F = |P - T|^2 / (2 L^2) along the joints' free
    directions, each pose brought back onto the joints (the reduced Hessian of the
    Lagrangian): the closed chain out of reach, where it has a negative curvature.  Agree
    to 1e-6 of its largest entry (the forward difference's truncation, h = 1e-6 L, L the
    chain's size; the second differences with h = 1e-4 are good to about 1e-8)."""
    m, E = closed_chain()
    ps = poser(m)
    b, u, T = 2, np.array([0.125, 0.0, 0.0]), E + np.array([-0.6, 0.35, 0.0])
    x, cw, L = ps.pose, ps.cw, ps.model.body_size[b]     # the dragged part's mechanism's
    ev, res = ps._evaluate(x)
    Js = scaled_jacobian(ps.model, global_jacobian(ps.model, ev.jac), ps.rows)
    U, S, Vt = np.linalg.svd(Js, full_matrices=True)
    k = int(np.sum(S > 1e-10 * S[0]))
    pinv, N = (Vt[:k].T / S[:k]) @ U[:, :k].T, Vt[k:].T
    a = quat_to_matrix(x[1][b]) @ u
    g = np.zeros(6 * ps.model.nb)
    g[6 * b: 6 * b + 3], g[6 * b + 3: 6 * b + 6] = x[0][b] + a - T, np.cross(a, x[0][b] + a - T)
    g /= cw * L * L
    H = reduced_hessian(ps.model, x, N, ps.rows, -(pinv.T @ g), b, u, T, cw, None)

    def F(z: np.ndarray) -> float:
        y = ps._project(step_pose(*x, (N @ z) / cw), pinv)[0]
        P = y[0][b] + quat_to_matrix(y[1][b]) @ u
        return 0.5 * float((P - T) @ (P - T)) / (L * L)
    h, m_ = 1e-4, N.shape[1]
    I = np.eye(m_) * h
    Hn = np.array([[(F(I[i] + I[j]) - F(I[i] - I[j]) - F(I[j] - I[i]) + F(-I[i] - I[j])) / (4 * h * h)
                    for j in range(m_)] for i in range(m_)])
    assert np.linalg.eigvalsh(Hn)[0] < -0.01 * np.abs(Hn).max()      # a saddle here
    np.testing.assert_allclose(H, Hn, atol=1e-6 * np.abs(Hn).max())


def test_drag_errors_name_the_part() -> None:
    ps = poser(mk.pendulum())
    r, p = ps.pose
    with pytest.raises(SolverError, match="part 'ground' is ground"):
        ps.drag_to("ground", (0, 0, 0), (1, 1, 1))
    with pytest.raises(SolverError, match="part 'nope' is not a part"):
        ps.drag_to("nope", (0, 0, 0), (1, 1, 1))
    with pytest.raises(MechanismError, match=r"drag_to: the target of part 'bob' \(m\) has a NaN"):
        ps.drag_to("bob", (0, 0, 0), (float("nan"), 1, 1))
    with pytest.raises(MechanismError, match=r"drag_to: the point on part 'bob' \(m\) must be 3 numbers"):
        ps.drag_to("bob", "tip", (1, 1, 1))
    assert ps.pose[0] is r and ps.pose[1] is p


# ---------------------------------------------------------------- wiggle
def test_joint_kinds_from_the_rows() -> None:
    assert joint_kinds(compile_model(mk.slider_crank(variant="RRRP"))) == {
        "crank_pin": "revolute", "crank_rod": "revolute", "wrist": "revolute", "slide": "prismatic"}


def test_set_coordinate_hits_the_value_and_the_rest_assembles() -> None:
    ps = poser(mk.four_bar(driven=False))
    ps.set_coordinate("pivot2", 1.0)
    assert abs(ps.value("pivot2") - 1.0) <= 1e-12
    assert gap(ps) <= 1e-9
    th3, th4 = (float(v) for v in mk.four_bar_angles(1.0, 0.4, 1.0, 0.8, 1.0, 1))
    assert abs(mk.wrap(angle_of(ps, "rocker") - th4)) <= 1e-9
    assert abs(mk.wrap(angle_of(ps, "coupler") - th3)) <= 1e-9
    ps.set_coordinate("pivot2", -3.0)               # the shorter way round, through pi
    assert abs(ps.value("pivot2") + 3.0) <= 1e-12


def test_set_slide() -> None:
    """The slider-crank's slider (prismatic "slide" along world x, slide = its x) moved
    back 5 cm: the crank angle satisfies x = r cos th + sqrt(l^2 - r^2 sin^2 th)."""
    m = mk.slider_crank()
    del m.motions["drive"]
    ps = poser(m)
    x0 = ps.value("slide")
    ps.set_coordinate("slide", x0 - 0.05)
    assert abs(ps.value("slide") - (x0 - 0.05)) <= 1e-12
    th = angle_of(ps, "crank")
    assert abs(0.1 * math.cos(th) + math.sqrt(0.09 - 0.01 * math.sin(th) ** 2) - (x0 - 0.05)) <= 1e-9
    assert gap(ps) <= 1e-9


def test_set_coordinate_errors_name_the_joint_and_change_nothing() -> None:
    ps = poser(mk.four_bar(driven=False))
    r, p = ps.pose
    with pytest.raises(SolverError, match="joint 'nope' is not a joint"):
        ps.set_coordinate("nope", 0.0)
    with pytest.raises(SolverError, match=r"joint 'pivot4': its angle cannot reach 2.7 rad \(154.699 deg\) "
                       r"with the other joints closed \(it is at [-\d.]+ rad \([-\d.]+ deg\)\)") as err:
        ps.set_coordinate("pivot4", 2.7)          # the rocker swings 1.369..2.498 rad
    assert err.value.joints == ("pivot4",)
    assert ps.pose[0] is r and ps.pose[1] is p
    driven = poser(mk.four_bar())
    with pytest.raises(SolverError, match="joint 'pivot2': its angle is driven by motion 'drive'"):
        driven.set_coordinate("pivot2", 0.5)
    with pytest.raises(SolverError, match="has no slide"):
        ps.set_coordinate("pivot2", 0.5, "slide")
    with pytest.raises(MechanismError, match=r"set_coordinate: joint 'pivot2'.s angle \(rad\) is NaN"):
        ps.set_coordinate("pivot2", float("nan"))
    with pytest.raises(MechanismError, match=r"joint 'pivot2'.s angle \(rad\) must be a number, got 'up'"):
        ps.set_coordinate("pivot2", "up")
    assert ps.pose[0] is r and ps.pose[1] is p


def test_coordinate_range_of_a_crank_and_a_rocker() -> None:
    """Grashof crank-rocker (a, b, c, d = 0.4, 1, 0.8, 1): the crank turns fully; the rocker
    swings between its toggle angles, cos th4 = ((b +- a)^2 - c^2 - d^2) / (2 c d)."""
    ps = poser(mk.four_bar(driven=False))
    r, p = ps.pose
    crank = ps.coordinate_range("pivot2")
    assert crank.full_turn and (crank.lower, crank.upper) == (-math.pi, math.pi)
    rocker = ps.coordinate_range("pivot4")
    assert not rocker.full_turn
    assert abs(rocker.lower - math.acos(0.2)) <= 1e-5
    assert abs(rocker.upper - math.acos(-0.8)) <= 1e-5
    np.testing.assert_array_equal(ps.pose[0], r)


def test_coordinate_range_stops_at_a_limit() -> None:
    m = mk.four_bar(driven=False)
    m.add_limit("stop", "pivot2", lower=-0.5, upper=1.0)
    ps = poser(m)
    rng = ps.coordinate_range("pivot2")
    assert not rng.full_turn
    assert abs(rng.lower + 0.5) <= 1e-12 and abs(rng.upper - 1.0) <= 1e-12


def _screw_jack(pitch: float):
    """A shaft on a revolute about the world z and a nut on a prismatic along it, tied by a
    right-hand lead screw of ``pitch`` m a turn."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("shaft", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    m.add_part("nut", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    m.add_marker("o", "ground"); m.add_marker("s", "shaft")
    m.add_marker("g", "ground"); m.add_marker("n", "nut")
    m.add_joint("spin", "revolute", "s", "o")
    m.add_joint("guide", "prismatic", "n", "g")
    m.add_screw("lead", "spin", pitch, slide_joint="guide", hand="right")
    return m


@pytest.mark.parametrize("value", [2.0 * math.pi, 10.0, -20.0, 3.0])
def test_a_screws_shaft_is_set_on_its_turns(value) -> None:
    """A coupled angle is not the same pose a turn on: a lead screw's shaft set to 2 pi, 10
    and -20 rad (one, 1.6 and 3.2 turns) moves its nut by that many pitches (5 mm a turn, to
    1e-12 m) and reads back as set (to 1e-9 rad); its range is a turn each way from where
    it stands, not "any angle".  Taken the shorter way round, 2 pi left the nut where it
    was and 10 rad moved it as -2.57 rad would."""
    pitch = 0.005
    ps = poser(_screw_jack(pitch))
    ps.set_coordinate("spin", 1.0)
    per_rad = ps.value("guide") / 1.0            # the screw's own relation, either hand
    assert abs(abs(per_rad) - pitch / (2.0 * math.pi)) <= 1e-15
    ps.set_coordinate("spin", value)
    assert abs(ps.value("spin") - value) <= 1e-9
    assert abs(ps.value("guide") - per_rad * value) <= 1e-12
    assert gap(ps) <= 1e-9
    rng = ps.coordinate_range("spin")
    assert not rng.full_turn
    assert abs(rng.lower - (value - 2.0 * math.pi)) <= 1e-6
    assert abs(rng.upper - (value + 2.0 * math.pi)) <= 1e-6


def test_a_gear_pair_is_set_on_its_turns() -> None:
    """Gears of pitch radii 0.1 and 0.2 m (the second turns -1/2 of the first): the first
    set to 3, -2.5 and 12 rad in turn reads back as set and the second stands at -1/2 of it
    on its own turns (to 1e-9 rad): 12 rad is two turns on, which a turn of the first, half
    a turn of the second, makes a different pose."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("g1", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    m.add_part("g2", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.3, 0, 0))
    m.add_marker("o1", "ground"); m.add_marker("h1", "g1")
    m.add_marker("o2", "ground", position=(0.3, 0, 0)); m.add_marker("h2", "g2")
    m.add_joint("j1", "revolute", "h1", "o1"); m.add_joint("j2", "revolute", "h2", "o2")
    m.add_gear("mesh", "j1", "j2", radii=(0.1, 0.2))
    ps = poser(m)
    for value in (3.0, -2.5, 12.0):
        ps.set_coordinate("j1", value)
        assert abs(ps.value("j1") - value) <= 1e-9
        assert abs(ps.value("j2") + 0.5 * value) <= 1e-9
        assert abs(mk.wrap(angle_of(ps, "g2") + 0.5 * value)) <= 1e-9


@pytest.mark.parametrize("t", [0.0, 1.0])
def test_a_gear_driven_turns_away_keeps_its_mate_where_the_motion_puts_it(t: float) -> None:
    """Gear 1 driven 5 + 2 t rad (more than half a turn from its angle as built), gear 2
    (pitch radii 0.1, 0.2 m) at -1/2 of it, an arm on gear 2 by a free elbow: posed at t,
    gear 2 reads -(5 + 2 t) / 2 on its turns, and setting the elbow leaves it there (to
    1e-9 rad).  The Poser took the couplers' turns from the pose as built, so gear 1 read
    5 - 2 pi and setting the elbow swung gear 2 by pi to 0.64 rad."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("g1", mass=1.0, inertia=(1e-3, 1e-3, 1e-3))
    m.add_part("g2", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.3, 0, 0))
    m.add_part("arm", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.3, 0, 0.1))
    m.add_marker("o1", "ground"); m.add_marker("h1", "g1")
    m.add_marker("o2", "ground", position=(0.3, 0, 0)); m.add_marker("h2", "g2")
    m.add_marker("ga", "g2", position=(0, 0, 0.1)); m.add_marker("aa", "arm")
    m.add_joint("j1", "revolute", "h1", "o1"); m.add_joint("j2", "revolute", "h2", "o2")
    m.add_joint("elbow", "revolute", "aa", "ga")
    m.add_gear("mesh", "j1", "j2", radii=(0.1, 0.2))
    m.add_motion("drive", "j1", "5 + 2*t")
    ps = poser(m, t)
    want = -0.5 * (5.0 + 2.0 * t)
    assert abs(ps.value("j1") - (5.0 + 2.0 * t)) <= 1e-9 and abs(ps.value("j2") - want) <= 1e-9
    ps.set_coordinate("elbow", 0.5)
    assert abs(ps.value("elbow") - 0.5) <= 1e-9
    assert abs(ps.value("j2") - want) <= 1e-9
    assert abs(mk.wrap(angle_of(ps, "g2") - want)) <= 1e-9


def test_a_coordinate_the_motions_hold_names_them() -> None:
    """The driven four-bar (its crank's motion 'drive' holds the one freedom at t): the
    rocker's angle cannot move at all, and the refusal names the motion held and the time,
    not only "the other joints closed", which left the user looking for a joint."""
    ps = poser(mk.four_bar(), t=0.25)
    r, p = ps.pose
    with pytest.raises(SolverError, match=r"joint 'pivot4': its angle cannot reach 2 rad "
                       r"\(114.592 deg\) with the other joints closed and motion 'drive' held "
                       r"at t = 0.25 s \(it is at"):
        ps.set_coordinate("pivot4", 2.0)
    assert ps.pose[0] is r and ps.pose[1] is p


def test_setting_one_joint_of_an_open_chain_keeps_the_others() -> None:
    """A three-link arm on revolutes about z, drawn straight: its elbow (joint1) set to 90
    degrees, then its shoulder (joint0) to -30, then its wrist (joint2) to 45: each set
    leaves the angles set before as they are (to 1e-9 rad), so the links stand at the
    forward kinematics of (-30, 90, 45) degrees.  The rest was moved the least, so setting
    the elbow turned the shoulder back 27.7 degrees to keep the links' masses near where
    they were, and each later set undid an earlier one: the arm could not be posed."""
    ps = poser(mk.chain([0.0, 0.0, 0.0], kind="revolute"))
    want = {"joint1": math.radians(90.0), "joint0": math.radians(-30.0),
            "joint2": math.radians(45.0)}
    done = {}
    for joint, value in want.items():
        ps.set_coordinate(joint, value)
        done[joint] = value
        for name, v in done.items():
            assert abs(ps.value(name) - v) <= 1e-9, (joint, name)
    heading = np.cumsum([want["joint0"], want["joint1"], want["joint2"]])
    for k, h in enumerate(heading):
        assert abs(math.remainder(angle_of(ps, f"link{k}") - h, 2 * math.pi)) <= 1e-9
    assert gap(ps) <= 1e-9


def test_setting_a_joint_of_a_loop_keeps_the_others_the_loop_frees() -> None:
    """The Grashof four-bar (one freedom) with a second arm pinned at the rocker's far end
    (two freedoms): the arm's pin set to 0.5 rad, then the crank to 1 rad: the arm's pin
    keeps its 0.5 rad (to 1e-9 rad), while the loop's other joints move as the crank says
    (the rocker at Freudenstein's closed form, to 1e-9 rad)."""
    m = mk.four_bar(driven=False, error_deg=0.0, error_m=0.0)
    m.add_part("arm", mass=1.0, center_of_mass=(0.25, 0.0, 0.0), position=(1.0, 0.0, 0.0))
    m.add_marker("arm_pin", "arm")
    m.add_marker("rocker_tip", "rocker", position=(0.8, 0.0, 0.0))
    m.add_joint("wrist", "revolute", "arm_pin", "rocker_tip")
    ps = poser(m)
    ps.set_coordinate("wrist", 0.5)
    ps.set_coordinate("pivot2", 1.0)
    assert abs(ps.value("wrist") - 0.5) <= 1e-9
    assert abs(ps.value("pivot2") - 1.0) <= 1e-9
    th4 = float(mk.four_bar_angles(1.0, 0.4, 1.0, 0.8, 1.0)[1])
    assert abs(math.remainder(angle_of(ps, "rocker") - th4, 2 * math.pi)) <= 1e-9
    assert gap(ps) <= 1e-9


def test_far_drag_builds_its_banded_least_movement_once(monkeypatch) -> None:
    """bench_drag's closed chain of 20 (over 60 held rows: the least-movement fallback
    solves a banded system) dragged far in one call: the chord projection falls back on
    least movement at most steps, whose band ordering and pattern depend on the held rows
    alone, built once for them; the pose is bit for bit the one with it built at every
    fallback."""
    import solver.analyses.start.assembly as assembly
    built = []

    class Counted(assembly.Schur):
        def __init__(self, *args) -> None:
            built.append(1)
            super().__init__(*args)

    m, _E = closed_chain(20)
    point, target = (0.25, 0.0, 0.0), (0.6, -0.3, 0.0)
    ps = poser(m)
    monkeypatch.setattr(assembly, "Schur", Counted)
    falls = []
    real = assembly.least_movement

    def counted(*args, **kwargs):
        falls.append(1)
        return real(*args, **kwargs)
    monkeypatch.setattr("solver.analyses.posing.drag.least_movement", counted)
    pose = ps.drag_to("link10", point, target)
    assert len(falls) >= 3 and len(built) == 1
    ps2 = poser(m)
    monkeypatch.setattr(Poser, "_sparse", lambda self, rows: assembly.sparse_assembly(
        self.model, self.cw, rows))
    again = ps2.drag_to("link10", point, target)
    np.testing.assert_array_equal(pose[0], again[0])
    np.testing.assert_array_equal(pose[1], again[1])
