"""Design studies: many variants of one mechanism in one call, timed beside one
variant, beside the same variants run one by one, and beside 100 sequential MuJoCo runs,
all in one run.

Cases (docs/benchmarks.md mechanisms):
- chain: the chain of 10 rods on spherical joints, 2 s at 24 fps, every link's mass varied
  (Latin hypercube in [0.8, 1.2] kg, seed 1); the study steps them in lockstep
  (solver/study/lockstep.py), at the default tolerance (DOP853) and at 5e-5 (Dormand-Prince
  5(4): the loosest tolerance that meets the accuracy bar for this chain, bench_peers.py).  MuJoCo: the same chain (bench/peers.py) with the same masses,
  100 runs one after the other, at its default step (RK4, 1/240 s), at the study's accuracy
  at 5e-5 (1/288 s: the same energy error) and at about our default accuracy (1/1920 s:
  README, "Against MuJoCo and Exudyn").  And the study with an executor of
  this machine's cores (concurrent.futures processes, one batch a worker), its numbers
  checked against the local run's bit for bit.
- slider-crank: crank radius and rod length varied on a 10 x 10 grid (0.08-0.12 m, 0.25-0.35
  m), 1 s at 240 fps, reactions; kinematic sweeps.
- slider-crank payload: a press on the slider, -P sin(2 pi t), its amplitude P varied
  (50-500 N, a force expression's constant: each variant its own function), the motor's
  peak torque per variant; batched sweeps.
- dry crosshead: the slider-crank with dry friction (mu 0.3) on its guide, crank radius
  (0.08-0.12 m) and slider mass (0.3-0.8 kg) on a 10 x 10 grid, 1 s at 240 fps; batched
  sweeps with the friction for every variant and frame at once.
- gear ratio: a spur pair driven through 10 turns, its ratio varied (1.5-4, a coupler's
  parameter), 5 s at 24 fps; batched sweeps, each variant's turns tracked.
- cam follower: a roller follower over an eccentric disc cam (2 turns a second; tests/
  mechanisms.py ``eccentric_cam("roller")``), the
  follower's mass (0.2-0.5 kg) and the disc's eccentricity (its marker moved 0-4 mm) on a
  10 x 10 grid, 1 s at 240 fps; batched sweeps, each variant's contact tracked.
- sprung cam: the roller follower on a freely spinning cam (20 rad/s), held on it by a
  spring-damper, 1 s at 60 fps in forward dynamics, the follower's mass varied (0.2-0.6
  kg, a fifth as many variants); the lockstep run, each variant's contact its own.
- door onto a rigid stop: tests/test_limits.py's door pulled shut by its closer onto a
  rigid stop, restitution (0-0.8) and mass (8-12 kg) on a grid of about half as many
  variants, 2 s at 30 fps in forward dynamics; the lockstep run, each variant's impacts and
  rests its own (the variants resting on the stop make their calls alone).
- governor, stiff: the flyball governor of bench_governor.py (a 1e6 N/m sleeve spring), its
  spring rate varied (5e5-2e6 N/m, a fifth as many variants), 1 s at 24 fps: each variant
  stiff, so Radau IIA, the variants in lockstep (solver/study/lockstep.py).

A last row: numpy's stacked solve of one linear system per variant and frame with the
study's own Jacobians, the least any exact sweep of these variants solves (its velocities),
against the goal of 3 times one variant.

Columns: wall s; ratio to one variant; ratio to the variants run one by one; the largest
energy error over the variants (chain, divided by m g L N^2 / 2, and the largest joint gap,
m, as bench_peers.py measures both) or the largest slider x error against each variant's
closed form (m).

Run:  .venv/bin/python bench/bench_study.py [--variants 100] [--quick]
      (MuJoCo from bench/requirements.txt if installed: .venv-peers/bin/python)
"""
from __future__ import annotations

import argparse
import os
from concurrent.futures import ProcessPoolExecutor
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))      # its canonical mechanisms
import peers  # noqa: E402
from bench_dynamics import chain  # noqa: E402
from bench_governor import governor  # noqa: E402
from bench_kinematics import slider_crank  # noqa: E402
from mechanisms import eccentric_cam, sprung_cam  # noqa: E402
from test_limits import door  # noqa: E402
from solver.algebra.blas import single_thread  # noqa: E402
from solver.kernels.constraints import body_arrays, evaluate, global_jacobian  # noqa: E402
from solver.model.compile import compile_model  # noqa: E402
from solver import Mechanism  # noqa: E402
from solver.study import Study, grid, latin_hypercube  # noqa: E402

