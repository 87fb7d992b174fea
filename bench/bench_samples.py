"""The contact samples' solves by stage: each of sample_scenes/ball_drop.py, ratchet.py,
geneva.py and gear_teeth.py built in Blender and read as Bake reads it (its settings and
kept quantities), then solved as the bake solves it, several times (process CPU, the best;
this machine's speed moves between runs).  Printed: the steps and rejected trials, the
right-hand sides, and the process CPU inside the contacts' kernel, the rest of the
right-hand sides, the touchdowns' gaps (their event functions) and the projections; the
whole solve's ratio to its right-hand sides (the baseline measured in the same run); and
each sample's own accuracy: the Geneva wheel's largest error against the closed form
(degrees), the gear_teeth planets' mean speed ratio against the teeth's -12/24 from 1/3 s,
ball_drop's horizontal momentum drift (kg m/s, frictionless floor: zero but for the
solver's error), and every sample's deepest contact penetration (m).

Run:  .venv/bin/python bench/bench_samples.py [--repeat 3] [sample ...]
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys
import time

import numpy as np

import in_blender  # noqa: E402  (bench/, the script's folder)

HERE = os.path.dirname(os.path.abspath(__file__))
SAMPLES = ("ball_drop", "ratchet", "geneva", "gear_teeth")


def timed(module, name: str, spent: dict) -> None:
    """Wrap module.name (a function or an unbound method) to add its process CPU and
    calls to spent[name]."""
    inner = getattr(module, name)

    def wrapper(*args, **kwargs):
        t0 = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            calls, seconds = spent.get(name, (0, 0.0))
            spent[name] = (calls + 1, seconds + time.process_time() - t0)
    setattr(module, name, wrapper)


def angle(result, part: str) -> np.ndarray:
    """rad: a part's turn about world z from frame 0 (unwrapped)."""
    p = result.orientation(part)
    turn = np.unwrap(2.0 * np.arctan2(p[:, 3], p[:, 0]))
    return turn - turn[0]


def accuracy(name: str, module, result) -> str:
    """The sample's own check, as its test reads it (tests/test_addon_*.py)."""
    cp = result.model.forces.contacts
    deepest = max(float(result.contact(n)["penetration"].max()) for n in cp.names)
    if name == "geneva":
        crank = module.CRANK_START + angle(result, "Crank")
        wheel = module.START + angle(result, "Wheel")
        err = np.degrees(np.abs(wheel - module.ideal_wheel_angle(crank)).max())
        check = f"wheel within {err:.2f} deg of the closed form"
    elif name == "gear_teeth":
        sun, k0 = angle(result, "Sun"), 8
        ratio = [(angle(result, f"Planet {k}")[-1] - angle(result, f"Planet {k}")[k0])
                 / (sun[-1] - sun[k0]) for k in (1, 2, 3)]
        check = f"planets' ratio off -1/2 by {max(abs(q + 0.5) for q in ratio):.1e}"
    elif name == "ball_drop":
        names = [b[0] for b in module.BALLS]
        m = result.model.body_mass[[result.model.body_part.index(n) for n in names]]
        p = np.stack([result.position(n)[:, :2] for n in names], axis=1)
        fps = 1.0 / (result.times[1] - result.times[0])
        momentum = np.einsum("b,fbk->fk", m, np.diff(p, axis=0)) * fps
        thrown = m @ np.array([b[3] for b in module.BALLS])[:, :2]
        check = f"momentum drift {np.abs(momentum - thrown).max():.1e} kg m/s"
    else:
        check = f"{result.steps} steps"
    return f"{check}, deepest {deepest:.2e} m"


def sample_case(name: str, repeat: int, ext) -> None:
    import bpy
    module = importlib.import_module(name)
    module.build()
    ops = importlib.import_module(ext.__name__ + ".addon.operators")
    sm = ops.bake_reading(bpy.context.scene)
    how = ops._bake_options(bpy.context.scene, sm)
    solver = ext.__name__ + ".solver"
    forces = importlib.import_module(solver + ".kernels.forces")
    touchdown = importlib.import_module(solver + ".analyses.dynamics.touchdown")
    equations = importlib.import_module(solver + ".analyses.dynamics.equations")
    best, spent_best = np.inf, {}
    for _ in range(repeat):
        spent: dict = {}
        saved = [(forces, "contact_forces", forces.contact_forces),
                 (touchdown, "gaps", touchdown.gaps),
                 (equations.Equations, "rhs_parts", equations.Equations.rhs_parts),
                 (equations.Equations, "project", equations.Equations.project)]
        for module_, attr, _ in saved:
            timed(module_, attr, spent)
        try:
            t0 = time.process_time()
            result = sm.mech.solve(times=sm.timeline.times, **how)
            cpu = time.process_time() - t0
        finally:
            for module_, attr, inner in saved:
                setattr(module_, attr, inner)
        if cpu < best:
            best, spent_best = cpu, spent
    rhs_calls, rhs = spent_best["rhs_parts"]
    kernel = spent_best["contact_forces"][1]
    parts = (f"kernel {kernel:.2f}, rest of the right-hand sides {rhs - kernel:.2f}, "
             f"touchdown gaps {spent_best.get('gaps', (0, 0.0))[1]:.2f}, "
             f"projections {spent_best.get('project', (0, 0.0))[1]:.2f}")
    print(f"{name}: solve {best:.2f} s CPU, {result.steps} steps, {rhs_calls} right-hand "
          f"sides ({1e6 * rhs / rhs_calls:.0f} us each; the solve {best / rhs:.2f} times "
          f"them): {parts}  | {accuracy(name, module, result)}", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("samples", nargs="*", default=list(SAMPLES))
    args = parser.parse_args()
    ext = in_blender.extension()
    sys.path.insert(0, os.path.join(HERE, "..", "sample_scenes"))
    for name in args.samples:
        sample_case(name, args.repeat, ext)


if __name__ == "__main__":
    main()
