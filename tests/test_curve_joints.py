"""Joints on curves: a point on a curve (pin in a slot) and a planar cam, against
closed forms: a bead on a circular track is a point pendulum (normal force m g (3 cos th -
2 cos th0), the period by the complete elliptic integral, its equilibrium under a side
force); an eccentric disc cam under a roller (the centres stay R + rho apart) and under a
flat face (simple harmonic lift); a Scotch yoke's pin in a straight slot; a pin that runs
off its slot; a follower that would lift off; finite-difference Jacobians at poses on the
curves; and bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import ellipk

from solver import Mechanism, MechanismError, SolverError
from solver.base import jet
from solver.base.curves import Curve
from solver.model.compile import compile_model
from mechanisms import eccentric_cam
from test_constraints import check_jacobian

G = 9.81
Z_ALONG_Y = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # marker z along world y
Z_ALONG_X = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)     # marker z along world x


def bead(th0: float, R: float = 0.5, mass: float = 2.0, gravity=(0.0, -G, 0.0)) -> Mechanism:
    """A bead (its centre of mass at the pin) on a circular track of radius R about the
    origin in the world xy plane, th0 from the bottom."""
    m = Mechanism(gravity=gravity)
    m.add_part("ground", fixed=True)
    m.add_part("bead", mass=mass, inertia=(1e-3, 1e-3, 1e-3),
               position=(R * math.sin(th0), -R * math.cos(th0), 0.0))
    m.add_marker("pin", "bead")
    m.add_marker("track", "ground")
    m.add_point_on_curve("slot", "pin", "track", Curve.circle(R))
    return m


def test_bead_on_a_circle_is_a_point_pendulum() -> None:
    """Released at 60 deg: the bead stays on the circle (1e-12 m), the track's normal force
    is m g (3 cos th - 2 cos th0) (energy: v^2 = 2 g R (cos th - cos th0)) to 1e-7 of m g,
    the energy holds to 1e-9 of m g R, and the bead is back at th0 after the period
    T = 4 sqrt(R/g) K(sin^2(th0/2)) to 1e-7 rad (tolerance 1e-10 over one period).  The
    normal force is the whole reaction (the track is frictionless: no tangential part)."""
    th0, R, m_ = math.radians(60.0), 0.5, 2.0
    T = 4.0 * math.sqrt(R / G) * ellipk(math.sin(th0 / 2.0) ** 2)
    r = bead(th0, R, m_).solve(times=np.linspace(0.0, T, 61), analysis="dynamic", tolerance=1e-10)
    x = r.position("bead")
    assert np.abs(np.linalg.norm(x[:, :2], axis=1) - R).max() < 1e-12
    assert np.abs(x[:, 2]).max() < 1e-12
    th = np.arctan2(x[:, 0], -x[:, 1])
    F, _ = r.reaction("slot")
    radial = -x / R                                      # toward the centre
    np.testing.assert_allclose(np.einsum("ij,ij->i", F, radial),
                               m_ * G * (3 * np.cos(th) - 2 * np.cos(th0)), atol=1e-7 * m_ * G)
    np.testing.assert_allclose(np.linalg.norm(F, axis=1), np.abs(np.einsum("ij,ij->i", F, radial)),
                               atol=1e-7 * m_ * G)
    ke, pe, work = r.energy()
    assert np.abs(ke + pe - work - (ke + pe - work)[0]).max() < 1e-9 * m_ * G * R
    assert abs(th[-1] - th0) < 1e-7 and th.min() < -th0 + 1e-3


def test_bead_statics_under_a_side_force() -> None:
    """A horizontal 5 N pull on the 2 kg bead: equilibrium where tan th = F / (m g)."""
    m = bead(0.3)
    m.add_force("pull", "pin", force=(5.0, 0.0, 0.0))
    r = m.statics()
    x = r.position("bead")[0]
    assert abs(math.atan2(x[0], -x[1]) - math.atan2(5.0, 2.0 * G)) < 1e-10


def lift(follower: str, t: np.ndarray, omega: float = 4 * math.pi, Rc: float = 0.05,
         e: float = 0.015, rho: float = 0.01):
    """The follower's height and its two time derivatives (exact, by jets): the roller's
    centre stays Rc + rho from the disc's centre (e cos th, e sin th); a flat face touches
    the disc's top: e sin th + Rc (simple harmonic)."""
    th = jet.Jet(omega * t, omega * np.ones_like(t), np.zeros_like(t))
    if follower == "roller":
        y = e * jet.sin(th) + jet.sqrt((Rc + rho) ** 2 - (e * jet.cos(th)) ** 2)
    else:
        y = e * jet.sin(th) + Rc
    return y.v, y.d, y.dd