N = 10
BAR_TOLERANCE = 5e-5    # bench_peers' ours@bar for this chain: energy error <= 1e-6


def gear_pair() -> Mechanism:
    """Two gears on ground-fixed axles (pitch radii 0.1 and 0.25 m), the pinion driven
    through 10 turns in 5 s (3 t + 2 t^2 rad) against the wheel's inertia."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    for k, (x, inertia) in enumerate(((0.0, (0.01, 0.01, 0.02)), (0.35, (0.05, 0.05, 0.08))), 1):
        m.add_part(f"g{k}", mass=1.0 + k, inertia=inertia, position=(x, 0.0, 0.0))
        m.add_marker(f"axle{k}", "ground", position=(x, 0.0, 0.0))
        m.add_marker(f"hub{k}", f"g{k}")
        m.add_joint(f"j{k}", "revolute", f"hub{k}", f"axle{k}")
    m.add_gear("mesh", "j1", "j2", radii=(0.1, 0.25))
    m.add_motion("drive", "j1", "3*t + 2*t**2")
    return m


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def time_study(study: Study, quick: bool, duration: float, fps: float, **how):
    """(one variant's best s, its Result, the study's s, its StudyResult, the variants one
    by one s or None when ``quick``), every run over ``duration`` at ``fps`` with the
    settings ``how`` (e.g. tolerance).  One variant: best of 3, or of 15 when a run takes
    under 0.1 s (a 20 ms run's best of 3 moved by a third between runs, and every ratio
    with it)."""
    def one_run():
        return timed(lambda: study.variant(0).solve(duration, fps, **how))
    first = one_run()
    one, r1 = min([first] + [one_run() for _ in range(2 if first[0] > 0.1 else 14)],
                  key=lambda x: x[0])
    wall, res = timed(lambda: study.run(duration=duration, fps=fps, **how))
    sep = None
    if not quick:
        sep, _ = timed(lambda: [study.variant(i).solve(duration, fps, **how)
                                for i in range(len(study))])
    return one, r1, wall, res, sep


def chain_error(r) -> float:
    ke, pe, work = r.energy()
    return peers.chain_error(ke + pe - work, N)


def chain_gap(r) -> float:
    """The largest joint gap of a chain's Result (m), as bench_peers.py measures it."""
    near = np.stack([r.marker_frame(f"near{k}")[0] for k in range(N)], axis=1)
    far = np.stack([r.marker_frame(f"far{k}")[0] for k in range(N)], axis=1)
    return peers.chain_gap(near, far)


def mujoco_runs(masses: np.ndarray, per: int) -> tuple[float, float]:
    """(wall s, largest energy error) of one MuJoCo chain run (bench/peers.py) per row of
    masses, one after the other."""
    runs = [peers.mujoco_chain(N, 2.0, 24, repeats=1, per=per, masses=row) for row in masses]
    return sum(r.wall for r in runs), max(r.error for r in runs)


