"""Kinematic sweep timings: the slider-crank of docs/benchmarks.md, chains of N
driven links and N parts each on its own driven pin (bench_bake.py's scene without
Blender).  Prints wall seconds per simulated second (best of 5 solves) and, for the
chains and the parts, the cost per link or part relative to N = 10 measured in the same
run (1.0 = linear scaling); beside every time the accuracy it was bought at: the slider's x
against the closed form, each pin's angle against its motion and the largest joint gap (m)
in the Result's own poses.

Run:  .venv/bin/python bench/bench_kinematics.py [--quick]
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from solver import Mechanism  # noqa: E402

X_AXIS = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)


def slider_crank(wrist: str = "in-line") -> Mechanism:
    """benchmarks.md: crank 0.1 m 0.1 kg, rod 0.3 m 0.3 kg, slider 0.5 kg on world x, 1 rev/s.
    ``wrist="revolute"``: the four lower pairs in a plane a user builds, a redundant loop
    whose reactions take the least-norm path (the in-line joint leaves none redundant)."""
    r, l = 0.1, 0.3
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("crank", mass=0.1, center_of_mass=(r / 2, 0, 0), inertia=(1e-6, 1e-4, 1e-4))
    m.add_part("rod", mass=0.3, center_of_mass=(l / 2, 0, 0), position=(r, 0, 0),
               inertia=(1e-6, 2.25e-3, 2.25e-3))
    m.add_part("slider", mass=0.5, position=(r + l, 0, 0), inertia=(1e-4, 1e-4, 1e-4))
    m.add_marker("O", "ground"); m.add_marker("bore", "ground", orientation=X_AXIS)
    m.add_marker("c0", "crank"); m.add_marker("c1", "crank", position=(r, 0, 0))
    m.add_marker("r0", "rod"); m.add_marker("r1", "rod", position=(l, 0, 0))
    m.add_marker("s0", "slider"); m.add_marker("sx", "slider", orientation=X_AXIS)
    m.add_joint("pivot", "revolute", "c0", "O")
    m.add_joint("crankpin", "revolute", "r0", "c1")
    m.add_joint("wrist", wrist, "s0", "r1")
    m.add_joint("slide", "prismatic", "sx", "bore")
    m.add_motion("drive", "pivot", "2*pi*t")
    return m


def driven_chain(n: int) -> Mechanism:
    """n links of 1 m, 1 kg along x; revolute joints alternately about world z and y
    (so the chain moves in 3-D), each driven by its own motion."""
    about_y = (math.cos(math.pi / 4), -math.sin(math.pi / 4), 0.0, 0.0)   # marker z along world y
    axis = [(1.0, 0.0, 0.0, 0.0) if k % 2 == 0 else about_y for k in range(n)]
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("b-1", "ground", orientation=axis[0])
    for k in range(n):
        m.add_part(f"l{k}", mass=1.0, center_of_mass=(0.5, 0, 0), position=(k, 0, 0),
                   inertia=(5e-5, 0.0833583, 0.0833583))
        m.add_marker(f"a{k}", f"l{k}", orientation=axis[k])
        m.add_marker(f"b{k}", f"l{k}", position=(1, 0, 0), orientation=axis[min(k + 1, n - 1)])
        m.add_joint(f"j{k}", "revolute", f"a{k}", f"b{k - 1}")
        m.add_motion(f"d{k}", f"j{k}", f"0.2*sin(2*pi*t + {0.1 * k})")
    return m


def driven_parts(n: int) -> Mechanism:
    """bench_bake.py's scene: n arms (0.25 x 0.02 x 0.02 m, 0.1 kg) 0.3 m apart along x,
    each on a revolute pin about world y at its end, driven at sin(2 pi t + 0.1 k) rad."""
    about_y = (math.cos(math.pi / 4), -math.sin(math.pi / 4), 0.0, 0.0)   # marker z along world y
    m = Mechanism()
    m.add_part("base", fixed=True)
    for k in range(n):
        m.add_part(f"arm{k}", mass=0.1, center_of_mass=(0.125, 0, 0), position=(0.3 * k, 0, 0),
                   inertia=(6.7e-6, 5.24e-4, 5.24e-4))
        m.add_marker(f"arm{k}.pin", f"arm{k}", orientation=about_y)
        m.add_marker(f"base.pin{k}", "base", position=(0.3 * k, 0, 0), orientation=about_y)
        m.add_joint(f"pin{k}", "revolute", f"arm{k}.pin", f"base.pin{k}")
        m.add_motion(f"drive{k}", f"pin{k}", f"sin(2*pi*t + {0.1 * k})")
    return m


def pin_angle_error(r, n: int) -> float:
    """The largest difference (rad) between each pin's angle in the Result's poses (marker
    I's x from marker J's x about J's z) and its motion."""
    worst = 0.0
    for k in range(n):
        xi = r.marker_frame(f"arm{k}.pin")[1][:, :, 0]
        cj = r.marker_frame(f"base.pin{k}")[1]
        angle = np.arctan2(np.einsum("fi,fi->f", xi, cj[:, :, 1]), np.einsum("fi,fi->f", xi, cj[:, :, 0]))
        worst = max(worst, float(np.abs(angle - np.sin(2 * np.pi * r.times + 0.1 * k)).max()))
    return worst


def joint_gap(r) -> float:
    """The largest violation of any joint's length rows (m) over the frames: how far apart
    joined points are, or off their line or plane, in the Result's own poses."""
    from solver.kernels.constraints import body_arrays, evaluate
    from solver.vocabulary.joints import AT, DIST, DOT2
    model = r.model
    rg, A = body_arrays(model, r._r, r._p)[:2]
    phi = evaluate(model, rg, A, need_jac=False).phi
    rows = (model.row_joint >= 0) & np.isin(model.row_kind, (AT, DOT2, DIST))
    return float(np.abs(phi[:, rows]).max(initial=0.0))


def timed(m: Mechanism, duration: float, fps: float, repeats: int = 5) -> tuple[float, object]:
    """Best wall time of `repeats` solves (one if a solve takes over a second)."""
    best = np.inf
    for _ in range(repeats):
        t0 = time.perf_counter()
        r = m.solve(duration, fps)
        best = min(best, time.perf_counter() - t0)
        if best > 1.0:
            break
    return best, r


def main() -> None:
    quick = "--quick" in sys.argv
    rows = []
    for fps in (240, 24):
        wall, r = timed(slider_crank(), 1.0, fps)
        th = 2 * np.pi * r.times
        err = np.abs(r.position("slider")[:, 0] - (0.1 * np.cos(th) + np.sqrt(0.09 - 0.01 * np.sin(th) ** 2))).max()
        rows.append((f"slider-crank {fps} fps", 1, wall / 1.0,
                     f"x error {err:.1e} m, joint gap {joint_gap(r):.1e} m", ""))
    base = None
    for n in ((10, 50) if quick else (10, 50, 200)):
        dur = 1.0 if n < 200 else 0.5
        m = driven_chain(n)
        wall, r = timed(m, dur, 24)
        per = wall / dur
        base = base or per / n
        rows.append(("driven chain", n, per, f"joint gap {joint_gap(r):.1e} m", f"{per / n / base:.2f}"))
    base = None
    for n in ((10, 100) if quick else (10, 100, 400)):
        m = driven_parts(n)
        wall, r = timed(m, 10.0, 24)
        per = wall / 10.0
        base = base or per / n
        rows.append(("driven parts", n, per, f"pin angle error {pin_angle_error(r, n):.1e} rad, "
                     f"joint gap {joint_gap(r):.1e} m", f"{per / n / base:.2f}"))
    print(f"{'case':24s} {'N':>4s} {'wall s / sim s':>15s} {'per-link/part cost / N=10':>26s}  note")
    for case, n, per, note, ratio in rows:
        print(f"{case:24s} {n:4d} {per:15.4f} {ratio:>26s}  {note}")


if __name__ == "__main__":
    main()
