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
(tests/test_friction_load.py) and for a chain of 10 spherical joints
(bench/bench_dynamics.py).
"""
from __future__ import annotations

import collections
import math
import os
import sys

import numpy as np

from solver import Mechanism
from solver.analyses.dynamics.equations import Equations
from solver.analyses.structure import structure
from solver.model.compile import compile_model
from solver.model.state import read_state

NUMPY = os.path.dirname(np.__file__)
# np.linalg.solve's own checks and error state (the dense solve of J M^-1 J^T below
# banded.MIN_BANDED rows: a fixed dozen calls, more on numpy 2) are not counted
LINALG = (os.path.join(NUMPY, "linalg"), os.path.join(NUMPY, "core", "_ufunc_config.py"),
          os.path.join(NUMPY, "_core", "_ufunc_config.py"))
G = 9.81


def numpy_python_calls(fn) -> collections.Counter:
    """The Python functions of numpy's own files (but LINALG) entered during fn(), by name."""
    count: collections.Counter = collections.Counter()

    def profile(frame, event, arg):
        path = frame.f_code.co_filename
        if event == "call" and path.startswith(NUMPY) and not path.startswith(LINALG):
            count[frame.f_code.co_name] += 1

    old = sys.getprofile()
    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(old)
    return count


def door() -> Mechanism:
    """tests/test_friction_load.py's door on a dry hinge (closer, stop, friction), swinging."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("jamb", fixed=True)
    a0 = math.radians(80.0)
    m.add_part("door", mass=38.4, inertia=(12.805, 14.848, 2.0531),
               position=(0.4 * math.cos(a0), 0.4 * math.sin(a0), 1.02),
               orientation=(math.cos(a0 / 2), 0.0, 0.0, math.sin(a0 / 2)),
               angular_velocity=(0.0, 0.0, -0.5))
    m.add_marker("leaf", "door", position=(-0.4, 0.0, -0.02))
    m.add_marker("post", "jamb", position=(0.0, 0.0, 1.0))
    m.add_joint("hinge", "revolute", "leaf", "post")
    m.add_limit("stop", "hinge", lower=0.0, restitution=0.2)
    m.add_friction("dry", "hinge", static=0.2, dynamic=0.15, radius=0.01, arm=0.01,
                   bearing_length=1.6)
    m.add_torsion_spring("closer", "hinge", stiffness=20.0, damping=2.0,
                         free_angle=math.radians(-20.0))
    return m


def chain(n: int) -> Mechanism:
    """bench/bench_dynamics.py's chain of n rods on spherical joints, at rest."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_marker("origin", "ground")
    tip = np.zeros(3)
    for k in range(n):
        psi = k * (math.pi / 2) / n
        m.add_part(f"link{k}", mass=1.0, inertia=(5e-5, 0.0833583, 0.0833583),
                   center_of_mass=(0.5, 0, 0), position=tip,
                   orientation=(math.cos(psi / 2), 0.0, 0.0, math.sin(psi / 2)))
        m.add_marker(f"near{k}", f"link{k}")
        m.add_marker(f"far{k}", f"link{k}", position=(1, 0, 0))
        m.add_joint(f"ball{k}", "spherical", f"near{k}", "origin" if k == 0 else f"far{k - 1}")
        tip = tip + np.array([math.cos(psi), math.sin(psi), 0.0])
    return m


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
    calls = rhs_calls(door())
    assert not set(calls) & set(WRAPPERS), calls
    assert sum(calls.values()) <= 8, calls


def test_a_chain_goes_around_numpys_python_wrappers() -> None:
    """A chain of 10's right-hand side enters none of WRAPPERS, and at most one numpy
    Python function (np.bincount's dispatcher; 8 before)."""
    calls = rhs_calls(chain(10))
    assert not set(calls) & set(WRAPPERS), calls
    assert sum(calls.values()) <= 1, calls
