"""Slider-crank engine solved with the solver's Python API (no Blender needed).

Run:  .venv/bin/python sample_scenes/solver_slider_crank.py [out_dir]
Prints the slider stroke and the crank torque, checks the piston against its closed form,
and writes one CSV row per frame (time, crank angle, piston x, velocity, acceleration,
crank torque, main-bearing force) to out_dir/slider_crank.csv (default ./out).
"""
from __future__ import annotations

import csv
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from solver import Mechanism  # noqa: E402

CRANK, ROD = 0.1, 0.3            # m
X_AXIS = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)   # marker z along world x


def build(rpm: float = 60.0) -> Mechanism:
    """Crank about world z at the origin, rod, piston sliding on world x; gravity -y."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("block", fixed=True)
    m.add_part("crank", mass=0.1, center_of_mass=(CRANK / 2, 0, 0),
               inertia=(1e-5, 0.1 * CRANK**2 / 12, 0.1 * CRANK**2 / 12))
    m.add_part("rod", mass=0.3, center_of_mass=(ROD / 2, 0, 0), position=(CRANK, 0, 0),
               inertia=(1e-5, 0.3 * ROD**2 / 12, 0.3 * ROD**2 / 12))
    m.add_part("piston", mass=0.5, position=(CRANK + ROD, 0, 0), inertia=(2e-4, 2e-4, 2e-4))
    m.add_marker("main", "block")
    m.add_marker("bore", "block", orientation=X_AXIS)
    m.add_marker("crank_main", "crank")
    m.add_marker("crank_pin", "crank", position=(CRANK, 0, 0))
    m.add_marker("rod_big", "rod")
    m.add_marker("rod_small", "rod", position=(ROD, 0, 0))
    m.add_marker("piston_pin", "piston")
    m.add_marker("piston_axis", "piston", orientation=X_AXIS)
    m.add_joint("main_bearing", "revolute", "crank_main", "main")
    m.add_joint("big_end", "revolute", "rod_big", "crank_pin")
    # the gudgeon pin as an in-line joint (the piston's point stays on the pin's axis, world z):
    # with the prismatic cylinder this leaves no redundant equation, unlike a revolute
    m.add_joint("small_end", "in-line", "piston_pin", "rod_small")
    m.add_joint("cylinder", "prismatic", "piston_axis", "bore")
    m.add_motion("motor", "main_bearing", f"2*pi*{rpm / 60.0}*t")
    return m


def main(out_dir: str = "out") -> None:
    m = build()
    print(m.check())
    r = m.solve(duration=1.0, fps=24)
    th = 2 * np.pi * r.times
    x_exact = CRANK * np.cos(th) + np.sqrt(ROD**2 - (CRANK * np.sin(th)) ** 2)
    x = r.position("piston")[:, 0]
    torque = r.effort("motor")
    force, _ = r.reaction("main_bearing")
    print(f"piston stroke {x.max() - x.min():.6f} m (exact {2 * CRANK:.6f}); "
          f"largest error against the closed form {np.abs(x - x_exact).max():.2e} m")
    print(f"crank torque from {torque.min():+.4f} to {torque.max():+.4f} N m")
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, "slider_crank.csv")
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t_s", "crank_deg", "piston_x_m", "piston_vx_m_s", "piston_ax_m_s2",
                    "motor_torque_Nm", "main_bearing_fx_N", "main_bearing_fy_N"])
        v, a = r.velocity("piston")[:, 0], r.acceleration("piston")[:, 0]
        for k in range(len(r.times)):
            w.writerow([f"{r.times[k]:.6f}", f"{np.degrees(th[k]):.3f}", f"{x[k]:.9f}",
                        f"{v[k]:.9f}", f"{a[k]:.9f}", f"{torque[k]:.9f}",
                        f"{force[k, 0]:.9f}", f"{force[k, 1]:.9f}"])
    print(f"wrote {path} ({len(r.times)} frames)")


if __name__ == "__main__":
    main(*sys.argv[1:])
