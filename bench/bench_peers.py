"""Our solver against MuJoCo and Exudyn on the benchmark mechanisms of
docs/benchmarks.md, in one run, printed as one table.

Cases: the falling chain of N spherical-jointed rods (2 s at 24 fps) and the slider-crank
kinematic sweep with reactions (1 s at 240 fps), the latter also as a user builds it
("lower-pairs": four revolute and prismatic joints in a plane, a redundant loop). Our models are bench_dynamics.chain and
bench_kinematics.slider_crank; the peers' models are in bench/peers.py. Each engine's time is
the solve itself (model building excluded), best of --repeats while a solve is short (< 5 s).

Engines: ours (the solver's default tolerance), ours@bar (our chain at the loosest tolerance
of a 1-2-5 series that meets the accuracy bar: energy error <= 1e-6, joint gap <= 1e-9 m; the
peers' notes give their time over it), mujoco, exudyn.

Columns: wall s per simulated s; error (chain: max |E(t) - E(0)| / (m g L N^2 / 2) from each
engine's own positions and velocities; slider-crank: slider x against the closed form, m);
joint gap (largest distance between joined points of a spherical joint, m); integrator steps;
traj dev (chain: largest distance of any link end from ours over t <= 0.5 s, m, so that the
models are seen to be the same); ratio = engine time / our time (< 1: the peer is faster).

Run:  python bench/bench_peers.py [N ...] [--quick] [--engines ours,mujoco,exudyn]
      (default N = 10 50 200; --quick drops N >= 200; peers: pip install -r bench/requirements.txt)
"""
from __future__ import annotations

import argparse
import os
import sys
import traceback
from typing import Callable

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, HERE)
import peers  # noqa: E402
from bench_dynamics import chain  # noqa: E402
from bench_kinematics import slider_crank  # noqa: E402
from peers import PeerResult, best_of  # noqa: E402

ENGINES = ("ours", "ours@bar", "mujoco", "exudyn")
CHAIN_DURATION, CHAIN_FPS = 2.0, 24
SC_DURATION, SC_FPS = 1.0, 240
PER = 10                   # peers' chain steps per output frame (--peer-steps); 10: dt 1/240 s
DEV_UNTIL = 0.5            # s: trajectories are compared up to here (the chain is chaotic later)

Row = tuple  # (case, n, engine, PeerResult | None, ratio-or-None, text)


# the accuracy bar for the chain targets: energy error and joint gap at most these
BAR_ERROR, BAR_GAP = 1e-6, 1e-9
BAR_SERIES = (1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5, 2e-5, 1e-5, 5e-6, 2e-6, 1e-6)


def ours_chain(n: int, repeats: int, tolerance: float = 1e-6) -> PeerResult:
    """bench_dynamics.chain(n).solve(2 s, 24 fps) at ``tolerance`` (default: the solver's)."""
    wall, r = best_of(lambda: chain(n),
                      lambda m: m.solve(CHAIN_DURATION, CHAIN_FPS, tolerance=tolerance), repeats)
    ke, pe, work = r.energy()
    near = np.stack([r.marker_frame(f"near{k}")[0] for k in range(n)], axis=1)
    far = np.stack([r.marker_frame(f"far{k}")[0] for k in range(n)], axis=1)
    return PeerResult(wall=wall, error=peers.chain_error(ke + pe - work, n),
                      gap=peers.chain_gap(near, far), steps=int(r.steps),
                      ends=np.concatenate([near, far[:, -1:]], axis=1), note=r.method)


def ours_chain_at_bar(n: int, repeats: int) -> PeerResult:
    """Our chain at the loosest tolerance of BAR_SERIES (1-2-5 steps down from 1e-2) whose
    run meets the issue's bar (energy error <= 1e-6, joint gap <= 1e-9 m), timed as
    ours_chain; the candidates before it are run once, untimed."""
    for tol in BAR_SERIES:
        res = ours_chain(n, 1, tol)
        if res.error <= BAR_ERROR and res.gap <= BAR_GAP:
            res = ours_chain(n, repeats, tol)
            res.note = f"tolerance {tol:g}: the loosest meeting the bar; {res.note}"
            return res
    res.note = f"no tolerance down to {tol:g} meets the bar; {res.note}"
    return res


