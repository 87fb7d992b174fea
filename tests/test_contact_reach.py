"""The contact points' reach (model/contact_model.py ``_reach``; base/sdf_grid.py
``reach_box``, base/shapes.py ``primitive_reach``): the contact kernel evaluates only the
points within it, so a point outside must have a positive gap, whatever the kind of
distance, at the reach's very boundary included; the forces are then the same as with
every point evaluated, and a pair with most of its points far from the other part
evaluates only the few near it.  And in time: a dynamic run's step moves no contact's
sides through each other unseen (analyses/dynamics/touchdown.py ``reach_time``)."""
from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from solver import Mechanism, Shape
from solver.kernels.constraints import body_arrays
from solver.kernels.contact_geometry import in_reach, local_distances
from solver.kernels.contacts import contact_forces, geometry
from solver.model.compile import compile_model
from solver.model.state import read_state
from test_contact import contact_copies
from test_contact_shapes import cube_mesh

SQUARE = [[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]]


def sunk_block(kind: str) -> Mechanism:
    """A free 0.1 m cube (a mesh, points 0.02 m apart on its faces) sunk 1 mm into a
    fixed slab's mesh grid, into a bowl (an inverted sphere), or a square profile's edge
    points sunk into a slab's profile: about a fifth of the points touch."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("slab", fixed=True)
    cube = Shape.mesh(*cube_mesh(0.05), spacing=0.02)
    if kind == "mesh":
        V, F = cube_mesh(0.5)
        slab = Shape.mesh(V * [0.4, 0.4, 0.1] - [0.0, 0.0, 0.05], F, cells=32)
    elif kind == "bowl":
        slab = Shape.sphere(0.5, center=(0.0, 0.0, 0.5), inverted=True)
    else:
        cube = Shape.profile(SQUARE, 0.1, spacing=0.1 / 125, levels=2)
        slab = Shape.profile([[-0.46, -0.2], [0.46, -0.2], [0.46, 0.0], [-0.46, 0.0]], 0.1,
                             spacing=0.2)
    at = (0.0, 0.049, 0.0) if kind == "profile" else (0.0, 0.0, 0.049)
    m.add_part("block", mass=1.0, inertia=(1.7e-3,) * 3, position=at)
    m.add_contact("touch", "block", "slab", cube, slab, stiffness=1e6, exponent=1.0,
                  restitution=0.5, friction=0.3)
    return m


def random_states(m: Mechanism, count: int, seed: int):
    """(model, r, A, v, w) (count, nb+1, ...): the design pose with every body moved by up
    to 20 mm, turned by up to 0.3 rad, and given random speeds (0.5 m/s, 5 rad/s)."""
    model = compile_model(m)
    st = read_state(model, m)
    rng = np.random.default_rng(seed)
    nb = len(st.r)
    r = st.r + rng.uniform(-0.02, 0.02, (count, nb, 3))
    axis = rng.normal(size=(count, nb, 3))
    turn = rng.uniform(0.0, 0.3, (count, nb, 1)) * axis / np.linalg.norm(axis, axis=-1,
                                                                         keepdims=True)
    angle = np.linalg.norm(turn, axis=-1, keepdims=True)
    q = np.concatenate([np.cos(angle / 2), np.sin(angle / 2) * turn / angle], axis=-1)
    p = _quat_product(q, st.p)
    v = rng.uniform(-0.5, 0.5, (count, nb, 3))
    w = rng.uniform(-5.0, 5.0, (count, nb, 3))
    return (model,) + tuple(body_arrays(model, r, p, v, w))


def _quat_product(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Hamilton products a b of (w, x, y, z) quaternions (broadcast)."""
    aw, av = a[..., :1], a[..., 1:]
    bw, bv = b[..., :1], b[..., 1:]
    return np.concatenate([aw * bw - np.sum(av * bv, axis=-1, keepdims=True),
                           aw * bv + bw * av + np.cross(av, bv)], axis=-1)


CASES = [lambda: sunk_block("mesh"), lambda: sunk_block("bowl"), lambda: sunk_block("profile"),
         lambda: contact_copies(1)]


