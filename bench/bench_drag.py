"""Live drag timings (solver/analyses/posing/drag.py): a closed chain of N parts (N links of 0.25 m
on revolute joints about world z from the origin, bent into an arc, the last link's far end
pinned to the ground: one loop, N - 3 freedoms in the plane) with the middle link grabbed
by its far end and moved along a mouse path (a circle of 0.15 m radius in 60 steps, each
step a new target).  For N = 5 and 10 part of the path is out of reach (the chain pulled
straight): there each update ends on the closest pose (Newton on the Lagrangian, whose
Hessian has a negative curvature on the way), and a second line gives the timings with
the time budget the add-on's Drag passes (``drag_to(budget=...)``).

Prints the median and the largest milliseconds per drag update (``Poser.drag_to`` from the
last pose) and, measured in the same run, a baseline: the same path done the naive way, the
grabbed part moved to the mouse and the whole mechanism assembled (``assemble_pose``, least
movement from that pose) each update; ratio = drag / baseline.  The target is under 20 ms
per update for 20 parts.

With ``--jump``: a scripted far jump instead (``jump``), for N = 10 and 20 unless given.

Run:  .venv/bin/python bench/bench_drag.py [N ...] [--jump]
"""
from __future__ import annotations

import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from solver import Mechanism  # noqa: E402
from solver.analyses.start.assembly import assemble_pose  # noqa: E402
from solver import Poser  # noqa: E402
from solver.base.rotations import quat_to_matrix  # noqa: E402
from solver.model.compile import compile_model  # noqa: E402
from solver.model.state import read_state  # noqa: E402

LINK = 0.25
BUDGET = 0.015          # s: what the add-on's Drag allows one update (addon/drag.py)


def closed_chain(n: int) -> Mechanism:
    """n links of LINK m on revolutes about z, on an arc from the origin (a half circle's
    worth of turning spread over the links), the last far end pinned to the ground."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground")
    top, upper = np.zeros(3), "O"
    for k in range(n):
        a = math.pi / 2 - k * math.pi / n
        q = (math.cos(a / 2), 0.0, 0.0, math.sin(a / 2))
        m.add_part(f"link{k}", mass=1.0, center_of_mass=(LINK / 2, 0, 0), position=top,
                   orientation=q, inertia=(1e-4, 5e-3, 5e-3))
        m.add_marker(f"link{k}_top", f"link{k}")
        m.add_marker(f"link{k}_end", f"link{k}", position=(LINK, 0, 0))
        m.add_joint(f"joint{k}", "revolute", f"link{k}_top", upper)
        top = top + LINK * np.array([math.cos(a), math.sin(a), 0.0])
        upper = f"link{k}_end"
    m.add_marker("E", "ground", position=top)
    m.add_joint("anchor", "revolute", upper, "E")
    return m


def path(start: np.ndarray, inward: np.ndarray, steps: int = 60, radius: float = 0.1) -> np.ndarray:
    """Mouse targets: a circle in the xy plane through ``start``, its centre ``radius``
    along the unit vector ``inward`` (into the arc, where the point can go)."""
    a = np.linspace(0.0, 2.0 * math.pi, steps + 1)[1:] + math.atan2(-inward[1], -inward[0])
    centre = start + radius * inward
    return centre + radius * np.stack([np.cos(a), np.sin(a), np.zeros_like(a)], axis=1)


def run(n: int, budget: float | None = None) -> None:
    mech = closed_chain(n)
    model = compile_model(mech)
    st = read_state(model, mech)
    part = f"link{n // 2}"
    b = model.body_part.index(part)
    point = np.array([LINK, 0.0, 0.0])                 # the link's far end, part frame
    poser = Poser(model, st.r, st.p)
    r0, p0 = poser.pose
    arm = point - model.body_com[b]
    grab = r0[b] + quat_to_matrix(p0[b]) @ arm
    inward = r0.mean(axis=0) - grab
    inward[2] = 0.0
    targets = path(grab, inward / np.linalg.norm(inward))

    times, miss = [], 0.0
    for T in targets:
        t0 = time.perf_counter()
        r, p = poser.drag_to(part, point, T, budget=budget)
        times.append(time.perf_counter() - t0)
        miss = max(miss, float(np.linalg.norm(r[b] + quat_to_matrix(p[b]) @ arm - T)))

    base = []
    r, p = r0.copy(), p0.copy()
    last = grab
    for T in targets:                                  # naive: move the part, assemble all
        t0 = time.perf_counter()
        r = r.copy()
        r[b] += T - last
        asm = assemble_pose(model, r, p)
        r, p = asm.r, asm.p
        base.append(time.perf_counter() - t0)
        last = r[b] + quat_to_matrix(p[b]) @ arm
    med, top, bmed = 1e3 * np.median(times), 1e3 * np.max(times), 1e3 * np.median(base)
    say = "" if budget is None else f" (budget {1e3 * budget:.0f} ms)"
    print(f"N = {n:3d} parts ({model.nc} rows){say}: drag {med:6.2f} ms median, {top:6.2f} ms "
          f"largest per update; baseline (move + assemble_pose) {bmed:6.2f} ms; "
          f"ratio {med / bmed:.2f}; largest miss of the target {miss:.1e} m")


FAR = np.array([0.6, -0.3, 0.0])    # m: the far jump's target (out of reach for N >= 10)


def jump(n: int) -> None:
    """A scripted far jump: one ``drag_to`` of the middle link's far end from the start pose
    straight to FAR, no budget (it ends on the target or on the closest pose), its process
    CPU and wall time; baseline in the same run: one drag of the same point 1 cm along x
    from a fresh start (a mouse move's worth), so the ratio is the jump in mouse moves."""
    mech = closed_chain(n)
    model = compile_model(mech)
    st = read_state(model, mech)
    part = f"link{n // 2}"
    b = model.body_part.index(part)
    point = np.array([LINK, 0.0, 0.0])
    arm = point - model.body_com[b]
    near = st.r[b] + quat_to_matrix(st.p[b]) @ arm + np.array([0.01, 0.0, 0.0])
    out = {}
    for name, target in (("base", near), ("jump", FAR)):
        poser = Poser(model, st.r, st.p)
        t0, c0 = time.perf_counter(), time.process_time()
        r, p = poser.drag_to(part, point, target)
        out[name] = (time.process_time() - c0, time.perf_counter() - t0,
                     float(np.linalg.norm(r[b] + quat_to_matrix(p[b]) @ arm - target)))
    cpu, wall, miss = out["jump"]
    base = out["base"][0]
    print(f"N = {n:3d} far jump to {FAR.tolist()}: {1e3 * cpu:6.1f} ms process CPU "
          f"({1e3 * wall:6.1f} ms wall), off the target by {miss:.3e} m; baseline (a 1 cm "
          f"drag) {1e3 * base:5.2f} ms; ratio {cpu / base:.1f}")


if __name__ == "__main__":
    if "--jump" in sys.argv:
        for n in [int(a) for a in sys.argv[1:] if a != "--jump"] or [10, 20]:
            jump(n)
        sys.exit()
    for n in [int(a) for a in sys.argv[1:]] or [5, 10, 20]:
        run(n)
        run(n, BUDGET)