@pytest.mark.parametrize("follower", ["roller", "flat"])
def test_eccentric_cam_lift_against_closed_form(follower: str) -> None:
    """Lift, velocity and acceleration of the follower to 1e-9 of their peaks over one turn
    at 120 fps (the disc is a 400-knot quintic spline: its curvature errs by ~1e-10, which
    the acceleration feels); the contact pushes (positive) and its vertical part carries
    the follower: m (y'' + g)."""
    m = eccentric_cam(follower)
    rep = m.check()
    assert rep.ok and rep.dof == 1 and rep.driven_dof == 0
    r = m.solve(duration=0.5, fps=120)
    y, yd, ydd = lift(follower, r.times)
    np.testing.assert_allclose(r.position("follower")[:, 1], y, atol=1e-9 * np.abs(y).max())
    np.testing.assert_allclose(r.velocity("follower")[:, 1], yd, atol=1e-9 * np.abs(yd).max())
    np.testing.assert_allclose(r.acceleration("follower")[:, 1], ydd, atol=1e-9 * np.abs(ydd).max())
    F, _ = r.reaction("contact")
    np.testing.assert_allclose(F[:, 1], 0.3 * (ydd + G), atol=1e-9 * 0.3 * G)
    assert r.contact_force("contact").min() > 0.0 and not r.notes


@pytest.mark.parametrize("turned", [0.0, 0.3, -0.3, -2.8])
def test_statics_of_a_free_cam_turned_far_by_its_follower(turned: float) -> None:
    """The eccentric cam free on its axle, held by a torsion spring (0.5 N m/rad about its
    angle 0), its roller follower pressed on by a 3e4 N/m spring: the follower turns the
    cam down to where k th + F dy/dth = 0 (virtual work; F the spring's push and the
    follower's weight, y the lift of the roller), th = -1.5467 rad, from a start turned
    `turned` rad. Statics' Newton moves the cam by over a radian, and the contact point
    found from one pose to the next stays on the roller's touching side: the angle to
    1e-9 rad, the contact force F / cos(phi) to 1e-9 of it (phi the line of centres'
    tilt from the guide)."""
    from scipy.optimize import brentq
    Rc, e, rho, mass, k, kt = 0.05, 0.015, 0.01, 0.3, 3e4, 0.5
    m = eccentric_cam("roller")
    del m.motions["drive"]
    m.add_marker("top", "follower", position=(0.0, 0.05, 0.0))
    m.add_marker("hook", "ground", position=(0.0, 0.2, 0.0))
    m.add_spring_damper("sp", "top", "hook", stiffness=k, free_length=0.2)
    m.add_torsion_spring("ts", "spin", stiffness=kt)

    def lift(th: float) -> tuple[float, float]:
        root = math.sqrt((Rc + rho) ** 2 - (e * math.cos(th)) ** 2)
        return e * math.sin(th) + root, e * math.cos(th) * (1.0 + e * math.sin(th) / root)

    def push(th: float) -> float:                   # the spring's push and the weight, N
        return k * (lift(th)[0] + 0.05) + mass * G

    m.parts["cam"].orientation[:] = (math.cos(turned / 2), 0.0, 0.0, math.sin(turned / 2))
    m.parts["follower"].position[:] = (0.0, lift(turned)[0], 0.0)
    rest = m.statics()
    w, _, _, z = rest.orientation("cam")[0]
    th = 2.0 * math.atan2(z, w)
    want = brentq(lambda a: kt * a + push(a) * lift(a)[1], -2.5, -1.0, xtol=1e-14)
    assert th == pytest.approx(want, abs=1e-9) and rest.stable
    tilt = (lift(want)[0] - e * math.sin(want)) / (Rc + rho)
    assert rest.contact_force("contact")[0] == pytest.approx(push(want) / tilt, rel=1e-9)


@pytest.mark.parametrize("omega, fps", [(15 * math.pi, 120), (25 * math.pi, 24)])
def test_a_cam_turned_far_between_frames_stays_on_its_branch(omega: float, fps: int) -> None:
    """A quarter turn and more between frames (0.39 and 3.3 rad): the sweep's prediction
    of a block's later frames is far off, and a contact searched from the last iteration's
    pose instead of the frame's prediction once jumped to another common normal there (the
    follower 0.116 m off): the lift stays the closed form's (1e-9 of its size) and the
    roller's contact within one turn of its curve."""
    m = eccentric_cam("roller", omega=omega)
    r = m.solve(duration=1.0, fps=fps)
    y, _, _ = lift("roller", r.times, omega=omega)
    np.testing.assert_allclose(r.position("follower")[:, 1], y, atol=1e-9 * np.abs(y).max())
    u = r.track[:, 0]                                  # the roller's contact (its own curve)
    assert np.all((u >= 0.0) & (u <= 2 * math.pi * 0.01 * (1 + 1e-4)))