def solve_floor(study: Study, res) -> float:
    """Wall s of numpy's stacked solve J x = b with every variant's Jacobian at every frame
    of its Result (the rows' Jacobian, kernels/constraints.py, at the solved poses), best of
    3: every exact kinematic sweep solves at least this (the velocities J v = nu, with J
    new at each frame of each variant), so it bounds the study's time from below.  On one
    BLAS thread, as the study runs (algebra/blas.py ``single_thread``): on numpy's default
    threads its 24,100 18 x 18 solves took 0.16 to 0.72 s of CPU against 0.036 on one
    (2026-11-30, loaded machine), a floor inflated by threads the study never uses."""
    Js = []
    for i in range(len(study)):
        model = compile_model(study.variant(i))
        got = res.result(i)
        rg, A = body_arrays(model, got._r, got._p)[:2]
        Js.append(global_jacobian(model, evaluate(model, rg, A).jac))
    J = np.concatenate(Js)
    b = np.ones(J.shape[:-1] + (1,))
    return min(timed(lambda: single_thread(np.linalg.solve)(J, b))[0] for _ in range(3))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--variants", type=int, default=100)
    ap.add_argument("--quick", action="store_true", help="skip the variants one by one")
    a = ap.parse_args()
    V = a.variants
    rows = []

    # chain: masses varied; at the default tolerance and at the accuracy bar
    study = Study(chain(N), latin_hypercube({f"link{k}.mass": (0.8, 1.2) for k in range(N)},
                                            V, seed=1))
    for tol, case in ((1e-6, "chain N=10, masses"), (BAR_TOLERANCE, "the same at 5e-5")):
        one, r1, wall, res, sep = time_study(study, a.quick, 2.0, 24, tolerance=tol)
        err = max(chain_error(res.result(i)) for i in range(V))
        gap = max(chain_gap(res.result(i)) for i in range(V))
        rows.append((case, "ours: study", wall, one, sep,
                     f"{err:.1e}, gap {gap:.1e} m, {r1.method}"))
        if sep is not None:
            rows.append((case, "ours: one by one", sep, one, sep, ""))
    # the same study on this machine's cores: an executor, variants in one batch a worker
    with ProcessPoolExecutor(os.cpu_count()) as pool:
        list(pool.map(abs, range(os.cpu_count())))           # the workers started
        local = study.run(duration=2.0, fps=24)
        wall, res = timed(lambda: study.run(duration=2.0, fps=24, executor=pool))
    same = all(np.array_equal(res.result(i)._r, local.result(i)._r) for i in range(V))
    rows.append(("chain N=10, masses", f"ours: study, {os.cpu_count()} worker processes", wall,
                 rows[0][3], rows[0][4], f"the local run's bits: {same}"))
    one, sep = rows[0][3], rows[0][4]          # the MuJoCo rows: against the default's
    masses = np.array([[row[f"link{k}.mass"] for k in range(N)] for row in study.variants])
    for per, what in ((10, "MuJoCo RK4 1/240 s"), (12, "MuJoCo RK4 1/288 s"),
                      (80, "MuJoCo RK4 1/1920 s")):
        try:
            mw, merr = mujoco_runs(masses, per)
            rows.append(("chain N=10, masses", f"{what}, one by one", mw, one, sep, f"{merr:.1e}"))
        except ImportError:
            rows.append(("chain N=10, masses", what, None, None, None, "not installed"))

    # slider-crank: crank radius and rod length on a grid
    k = int(round(np.sqrt(V)))
    study = Study(slider_crank(), grid({"c1.position.x": np.linspace(0.08, 0.12, k),
                                        "r1.position.x": np.linspace(0.25, 0.35, k)}))
    one, _, wall, res, sep = time_study(study, a.quick, 1.0, 240)
    xerr = 0.0
    for i, row in enumerate(study.variants):          # each against its closed form
        rr, ll = row["c1.position.x"], row["r1.position.x"]
        got = res.result(i)
        th = 2 * np.pi * got.times
        x = rr * np.cos(th) + np.sqrt(ll * ll - (rr * np.sin(th)) ** 2)
        xerr = max(xerr, float(np.abs(got.position("slider")[:, 0] - x).max()))
    rows.append((f"slider-crank {k}x{k}", "ours: study", wall, one, sep,
                 f"x error {xerr:.1e} m, {len(res.failures)} failed"))
    floor = solve_floor(study, res)
    rows.append((f"slider-crank {k}x{k}", "numpy: one solve a variant and frame", floor, one,
                 sep, "the least an exact sweep solves (see solve_floor)"))

    # payload: a press on the slider, its amplitude varied (a force expression's constant)
    m = slider_crank()
    m.add_force("payload", "s0", force=("-P*sin(2*pi*t)", "0", "0"), constants={"P": 100.0})
    study = Study(m, grid({"payload.P": np.linspace(50.0, 500.0, V)}))
    one, _, wall, res, sep = time_study(study, a.quick, 1.0, 240)
    peak = res.summary["peak effort drive"]
    rows.append(("slider-crank payload", "ours: study", wall, one, sep,
                 f"peak torque {np.nanmin(peak):.3g} to {np.nanmax(peak):.3g} N m, "
                 f"{len(res.failures)} failed"))
    if sep is not None:
        rows.append(("slider-crank payload", "ours: one by one", sep, one, sep, ""))

    # a dry crosshead (joint friction, its load the guide's reaction): crank radius x
    # slider mass; and a gear train's ratio (a coupler's parameter, its turns tracked)
    m = slider_crank()
    m.add_friction("dry", "slide", static=0.3, dynamic=0.3, transition_speed=1e-6)
    study = Study(m, grid({"c1.position.x": np.linspace(0.08, 0.12, k),
                           "slider.mass": np.linspace(0.3, 0.8, k)}))
    one, _, wall, res, sep = time_study(study, a.quick, 1.0, 240)
    rows.append((f"dry crosshead {k}x{k}", "ours: study", wall, one, sep,
                 f"{len(res.failures)} failed"))
    if sep is not None:
        rows.append((f"dry crosshead {k}x{k}", "ours: one by one", sep, one, sep, ""))
    study = Study(gear_pair(), grid({"mesh.ratio": np.linspace(1.5, 4.0, V)}))
    one, _, wall, res, sep = time_study(study, a.quick, 5.0, 24)
    rows.append(("gear ratio", "ours: study", wall, one, sep, f"{len(res.failures)} failed"))
    if sep is not None:
        rows.append(("gear ratio", "ours: one by one", sep, one, sep, ""))

    # a cam: the follower's mass x the disc's eccentricity (its marker moved along x)
    study = Study(eccentric_cam("roller"), grid({"follower.mass": np.linspace(0.2, 0.5, k),
                                        "disc.position.x": np.linspace(0.0, 0.004, k)}))
    one, _, wall, res, sep = time_study(study, a.quick, 1.0, 240)
    rows.append((f"cam follower {k}x{k}", "ours: study", wall, one, sep, f"{len(res.failures)} failed"))
    if sep is not None:
        rows.append((f"cam follower {k}x{k}", "ours: one by one", sep, one, sep, ""))

    # a sprung roller follower on a freely spinning cam, in forward dynamics: the follower's
    # mass varied (each variant's contact its own, in the lockstep run)
    m = sprung_cam()
    Vs = max(2, V // 5)
    study = Study(m, grid({"follower.mass": np.linspace(0.2, 0.6, Vs)}))
    one, r1, wall, res, sep = time_study(study, a.quick, 1.0, 60)
    rows.append((f"sprung cam {Vs}, dynamic", "ours: study", wall, one, sep,
                 f"{r1.method}, {len(res.failures)} failed"))
    if sep is not None:
        rows.append((f"sprung cam {Vs}, dynamic", "ours: one by one", sep, one, sep, ""))

    # a door pulled shut onto a rigid stop (events: impacts, rests), restitution x mass:
    # each variant's own impacts inside the lockstep run
    k2 = max(2, int(round(np.sqrt(V // 2))))
    study = Study(door(closer=20.0), grid({"stop.restitution": np.linspace(0.0, 0.8, k2),
                                          "door.mass": np.linspace(8.0, 12.0, k2)}))
    one, r1, wall, res, sep = time_study(study, a.quick, 2.0, 30)
    hits = [len(res.result(i).impacts) for i in range(len(study)) if res.result(i) is not None]
    rows.append((f"door onto a rigid stop {k2}x{k2}", "ours: study", wall, one, sep,
                 f"{min(hits)} to {max(hits)} impacts, {len(res.failures)} failed"))
    if sep is not None:
        rows.append((f"door onto a rigid stop {k2}x{k2}", "ours: one by one", sep, one, sep, ""))

    # stiff: the flyball governor's sleeve spring rate varied (Radau IIA in lockstep)
    Vs = max(2, V // 5)
    study = Study(governor(), grid({"sleeve_spring.stiffness": np.linspace(5e5, 2e6, Vs)}))
    one, r1, wall, res, sep = time_study(study, a.quick, 1.0, 24)
    rows.append((f"governor {Vs}, stiff", "ours: study", wall, one, sep,
                 f"{r1.method}, {len(res.failures)} failed"))
    if sep is not None:
        rows.append((f"governor {Vs}, stiff", "ours: one by one", sep, one, sep, ""))

    print(f"{'case':22s} {'engine':34s} {'wall s':>8s} {'/ one':>7s} {'/ one by one':>13s}  error")
    for case, eng, w, o, s, e in rows:
        if w is None:
            print(f"{case:22s} {eng:34s} {'-':>8s} {'-':>7s} {'-':>13s}  {e}")
            continue
        print(f"{case:22s} {eng:34s} {w:8.2f} {w / o:7.1f} {(w / s if s else float('nan')):13.2f}  {e}")
    print(f"one variant: chain {rows[0][3]:.3f} s; {V} variants; energy error over all variants")


if __name__ == "__main__":
    main()
