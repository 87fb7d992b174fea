"""The compiled model is made once and read-only afterwards; run state lives apart.

A model is compiled, every analysis runs on it, and afterwards every array of it (bodies,
rows, the row plan, force elements) is bit for bit what it was: nothing is cached into the
model or changed in place (style.md: "the model is apart from the state")."""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from mechanisms import slider_crank
from solver import Mechanism
from solver.analyses.run import Settings, run
from solver.analyses.equilibrium.statics import statics
from solver.model.compile import compile_model
from solver.model.state import read_state
from solver.vocabulary.joints import AT


def spring_pendulum() -> Mechanism:
    """A pendulum on a revolute joint with a torsion spring, a spring-damper and a load: a
    model with every kind of force element."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("arm", mass=2.0, inertia=(0.01, 0.05, 0.05), position=(0.3, 0, 0))
    m.add_marker("O", "ground")
    m.add_marker("A", "arm", position=(-0.3, 0, 0))
    m.add_marker("tip", "arm", position=(0.3, 0, 0))
    m.add_marker("anchor", "ground", position=(0.6, 0, 0.4))
    m.add_joint("pin", "revolute", "A", "O")
    m.add_torsion_spring("hinge", "pin", stiffness=3.0, damping=0.05)
    m.add_spring_damper("shock", "tip", "anchor", stiffness=200.0, damping=2.0)
    m.add_force("push", "tip", force=(0, 0, "sin(t)"))
    return m


def arrays(obj, seen=None) -> dict[str, np.ndarray]:
    """Every ndarray reachable from the model through dataclass fields, mappings, tuples."""
    out: dict[str, np.ndarray] = {}

    def walk(x, path):
        if isinstance(x, np.ndarray):
            out[path] = x
        elif dataclasses.is_dataclass(x):
            for f in dataclasses.fields(x):
                walk(getattr(x, f.name), f"{path}.{f.name}")
        elif isinstance(x, (tuple, list)):
            for i, y in enumerate(x):
                walk(y, f"{path}[{i}]")
        elif hasattr(x, "items"):
            for k, y in x.items():
                walk(y, f"{path}[{k!r}]")
    walk(obj, "model")
    return out


@pytest.mark.parametrize("build", [slider_crank, spring_pendulum])
def test_model_is_frozen(build) -> None:
    model = compile_model(build())
    with pytest.raises(dataclasses.FrozenInstanceError):
        model.length_scale = 2.0
    found = arrays(model)
    assert len(found) > 20                      # the walk sees the model's arrays
    writable = [k for k, a in found.items() if a.flags.writeable]
    assert writable == []
    with pytest.raises(TypeError):
        model.marker_point["new"] = np.zeros(3)
    with pytest.raises(ValueError):
        model.body_mass[0] = 1.0


@pytest.mark.parametrize("build, how", [(slider_crank, Settings("kinematic")),
                                        (spring_pendulum, Settings("dynamic", 1e-6, "explicit")),
                                        (spring_pendulum, Settings("dynamic", 1e-6, "implicit"))])
def test_analyses_leave_the_model_as_it_was(build, how) -> None:
    mech = build()
    model = compile_model(mech)
    before = {k: a.copy() for k, a in arrays(model).items()}
    result = run(model, read_state(model, mech), np.arange(6) / 24.0, how)
    assert len(result.times) == 6
    statics(model, read_state(model, mech))
    after = arrays(model)
    assert before.keys() == after.keys()
    for k in before:
        np.testing.assert_array_equal(before[k], after[k], err_msg=k)


def test_at_point_rows_are_their_own_kind() -> None:
    """A spherical joint compiles to three at-point rows and one at-point group entry."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=1.0)
    m.add_marker("I", "ball", position=(0.1, 0.2, 0.3))
    m.add_marker("J", "ground")
    m.add_joint("s", "spherical", "I", "J")
    model = compile_model(m)
    assert model.row_kind.tolist() == [AT, AT, AT]
    (group,) = model.plan.groups
    assert group.kind == AT and len(group.bi) == 1 and group.rows == slice(0, 3)
    np.testing.assert_array_equal(group.ui[0], [0.1, 0.2, 0.3])


def _wound_wheel():
    """A wheel (I_z = 0.02 kg m^2) on a revolute axle with a torsion spring (0.05 N m/rad,
    free angle 0) and a spur pair's coupler: a model with torsion-spring turns and tracked
    values, its Equations at the start state."""
    from test_couplers import spur_pair
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.structure import structure
    from solver.kernels.constraints import body_arrays, evaluate
    m = spur_pair(inertia=((0.01, 0.01, 0.02), (0.05, 0.05, 0.08)))
    m.add_torsion_spring("coil", "j1", stiffness=0.05)
    model = compile_model(m)
    st = read_state(model, m)
    eq = Equations(model, structure(model, st.r, st.p))
    eq.tell(eq.run.tracked(evaluate(model, *body_arrays(model, st.r, st.p)[:2]).track))
    return model, st, eq