def test_follower_that_would_lift_off_is_named() -> None:
    """Spun fast enough that the follower's downward acceleration exceeds g, the flat face
    would have to be pulled down: a note names the cam, the first frame where the force
    turns negative (the closed form: y'' + g < 0 first at 60 fps) and the largest pull."""
    omega = 40.0                       # e omega^2 = 24 m/s^2 > g
    m = eccentric_cam("flat", omega=omega)
    r = m.solve(duration=0.3, fps=60)
    _, _, ydd = lift("flat", r.times, omega=omega)
    first = int(np.argmax(ydd + G < 0.0))
    notes = [n for n in r.notes if "cam 'contact'" in n]
    assert len(notes) == 1 and f"(frame {first})" in notes[0]
    assert f"{0.3 * -(ydd + G).min():.4g} N" in notes[0]


def scotch_yoke(slot_half: float = 0.08, slot_centre: float = 0.0) -> Mechanism:
    """A crank of radius 0.05 turned at 2 turns/s; its pin runs in a vertical straight slot
    (2 slot_half long, its middle slot_centre above the axle) on a yoke that slides along x:
    x_yoke = r cos th."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=0.5, inertia=(1e-4, 1e-4, 2e-4))
    m.add_marker("axle", "ground")
    m.add_marker("hub", "crank")
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_motion("drive", "spin", f"{4 * math.pi} * t")
    m.add_marker("pin", "crank", position=(0.05, 0.0, 0.0))
    m.add_part("yoke", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.05, 0.0, 0.0))
    m.add_marker("way", "ground", position=(0.05, 0.0, 0.0), orientation=Z_ALONG_X)
    m.add_marker("shoe", "yoke", orientation=Z_ALONG_X)
    m.add_joint("rail", "prismatic", "shoe", "way")
    m.add_marker("slot_frame", "yoke")
    m.add_point_on_curve("slot", "pin", "slot_frame",
                         [(0.0, slot_centre - slot_half), (0.0, slot_centre),
                          (0.0, slot_centre + slot_half)], closed=False)
    return m


def test_scotch_yoke_pin_in_a_straight_slot() -> None:
    """The yoke follows r cos th exactly (1e-13 m), its acceleration -r w^2 cos th, and the
    slot's force on the pin is horizontal: it is what accelerates the yoke, m x''."""
    r = scotch_yoke().solve(duration=0.5, fps=100)
    th = 4 * math.pi * r.times
    np.testing.assert_allclose(r.position("yoke")[:, 0], 0.05 * np.cos(th), atol=1e-13)
    np.testing.assert_allclose(r.acceleration("yoke")[:, 0], -0.05 * (4 * math.pi) ** 2 * np.cos(th),
                               atol=1e-9)
    F, _ = r.reaction("slot")
    np.testing.assert_allclose(-F[:, 0], 1.0 * r.acceleration("yoke")[:, 0], atol=1e-9)
    assert np.abs(F[:, 1]).max() < 1e-9


def test_pin_running_off_its_slot_stops_with_the_frame() -> None:
    """A slot 2 x 0.03 m long, the pin rising 0.05 m: the run stops at the first frame where
    the pin is past the end (sin th > 0.03 / 0.05 at 100 fps), naming the joint and the
    frame, with the frames before kept."""
    with pytest.raises(SolverError, match=r"joint 'slot': the contact ran off the end") as info:
        scotch_yoke(slot_half=0.03).solve(duration=0.5, fps=100)
    th = 4 * math.pi * np.arange(51) / 100
    first = int(np.argmax(np.abs(0.05 * np.sin(th)) > 0.03))
    assert f"(frame {first})" in str(info.value)
    assert len(info.value.result) == first and info.value.joints == ("slot",)