@pytest.mark.parametrize("case", range(len(CASES)))
def test_culled_points_carry_no_force(case: int) -> None:
    """At 40 random poses (the design pose moved and turned, as one stack and one by
    one), every point the kernel leaves out has a positive gap by the exact evaluation of
    every point, and the forces, the stored energy and the damping's power are those of
    every point evaluated: the same per-point numbers, summed in another grouping (1e-12
    of the largest, some hundred roundings of the sums)."""
    model, r, A, v, w = random_states(CASES[case](), 40, seed=case)
    cp = model.forces.contacts
    whole = contact_forces(cp, r, A, v, w, cull=False)
    gap = geometry(cp, r, A, cull=False).gap
    for stack in [slice(None)] + [k for k in range(0, 40, 7)]:
        ce = contact_forces(cp, r[stack], A[stack], v[stack], w[stack])
        out = np.setdiff1d(np.arange(cp.n), ce.near)
        assert np.all(gap[stack][..., out] > 0.0)
        for mine, every in ((ce.Q, whole.Q[stack]), (ce.potential, whole.potential[stack]),
                            (ce.power_nc, whole.power_nc[stack])):
            scale = np.abs(every).max()
            assert np.abs(mine - every).max() <= 1e-12 * scale
    assert np.any(whole.depth > 0.0) and np.any(gap > 0.0)


@pytest.mark.parametrize("case", range(len(CASES)))
def test_a_point_just_outside_its_reach_is_apart(case: int) -> None:
    """Every point put just outside its reach box (each finite face moved out by one
    rounding step, the other coordinates anywhere on the face), a little farther out,
    and for a cavity just inside its inner ball: its distance, by the kernel's own
    distance functions, leaves a positive gap."""
    model = compile_model(CASES[case]())
    cp = model.forces.contacts
    rng = np.random.default_rng(case)
    idx = np.arange(cp.n)
    lo, hi = cp.reach_lo, cp.reach_hi
    finite_lo = np.where(np.isfinite(lo), lo, -1.0)
    finite_hi = np.where(np.isfinite(hi), hi, 1.0)
    has = np.all(lo <= hi, axis=-1)                  # an empty box: nothing reaches
    tried = 0
    for axis in range(3):
        for face, outward in ((lo, -np.inf), (hi, np.inf)):
            for beyond in (0.0, 1e-7, 1e-3):
                x = rng.uniform(finite_lo, finite_hi)
                ok = has & np.isfinite(face[:, axis])
                x[:, axis] = np.nextafter(face[:, axis], outward) + np.sign(outward) * beyond
                x = np.where(ok[:, None], x, 1e3)         # elsewhere: far from everything
                d = local_distances(cp, x, idx)[0]
                assert np.all(d[ok] - cp.radius[ok] > 0.0), (axis, beyond)
                tried += int(ok.sum())
    cavity = cp.reach_inner > 0.0
    if cavity.any():
        u = rng.normal(size=(cp.n, 3))
        u /= np.linalg.norm(u, axis=1, keepdims=True)
        x = u * np.nextafter(cp.reach_inner, 0.0)[:, None] * (1.0 - 1e-15)
        d = local_distances(cp, x, idx)[0]
        assert np.all(d[cavity] - cp.radius[cavity] > 0.0)
        tried += int(cavity.sum())
    assert tried >= cp.n


@pytest.mark.parametrize("kind", ["mesh", "bowl", "profile"])
def test_a_sunk_block_evaluates_only_the_points_near_the_other_part(kind: str) -> None:
    """The cube sunk 1 mm into the slab: its points more than a grid cell and a half (or
    2 mm of a bowl's side) from the other part are out of reach, so the kernel evaluates
    fewer than a third of them, every touching point among them."""
    m = sunk_block(kind)
    model = compile_model(m)
    st = read_state(model, m)
    cp = model.forces.contacts
    rg, A, vg, wg = body_arrays(model, st.r, st.p, st.v, st.w)
    ce = contact_forces(cp, rg, A, vg, wg)
    gap = geometry(cp, rg, A, cull=False).gap
    cell = max([0.0] + [float(c) for grids in (cp.grids, cp.profiles) if grids is not None
                        for c in grids.cell])
    assert len(ce.near) < cp.n / 3
    assert set(np.flatnonzero(gap <= 0.0)) <= set(ce.near)
    assert gap[ce.near].max() <= 1.5 * cell * math.sqrt(3) + 2e-3


