"""A long bake's memory: a chain of N links on revolute joints, every joint driven (a
kinematic sweep), over F frames at 24 fps, solved keeping every quantity and keeping what
the add-on's bake reads (``bake``: poses, reactions, efforts; solver ``keep``).

Each case runs in a child process of its own, twice: once under /usr/bin/time -v for the
process's largest resident set (the numbers Blender would hold), once under tracemalloc for
the largest Python-traced allocation during the solve (numpy's arrays included), with the
bytes the Result holds at its end.  The baseline of the RSS is a child that builds the
mechanism and stops before solving (Python, numpy and the solver imported).

Run:  .venv/bin/python bench/bench_memory.py [--links 100] [--frames 10000]
"""
from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from mechanisms import driven_planar_chain  # noqa: E402

MIB = 2.0 ** 20
KEEPS = {"all": None, "bake": ("reactions", "efforts")}


def result_bytes(r) -> int:
    """Bytes of the numpy arrays a Result holds."""
    return sum(x.nbytes for x in vars(r).values() if isinstance(x, np.ndarray))


def child(links: int, frames: int, keep: str, trace: bool, build_only: bool) -> None:
    m = driven_planar_chain(links)
    if build_only:
        return
    times = np.arange(frames) / 24.0
    kw = {} if KEEPS[keep] is None else {"keep": KEEPS[keep]}
    if trace:
        import tracemalloc
        tracemalloc.start()
    t0 = time.perf_counter()
    r = m.solve(times=times, analysis="kinematic", **kw)
    wall = time.perf_counter() - t0
    peak = tracemalloc.get_traced_memory()[1] if trace else 0
    print(f"wall {wall:.1f} traced_peak {peak / MIB:.1f} result {result_bytes(r) / MIB:.1f}")


def run_child(args: list[str], timed: bool) -> str:
    cmd = [sys.executable, os.path.abspath(__file__), "--child", *args]
    if timed:
        cmd = ["/usr/bin/time", "-v", *cmd]
    p = subprocess.run(cmd, capture_output=True, text=True, check=True)
    return p.stdout + p.stderr


def max_rss(text: str) -> float:
    return float(re.search(r"Maximum resident set size \(kbytes\): (\d+)", text).group(1)) / 1024


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--links", type=int, default=100)
    ap.add_argument("--frames", type=int, default=10000)
    ap.add_argument("--keep", default=None, choices=sorted(KEEPS))
    ap.add_argument("--child", action="store_true")
    ap.add_argument("--trace", action="store_true")
    ap.add_argument("--build-only", action="store_true")
    a = ap.parse_args()
    if a.child:
        child(a.links, a.frames, a.keep or "all", a.trace, a.build_only)
        return
    size = ["--links", str(a.links), "--frames", str(a.frames)]
    base = max_rss(run_child(size + ["--build-only"], True))
    print(f"{a.links} links, {a.frames} frames; RSS before solving {base:.0f} MiB")
    print(f"{'keep':6s} {'wall s':>7s} {'max RSS MiB':>12s} {'traced peak MiB':>16s} "
          f"{'Result MiB':>11s}")
    for keep in [a.keep] if a.keep else list(KEEPS):
        rss_run = run_child(size + ["--keep", keep], True)
        traced = run_child(size + ["--keep", keep, "--trace"], False)
        wall, peak, held = (float(x) for x in re.search(
            r"wall ([\d.]+) traced_peak ([\d.]+) result ([\d.]+)", traced).groups())
        rss_wall = float(re.search(r"wall ([\d.]+)", rss_run).group(1))
        print(f"{keep:6s} {rss_wall:7.1f} {max_rss(rss_run):12.0f} {peak:16.1f} {held:11.1f}",
              flush=True)


if __name__ == "__main__":
    main()