def test_a_pin_that_cannot_reach_its_slot_fails_check_and_assembly_by_name() -> None:
    """The slot from 0.07 to 0.13 m above the axle, the pin on the axle's level at t = 0:
    the spline continued past the slot's start closes the equations 0.07 m before it, where
    there is no slot.  check() reports it as a problem, assemble() and solve() raise it,
    each naming the joint and how far past the start; the parts are not moved."""
    m = scotch_yoke(slot_half=0.03, slot_centre=0.1)
    before = {p: m.pose(p) for p in m.parts}
    report = m.check()
    assert not report.ok and not report.assembled
    assert any("joint 'slot' cannot be closed on its curve" in p and "0.07 m past the start" in p
               for p in report.problems)
    for call in (m.assemble, lambda: m.solve(duration=0.1, fps=10)):
        with pytest.raises(SolverError, match=r"joint 'slot' cannot be closed on its curve: "
                                              r"closing it needs its contact 0.07 m past the "
                                              r"start") as info:
            call()
        assert info.value.joints == ("slot",) and info.value.time == 0.0
    for p, (x, q) in before.items():
        assert np.array_equal(m.pose(p)[0], x) and np.array_equal(m.pose(p)[1], q)


def test_curve_rows_jacobian_at_poses_on_the_curves() -> None:
    """At poses the solver put on the curves (a roller cam and a pin in a slot mid-run), the
    rows' Jacobian equals central differences of their residual (which re-finds the
    contact parameters): there the parameters' own derivatives drop out (curve_rows.py)."""
    for m, dt in ((eccentric_cam("roller"), 0.37), (scotch_yoke(), 0.13)):
        r = m.solve(times=[0.0, dt])
        model = compile_model(m)
        R = np.stack([r._r[-1][b] for b in range(model.nb)])
        P = np.stack([r._p[-1][b] for b in range(model.nb)])
        check_jacobian(model, R, P)


def _exhaustive_start(ci: Curve, cj: Curve, M: np.ndarray, o: np.ndarray):
    """The cam's start search done in full: every knot and midpoint of curve I, each one's
    foot on curve J by J's global search, the nearest of them (the first of equals)."""
    us = np.concatenate([ci.parameters, 0.5 * (ci.parameters[:-1] + ci.parameters[1:])])
    xi = o[..., None, :] + np.einsum("...ij,kj->...ki", M, ci.evaluate(us, 0)[0])
    vs = np.asarray(cj.nearest(xi), dtype=float)
    best = np.argmin(np.linalg.norm(xi - cj.evaluate(vs, 0)[0], axis=-1), axis=-1)
    return us[best], np.take_along_axis(vs, best[..., None], -1)[..., 0]


@pytest.mark.parametrize("lift, turn, searches", [(0.003, 0.3, 2), (1e-5, 0.0, 1)])
def test_an_assembly_follows_the_contact_once_its_steps_are_small(monkeypatch, lift: float,
                                                                 turn: float,
                                                                 searches: int) -> None:
    """Assembly searches a cam's contact globally at a trial pose only while Newton's steps
    are large (a rough start's contact may have to move to the branch the parts can
    reach); once a step moves no part by more than TRACK_STEP (1e-3) of the model's size,
    it follows the contact from the accepted iterate, as the sweeps do from frame to frame
    (a global search costs about a millisecond).  The roller follower built 3 mm above the
    disc (5% of the model's size) with the cam turned 0.3 rad: 2 searches (4 when every
    trial pose was searched); 10 um above: 1 (3 before).  Either way the follower closes
    onto the disc to Newton's tolerance."""
    import solver.kernels.curve_rows as rows
    from solver.analyses.start.assembly import assemble_pose
    from solver.kernels.constraints import body_arrays, evaluate
    from solver.model.state import read_state
    m = eccentric_cam("roller")
    m.parts["follower"].position[1] += lift
    m.parts["cam"].orientation[:] = (math.cos(turn / 2), 0.0, 0.0, math.sin(turn / 2))
    model = compile_model(m)
    st = read_state(model, m)
    starts = []
    search = rows._cam_start
    monkeypatch.setattr(rows, "_cam_start", lambda *a: starts.append(1) or search(*a))
    asm = assemble_pose(model, st.r, st.p, 0.0)
    assert len(starts) == searches
    monkeypatch.setattr(rows, "_cam_start", search)
    ev = evaluate(model, *body_arrays(model, asm.r, asm.p)[:2])    # a fresh global search
    assert np.abs(ev.phi[model.constraint_rows]).max() < 1e-12
    k = model.body_part.index("follower")
    assert asm.r[k, 1] == pytest.approx(st.r[k, 1] - lift, abs=1e-9)   # down onto the disc