@pytest.mark.parametrize("kind", ["mesh", "bowl", "profile"])
def test_a_block_lifted_out_of_reach_looks_up_no_distance(kind: str, monkeypatch) -> None:
    """The sunk block lifted 0.1 m clear (and turned), alone and as a stack of two states:
    no point is within reach, so the kernel looks up no distance (a ball's flight, a pawl
    off its wheel: a third of the ball_drop sample's right-hand sides) and gives what
    every point evaluated gives, exactly: no force, no stored energy, no power (sums of
    zeros), and no points' numbers."""
    import solver.kernels.contacts as kc
    m = sunk_block(kind)
    model, r, A, v, w = random_states(m, 2, seed=3)
    lift = 1 if kind == "profile" else 2                # the block's way out of the slab
    r[..., model.body_part.index("block"), lift] += 0.1
    cp = model.forces.contacts
    whole = contact_forces(cp, r, A, v, w, cull=False)

    def looked_up(*args, **kwargs):
        raise AssertionError("a distance was looked up")
    monkeypatch.setattr(kc, "local_distances", looked_up)
    for stack in (0, 1, slice(None)):
        ce = contact_forces(cp, r[stack], A[stack], v[stack], w[stack])
        assert np.array_equal(ce.Q, whole.Q[stack])
        assert np.array_equal(ce.potential, whole.potential[stack])
        assert np.array_equal(ce.power_nc, whole.power_nc[stack])
        assert len(ce.near) == 0 and ce.depth.shape == np.shape(ce.potential) + (0,)
    assert np.all(whole.gap > 0.0) and np.all(whole.potential == 0.0)


def ring_and_block() -> Mechanism:
    """A fixed ring (a profile: circles of 0.1 m and 0.08 m, 0.02 m thick) and a free
    square profile and mesh cube inside it: the ring's grid has a hole of cells out of
    reach in the middle of its box."""
    m = Mechanism(gravity=(0.0, 0.0, 0.0))
    m.add_part("ground", fixed=True)
    a = 2 * np.pi * np.arange(64) / 64
    circle = np.column_stack([np.cos(a), np.sin(a)])
    ring = Shape.profile([0.1 * circle, 0.08 * circle[::-1]], 0.02)
    m.add_part("ring", fixed=True)
    m.add_part("block", mass=1.0, inertia=(1e-3,) * 3)
    m.add_contact("edge", "block", "ring", Shape.profile(SQUARE, 0.02), ring)
    m.add_part("cube", mass=1.0, inertia=(1e-3,) * 3)
    V, F = cube_mesh(0.5)
    shell = Shape.mesh(np.concatenate([V, 0.6 * V]), np.concatenate([F, F[:, ::-1] + 8]),
                       cells=16)
    m.add_contact("shell", "cube", "ring", Shape.mesh(*cube_mesh(0.02)), shell)
    return m


