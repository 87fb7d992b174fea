"""Long runs and dense frames: dynamic runs whose steps outgrow their frames (mechanisms that
come to rest over thousands of frames, frames far denser than the motion), each solved twice
in the same run: as by default (steps past the frames, analyses/dynamics/driver.py LONG_STEP, and a
mechanism at rest holding its pose, ``at_rest``) and as before both (LONG_STEP = inf and
REST_SPEED < 0: every frame a step's end, integrated to the last: the baseline).  The dense
chain runs at the default tolerance (DOP853) and at 1e-3 (Dormand-Prince 5(4)).

Prints both wall times, their ratio, both step counts, the largest difference between the
two runs' positions (m), and the largest change of KE + PE - work over the energy released
(the baseline's beside it).

Run:  .venv/bin/python bench/bench_long.py [--frames N]   (default 2,000 frames at 24 fps)
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
from bench_dynamics import chain  # noqa: E402
from solver import Mechanism  # noqa: E402
import solver.analyses.dynamics.driver as dynamics  # noqa: E402

G = 9.81


def arm(mass: float = 1.0, angle: float = 1.0) -> Mechanism:
    """A rod-like bob, centre of mass 1 m from a pin about world y, turned ``angle`` down."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    q = (math.cos(angle / 2), 0.0, math.sin(angle / 2), 0.0)
    m.add_part("bob", mass=mass, inertia=(4e-5, 4e-5, 4e-5), center_of_mass=(1.0, 0, 0),
               orientation=q)
    m.add_marker("O", "ground", orientation=(math.cos(math.pi / 4), -math.sin(math.pi / 4), 0, 0))
    m.add_marker("P", "bob", orientation=(math.cos(math.pi / 4), -math.sin(math.pi / 4), 0, 0))
    m.add_joint("pin", "revolute", "P", "O")
    return m


def settling_pendulum() -> Mechanism:
    m = arm(angle=1.0)
    m.add_torsion_spring("coil", "pin", stiffness=20.0, damping=4.0)
    return m


def hanging_at_rest() -> Mechanism:
    return arm(angle=math.pi / 2)


def stiff_arm() -> Mechanism:
    """50 g on a 20 N m/rad spring: the implicit method (Radau IIA)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    q = (math.cos(0.25), 0.0, math.sin(0.25), 0.0)
    m.add_part("bob", mass=0.05, inertia=(1e-6, 1e-6, 1e-6), center_of_mass=(0.05, 0, 0),
               orientation=q)
    ax = (math.cos(math.pi / 4), -math.sin(math.pi / 4), 0, 0)
    m.add_marker("O", "ground", orientation=ax)
    m.add_marker("P", "bob", orientation=ax)
    m.add_joint("pin", "revolute", "P", "O")
    m.add_torsion_spring("coil", "pin", stiffness=20.0, damping=0.5)
    return m


def resting_four_bar() -> Mechanism:
    """A free four-bar (0.4, 1, 0.8 on 1 m) in a vertical plane, its crank damped: it swings
    down and rests (a closed loop)."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    a, b, c, d = 0.4, 1.0, 0.8, 1.0
    bx, by = a, 0.0                                  # the crank along +x
    t4 = math.acos((b * b - (d - a) ** 2 - c * c) / (2 * (d - a) * c))   # |C - B| = b
    ex, ey = d + c * math.cos(t4), c * math.sin(t4)
    t3 = math.atan2(ey - by, ex - bx)
    rod = (1e-5, 1e-2, 1e-2)
    m.add_part("crank", mass=1.0, inertia=rod, center_of_mass=(a / 2, 0, 0))
    m.add_part("coupler", mass=1.0, inertia=rod, center_of_mass=(b / 2, 0, 0), position=(bx, by, 0),
               orientation=(math.cos(t3 / 2), 0, 0, math.sin(t3 / 2)))
    m.add_part("rocker", mass=1.0, inertia=rod, center_of_mass=(c / 2, 0, 0), position=(d, 0, 0),
               orientation=(math.cos(t4 / 2), 0, 0, math.sin(t4 / 2)))
    m.add_marker("O2", "ground"); m.add_marker("O4", "ground", position=(d, 0, 0))
    m.add_marker("c0", "crank"); m.add_marker("c1", "crank", position=(a, 0, 0))
    m.add_marker("k0", "coupler"); m.add_marker("k1", "coupler", position=(b, 0, 0))
    m.add_marker("r0", "rocker"); m.add_marker("r1", "rocker", position=(c, 0, 0))
    m.add_joint("pivot2", "revolute", "c0", "O2")
    m.add_joint("pinA", "revolute", "k0", "c1")
    m.add_joint("pinB", "revolute", "k1", "r1")
    m.add_joint("pivot4", "revolute", "r0", "O4")
    m.add_torsion_spring("damper", "pivot2", damping=2.0)
    return m


def balance(r) -> float:
    ke, pe, work = r.energy()
    total = ke + pe - work
    return float(np.abs(total - total[0]).max() / max(np.ptp(pe), 1e-300))


def solve(m: Mechanism, times: np.ndarray, cut: bool, tolerance: float = 1e-6):
    defaults = dynamics.LONG_STEP, dynamics.REST_SPEED
    if cut:
        dynamics.LONG_STEP, dynamics.REST_SPEED = math.inf, -1.0
    try:
        t0 = time.perf_counter()
        r = m.solve(times=times, tolerance=tolerance)
        return time.perf_counter() - t0, r
    finally:
        dynamics.LONG_STEP, dynamics.REST_SPEED = defaults


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--frames", type=int, default=2000)
    n = ap.parse_args().frames
    cases = [("settling pendulum, 24 fps", settling_pendulum, np.arange(n) / 24.0),
             ("pendulum hanging at rest, 24 fps", hanging_at_rest, np.arange(n) / 24.0),
             ("stiff arm (Radau IIA), 24 fps", stiff_arm, np.arange(n) / 24.0),
             ("resting four-bar (closed loop), 24 fps", resting_four_bar, np.arange(n) / 24.0),
             ("chain of 10, 960 fps, 2 s", lambda: chain(10), np.arange(1921) / 960.0),
             ("chain of 10, 960 fps, 2 s, tolerance 1e-3", lambda: chain(10),
              np.arange(1921) / 960.0, 1e-3)]
    print(f"{'case':42s} {'now s':>7s} {'cut s':>7s} {'ratio':>6s} {'steps':>6s} {'cut':>6s} "
          f"{'pos diff m':>10s} {'E bal':>8s} {'cut':>8s}")
    for name, build, times, *tol in cases:
        m = build()
        t_long, r = solve(m, times, False, *tol)
        t_cut, c = solve(m, times, True, *tol)
        diff = max(float(np.abs(r.position(p) - c.position(p)).max()) for p in r.model.body_part)
        print(f"{name:42s} {t_long:7.2f} {t_cut:7.2f} {t_long / t_cut:6.2f} {r.steps:6d} "
              f"{c.steps:6d} {diff:10.1e} {balance(r):8.1e} {balance(c):8.1e}", flush=True)


if __name__ == "__main__":
    main()