def test_a_rough_start_may_move_its_contact_to_the_branch_the_parts_reach() -> None:
    """A pendulum arm whose tip runs on an open spiral wire, built 1.46 rad from where its
    circle meets the wire: at the pose as built the tip's nearest wire point lies on a turn
    of the spiral the arm's circle never reaches.  Following that contact from the first
    iterate on (a review found it so) left a 41 mm gap and an error, though the joints
    close: the large first steps take each trial pose's contact by a global search, so the
    arm swings to 2.1450 rad, on the wire."""
    qz = lambda a: (math.cos(a / 2), 0.0, 0.0, math.sin(a / 2))
    ts = np.linspace(0.0, 1.0, 30)
    wire = [(0.3 * math.cos(3 * math.pi * t), 0.3 * math.sin(3 * math.pi * t) * (1 - t) + 0.1 * t)
            for t in ts]
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=1.0, inertia=(1e-3,) * 3, orientation=qz(1.462))
    m.add_marker("piv", "ground")
    m.add_marker("hub", "arm")
    m.add_joint("pin", "revolute", "hub", "piv")
    m.add_marker("tip", "arm", position=(0.2489, 0.0, 0.0))
    m.add_marker("w", "ground", position=(0.0128, 0.0243, 0.0), orientation=qz(-0.4116))
    m.add_point_on_curve("wire", "tip", "w", Curve.from_points(wire, closed=False))
    m.assemble()
    q = m.parts["arm"].orientation
    assert 2.0 * math.atan2(q[3], q[0]) == pytest.approx(2.1450, abs=1e-4)


@pytest.mark.parametrize("how", ["sweep", "dynamics", "study"])
def test_a_run_starts_from_the_contact_its_assembly_found(monkeypatch, how: str) -> None:
    """The assembly's tracked values (State.track) start the run: the rank test at the
    assembled pose, the sweep's first frame and forward dynamics' first projection take the
    contact from them, so a cam is searched globally once a run (three to five times
    before), and once a variant in a study (its lockstep runs start each variant from its
    own, as its separate run does)."""
    import solver.kernels.curve_rows as rows
    from solver.study import Study, grid
    from mechanisms import sprung_cam
    starts = []
    search = rows._cam_start
    monkeypatch.setattr(rows, "_cam_start",
                        lambda ci, cj, M, o: starts.append(M[..., 0, 0].size) or search(ci, cj, M, o))
    m = sprung_cam() if how == "dynamics" else eccentric_cam("roller")
    if how == "study":
        res = Study(m, grid({"follower.mass": [0.2, 0.3, 0.4]})).run(duration=0.05, fps=240)
        assert not res.failures and sum(starts) == 3
    else:
        r = m.solve(duration=0.05, fps=240)
        assert r.analysis == ("dynamic" if how == "dynamics" else "kinematic")
        assert sum(starts) == 1


def test_cam_start_search_finds_what_the_exhaustive_search_finds() -> None:
    """The coarse-to-fine start of a cam's contact (curve_rows._cam_start: only the cells of
    curve I that may hold the nearest point are searched) gives the exhaustive search's (u,
    v) for pairs touching, apart and overlapping, convex and not, near the origin and 10 km
    from it, one pose at a time and as a stack of 40."""
    from solver.kernels.curve_rows import _cam_start
    wavy = [(0.0, 0.0), (0.1, 0.02), (0.2, -0.03), (0.3, 0.0), (0.25, 0.1), (0.1, 0.06)]
    pairs = [(Curve.circle(0.01), Curve.circle(0.05, center=(0.015, 0.0, 0.0))),
             (Curve.from_points([(-0.08, 0.0), (0.0, 0.0), (0.08, 0.0)], closed=False),
              Curve.circle(0.05, center=(0.015, 0.0, 0.0))),
             (Curve.ellipse(0.03, 0.01), Curve.from_points(wavy, closed=True)),
             (Curve.circle(0.01, center=(1e4, 2e4, 0.0)), Curve.ellipse(0.05, 0.02, center=(1e4, 2e4, 0.0)))]
    rng = np.random.default_rng(7)
    for ci, cj in pairs:
        th = rng.uniform(0.0, 2.0 * np.pi, 40)
        M = np.zeros((40, 3, 3))
        M[:, 0, 0], M[:, 0, 1], M[:, 1, 0], M[:, 1, 1], M[:, 2, 2] = (np.cos(th), -np.sin(th), np.sin(th),
                                                                      np.cos(th), 1.0)
        o = np.zeros((40, 3))
        o[:, :2] = rng.normal(0.0, 0.05, (40, 2))
        u, v = _cam_start(ci, cj, M, o)
        want_u, want_v = _exhaustive_start(ci, cj, M, o)
        np.testing.assert_array_equal(u, want_u)
        np.testing.assert_allclose(v, want_v, rtol=0.0, atol=1e-12 * cj.size)
        for k in range(0, 40, 7):
            assert _cam_start(ci, cj, M[k], o[k])[0] == want_u[k]
    # a lone pose whose search keeps a single candidate (a last cell of one) on a tie of J's
    # candidates: the exhaustive search's v, to the bit (a one-row ranking rounded apart)
    ci = Curve.from_points([(12.755998213199774, -10.940726219455467), (15.528450718364414, -4.2947036785371955),
                            (11.03717059492679, -7.643399176222524), (10.440635879297659, -10.711940572450768),
                            (-0.02460498747401478, 0.8320895002108102)], closed=False)
    cj, M, o = Curve.circle(1.0), np.eye(3), np.array([-0.027987108290847017, -0.2317133959275699, 0.0])
    assert _cam_start(ci, cj, M, o)[1] == _exhaustive_start(ci, cj, M, o)[1]
    assert all(x.shape == (0,) for x in _cam_start(ci, cj, np.zeros((0, 3, 3)), np.zeros((0, 3))))
    nan = np.full(3, np.nan)                  # a pose not finite: what the full search gives
    assert np.array_equal(_cam_start(ci, cj, M, nan), _exhaustive_start(ci, cj, M, nan), equal_nan=True)