def test_the_equations_read_the_run_state_they_are_told() -> None:
    """The right-hand side takes each torsion spring's angle on the turn of the run state it
    is told: told a reference one turn on, the spring's angle is 2 pi more and its torque
    0.05 x 2 pi N m more, so gear 1's angular acceleration differs by that torque over the
    pair's inertia about gear 1's axle, I1 + I2 (r1/r2)^2 = 0.02 + 0.08 x 0.16 (one
    coordinate through the mesh), to rounding (1e-12 of it).  The record told first is
    left as it was (frozen: a new record replaces it)."""
    model, st, eq = _wound_wheel()
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    first = eq.run
    a0 = eq.accelerations(0.0, st.r, st.p, st.v, st.w)[0]
    eq.tell(first.turned(first.ts_ref + 2 * np.pi))
    a1 = eq.accelerations(0.0, st.r, st.p, st.v, st.w)[0]
    g1 = list(model.body_part).index("g1")
    dalpha = 0.05 * 2 * np.pi / (0.02 + 0.08 * 0.4 ** 2)
    assert abs(abs(a1[g1, 5] - a0[g1, 5]) - dalpha) <= 1e-12 * dalpha
    assert np.array_equal(first.ts_ref, np.zeros(1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.ts_ref = np.ones(1)
    assert np.all(np.isfinite(eq.rhs(0.0, y)))


def test_a_projection_returns_its_tracked_values_and_leaves_the_run_state() -> None:
    """Equations.project returns the tracked values (the couplers' angles) at the pose it
    projects onto, and the run state the equations were told is the same record after it:
    only the run that carries it tells a new one."""
    model, st, eq = _wound_wheel()
    told = eq.run
    r, p, v, w, track = eq.project(0.0, st.r + 1e-6, st.p, st.v, st.w)
    assert eq.run is told and track is not None and track.shape == (model.ntrack,)
    assert np.abs(track - told.track).max() < 1e-3      # the same turn, moved by ~1e-6


def _block_at_rest(alpha_deg: float):
    """The incline's 2 kg block (tests/mechanisms.py, mu_s 0.6, mu_d 0.5) at rest on
    ``alpha_deg``: its model, start state and Equations."""
    from mechanisms import incline
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.structure import structure
    m = incline(alpha_deg, 0.6, 0.5)
    model = compile_model(m)
    st = read_state(model, m)
    return model, st, Equations(model, structure(model, st.r, st.p))


def test_the_equations_take_friction_from_the_slip_state_they_are_told() -> None:
    """At rest on 35 deg the block's friction acts along its held slip direction with the
    static coefficient (the speed is zero): told a record whose direction is reversed, the
    friction -mu_s m g cos a u turns over, and the block's acceleration along the slope
    changes by 2 mu_s g cos a = 9.64 m/s^2, to rounding (1e-12 of it).  The first record
    stays as it was."""
    model, st, eq = _block_at_rest(35.0)
    first = eq.run
    assert first.slip is not None and np.array_equal(first.slip.direction, [1.0])
    a0 = eq.accelerations(0.0, st.r, st.p, st.v, st.w)[0]
    eq.tell(first.slipping(first.slip.aimed(-first.slip.direction)))
    a1 = eq.accelerations(0.0, st.r, st.p, st.v, st.w)[0]
    expected = 2 * 0.6 * 9.81 * np.cos(np.radians(35.0))
    assert abs(np.linalg.norm(a1[0, :3] - a0[0, :3]) - expected) <= 1e-12 * expected
    assert np.array_equal(first.slip.direction, [1.0])
    with pytest.raises(dataclasses.FrozenInstanceError):
        first.slip.stuck = np.ones(1, dtype=bool)


def test_sticking_and_slipping_leave_every_told_run_state_as_it_was(monkeypatch) -> None:
    """A run's friction state is carried in the records it tells its equations: the block
    on 20 deg sticks from the start and, pushed down the slope by 10 t N, breaks loose at
    0.435 s; every record told along the way still holds, at the end of the run, the
    friction arrays it was told with (a new record replaces it, none is changed), and the
    records told show the joint stuck and then slipping."""
    from mechanisms import incline
    from solver.analyses.dynamics.equations import Equations
    told = []
    real_tell = Equations.tell

    def tell(self, run):
        told.append((run, [a.copy() for a in dataclasses.astuple(run.slip)]))
        real_tell(self, run)
    monkeypatch.setattr(Equations, "tell", tell)
    a = np.radians(20.0)
    m = incline(20.0, 0.6, 0.5)
    m.add_force("push", "shoe", force=(f"10*t*{np.cos(a)}", 0.0, f"-10*t*{np.sin(a)}"))
    r = m.solve(duration=1.0, fps=20, analysis="dynamic")
    assert [kind for _, _, kind in r.friction_events] == ["stick", "slip"]
    for run, arrays in told:
        for now, then in zip(dataclasses.astuple(run.slip), arrays):
            assert np.array_equal(now, then)
    stuck = [bool(run.slip.stuck[0]) for run, _ in told]
    assert True in stuck and stuck[-1] is False


def test_a_resting_stop_holds_its_joint_without_friction_from_the_told_record() -> None:
    """The block at rest on 35 deg against a rigid stop at its start (the slide's upper
    bound 0): told a record with the bound resting (and its row kept), the equations take
    no friction on the slide at once (the stop's row holds the coordinate), so the stop
    carries the whole m g sin a = 11.25 N (to 1e-12 of it; with the static friction as
    well it would carry m g (sin a - mu_s cos a) = 1.61 N) and the block stays put."""
    from mechanisms import incline
    from solver.analyses.dynamics.equations import Equations
    from solver.analyses.dynamics.stops import Stops
    from solver.analyses.dynamics.switching import switched
    from solver.analyses.structure import structure
    m = incline(35.0, 0.6, 0.5)
    m.add_limit("stop", "slide", upper=0.0)
    model = compile_model(m)
    st = read_state(model, m)
    base = structure(model, st.r, st.p)
    eq = Equations(model, base)
    run = eq.run.rests(np.ones(1, dtype=bool))
    eq.tell(run)
    eq.use(switched(base, Stops(model), model, run))
    a, lam = eq.accelerations(0.0, st.r, st.p, st.v, st.w)[:2]
    weight = 2.0 * 9.81 * np.sin(np.radians(35.0))
    assert abs(abs(lam[model.limits.rows[0]]) - weight) <= 1e-12 * weight
    assert np.array_equal(eq.friction, [0.0])
    assert np.abs(a).max() <= 1e-12 * 9.81
