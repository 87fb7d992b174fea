"""The stiff flyball governor: a spindle driven by its engine, two arms with
light balls hinged at the top, two links from the arms to a sleeve that slides on the
spindle, and the sleeve held by a stiff spring-damper (1e6 N/m, 5e4 N s/m).

What a real governor does: its spindle is geared to the engine it regulates, so the
spindle's speed is the engine's, imposed, and the balls and sleeve follow.  Here the
engine starts from rest and comes up to 180 rpm over the first second (a smooth ramp),
then holds it; the balls' centrifugal pull lifts the sleeve against its spring by some
tens of micrometres.  The links are massless rods (distance joints, as in the textbook
Porter governor), so four parts move: spindle, two arms (ball on each), sleeve.  Stiff
modes: the sleeve's damper on its 0.3 kg plus the light arms' reflected inertia decays at
about c/m ~ 1e5 1/s, its spring rings at sqrt(k/m) ~ 2e3 1/s; the slow mode k/c = 20 1/s.

Prints, for 10 s simulated at the default tolerance (1e-6): wall seconds, integrator steps,
the method chosen, and the energy balance: kinetic + potential - work of the non-conservative
loads (the sleeve damper and the engine's drive), its largest change over the run divided
by the energy exchanged (max |KE| + max |PE - PE0| + max |W|).  ``--explicit S`` also runs
the explicit path for S simulated seconds (it is held by the stiff modes' stability).

Run:  .venv/bin/python bench/bench_governor.py [--duration S] [--explicit S]
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from solver import Mechanism  # noqa: E402

SPEED = 6.0 * math.pi          # rad/s, 180 rpm once the engine is up to speed
SPIN_UP = 1.0                  # s, the ramp from rest
K_SLEEVE, C_SLEEVE = 1e6, 5e4  # N/m, N s/m
BALL, SLEEVE = 0.2, 0.3        # kg


def governor(k: float = K_SLEEVE, c: float = C_SLEEVE) -> Mechanism:
    """The governor at rest, arms 30 deg from the spindle.  World z up along the spindle;
    the arms swing in the xz plane.  Top pivots at (+-0.03, 0, 0.5) m, arms 0.3 m to the
    ball, links from 0.15 m down each arm to the sleeve's pins at (+-0.03, 0, z_sleeve),
    0.15 m long; the spring-damper runs along the axis from a collar on the spindle at
    z = 0.1 m to the sleeve."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("spindle", mass=2.0, inertia=(0.05, 0.05, 0.002), center_of_mass=(0, 0, 0.3))
    m.add_marker("base", "ground")
    m.add_marker("spindle_base", "spindle")
    m.add_joint("bearing", "revolute", "spindle_base", "base")
    m.add_motion("engine", "bearing", f"{SPEED} * ramp(t, 0, {SPIN_UP})")
    y_axis = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # marker z along world y
    a0, arm, b = math.radians(30.0), 0.3, 0.15
    z_top = 0.5
    s, c0 = math.sin(a0), math.cos(a0)
    z_pin = z_top - b * c0 - math.sqrt(b * b - (b * s) ** 2)                # link as long as b
    for side, sign in (("left", -1.0), ("right", 1.0)):
        pivot = np.array([0.03 * sign, 0.0, z_top])
        m.add_marker(f"top_{side}", "spindle", position=pivot, orientation=y_axis)
        # the arm's frame sits on its pivot, world-aligned at the start; the ball is its mass
        m.add_part(f"arm_{side}", mass=BALL, inertia=(4e-5, 4e-5, 4e-5),
                   center_of_mass=(sign * arm * s, 0.0, -arm * c0), position=pivot)
        m.add_marker(f"hinge_{side}", f"arm_{side}", orientation=y_axis)
        m.add_joint(f"pivot_{side}", "revolute", f"hinge_{side}", f"top_{side}")
        m.add_marker(f"elbow_{side}", f"arm_{side}", position=(sign * b * s, 0.0, -b * c0))
    m.add_part("sleeve", mass=SLEEVE, inertia=(2e-4, 2e-4, 3e-4), position=(0.0, 0.0, z_pin))
    m.add_marker("sleeve_axis", "sleeve")
    m.add_marker("spindle_slot", "spindle", position=(0.0, 0.0, z_pin))
    m.add_joint("slide", "prismatic", "sleeve_axis", "spindle_slot")
    for side, sign in (("left", -1.0), ("right", 1.0)):
        m.add_marker(f"pin_{side}", "sleeve", position=(0.03 * sign, 0.0, 0.0))
        m.add_joint(f"link_{side}", "distance", f"elbow_{side}", f"pin_{side}")
    m.add_marker("collar", "spindle", position=(0.0, 0.0, 0.1))
    m.add_spring_damper("sleeve_spring", "sleeve_axis", "collar", stiffness=k, damping=c)
    return m


def energy_error(r) -> float:
    """max |E - E0| / (max |KE| + max |PE - PE0| + max |W|), E = KE + PE - W."""
    ke, pe, wk = r.energy()
    e = ke + pe - wk
    scale = np.abs(ke).max() + np.abs(pe - pe[0]).max() + np.abs(wk).max()
    return float(np.abs(e - e[0]).max() / scale)


def run(duration: float, method: str = "auto") -> None:
    m = governor()
    t0 = time.perf_counter()
    r = m.solve(duration, fps=24, method=method)
    wall = time.perf_counter() - t0
    lift = r.position("sleeve")[:, 2] - r.position("sleeve")[0, 2]
    print(f"{method:9s} {duration:6.2f} s simulated  {wall:8.2f} s wall  {r.steps:7d} steps  "
          f"({r.steps / duration:8.0f} per s)  energy error {energy_error(r):.1e}  "
          f"sleeve lift {lift[-1] * 1e6:6.2f} um  [{r.method}]")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--duration", type=float, default=10.0, help="simulated seconds (auto method)")
    ap.add_argument("--explicit", type=float, default=0.0,
                    help="also run the explicit method for this many simulated seconds")
    args = ap.parse_args()
    run(args.duration)
    if args.explicit > 0.0:
        run(args.explicit, "explicit")


if __name__ == "__main__":
    main()