@pytest.mark.parametrize("call, message", [
    (lambda m: m.add_joint("x", "point-on-curve", "pin", "track"), "use add_point_on_curve"),
    (lambda m: m.add_point_on_curve("x", "pin", "track", [(0, 0), (1, 0), (2, 1)]), "give closed="),
    (lambda m: m.add_point_on_curve("x", "pin", "track", [(0, 0), (1e-15, 0)], closed=False),
     "joint 'x': curve"),
    (lambda m: m.add_cam("x", "pin", Curve.circle(0.1), "track",
                         [(0, 0, 0), (1, 0, 0.1), (2, 1, 0), (1, 2, 0)], closed_j=True),
     "leaves its marker's xy plane"),
    (lambda m: m.add_point_on_curve("x", "pin", "nowhere", Curve.circle(1.0)), "'nowhere' is not a marker"),
])
def test_bad_curve_joints_are_named(call, message: str) -> None:
    m = bead(0.2)
    before = dict(m.joints)
    with pytest.raises(MechanismError, match=message):
        call(m)
    assert m.joints == before


def test_float32_tilt_of_a_redundant_row_is_still_redundant() -> None:
    """Blender stores placements in float32: a planar yoke's straight slot tilted 1e-7 rad
    out of its marker's plane.  Its binormal equation adds a direction of 1e-7 of its length
    to the crank's and yoke's joints: below the rank test's 1e-6 (RANK_TOL, the same share
    as the imperfect-geometry tolerance), so it is redundant as in the exact plane: one
    freedom, the motion drives it, the yoke follows r cos th."""
    m = scotch_yoke()
    h = 0.08
    m.joints["slot"].curves = (Curve.from_points([(0.0, y, y * 1e-7) for y in (-h, 0.0, h)],
                                                 closed=False, name="slot"),)
    rep = m.check()
    assert rep.dof == 1 and rep.driven_dof == 0 and "slot" in rep.redundant
    r = m.solve(duration=0.25, fps=24)
    np.testing.assert_allclose(r.position("yoke")[:, 0], 0.05 * np.cos(4 * math.pi * r.times), atol=1e-12)



R3, A3 = 0.05, 0.01                    # the three-lobe cam: r(u) = R3 + A3 cos 3u, m


def three_lobe_cam_under_a_flat_face() -> Mechanism:
    """A cam r(u) = 0.05 + 0.01 cos 3u (m), concave at its three waists (r^2 + 2 r'^2 -
    r r'' < 0 there: 0.05 < 10 x 0.01), turned at 2 rad/s under a flat face 0.2 m wide on
    a vertical guide through its axle."""
    lobes = Curve.from_function(
        lambda u: np.stack([(R3 + A3 * np.cos(3 * u)) * np.cos(u),
                            (R3 + A3 * np.cos(3 * u)) * np.sin(u), 0 * u], -1),
        0.0, 2 * math.pi, closed=True, samples=400, name="lobes")
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("cam", mass=1.0, inertia=(1e-3, 1e-3, 2e-3))
    m.add_marker("axle", "ground")
    m.add_marker("hub", "cam")
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_motion("drive", "spin", "2*t")
    m.add_part("follower", mass=0.3, inertia=(1e-4, 1e-4, 1e-4), position=(0.0, R3 + A3, 0.0))
    m.add_marker("guide", "ground", orientation=Z_ALONG_Y)
    m.add_marker("stem", "follower", orientation=Z_ALONG_Y)
    m.add_joint("slide", "prismatic", "stem", "guide")
    m.add_marker("face", "follower")
    m.add_marker("disc", "cam")
    m.add_cam("contact", "face", Curve.from_points([(-0.1, 0.0), (0.0, 0.0), (0.1, 0.0)],
                                                   closed=False, name="face"),
              "disc", lobes)
    return m


