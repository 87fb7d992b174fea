"""Forward-dynamics timings on the benchmark chain of docs/benchmarks.md (N uniform
rods joined by spherical joints, released horizontal on a quarter arc), a stiff case and
the door_stop sample's door on a dry hinge.

Prints wall seconds per simulated second, the largest total-energy error divided by
m g L N^2 / 2, the largest joint gap (m), integrator steps, and the cost per link relative
to the smallest N measured in the same run (1.0 = linear scaling).  The door (3 s at 24
fps, a closer, a stop and dry friction): its energy balance's largest error over the
largest kinetic energy, its right-hand sides, and its time over the same door's with a
frictionless hinge, measured in the same run.

Run:  .venv/bin/python bench/bench_dynamics.py [N ...]   (default N = 2 10 50 200)
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from solver import Mechanism  # noqa: E402

G = 9.81


def chain(n: int) -> Mechanism:
    """benchmarks.md "chain": link k yawed k (pi/2)/N about world z, end to end, at rest."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_marker("origin", "ground")
    tip = np.zeros(3)
    for k in range(n):
        psi = k * (math.pi / 2) / n
        q = (math.cos(psi / 2), 0.0, 0.0, math.sin(psi / 2))
        m.add_part(f"link{k}", mass=1.0, inertia=(5e-5, 0.0833583, 0.0833583),
                   center_of_mass=(0.5, 0, 0), position=tip, orientation=q)
        m.add_marker(f"near{k}", f"link{k}")
        m.add_marker(f"far{k}", f"link{k}", position=(1, 0, 0))
        m.add_joint(f"ball{k}", "spherical", f"near{k}", "origin" if k == 0 else f"far{k - 1}")
        tip = tip + np.array([math.cos(psi), math.sin(psi), 0.0])
    return m


def door(dry: bool = True) -> Mechanism:
    """The door_stop sample as the add-on reads it (tests/test_friction_load.py), with or
    without its dry hinge."""
    from test_friction_load import _door_with_a_dry_hinge
    return _door_with_a_dry_hinge(dry)


def door_rows() -> None:
    """The door with and without its dry hinge: time, energy balance, steps and right-hand
    sides, and the dry door's time over the frictionless one's."""
    from solver.analyses.dynamics.equations import Equations
    dur, base = 3.0, None
    for dry in (False, True):
        m = door(dry)
        calls = [0]
        real = Equations.rhs_parts

        def counted(self, t, y, report=True):
            calls[0] += 1
            return real(self, t, y, report)
        Equations.rhs_parts = counted
        try:
            t0 = time.perf_counter()
            r = m.solve(dur, 24, analysis="dynamic")
            wall = time.perf_counter() - t0
        finally:
            Equations.rhs_parts = real
        ke, pe, wk = r.energy()
        e = ke + pe - wk
        err = float(np.abs(e - e[0]).max()) / float(ke.max())
        base = base or wall
        name = "door, dry hinge" if dry else "door, no friction"
        print(f"{name:22s} {1:4d} {wall / dur:13.3f} {err:11.2e} {'':>12s} {r.steps:6d} "
              f"{wall / base:14.2f}  ({calls[0]} right-hand sides)")


def joint_gap(m: Mechanism, r) -> float:
    gap = 0.0
    for j in m.joints.values():
        pi, _ = r.marker_frame(j.marker_i)
        pj, _ = r.marker_frame(j.marker_j)
        gap = max(gap, float(np.abs(pi - pj).max()))
    return gap


def stiff_case() -> Mechanism:
    """1 kg on a prismatic joint, k = 1e6 N/m, c = 1e3 N s/m, released at the free length."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("mass", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0, 0, -1))
    m.add_marker("G", "ground")
    m.add_marker("M", "mass")
    m.add_joint("slide", "prismatic", "M", "G")
    m.add_spring_damper("spring", "M", "G", stiffness=1e6, damping=1e3, free_length=1.0)
    return m


def main() -> None:
    ns = [int(a) for a in sys.argv[1:]] or [2, 10, 50, 200]
    dur, fps = 2.0, 24
    print(f"{'case':22s} {'N':>4s} {'wall s/sim s':>13s} {'energy err':>11s} {'joint gap m':>12s} "
          f"{'steps':>6s} {'per-link cost':>14s}")
    base = None
    for n in ns:
        m = chain(n)
        t0 = time.perf_counter()
        r = m.solve(dur, fps)
        wall = time.perf_counter() - t0
        ke, pe, wk = r.energy()
        e = ke + pe - wk
        err = float(np.abs(e - e[0]).max()) / (1.0 * G * 1.0 * n * n / 2)
        per = wall / dur
        base = base or per / n
        print(f"{'chain (' + r.method.split()[0] + ')':22s} {n:4d} {per:13.3f} {err:11.2e} "
              f"{joint_gap(m, r):12.1e} {r.steps:6d} {per / n / base:14.2f}")
    for method in ("implicit", "explicit"):
        m = stiff_case()
        t0 = time.perf_counter()
        r = m.solve(dur, fps, method=method)
        wall = time.perf_counter() - t0
        ke, pe, wk = r.energy()
        e = ke + pe - wk
        print(f"{'stiff spring ' + method:22s} {1:4d} {wall / dur:13.3f} "
              f"{float(np.abs(e - e[0]).max()) / max(abs(e[0]), 1e-12):11.2e} {'':>12s} {r.steps:6d}")
    door_rows()


if __name__ == "__main__":
    main()
