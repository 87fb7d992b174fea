"""Design studies of mechanisms with couplers and curve joints: their kinematic
sweeps run as one sweep over a variant axis (solver/analyses/sweep/) with each variant's tracked
values (a gear's turns, a slot's or cam's contact parameters) carried from its own frames,
and every variant equals its separate sweep."""
from __future__ import annotations

import numpy as np
import pytest

from solver import Mechanism, SolverError, StudyError
from solver.base.curves import Curve
from solver.study import Study, engine, grid, latin_hypercube, parameter_names

from test_couplers import screw_nut, spur_pair
from mechanisms import eccentric_cam, sprung_cam
from test_curve_joints import bead, scotch_yoke


def _spy(monkeypatch) -> list:
    """[(variants, every variant finished in the batch)] of each batched sweep."""
    ran = []
    real = engine._sweeps

    def spy(models, *args):
        out = real(models, *args)
        ran.append((len(models), out is not None and all(o is not None for o in out)))
        return out
    monkeypatch.setattr(engine, "_sweeps", spy)
    return ran


def _rel(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-300))


def _equal_to_separate(study: Study, res, duration: float, fps: float) -> None:
    """Both solve the same equations to Newton's tolerance (1e-12 of the size): poses and
    tracked values to 1e-10, reactions, efforts and energies to 1e-9 relative."""
    for i in range(len(study)):
        alone = study.variant(i).solve(duration, fps)
        got = res.result(i)
        assert np.abs(got._r - alone._r).max() <= 1e-10
        assert np.abs(got.track - alone.track).max() <= 1e-10
        assert _rel(got._reaction, alone._reaction) <= 1e-9
        assert _rel(got._energy, alone._energy) <= 1e-9


def test_a_gear_train_over_many_turns_sweeps_as_one(monkeypatch):
    """A spur pair driven through about 10 turns of its pinion (3 t + 2 t^2 rad over 5 s),
    masses and an inertia varied: one batched sweep.  The gear's row takes each angle on
    the turn its tracked value predicts, so every variant holds the ratio over all the
    turns as its own sweep does (taking the angles on the built turn instead would break
    the ratio after half a turn)."""
    ran = _spy(monkeypatch)
    m = spur_pair()
    m.add_motion("drive", "j1", "3*t + 2*t**2")
    study = Study(m, grid({"g2.mass": [1.0, 3.0], "g1.inertia.zz": [0.012, 0.018]}))
    res = study.run(duration=5.0, fps=24)
    assert ran == [(4, True)] and not res.failures
    _equal_to_separate(study, res, 5.0, 24)
    for i in range(len(study)):
        got = res.result(i)
        q1, q2 = got.track[:, 0], got.track[:, 1]        # the two axles' unwrapped angles
        assert q1[-1] - q1[0] == pytest.approx(3 * 5 + 2 * 25, rel=1e-12)
        np.testing.assert_allclose(q2 - q2[0], -(q1 - q1[0]) * 0.1 / 0.25, rtol=0, atol=1e-9)
    # the variants differ where they should: the motor's torque with the inertias
    peaks = [np.abs(res.result(i).effort("drive")).max() for i in range(len(study))]
    assert np.ptp(peaks) > 0.1 * max(peaks)