def test_a_follower_that_cannot_stay_on_one_point_of_touch_stops_the_run() -> None:
    """The flat face on the three-lobe cam rides one lobe until the next rises above it
    across the concave waist: the one common normal the joint holds is then no longer
    where they touch, and from the next frames on the joint's Newton found another,
    through the cam, and the face went on under it (0.11 m off the true lift, the highest
    point of the turned cam, with only a note that it would have to pull).  The sweep now
    stops at the first frame where the cam cuts into the face by 1e-3 of its size,
    naming the cam; the frames before have the face on top of the cam, at the true lift
    or above it by less than that cut (the lobe it rides is the highest until then)."""
    with pytest.raises(SolverError, match=r"cam 'contact': its curves cut into each other") as info:
        three_lobe_cam_under_a_flat_face().solve(duration=math.pi, fps=60)
    err = info.value
    assert err.joints == ("contact",) and 0.2 < err.time < 0.4
    before = err.result
    u = np.linspace(0.0, 2 * math.pi, 20001)
    turn = 2.0 * before.times[:, None]
    lift = ((R3 + A3 * np.cos(3 * u)) * np.sin(u + turn)).max(axis=1)
    y = before.position("follower")[:, 1]
    assert len(y) == round(err.time * 60) and np.all(y > 0.0)
    # (above the true lift by no more than the spline's fit of the cam, 400 samples, and
    # the 20,001-point maximum's own error, both under 1e-8 m)
    assert np.all(lift - y < 1e-3 * 2 * (R3 + A3)) and np.all(y - lift < 1e-7)


def test_a_dynamic_run_that_fails_past_a_cam_cut_names_the_cam() -> None:
    """The three-lobe cam spinning freely at 2 rad/s (I_zz 0.2 kg m^2), the face pressed on
    it by 20 N: the next lobe cuts into the face first at 0.233 s (frame 14), and at
    0.303 s the common normal the joint holds ends and the steps collapse.  The failure
    said only that the step size fell below 1e-12 s; it now names the cam and the frame of
    the cut, with the frames before (and the integrator's failure as its cause)."""
    m = three_lobe_cam_under_a_flat_face()
    m.add_force("press", "stem", force=(0.0, -20.0, 0.0))
    del m.motions["drive"]
    m.parts["cam"].angular_velocity[:] = (0.0, 0.0, 2.0)
    m.parts["cam"].inertia[:] = np.diag([0.1, 0.1, 0.2])
    with pytest.raises(SolverError, match=r"cam 'contact': its curves cut into each other .* "
                                          r"\(frame 14\)") as info:
        m.solve(duration=math.pi, fps=60, analysis="dynamic")
    assert len(info.value.result) == 14 and isinstance(info.value.__cause__, SolverError)


