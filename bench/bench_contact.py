"""Contact between parts: what one contact costs beside a right-hand side, and the Geneva
sample's solve, alone and as a study.

Cases:
- one contact pair of about 1,000 contact points, evaluated once (the kernels'
  ``contact_forces``: the points' distances, normals and forces), for each kind of
  distance: a 0.1 m cube's mesh (points every ``spacing`` on its faces) sunk 1 mm into a
  slab's mesh grid (32 cells); a square profile 0.1 m thick (points along its edges, two
  levels) sunk 1 mm into a slab's profile; the cube's points in a bowl (an inverted
  sphere of 0.5 m, the exact distance), its bottom face 1 mm below the bowl's lowest point;
  a plate 4 mm thick (mesh points every 16 mm) sunk 1 mm into the slab's mesh grid, every
  point within reach and half of them touching (the kernel's cost a point when nothing is
  culled).  The points within reach of the other side are evaluated, the rest culled by
  one box and cell test (printed: the points, those in reach, those touching).  Beside
  it, one right-hand side (``Equations.rhs``) of the
  same mechanism (the ground slab, the free block) without the contact, and with it: the
  goal is a contact costing at most one right-hand side.  Accuracy: the largest
  error of the points' depths against the exact distance of the other side (a box's, a
  bowl's: Quilez's box distance, R - |x - c|), and the force's relative error.
- the Geneva sample (sample_scenes/geneva.py, read from Blender): its solve over one crank
  turn at 24 fps, its wheel's largest error against the closed form (degrees).
- a study of 50 variants of it, the wheel axle's damping varied (Latin hypercube over
  2e-3..2e-2 N m s, seed 1), beside the single solve and the variants solved one by one
  (their steps and cost a step printed, as this shared machine's speed moves between the
  runs): the study runs them together (study/lockstep.py), each variant bit for bit its
  separate solve (checked); accuracy the largest error over the variants.

Run:  .venv/bin/python bench/bench_contact.py [--variants 50] [--quick]
"""
from __future__ import annotations

import argparse
import importlib
import math
import os
import sys
import time

import numpy as np

import in_blender  # noqa: E402  (bench/, the script's folder)

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, ".."))

from solver import Mechanism, Shape  # noqa: E402
from solver.analyses.dynamics.equations import Equations  # noqa: E402
from solver.analyses.structure import structure  # noqa: E402
from solver.kernels.constraints import body_arrays  # noqa: E402
from solver.kernels.contacts import contact_forces, geometry  # noqa: E402
from solver.model.compile import compile_model  # noqa: E402
from solver.model.state import read_state  # noqa: E402

DEPTH = 1e-3          # m: how far the block is sunk into the other side
STIFFNESS = 1e6       # N/m (linear)
CUBE, SLAB = 0.1, (0.4, 0.4, 0.1)   # m
SPACING = 0.02        # m: the cube mesh's points this far apart: 1,154 of them
PLATE = (0.1, 0.1, 0.004)   # m: a plate every point of which is within reach of the slab
PLATE_SPACING = 0.016       # m: its points this far apart


def box_mesh(size) -> tuple[np.ndarray, np.ndarray]:
    """(vertices, faces) of a box of ``size`` centred on the origin, outward triangles."""
    h = 0.5 * np.asarray(size, dtype=float)
    V = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)]) * h
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return V, np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])


def box_distance(x: np.ndarray, half) -> np.ndarray:
    """The exact signed distance of points x (k, 3) from a box of half extents ``half``
    about the origin (Quilez's box distance)."""
    q = np.abs(x) - np.asarray(half)
    return np.linalg.norm(np.maximum(q, 0.0), axis=1) + np.minimum(q.max(axis=1), 0.0)