@pytest.mark.parametrize("case", [0, 2, 3, 4])
def test_a_point_in_a_grid_cell_out_of_reach_is_apart(case: int) -> None:
    """Points of grid contacts put anywhere in and around their grid's box, half of their
    coordinates on the grid's node planes (where a point's cell is decided by rounding):
    every one the reach test leaves out has a positive gap by the kernel's distance; in a
    ring's hole and a hollow cube's cavity some are left out inside the reach box (the
    cells cull, not only the box)."""
    model = compile_model((CASES + [ring_and_block])[case]())
    cp = model.forces.contacts
    rng = np.random.default_rng(10 + case)
    grid = cp.cell_scale[:, 0] > 0.0
    idx = np.arange(cp.n)
    scale = np.where(cp.cell_scale > 0.0, cp.cell_scale, 1.0)
    span = (cp.cell_last + 1.0) / scale                        # the box's size, m
    culled_inside = 0
    for trial in range(30):
        u = rng.uniform(-0.1, 1.1, (cp.n, 3))
        x = cp.cell_origin + u * span
        snap = rng.random((cp.n, 3)) < 0.5
        x = np.where(snap, cp.cell_origin + np.round((x - cp.cell_origin) * scale) / scale, x)
        x[:, 2] = np.where(cp.cell_scale[:, 2] > 0.0, x[:, 2], rng.uniform(-0.06, 0.06, cp.n))
        out = grid & ~in_reach(cp, x)
        d = local_distances(cp, x, idx)[0]
        assert np.all(d[out] - cp.radius[out] > 0.0)
        inside_box = np.all((x >= cp.reach_lo) & (x <= cp.reach_hi), axis=-1)
        culled_inside += int((out & inside_box).sum())
    assert culled_inside > 0 or case < 4



def test_each_shape_s_thickness_is_its_least_extent() -> None:
    """How far another shape may cross a side within one step: its least extent (a mesh's
    and a profile's bounding box's), infinite for a half-space and a bowl."""
    square = np.array([[0.0, 0.0], [0.3, 0.0], [0.3, 0.2], [0.0, 0.2]])
    verts, faces = cube_mesh(0.5)
    got = [Shape.sphere(0.01).thickness(), Shape.box((1.0, 0.4, 0.002)).thickness(),
           Shape.capsule(0.02, 0.5).thickness(), Shape.cylinder(0.3, 0.05).thickness(),
           Shape.profile([square], 0.01).thickness(), Shape.profile([square], 1.0).thickness(),
           Shape.mesh(verts * [1.0, 1.0, 0.1], faces).thickness()]
    assert got == pytest.approx([0.02, 0.002, 0.04, 0.05, 0.01, 0.2, 0.1])
    assert Shape.half_space().thickness() == math.inf
    assert Shape.sphere(0.5, inverted=True).thickness() == math.inf


@pytest.mark.parametrize("speed", [2.0, 10.0, 30.0])
def test_a_ball_does_not_pass_through_a_thin_plate_between_two_steps(speed: float) -> None:
    """A ball of 1 cm radius thrown down at a plate 2 mm thick (frames 42 ms apart: the
    ball moves 8 cm to 1.3 m in a frame-long step) bounces as off a plate 20 cm thick: the
    same rebound speed over impact speed (energy at the frames after it, to 1e-3; the
    Hunt-Crossley law's own ratio for e = 0.5 is 0.47) and never below the plate's top.
    Its steps used to carry it through the plate unseen, and on below."""
    g, ratios = 9.81, []
    for thick in (0.002, 0.2):
        m = Mechanism()
        m.add_part("ground", fixed=True)
        m.add_part("ball", mass=0.1, inertia=(4e-6, 4e-6, 4e-6), position=(0, 0, 0.5),
                   velocity=(0, 0, -speed))
        m.add_contact("hit", "ball", "ground", Shape.sphere(0.01),
                      Shape.box((1.0, 1.0, thick), center=(0, 0, -thick / 2)),
                      restitution=0.5, stiffness=1e7)
        r = m.solve(duration=0.4, fps=24)
        z, vz = r.position("ball")[:, 2], r.velocity("ball")[:, 2]
        assert z.min() > 0.0
        k = int(np.argmax(vz > 0.0))                     # the first frame going up
        ratios.append(math.sqrt(vz[k] ** 2 + 2 * g * (z[k] - 0.01))
                      / math.sqrt(speed ** 2 + 2 * g * 0.49))
    assert ratios[0] == pytest.approx(ratios[1], abs=1e-3)
    assert ratios[0] == pytest.approx(0.47, abs=0.03)