@pytest.mark.parametrize("analysis", ["dynamic", "statics"])
def test_a_slot_drawn_along_marker_js_z_axis(analysis: str) -> None:
    """A straight slot along marker J's z axis (drawn in a vertical plane, the marker left
    as placed), a 2 kg bead in it under gravity (3, 0, -9.81): the binormal, z_J's part
    across the tangent, is nothing there, and the run once failed in numpy's least squares
    (NaN rows, no joint named).  The bead falls freely along the slot, z = 0.5 - g t^2 / 2
    (1e-9 m: the integrator's tolerance 1e-10), and the slot holds the sideways pull,
    (-6, 0, 0) N, to 1e-9 of it; statics under the sideways pull alone (no fall) holds
    the same 6 N."""
    m = Mechanism(gravity=(3.0, 0.0, -G if analysis == "dynamic" else 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("bead", mass=2.0, inertia=(1e-3, 1e-3, 1e-3), position=(0.0, 0.0, 0.5))
    m.add_marker("pin", "bead")
    m.add_marker("track", "ground")
    m.add_point_on_curve("slot", "pin", "track", [(0.0, 0.0, -1.0), (0.0, 0.0, 0.0),
                                                  (0.0, 0.0, 1.0)], closed=False)
    r = (m.statics() if analysis == "statics"
         else m.solve(duration=0.3, fps=10, analysis="dynamic", tolerance=1e-10))
    x = r.position("bead")
    z = 0.5 - 0.5 * G * r.times ** 2 if analysis == "dynamic" else np.full(len(r), 0.5)
    np.testing.assert_allclose(x, np.column_stack([0 * z, 0 * z, z]), rtol=0, atol=1e-9)
    F, _ = r.reaction("slot")
    np.testing.assert_allclose(F, np.tile([-6.0, 0.0, 0.0], (len(r), 1)), rtol=0, atol=6e-9)


def test_statics_past_the_end_of_an_open_slot_is_refused_by_name() -> None:
    """A 1 kg bead in a slot y = x^2 from x = -1 to its bottom at x = 0, pulled by a spring
    (100 N/m, free length 0) towards (0.3, 0): the spline continued past the end closes the
    equations on to x = 0.23 m, where there is no slot, and statics (and the modes about
    it) once returned that equilibrium without a word.  Both now raise naming the joint
    and how far past the end; with the anchor at x = -0.3 the bead rests in the slot where
    the spring's pull and the weight have no part along the slot's tangent (1, 2 x), to
    1e-9 N (Newton's stopping rule is far below)."""
    def build(anchor: float) -> Mechanism:
        m = Mechanism(gravity=(0.0, -G, 0.0))
        m.add_part("ground", fixed=True)
        m.add_part("bead", mass=1.0, inertia=(1e-3, 1e-3, 1e-3), position=(-0.1, 0.01, 0.0))
        m.add_marker("pin", "bead")
        m.add_marker("track", "ground")
        m.add_point_on_curve("slot", "pin", "track", Curve.from_function(
            lambda x: np.stack([x, x * x, 0.0 * x], -1), -1.0, 0.0, False))
        m.add_marker("anchor", "ground", position=(anchor, 0.0, 0.0))
        m.add_spring_damper("sp", "pin", "anchor", stiffness=100.0, free_length=0.0)
        return m
    for call in (lambda m: m.statics(), lambda m: m.modes()):
        with pytest.raises(SolverError, match=r"joint 'slot': .* m past the end of the open "
                                              r"curve") as info:
            call(build(0.3))
        assert info.value.joints == ("slot",)
    x, y, _ = build(-0.3).statics().position("bead")[0]
    # along the tangent (1, 2x): spring k (-0.3 - x, -y) and weight (0, -m g) balance
    assert 100.0 * ((-0.3 - x) - 2 * x * y) - 2 * x * G == pytest.approx(0.0, abs=1e-9)
    assert y == pytest.approx(x * x, abs=1e-12)


@pytest.mark.parametrize("fps", [2, 24])
def test_a_bead_swinging_off_its_open_arc_between_frames_is_named(fps: int) -> None:
    """A bead on an open arc of radius 0.5 m from -30 to 40 degrees, released at rest at 35
    degrees, swings to -35 degrees: it leaves the arc's start at t = integral of
    d theta / sqrt(2 g / R (cos theta - cos 35 deg)) from -30 to 35 degrees = 0.600272 s
    (scipy.integrate.quad), between frames 1 and 2 at 2 fps, where both frames are on the
    arc (and the run ran on without a word), 14 and 15 at 24 fps (where the run stopped at
    frame 15, 0.625 s).  The run stops at that instant naming the joint and the start, with
    the frames before it."""
    from scipy.integrate import quad
    R, th0, lo = 0.5, math.radians(35.0), math.radians(-30.0)
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("bead", mass=2.0, inertia=(1e-3, 1e-3, 1e-3),
               position=(R * math.sin(th0), -R * math.cos(th0), 0.0))
    m.add_marker("pin", "bead")
    m.add_marker("track", "ground")
    arc = np.radians(np.linspace(-30.0, 40.0, 41))
    m.add_point_on_curve("slot", "pin", "track", np.c_[R * np.sin(arc), -R * np.cos(arc)],
                         closed=False)
    t_off = quad(lambda th: 1.0 / math.sqrt(2 * G / R * (math.cos(th) - math.cos(th0))),
                 lo, th0, limit=200)[0]
    k = int(t_off * fps) + 1
    with pytest.raises(SolverError, match=r"joint 'slot': the contact ran off the start of the "
                                          rf"open curve .* \(between frames {k - 1} and {k}\)"
                       ) as info:
        m.solve(duration=1.5, fps=fps, analysis="dynamic")
    # the first step end past the start, the step halved to 1e-6 of a frame (5e-7 s at 2
    # fps), on a run held to 1e-6 (the arc a spline through 41 points): 2e-6 s is room
    # (measured 2.0e-7 and 2.4e-8 s)
    assert info.value.time == pytest.approx(t_off, abs=2e-6)
    assert info.value.joints == ("slot",) and len(info.value.result) == k
