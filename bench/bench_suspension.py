"""The suspension sample's solve (sample_scenes/suspension.py: a trailing arm on two rubber
bushings, a wheel on a revolute hub, a coil-over, a bump force at 1 s), by stage.

The mechanism is the sample's as tests/test_side_by_side.py builds it without Blender
(its masses from the sizes and densities: a bake's 32-sided cylinder gives 432 steps
against 431 here), solved as a bake solves it: 3 s at 24 fps, tolerance 1e-6, Radau IIA
(chosen by "auto": its bushings' modes reach 2,000 1/s).  Prints the process CPU time
(best of ``repeat``), the integrator's work (steps, trials rejected on their error or on
Newton, Newton iterations, Jacobians built, factorizations, right-hand sides of five
stages), the CPU time in each stage, and the accuracy beside them: the hub's reaction
(over its largest) and the wheel's position (m) against a run at tolerance 1e-10 made in
the same process.  ``--vs PATH``: the same for another checkout (its solver), run in a
child process alternately with this one, and the time ratio.

Run:  .venv/bin/python bench/bench_suspension.py [--repeat N] [--vs PATH]
"""
from __future__ import annotations

import argparse
import collections
import json
import os
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
KEEP = ("reactions", "efforts", "velocities")        # what a bake keeps (io/settings.py)
TIMES = np.arange(73) / 24.0                         # the sample's 3 s at 24 fps


def model(root: str):
    """The suspension of the checkout ``root`` (its solver and its tests' mechanism)."""
    sys.path[:0] = [root, os.path.join(root, "tests")]
    from test_side_by_side import suspensions
    return suspensions((0.0, 0.0, 0.0))


def staged(repeat: int) -> dict:
    """The solve timed (best of ``repeat``) and one run counted by stage."""
    m = model(os.environ["BENCH_ROOT"])
    from solver.analyses.dynamics import equations
    from solver.integrators import implicit, radau_matrix
    ref = m.solve(times=TIMES, tolerance=1e-10, keep=KEEP)
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        r = m.solve(times=TIMES, tolerance=1e-6, keep=KEEP)
        best = min(best, time.process_time() - start)
    counts, spent = collections.Counter(), collections.Counter()
    wrapped = {"rhs": (equations.Equations, "rhs"),
               "projection": (equations.Equations, "project"),
               "Jacobian": (radau_matrix.IterationMatrices, "build"),
               "factor": (radau_matrix.IterationMatrices, "factor"),
               "correction": (radau_matrix.IterationMatrices, "correction"),
               "step": (implicit.RadauIIA, "step")}
    trials = []

    def timed(key, fn):
        def call(*args, **kwargs):
            counts[key] += 1
            t0 = time.process_time()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[key] += time.process_time() - t0
        return call
    for key, (cls, name) in wrapped.items():
        setattr(cls, name, timed(key, getattr(cls, name)))
    step = implicit.RadauStepper.step

    def record(self, *args, **kwargs):
        out = step(self, *args, **kwargs)
        trials.append((out[1], self.newton_iterations))
        return out
    implicit.RadauStepper.step = record
    start = time.process_time()
    r = m.solve(times=TIMES, tolerance=1e-6, keep=KEEP)
    whole = time.process_time() - start
    err = np.array([e for e, _ in trials])
    hub, hub_ref = np.hstack(r.reaction("s0 hub")), np.hstack(ref.reaction("s0 hub"))
    return {"best": best, "whole": whole, "steps": r.steps, "trials": len(trials),
            "rejected": int(np.sum(np.isfinite(err) & (err > 1.0))),
            "newton failed": int(np.sum(~np.isfinite(err))),
            "iterations": int(sum(n for _, n in trials)), "counts": dict(counts),
            "spent": dict(spent),
            "hub": float(np.abs(hub - hub_ref).max() / np.abs(hub_ref).max()),
            "wheel": float(np.abs(r.position("s0 wheel") - ref.position("s0 wheel")).max())}


def run(root: str, repeat: int) -> dict:
    """staged() of the checkout ``root`` in a child process."""
    env = dict(os.environ, BENCH_ROOT=os.path.abspath(root))
    out = subprocess.run([sys.executable, __file__, "--child", str(repeat)], env=env,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def show(label: str, s: dict) -> None:
    c, t = s["counts"], s["spent"]
    others = s["whole"] - t["step"] - t["projection"]
    print(f"{label}: solve {s['best']:.3f} s CPU (best), {s['steps']} steps, {s['trials']} "
          f"trials ({s['rejected']} rejected, {s['newton failed']} Newton failed), "
          f"{s['iterations']} Newton iterations | hub reaction error {s['hub']:.1e} of its "
          f"largest, wheel {s['wheel']:.1e} m against tolerance 1e-10")
    for key in ("rhs", "Jacobian", "factor", "correction", "projection"):
        print(f"    {key:11s} {c.get(key, 0):5d} calls {t.get(key, 0.0):6.3f} s "
              f"({t.get(key, 0.0) / s['whole']:4.0%})")
    inside = t["step"] - sum(t.get(k, 0.0) for k in ("rhs", "Jacobian", "factor", "correction"))
    print(f"    {'step rest':11s} {'':11s} {inside:6.3f} s ({inside / s['whole']:4.0%})"
          f"   outside the steps {others:6.3f} s ({others / s['whole']:4.0%})")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--vs", default=None, help="another checkout, the baseline")
    ap.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child is not None:
        print(json.dumps(staged(a.child)))
        return
    here = os.path.join(HERE, "..")
    pairs = [("this checkout", here)] + ([("baseline", a.vs)] if a.vs else [])
    got: dict = {}
    for _ in range(2):              # alternated: the machine's load changes
        for label, root in pairs:
            s = run(root, a.repeat)
            if label not in got or s["best"] < got[label]["best"]:
                got[label] = s
    for label, _ in pairs:
        show(label, got[label])
    if a.vs:
        ratio = got["this checkout"]["best"] / got["baseline"]["best"]
        print(f"time over the baseline's: {ratio:.2f}")


if __name__ == "__main__":
    main()
