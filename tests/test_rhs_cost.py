"""What one right-hand side of forward dynamics costs in Python-level numpy calls.

A right-hand side works on arrays of a few elements, where numpy's Python-level functions
cost more than the arithmetic: np.einsum's array-function dispatch walks every operand
through a generator, np.stack, np.clip, np.full and np.round are Python around one C call,
and ndarray.max or .any go through Python wrappers of their reductions (each about 1 us,
against 0.3 us for a product of two small arrays).  The right-hand side calls the C
functions underneath (``base/einsum.py``, ufunc reductions) and reads what the model fixes
(the friction elements' kinds and weights: ``FrictionPlan``; whether stops are compliant)
once.  Counted here by sys.setprofile: the Python functions of numpy's own files that one
right-hand side enters, for a door on a slipping dry hinge with a closer and a rigid stop
(tests/test_friction_load.py), for a chain of 10 spherical joints
(tests/mechanisms.py ``benchmark_chain``), for contacts of every kind of distance and for
a gear mesh acting at its pitch point (the contact samples' right-hand sides); and, for
the ratchet's joints and spring, how many times one right-hand side makes the rows' rates
and whether rows on the ground leave out its zero terms with the same bits.
"""
from __future__ import annotations

import collections
import os
import sys

import numpy as np

import solver
from solver import Mechanism
from solver.analyses.dynamics.equations import Equations
from solver.analyses.structure import structure
from solver.model.compile import compile_model
from solver.model.state import read_state

from mechanisms import benchmark_chain
from test_friction_load import _door_with_a_dry_hinge

NUMPY = os.path.dirname(np.__file__)
# np.linalg.solve's own checks and error state (the dense solve of J M^-1 J^T below
# banded.MIN_BANDED rows: a fixed dozen calls, more on numpy 2) are not counted
LINALG = (os.path.join(NUMPY, "linalg"), os.path.join(NUMPY, "core", "_ufunc_config.py"),
          os.path.join(NUMPY, "_core", "_ufunc_config.py"))
G = 9.81
SOLVER = os.path.dirname(solver.__file__)


def python_calls(fn, counted) -> collections.Counter:
    """The Python functions entered during fn() that ``counted(path, name)`` picks (their
    file's path, their name), by name: sys.setprofile sees every call, C functions apart."""
    count: collections.Counter = collections.Counter()

    def profile(frame, event, arg):
        code = frame.f_code
        if event == "call" and counted(code.co_filename, code.co_name):
            count[code.co_name] += 1

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(old)
    return count


def numpy_python_calls(fn) -> collections.Counter:
    """The Python functions of numpy's own files (but LINALG) entered during fn(), by name."""
    return python_calls(fn, lambda path, name: path.startswith(NUMPY)
                        and not path.startswith(LINALG))


def rhs_calls(mech: Mechanism) -> collections.Counter:
    """numpy_python_calls of one right-hand side at the mechanism's state (every friction
    element slipping: RunState.start), after one call that made the buffers."""
    model = compile_model(mech)
    st = read_state(model, mech)
    eq = Equations(model, structure(model, st.r, st.p))
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    assert np.all(np.isfinite(eq.rhs(0.1, y)))
    return numpy_python_calls(lambda: eq.rhs(0.1, y))


WRAPPERS = ("einsum", "stack", "clip", "full", "ones", "round", "flatnonzero", "ndim",
            "_amax", "_any", "_all", "_sum")


def test_a_slipping_dry_hinge_goes_around_numpys_python_wrappers() -> None:
    """The door's right-hand side (friction slipping, with its load's fixed point) enters
    none of WRAPPERS and at most 8 numpy Python functions in all (154 before, 98 of them
    np.einsum's; what is left: np.where's and np.bincount's dispatchers)."""
    calls = rhs_calls(_door_with_a_dry_hinge(spin=-0.5))
    assert not set(calls) & set(WRAPPERS), calls
    assert sum(calls.values()) <= 8, calls


def test_a_chain_goes_around_numpys_python_wrappers() -> None:
    """A chain of 10's right-hand side enters no numpy Python function at all (8 before,
    then np.bincount's dispatcher in the banded solve alone)."""
    calls = rhs_calls(benchmark_chain(10))
    assert not set(calls) & set(WRAPPERS), calls
    assert sum(calls.values()) == 0, calls