def ours_slider_crank(repeats: int, wrist: str = "in-line") -> PeerResult:
    """bench_kinematics.slider_crank(wrist).solve(1 s, 240 fps): kinematic sweep with
    reactions."""
    wall, r = best_of(lambda: slider_crank(wrist), lambda m: m.solve(SC_DURATION, SC_FPS),
                      repeats)
    x = r.position("slider")[:, 0]
    return PeerResult(wall=wall, error=float(np.abs(x - peers.slider_x_exact(r.times)).max()),
                      effort=r.effort("drive"), note="kinematic sweep")


RUNNERS: dict[tuple[str, str], Callable[..., PeerResult]] = {
    ("chain", "ours"): ours_chain,
    ("chain", "ours@bar"): ours_chain_at_bar,
    ("chain", "mujoco"): lambda n, rep: peers.mujoco_chain(n, CHAIN_DURATION, CHAIN_FPS, rep, PER),
    ("chain", "exudyn"): lambda n, rep: peers.exudyn_chain(n, CHAIN_DURATION, CHAIN_FPS, rep, PER),
    ("slider-crank", "ours"): lambda n, rep: ours_slider_crank(rep),
    ("slider-crank", "exudyn"): lambda n, rep: peers.exudyn_slider_crank(SC_DURATION, SC_FPS, rep),
    ("lower-pairs", "ours"): lambda n, rep: ours_slider_crank(rep, "revolute"),
    ("lower-pairs", "exudyn"): lambda n, rep: peers.exudyn_slider_crank(SC_DURATION, SC_FPS, rep),
}
SLIDER_CRANKS = ("slider-crank", "lower-pairs")
NOT_MODELLED = {("slider-crank", "mujoco"): "not modelled (closed loop + prescribed motion "
                                            "need soft equality constraints in MuJoCo)",
                ("slider-crank", "ours@bar"): "the sweep has no tolerance (exact to rounding)"}
NOT_MODELLED.update({("lower-pairs", engine): NOT_MODELLED["slider-crank", engine]
                     for engine in ("mujoco", "ours@bar")})


def run_case(case: str, n: int, engines: list[str], repeats: int) -> list[Row]:
    """Run one case with every selected engine, ours first so that ratios can be formed."""
    rows: list[Row] = []
    ours: PeerResult | None = None
    bar: PeerResult | None = None
    for engine in engines:
        if (case, engine) in NOT_MODELLED:
            rows.append((case, n, engine, None, None, NOT_MODELLED[case, engine]))
            continue
        print(f"  running {case} N={n} {engine} ...", file=sys.stderr, flush=True)
        try:
            res = RUNNERS[case, engine](n, repeats)
        except ImportError as exc:
            rows.append((case, n, engine, None, None, f"not installed ({exc.name or exc})"))
            continue
        except Exception as exc:  # a peer failing must not hide the other rows
            traceback.print_exc(file=sys.stderr)
            rows.append((case, n, engine, None, None, f"failed: {type(exc).__name__}: {exc}"))
            continue
        if engine == "ours":
            ours = res
        elif engine == "ours@bar":
            bar = res
        ratio = res.wall / ours.wall if ours is not None and engine != "ours" else None
        if ours is not None and engine != "ours":
            compare(case, res, ours)
        if bar is not None and not engine.startswith("ours"):
            res.note = f"ratio to ours@bar {res.wall / bar.wall:.3f}; {res.note}"
        rows.append((case, n, engine, res, ratio, res.note))
    return rows


def compare(case: str, res: PeerResult, ours: PeerResult) -> None:
    """Fill res.extra['dev'] (chain: end-point distance from ours up to DEV_UNTIL) and, for the
    slider-crank, add the drive-torque deviation from ours to the note."""
    if case == "chain" and res.ends is not None and ours.ends is not None:
        upto = int(DEV_UNTIL * CHAIN_FPS) + 1
        res.extra["dev"] = float(np.linalg.norm(res.ends[:upto] - ours.ends[:upto], axis=2).max())
    if case in SLIDER_CRANKS and res.effort is not None and ours.effort is not None:
        dev = float(np.abs(res.effort[1:] - ours.effort[1:]).max())
        peak = float(np.abs(ours.effort).max())
        res.note = (f"{res.note + '; ' if res.note else ''}drive torque vs ours {dev:.1e} N m "
                    f"({100 * dev / peak:.1f}% of peak), frames >= 1")