def test_a_pin_in_a_slot_sweeps_as_one_and_a_variant_off_its_slot_fails_alone(monkeypatch):
    """A Scotch yoke (point on an open curve) with the crank pin's radius and the yoke's
    mass varied: one batched sweep, each variant equal to its own; a pin radius past the
    slot's half length runs the pin off the slot, and that variant (only) leaves the batched
    sweep there (as a variant driven through a stop does) and fails with its separate run's
    message."""
    ran = _spy(monkeypatch)
    study = Study(scotch_yoke(), grid({"pin.position.x": [0.04, 0.06, 0.09],
                                       "yoke.mass": [0.5, 1.5]}))
    res = study.run(duration=0.5, fps=60)
    assert ran == [(6, False)]
    off = [i for i, row in enumerate(study.variants) if row["pin.position.x"] > 0.08]
    assert sorted(res.failures) == off
    with pytest.raises(Exception) as alone:
        study.variant(off[0]).solve(0.5, 60)
    assert str(alone.value) in res.failures[off[0]]
    assert "ran off the end of the open curve" in res.failures[off[0]]
    ok = [i for i in range(len(study)) if i not in off]
    for i in ok:
        alone = study.variant(i).solve(0.5, 60)
        got = res.result(i)
        assert np.abs(got._r - alone._r).max() <= 1e-10
        assert _rel(got._reaction, alone._reaction) <= 1e-9
        # the yoke follows x = r cos(theta), its pin's radius its own
        r = study.variants[i]["pin.position.x"]
        np.testing.assert_allclose(got.position("yoke")[:, 0],
                                   r * np.cos(4 * np.pi * got.times), rtol=0, atol=1e-10)


def test_a_cam_and_follower_sweeps_as_one(monkeypatch):
    """An eccentric disc cam and a roller follower, the follower's mass and the cam's
    mass varied: one batched sweep, each variant's lift and contact force its own sweep's
    (the force grows with the follower's mass: gravity and inertia)."""
    ran = _spy(monkeypatch)
    study = Study(eccentric_cam("roller"), grid({"follower.mass": [0.2, 0.5],
                                                 "cam.mass": [1.0, 2.0]}))
    res = study.run(duration=0.5, fps=120)
    assert ran == [(4, True)] and not res.failures
    _equal_to_separate(study, res, 0.5, 120)
    light = res.result(0).contact_force("contact")
    heavy = res.result(2).contact_force("contact")
    assert study.variants[2]["follower.mass"] > study.variants[0]["follower.mass"]
    assert np.all(heavy > light)


def test_a_cam_whose_disc_is_moved_sweeps_as_one(monkeypatch):
    """The disc's eccentricity varied (its marker moved along x: the cams' marker offsets
    stacked, their axes not) with the follower's mass: one batched sweep, each variant its
    own sweep's, the lift's range twice the eccentricity."""
    ran = _spy(monkeypatch)
    study = Study(eccentric_cam("roller"), grid({"disc.position.x": [0.0, 0.002, 0.004],
                                                 "follower.mass": [0.2, 0.5]}))
    res = study.run(duration=0.5, fps=120)
    assert ran == [(6, True)] and not res.failures and not res.notes
    _equal_to_separate(study, res, 0.5, 120)
    for i, row in enumerate(study.variants):
        y = res.result(i).position("follower")[:, 1]
        e = 0.015 + row["disc.position.x"]        # the disc's centre from the axle
        assert abs((y.max() - y.min()) - 2 * e) < 1e-3 * e


@pytest.mark.slow
def test_a_fast_cam_keeps_each_variants_contact_on_its_turn(monkeypatch):
    """A cam turned 0.39 rad a frame (15 pi rad/s at 120 fps): a block's later frames are
    predicted a little differently in the batch than in the separate sweeps (their blocks
    differ), and a contact's Newton could land a whole turn of the disc away (the same
    point, the tracked value 0.31 to 0.94 m off); each closed curve's contact is kept on
    its tracked turn, so the batch's tracked values equal the separate sweeps' too."""
    ran = _spy(monkeypatch)
    study = Study(eccentric_cam("roller", omega=15 * np.pi),
                  latin_hypercube({"disc.position.x": (0.0, 0.004), "follower.mass": (0.2, 0.5),
                                   "face.position.y": (-0.002, 0.002)}, 6, seed=1))
    res = study.run(duration=1.0, fps=120)
    assert ran == [(6, True)] and not res.failures
    _equal_to_separate(study, res, 1.0, 120)


def _spy_dynamics(monkeypatch) -> list:
    """[(variants, every variant finished in the lockstep run)] of each batch_dynamics."""
    ran = []
    real = engine.batch_dynamics

    def spy(models, *args, **kw):
        out = real(models, *args, **kw)
        ran.append((len(models), out is not None and all(o is not None for o in out)))
        return out
    monkeypatch.setattr(engine, "batch_dynamics", spy)
    return ran