def block_mechanism(kind: str, contact: bool) -> tuple[Mechanism, callable]:
    """A fixed slab and a free block sunk DEPTH into it, with their contact when
    ``contact``; and the exact distance of a world point from the side it does not lie on
    (``exact(points, on_block)``)."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("slab", fixed=True)
    if kind == "profile":           # the profile's plane is xy: the block sinks along -y
        at = (0.0, 0.5 * CUBE - DEPTH, 0.0)
        square = 0.5 * CUBE * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])
        slab = np.array([[-0.46, -0.2], [0.46, -0.2], [0.46, 0.0], [-0.46, 0.0]])
        block_shape = Shape.profile(square, CUBE, spacing=CUBE / 125, levels=2)
        slab_shape = Shape.profile(slab, SLAB[2], spacing=0.2)   # no point under the block
        half_slab, slab_centre = np.array([0.46, 0.1, 0.05]), np.array([0.0, -0.1, 0.0])
    else:                           # the slab's top face, or the sphere's top, at z = 0
        size = PLATE if kind == "plate" else (CUBE,) * 3
        at = (0.0, 0.0, 0.5 * size[2] - DEPTH)
        V, F = box_mesh(size)
        block_shape = Shape.mesh(V, F, spacing=PLATE_SPACING if kind == "plate" else SPACING)
        slab_centre = np.array([0.0, 0.0, 0.5 if kind == "sphere" else -0.5 * SLAB[2]])
        if kind in ("mesh", "plate"):
            V, F = box_mesh(SLAB)
            slab_shape = Shape.mesh(V + slab_centre, F, cells=32)
            half_slab = 0.5 * np.array(SLAB)
        else:
            slab_shape = Shape.sphere(0.5, center=slab_centre, inverted=True)   # a bowl
            half_slab = None
    m.add_part("block", mass=1.0, inertia=(1.7e-3,) * 3, position=at)
    if contact:
        m.add_contact("touch", "block", "slab", block_shape, slab_shape, stiffness=STIFFNESS,
                      exponent=1.0, restitution=0.5)
    block_centre = np.array(at)
    size = PLATE if kind == "plate" else (CUBE,) * 3

    def exact(points: np.ndarray, on_block: np.ndarray) -> np.ndarray:
        out = np.empty(len(points))
        if half_slab is None:
            out[on_block] = 0.5 - np.linalg.norm(points[on_block] - slab_centre, axis=1)
        else:
            out[on_block] = box_distance(points[on_block] - slab_centre, half_slab)
        out[~on_block] = box_distance(points[~on_block] - block_centre, 0.5 * np.array(size))
        return out
    return m, exact


def rhs_seconds(m: Mechanism, repeat: int) -> float:
    """Median seconds of one right-hand side of ``m`` at its design state."""
    model = compile_model(m)
    st = read_state(model, m)
    eq = Equations(model, structure(model, st.r, st.p))
    y = eq.pack(st.r, st.p, st.v, st.w, 0.0)
    eq.rhs(0.0, y)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        eq.rhs(0.0, y)
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def contact_case(kind: str, repeat: int) -> None:
    """One evaluation of the pair's contact forces, timed, beside a right-hand side."""
    m, exact = block_mechanism(kind, contact=True)
    model = compile_model(m)
    st = read_state(model, m)
    cp = model.forces.contacts
    rg, A, vg, wg = body_arrays(model, st.r, st.p, st.v, st.w)
    ce = contact_forces(cp, rg, A, vg, wg)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        contact_forces(cp, rg, A, vg, wg)
        times.append(time.perf_counter() - t0)
    one = float(np.median(times))
    P = geometry(cp, rg, A, cull=False).P.reshape(-1, 3)
    radius = cp.radius
    want = np.maximum(-(exact(P, cp.on_a) - radius), 0.0)
    depth = np.zeros(cp.n)
    depth[ce.near] = ce.depth                      # the points out of reach: none
    depth_error = float(np.abs(depth - want).max())
    force = float(np.linalg.norm(ce.F, axis=-1).sum())
    wanted = float((cp.stiffness * want).sum())
    bare = rhs_seconds(block_mechanism(kind, contact=False)[0], repeat)
    full = rhs_seconds(m, repeat)
    print(f"{kind:8s} {cp.n:6d} points, {len(ce.near):5d} in reach, "
          f"{int((ce.depth > 0.0).sum()):5d} touching  contact {one * 1e6:8.0f} us  rhs without "
          f"{bare * 1e6:6.0f} us  (contact / rhs {one / bare:6.1f})  rhs with {full * 1e6:8.0f} us"
          f"  | depth error {depth_error:.1e} m, force {force:.4g} N vs {wanted:.4g} "
          f"({abs(force - wanted) / wanted:.1e})")