def test_a_closer_on_a_hinge_with_an_angle_row_takes_its_angle_from_the_row(monkeypatch) -> None:
    """The door's closer (a torsion spring on the hinge) reads the hinge's angle and its
    gradient from the hinge's angle rows (the stop's and the friction's, evaluated for the
    constraints anyway): one joint angle a right-hand side (two when the spring computed
    its own), and the same right-hand side to the last bit as with the spring's own."""
    import solver.kernels.constraints as kc
    import solver.kernels.forces as kf
    import solver.model.springs as ks
    model = compile_model(_door_with_a_dry_hinge(spin=-0.5))
    st = read_state(model, _door_with_a_dry_hinge(spin=-0.5))
    eq = Equations(model, structure(model, st.r, st.p))
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    dy = eq.rhs(0.1, y)
    angles, real = [0], kc.joint_angle

    def counted(*a):
        angles[0] += 1
        return real(*a)
    monkeypatch.setattr(kc, "joint_angle", counted)
    monkeypatch.setattr(ks, "joint_angle", counted)
    assert np.array_equal(eq.rhs(0.1, y), dy)
    assert angles[0] == 1
    monkeypatch.setattr(kf, "_angles_in_rows", lambda fm: False)     # the spring's own
    assert np.array_equal(eq.rhs(0.1, y), dy)


def test_contacts_of_every_kind_go_around_numpys_python_wrappers() -> None:
    """A right-hand side with a contact of every kind of distance, each touching
    (test_contact.contact_copies: a ball on a floor and in a cup, a box on a cylinder, a
    capsule's axis searched along a box, mesh grids, a profile), and a capsule pin
    standing against a profile's face (its nearest point along the profile's z): the
    right-hand side enters none of WRAPPERS, and no numpy Python function but the dispatchers of
    np.where and np.concatenate (1,327 in all before, 546 of them np.einsum's)."""
    from solver import Shape
    from test_contact import contact_copies
    m = contact_copies(1)
    m.add_part("pin", mass=0.1, inertia=(1e-5,) * 3, position=(0.0, 0.0221, 0.539),
               velocity=(0.0, 0.1, 0.0))          # 0.1 mm into the face y = 0.03 m
    face = Shape.profile([[-0.01, 0.03], [0.01, 0.03], [0.01, 0.06], [-0.01, 0.06]], 0.1)
    m.add_contact("pin on face", "pin", "plate0", Shape.capsule(0.008, 0.02), face)
    calls = rhs_calls(m)
    assert not set(calls) & set(WRAPPERS), calls
    assert set(calls) <= {"where", "concatenate"}, calls


def test_meshing_gears_go_around_numpys_python_wrappers() -> None:
    """A planet turning in an internal helical gear whose teeth act at their pitch point
    (model/gear_mesh.py, as the gear_teeth sample's planet and ring): the right-hand side
    enters none of WRAPPERS, and no numpy Python function but the dispatchers of np.where,
    np.concatenate and np.bincount (64 in all before, 30 of them np.einsum's)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    for k, (x, I) in enumerate(((0.0, 2e-4), (0.09, 6e-3)), start=1):
        m.add_part(f"g{k}", mass=0.5 * k, inertia=(I, I, 2 * I), position=(x, 0.0, 0.0),
                   angular_velocity=(0.0, 0.0, 3.0 if k == 1 else 1.2))
        m.add_marker(f"axle{k}", "ground", position=(x, 0.0, 0.0))
        m.add_marker(f"hub{k}", f"g{k}")
        m.add_joint(f"j{k}", "revolute", f"hub{k}", f"axle{k}")
    m.add_gear("mesh", "j1", "j2", radii=(0.06, 0.15), mesh="internal", helix_angle=10.0)
    calls = rhs_calls(m)
    assert not set(calls) & set(WRAPPERS), calls
    assert set(calls) <= {"where", "concatenate", "bincount"}, calls


def _driven_wheel_and_sprung_pawl() -> Mechanism:
    """The ratchet sample without its contact (sample_scenes/ratchet.py): a wheel on a
    revolute joint turned by a motion (at-point, dot-1 and angle rows), a pawl on a revolute
    pin with a torsion spring (its own joint angle: the pin has no angle row)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("frame", fixed=True)
    m.add_part("wheel", mass=0.5, inertia=(1e-3, 2e-3, 1e-3), angular_velocity=(0, 2.1, 0))
    m.add_part("pawl", mass=0.05, inertia=(1e-6, 5e-5, 5e-5), center_of_mass=(0.05, 0, 0),
               position=(-0.075, 0, 0.112), orientation=(0.995, 0, -0.0998, 0),
               angular_velocity=(0, -1.3, 0))
    qy = (0.5 ** 0.5, -(0.5 ** 0.5), 0.0, 0.0)          # marker z along part y
    m.add_marker("wheel axle", "wheel", orientation=qy)
    m.add_marker("frame axle", "frame", orientation=qy)
    m.add_marker("pawl pin", "pawl", orientation=qy)
    m.add_marker("frame pin", "frame", position=(-0.075, 0, 0.112), orientation=qy)
    m.add_joint("axle", "revolute", "wheel axle", "frame axle")
    m.add_motion("drive", "axle", "2*pi/3*t")
    m.add_joint("pin", "revolute", "pawl pin", "frame pin")
    m.add_torsion_spring("spring", "pin", stiffness=0.4, damping=0.002, free_angle=0.4)
    return m