def test_spinning_gears_run_in_lockstep_over_their_turns(monkeypatch):
    """A spur pair set spinning (20 rad/s asked of the pinion; the start's velocities make
    it consistent with the mesh), the wheel's inertia varied: the explicit lockstep run, each
    variant's gear row taking its angles on its own turns from its own projections, equal
    to its separate run (measured: to the last bit) over more than a turn."""
    ran = _spy_dynamics(monkeypatch)
    study = Study(spur_pair(), grid({"g2.inertia.zz": [0.06, 0.095],
                                     "g1.angular_velocity.z": [20.0]}))
    res = study.run(duration=1.0, fps=24)
    assert ran == [(2, True)] and not res.failures
    for i in range(len(study)):
        alone = study.variant(i).solve(1.0, 24)
        got = res.result(i)
        assert got.steps == alone.steps
        assert np.abs(got._r - alone._r).max() <= 1e-12
        assert np.abs(got.track - alone.track).max() <= 1e-12
        assert _rel(got._reaction, alone._reaction) <= 1e-10
        assert got.track[-1, 0] - got.track[0, 0] > 2 * np.pi          # over a turn
    # the start's least change (M-weighted) gives the stiffer-to-turn wheel less speed
    assert res.result(1).track[-1, 0] < res.result(0).track[-1, 0]


@pytest.mark.slow
def test_curve_joints_in_dynamics_run_in_lockstep(monkeypatch):
    """A bead on a circular wire (point on a closed curve) swinging under two gravities,
    and a sprung roller follower on a spinning eccentric cam (also with a stiff torsion
    spring on its bearing: Radau IIA), in forward dynamics: their variants run in the
    lockstep runs, each variant's contact parameters its own, and each
    equals its separate run to the last bit (the curves' foot-point and common-normal
    Newton stop state by state, and a lone point's polynomial is evaluated as a stack:
    before both, a stack rounded apart from one state, which the cam's contact magnified
    to 1.5e-8 relative in 0.5 s); the bead keeps its energy."""
    ran = _spy_dynamics(monkeypatch)
    study = Study(bead(0.5), grid({"gravity.y": [-9.81, -5.0]}))
    res = study.run(duration=2.0, fps=24)
    assert ran == [(2, True)]
    assert not res.failures
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(2.0, 24)
        assert np.array_equal(got._r, alone._r) and np.array_equal(got.track, alone.track)
        assert np.array_equal(got._reaction, alone._reaction)
        ke, pe, work = got.energy()
        assert np.ptp(ke + pe - work) <= 1e-6 * np.abs(pe).max()
    m = sprung_cam()
    study = Study(m, grid({"follower.mass": [0.3, 0.6, 0.45]}))
    res = study.run(duration=0.5, fps=60)
    assert ran[-1] == (3, True)
    _equal_to_separate_runs(study, res, 0.5, 60)
    # a stiff torsion spring on the cam's bearing: Radau IIA, the variants in its lockstep
    # run (each implicit stage's contact its own too)
    stiff = []
    real = engine.batch_implicit
    monkeypatch.setattr(engine, "batch_implicit", lambda models, *a: stiff.append(
        (len(models), real(models, *a))) or stiff[-1][1])
    m.add_torsion_spring("wind", "spin", stiffness=1e5, damping=50.0, free_angle=3.0)
    study = Study(m, grid({"follower.mass": [0.3, 0.6]}))
    res = study.run(duration=0.3, fps=60)
    assert len(stiff) == 1 and stiff[0][0] == 2 and all(o is not None for o in stiff[0][1])
    assert res.result(0).method.startswith("implicit")
    _equal_to_separate_runs(study, res, 0.3, 60)