def geneva_cases(variants: int) -> None:
    """The Geneva sample read from Blender: one solve, and a study of ``variants``."""
    ext = in_blender.extension()
    sys.path.insert(0, os.path.join(HERE, "..", "sample_scenes"))
    import bpy
    geneva = importlib.import_module("geneva")
    geneva.build()
    reader = importlib.import_module(ext.__name__ + ".addon.scene_reader")
    mech = reader.read_scene(bpy.context.scene).mech
    drag = next(n for n in mech.torsion_springs if n.startswith("Wheel axle"))
    fps, duration = 24.0, geneva.SECONDS

    def error(result) -> float:
        turn = [np.unwrap(2 * np.arctan2(result.orientation(n)[:, 3], result.orientation(n)[:, 0]))
                for n in ("Crank", "Wheel")]
        crank = geneva.CRANK_START + turn[0] - turn[0][0]
        wheel = geneva.START + turn[1] - turn[1][0]
        return float(np.degrees(np.abs(wheel - geneva.ideal_wheel_angle(crank)).max()))
    t0 = time.perf_counter()
    r = mech.solve(duration=duration, fps=fps, tolerance=geneva.TOLERANCE)
    single = time.perf_counter() - t0
    print(f"Geneva sample, {duration:g} s at {fps:g} fps: solve {single:.2f} s, {r.steps} steps"
          f"  | wheel's largest error against the closed form {error(r):.2f} deg")
    # the mechanism is the extension's copy of the solver: its own samples
    lhs = importlib.import_module(ext.__name__ + ".solver").latin_hypercube
    samples = lhs({f"{drag}.damping": (2e-3, 2e-2)}, variants, seed=1)
    t0 = time.perf_counter()
    res = mech.study(samples, duration=duration, fps=fps, tolerance=geneva.TOLERANCE)
    whole = time.perf_counter() - t0
    done = [i for i in range(variants) if i not in res.failures]
    worst = max(error(res.result(i)) for i in done)
    steps = sum(res.result(i).steps for i in done)
    study = importlib.import_module(ext.__name__ + ".solver").Study(mech, samples)
    t0 = time.perf_counter()
    alone = {i: study.variant(i).solve(duration=duration, fps=fps, tolerance=geneva.TOLERANCE)
             for i in done}
    apart = time.perf_counter() - t0
    same = sum(np.array_equal(res.result(i)._r, alone[i]._r)
               and np.array_equal(res.result(i)._p, alone[i]._p) for i in done)
    print(f"Geneva study, {variants} variants of the wheel's damping: {whole:.1f} s "
          f"({whole / single:.1f} x one solve), {steps} steps ({steps / r.steps:.1f} x one "
          f"solve's); the variants one by one {apart:.1f} s (study / one by one "
          f"{whole / apart:.2f}) | failed {len(res.failures)}, {same} of {len(done)} bit for "
          f"bit their separate solve, largest error over the variants {worst:.2f} deg")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variants", type=int, default=50)
    parser.add_argument("--quick", action="store_true", help="5 variants, fewer repeats")
    args = parser.parse_args()
    repeat = 20 if args.quick else 200
    for kind in ("mesh", "profile", "sphere", "plate"):
        contact_case(kind, repeat)
    geneva_cases(5 if args.quick else args.variants)


if __name__ == "__main__":
    main()