def test_row_kinds_share_one_evaluation_of_their_vectors_rates() -> None:
    """w x (w x u) of every row kind's body-fixed vectors (at-point, dot-1, angle) is made
    once a right-hand side for all of them (kernels/constraints.py ``evaluate``; three times
    before, once a kind), and w x u once for the dot-1 and angle rows (twice before):
    counted by sys.setprofile on the driven wheel and sprung pawl; cross's other calls
    are the dot-1 rows' Jacobian, the two joint angles' gradients and the gyroscopic
    moment."""
    model = compile_model(_driven_wheel_and_sprung_pawl())
    st = read_state(model, _driven_wheel_and_sprung_pawl())
    eq = Equations(model, structure(model, st.r, st.p))
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    eq.rhs(0.1, y)
    calls = python_calls(lambda: eq.rhs(0.1, y),
                         lambda path, name: name in ("_centripetal", "cross")
                         and path.startswith(SOLVER))
    assert calls["_centripetal"] == 1, calls
    assert calls["cross"] == 5, calls


def test_rows_on_the_ground_leave_out_its_rates_with_the_same_bits() -> None:
    """A group whose every marker J is on the ground (RowGroup.grounded: the ratchet's
    dot-1 and angle rows, the slider-crank's slider) leaves out the terms of J's rates,
    which are zero (w_J = v_J = 0): quad, phi and the Jacobian are the same to the bit as
    the whole formula's, at a state with every part moving."""
    import dataclasses
    from mechanisms import slider_crank
    from solver.kernels.constraints import evaluate
    from solver.vocabulary.joints import ANGLE, DOT1, DOT2
    for mech in (_driven_wheel_and_sprung_pawl(), slider_crank()):
        model = compile_model(mech)
        st = read_state(model, mech)
        eq = Equations(model, structure(model, st.r, st.p))
        y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
        y[7 * model.nb: 13 * model.nb] += 0.3 * np.sin(np.arange(6 * model.nb) + 1.0)
        r, p, vel, _ = eq.split(y)
        rg, A, vg, wg, _ = eq.pose_bodies(r, p / np.linalg.norm(p, axis=-1)[:, None], vel)
        kinds = {g.kind for g in model.plan.groups if g.grounded}
        assert kinds & {DOT1, DOT2, ANGLE}, kinds
        whole = dataclasses.replace(model, plan=dataclasses.replace(model.plan, groups=tuple(
            dataclasses.replace(g, grounded=False) for g in model.plan.groups)))
        left_out, every = evaluate(model, rg, A, vg, wg), evaluate(whole, rg, A, vg, wg)
        for a, b in zip((left_out.phi, left_out.jac, left_out.quad),
                        (every.phi, every.jac, every.quad)):
            assert np.array_equal(a, b)