@pytest.mark.slow
def test_a_bead_that_runs_off_its_wire_fails_alone_in_the_lockstep_run(monkeypatch):
    """Beads on an open arc of wire (+-57 deg) in forward dynamics, released at 29 deg with
    three speeds: the fast one swings past the wire's end, leaves the lockstep run there and
    fails with the separate run's reason (the instant it left, between two frames); the
    others finish in the same lockstep run, each its separate run to the last bit."""
    ran = _spy_dynamics(monkeypatch)
    R, th0 = 0.5, 0.5
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("bead", mass=2.0, inertia=(1e-3, 1e-3, 1e-3),
               position=(R * np.sin(th0), -R * np.cos(th0), 0.0))
    m.add_marker("pin", "bead")
    m.add_marker("track", "ground")
    arc = Curve.from_function(lambda t: np.stack([R * np.sin(t), -R * np.cos(t), 0.0 * t], -1),
                              -1.0, 1.0, False, 200, "arc")
    m.add_point_on_curve("wire", "pin", "track", arc)
    study = Study(m, grid({"bead.velocity.x": [0.0, 3.0, -0.5]}))
    res = study.run(duration=1.0, fps=24)
    assert ran == [(3, False)]
    with pytest.raises(SolverError) as alone:
        study.variant(1).solve(1.0, 24)
    assert list(res.failures) == [1] and str(alone.value) in res.failures[1]
    assert "ran off the end of the open curve 'arc'" in res.failures[1]
    for i in (0, 2):
        assert np.array_equal(res.result(i)._r, study.variant(i).solve(1.0, 24)._r)


def _equal_to_separate_runs(study, res, duration: float, fps: float) -> None:
    assert not res.failures
    for i in range(len(study)):
        got, alone = res.result(i), study.variant(i).solve(duration, fps)
        assert got.steps == alone.steps
        assert np.array_equal(got._r, alone._r) and np.array_equal(got.track, alone.track)
        assert np.array_equal(got.contact_force("contact"), alone.contact_force("contact"))


def test_stiff_geared_variants_run_in_the_radau_lockstep(monkeypatch):
    """Stiff geared variants (the pinion on a stiff, overdamped torsion spring whose free
    angle is 7 rad away: it winds the pinion over a turn; the wheel's inertia varied) run
    in the Radau IIA lockstep run, each variant's gear row on its own turns from its own
    projections; each equals its separate run to the last bit."""
    ran = []
    real = engine.batch_implicit
    monkeypatch.setattr(engine, "batch_implicit", lambda models, *a: ran.append(
        (len(models), real(models, *a))) or ran[-1][1])
    m = spur_pair()
    m.add_torsion_spring("coil", "j1", stiffness=1e4, damping=100.0, free_angle=7.0)
    study = Study(m, grid({"g2.inertia.zz": [0.06, 0.095]}))
    res = study.run(duration=0.3, fps=24)
    assert len(ran) == 1 and ran[0][0] == 2 and all(o is not None for o in ran[0][1])
    assert not res.failures and res.result(0).method.startswith("implicit")
    for i in range(len(study)):
        alone = study.variant(i).solve(0.3, 24)
        got = res.result(i)
        assert got.steps == alone.steps
        assert np.array_equal(got._r, alone._r) and np.array_equal(got.track, alone.track)
        assert np.array_equal(got._reaction, alone._reaction)
    # the spring winds the pinion to its free angle, over a turn: the wheel follows
    q1, q2 = res.result(0).track[:, 0], res.result(0).track[:, 1]
    assert q1[-1] == pytest.approx(7.0, abs=1e-3)
    np.testing.assert_allclose(q2 - q2[0], -(q1 - q1[0]) * 0.1 / 0.25, rtol=0, atol=1e-9)