def block_and_rod() -> Mechanism:
    """The sunk mesh block (1,174 points: a plan with clusters) and a free rod (a capsule
    of radius 10 mm along x, its two moving points) lying 1 mm into a fixed box whose top
    is at z = 10 mm."""
    m = sunk_block("mesh")
    m.add_part("table", fixed=True)
    m.add_part("rod", mass=0.5, inertia=(1e-3,) * 3, position=(0.0, 0.3, 0.019))
    along_x = (math.cos(math.pi / 4), 0.0, math.sin(math.pi / 4), 0.0)
    m.add_contact("rod on table", "rod", "table", Shape.capsule(0.01, 0.1, orientation=along_x),
                  Shape.box((0.4, 0.4, 0.02), center=(0.0, 0.3, 0.0)))
    return m


@pytest.mark.parametrize("make", [lambda: sunk_block("mesh"), lambda: sunk_block("profile"),
                                  block_and_rod])
def test_a_many_point_plan_s_clusters_change_no_number(make) -> None:
    """A plan of over CLUSTER_FROM points tests its clusters' balls against the reach
    before its points (model/contact_clusters.py), leaving out most of the points of a
    block sunk at one face: at 40 random poses, as one stack and one by one, the points
    evaluated and every number of the contacts are those of the same plan without
    clusters, bit for bit (the culling changes which points are looked at, no number), a
    capsule's moving points included."""
    from dataclasses import replace
    from solver.kernels.contact_geometry import candidates, side_frames
    from solver.model.contact_clusters import CLUSTER_FROM
    model, r, A, v, w = random_states(make(), 40, seed=11)
    cp = model.forces.contacts
    plain = replace(cp, clusters=None)
    assert cp.n >= CLUSTER_FROM and cp.clusters is not None
    assert len(candidates(cp, side_frames(cp, r[0], A[0]))) < cp.n / 2
    rod = False
    for stack in [slice(None)] + [k for k in range(0, 40, 7)]:
        ce = contact_forces(cp, r[stack], A[stack], v[stack], w[stack])
        ref = contact_forces(plain, r[stack], A[stack], v[stack], w[stack])
        assert np.array_equal(ce.near, ref.near) and len(ce.near)
        rod |= bool(np.any(cp.role[ce.near] != 0))        # a capsule's moving point near
        for mine, every in zip(ce, ref):
            for x, y in zip(mine if isinstance(mine, tuple) else (mine,),
                            every if isinstance(every, tuple) else (every,)):
                assert np.array_equal(x, y)
    assert rod == (make is block_and_rod)


def test_variants_of_a_many_point_contact_stack_into_one_model() -> None:
    """Two variants of the sunk mesh block (a plan with clusters) differing in the
    contact's stiffness stack into one model (a study's lockstep run: study/stack.py), its
    stiffness stacked and its points' clusters the base's (they follow from the points and
    their reach, which the variants share)."""
    from solver.study.stack import stack_models
    models = []
    for k in (1e6, 2e6):
        m = sunk_block("mesh")
        m.contacts["touch"] = dataclasses.replace(m.contacts["touch"], stiffness=k)
        models.append(compile_model(m))
    both = stack_models(models)
    assert both is not None and both.forces.contacts.clusters is models[0].forces.contacts.clusters
    K = both.forces.contacts.stiffness
    assert K.shape[0] == 2 and np.allclose(K[1], 2.0 * K[0], rtol=1e-15)


def test_a_many_point_block_far_away_leaves_out_every_cluster() -> None:
    """The sunk mesh block (a plan with clusters) moved 1 m off, alone and as a stack of
    two states: no cluster's ball meets the reach, so no point is even tested, and the
    kernel gives what every point evaluated gives: no force, no points' numbers."""
    from solver.kernels.contact_geometry import candidates, side_frames
    model, r, A, v, w = random_states(sunk_block("mesh"), 2, seed=5)
    r[..., model.body_part.index("block"), 2] += 1.0
    cp = model.forces.contacts
    assert len(candidates(cp, side_frames(cp, r, A))) == 0
    whole = contact_forces(cp, r, A, v, w, cull=False)
    for stack in (0, 1, slice(None)):
        ce = contact_forces(cp, r[stack], A[stack], v[stack], w[stack])
        assert np.array_equal(ce.Q, whole.Q[stack]) and len(ce.near) == 0
        assert np.array_equal(ce.potential, whole.potential[stack])