def fmt(value: float | int | None, spec: str) -> str:
    """Format a number, '-' when absent."""
    return "-" if value is None else format(value, spec)


def print_table(rows: list[Row], engines: list[str]) -> None:
    """The table, a legend and the peers' settings."""
    head = (f"{'case':13s} {'N':>4s} {'engine':8s} {'wall s/sim s':>12s} {'error':>9s} "
            f"{'joint gap m':>11s} {'steps':>6s} {'traj dev m':>10s} {'ratio':>7s}  note")
    print(head)
    print("-" * len(head))
    for case, n, engine, res, ratio, text in rows:
        if res is None:
            print(f"{case:13s} {n:4d} {engine:8s} {text}")
            continue
        dur = CHAIN_DURATION if case == "chain" else SC_DURATION
        print(f"{case:13s} {n:4d} {engine:8s} {res.wall / dur:12.4f} {res.error:9.1e} "
              f"{fmt(res.gap, '11.1e'):>11s} {fmt(res.steps, '6d'):>6s} "
              f"{fmt(res.extra.get('dev'), '10.1e'):>10s} {fmt(ratio, '7.3f'):>7s}  {text}")
    print("error: chain = max |E - E0| / (m g L N^2/2); slider-crank = slider x vs closed form (m). "
          f"traj dev: link ends vs ours, t <= {DEV_UNTIL} s. ratio = engine time / our time.")
    print("ours: Dormand-Prince 8(5,3) with error control (tolerance 1e-6), projection onto the "
          "constraints; slider-crank by kinematic sweep in blocks of frames (no integration).")
    if "ours@bar" in engines:
        print(f"ours@bar: our chain at the loosest tolerance of {BAR_SERIES[0]:g}, "
              f"{BAR_SERIES[1]:g}, ... {BAR_SERIES[-1]:g} whose run meets the accuracy bar (energy "
              f"error <= {BAR_ERROR:g}, joint gap <= {BAR_GAP:g} m); the peers' notes give their "
              "ratio to it.")
    if "mujoco" in engines:
        print(peers.mujoco_settings(PER, CHAIN_FPS) + "; slider-crank not modelled.")
    if "exudyn" in engines:
        print(peers.exudyn_chain_settings(PER, CHAIN_FPS) + ".")
        print(peers.EXUDYN_SC_SETTINGS + ".")
    print("versions: " + ", ".join(versions(engines)))


def versions(engines: list[str]) -> list[str]:
    """numpy and installed peer versions."""
    out = [f"numpy {np.__version__}"]
    for name in ("mujoco", "exudyn"):
        if name in engines:
            try:
                out.append(f"{name} {__import__(name).__version__}")
            except ImportError:
                out.append(f"{name} not installed")
    return out


def main(argv: list[str] | None = None) -> None:
    """Parse the command line, run the selected cases and engines, print the table."""
    global PER
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", nargs="*", type=int, default=[10, 50, 200], help="chain sizes")
    ap.add_argument("--quick", action="store_true", help="skip chains with N >= 200")
    ap.add_argument("--engines", default=",".join(ENGINES), help="comma list of " + ",".join(ENGINES))
    ap.add_argument("--cases", default="chain,slider-crank,lower-pairs",
                    help="comma list: chain,slider-crank,lower-pairs")
    ap.add_argument("--repeats", type=int, default=3, help="best of this many (short runs)")
    ap.add_argument("--peer-steps", type=int, default=PER,
                    help="peers' chain steps per output frame (default 10: dt 1/240 s)")
    args = ap.parse_args(argv)
    PER = args.peer_steps
    engines = [e for e in ENGINES if e in args.engines.split(",")]
    unknown = set(args.engines.split(",")) - set(ENGINES)
    if unknown or not engines:
        ap.error(f"unknown engines {sorted(unknown)}; choose from {ENGINES}")
    ns = [n for n in args.n if not (args.quick and n >= 200)]
    cases = args.cases.split(",")
    rows: list[Row] = []
    if "chain" in cases:
        for n in ns:
            rows += run_case("chain", n, engines, args.repeats)
    for case in SLIDER_CRANKS:
        if case in cases:
            rows += run_case(case, 1, engines, args.repeats)
    print_table(rows, engines)


if __name__ == "__main__":
    main()