def test_a_gear_ratio_and_a_screw_pitch_are_study_parameters(monkeypatch):
    """A gear's ratio (its pitch radii r_1, r_2 r_1 / r_1 with r_1 kept, as the tooth
    force needs) and a screw's pitch vary like any parameter: each variant re-added
    through add_gear / add_screw (the mesh, the hand and the joints as built), the
    variants swept as one, the wheel turning -theta_1 / ratio and the nut advancing
    +pitch per turn of the shaft (left-handed); each equal to its separate sweep; the tooth force each
    variant's own; a ratio of zero is refused naming the variant."""
    ran = _spy(monkeypatch)
    m = spur_pair()
    m.add_motion("drive", "j1", "3*t")
    assert [n for n in parameter_names(m) if n.startswith("mesh.")] == ["mesh.ratio"]
    study = Study(m, grid({"mesh.ratio": [1.5, 2.5, 4.0]}))
    res = study.run(duration=1.0, fps=24)
    assert ran == [(3, True)] and not res.failures
    for i, row in enumerate(study.variants):
        got, alone = res.result(i), study.variant(i).solve(1.0, 24)
        q1, q2 = got.track[:, 0] - got.track[0, 0], got.track[:, 1] - got.track[0, 1]
        np.testing.assert_allclose(q2, -q1 / row["mesh.ratio"], rtol=0, atol=1e-12)
        assert np.abs(got._r - alone._r).max() <= 1e-12
        np.testing.assert_allclose(got.tooth_force("mesh"), alone.tooth_force("mesh"),
                                   rtol=1e-10, atol=1e-12)
    assert study.variant(0).couplers["mesh"].radii == (0.1, 0.15000000000000002)
    ran.clear()
    study = Study(screw_nut("left"), grid({"lead.pitch": [0.002, 0.005, 0.01]}))
    res = study.run(duration=0.5, fps=50)
    assert ran == [(3, True)] and not res.failures
    for i, row in enumerate(study.variants):
        got = res.result(i)
        np.testing.assert_allclose(got.position("nut")[:, 2], row["lead.pitch"] * 10 * got.times,
                                   rtol=0, atol=1e-12)
    with pytest.raises(StudyError, match=r"variant 1: mesh.ratio = 0: gear 'mesh': ratio must "
                                         r"be positive"):
        Study(m, grid({"mesh.ratio": [1.0, 0.0]}))
    with pytest.raises(StudyError, match=r"gear 'mesh' has no parameter 'teeth'; its "
                                         r"parameters: ratio"):
        Study(m, grid({"mesh.teeth": [1.0]}))


def test_every_coupler_kind_reads_its_parameters_and_rebuilds_itself():
    """Each coupler kind's study parameters read back their design values (what the Study
    panel shows), and a variant given those values re-adds the coupler with the same rows
    (the mesh, the hand, the joints and the coordinates as built)."""
    from solver.study.params import make_variant, resolve
    from test_io_addon import io
    design_value = io("study_table").design_value
    m = screw_nut("right")
    m.add_part("pinion", mass=0.2, inertia=(1e-4, 1e-4, 2e-4), position=(0.0, 0.3, 0.0))
    m.add_marker("p_axle", "ground", position=(0.0, 0.3, 0.0))
    m.add_marker("p_hub", "pinion")
    m.add_joint("p_pin", "revolute", "p_hub", "p_axle")
    m.add_rack_pinion("teeth", "p_pin", "guide", pitch_radius=0.04)
    m.add_coupler("link", ["p_pin", "spin"], [1.0, -0.3])
    m.add_gear("inner", "spin", "p_pin", teeth=(20, 60), mesh="internal")
    want = {"lead.pitch": 0.005, "teeth.pitch_radius": 0.04, "link.scale1": 1.0,
            "link.scale2": -0.3, "inner.ratio": 3.0}
    names = [n for n in parameter_names(m) if n.split(".")[0] in ("lead", "teeth", "link", "inner")]
    assert names == ["lead.pitch", "teeth.pitch_radius", "link.scale1", "link.scale2",
                     "inner.ratio"]
    for name, value in want.items():
        p = resolve(m, name)
        assert design_value(m, p) == pytest.approx(value, rel=1e-15)
        again = make_variant(m, [p], [value], 0)
        for k in ("lead", "teeth", "link", "inner"):
            a, b = again.couplers[k], m.couplers[k]
            assert a.kind == b.kind and [t[:2] for t in a.terms] == [t[:2] for t in b.terms]
            sa = np.array([t[2] for t in a.terms])
            sb = np.array([t[2] for t in b.terms])
            np.testing.assert_allclose(sa / sa[0], sb / sb[0], rtol=1e-15)
