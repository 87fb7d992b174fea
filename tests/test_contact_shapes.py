"""Contact shapes (vocabulary/contacts.py ``Shape``): the primitives' signed distances
against brute force, a closed mesh's distance grid (exact at its nodes, its interpolant's
own slope), a mesh's closedness, and shapes that make no solid refused."""
from __future__ import annotations

import math

import numpy as np
import pytest

from solver import Mechanism, MechanismError, Shape
from solver.base.sdf_grid import (build_grid, grid_distance, grid_set, open_edge,
                                   point_triangle_distance)
from solver.base.shapes import box_distance, capsule_distance, cylinder_distance, sphere_distance


def cube_mesh(half: float = 0.5) -> tuple[np.ndarray, np.ndarray]:
    """A cube's 8 vertices and 12 triangles wound counter-clockwise seen from outside."""
    V = np.array([[x, y, z] for x in (-half, half) for y in (-half, half) for z in (-half, half)])

    def at(x, y, z):
        return 4 * x + 2 * y + z
    quads = [(at(0, 0, 0), at(0, 1, 0), at(1, 1, 0), at(1, 0, 0)),
             (at(0, 0, 1), at(1, 0, 1), at(1, 1, 1), at(0, 1, 1)),
             (at(0, 0, 0), at(1, 0, 0), at(1, 0, 1), at(0, 0, 1)),
             (at(0, 1, 0), at(0, 1, 1), at(1, 1, 1), at(1, 1, 0)),
             (at(0, 0, 0), at(0, 0, 1), at(0, 1, 1), at(0, 1, 0)),
             (at(1, 0, 0), at(1, 1, 0), at(1, 1, 1), at(1, 0, 1))]
    F = np.array([f for a, b, c, d in quads for f in ((a, b, c), (a, c, d))])
    return V, F


def _brute(surface: np.ndarray, inside: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Signed distance from points x to a densely sampled surface, negative ``inside``."""
    d = np.min(np.linalg.norm(x[:, None] - surface[None], axis=-1), axis=1)
    return np.where(inside, -d, d)


def _grid_surface(n: int = 120) -> np.ndarray:
    u = np.linspace(-1.0, 1.0, n)
    return np.stack(np.meshgrid(u, u, indexing="ij"), -1).reshape(-1, 2)


@pytest.mark.parametrize("kind", ["box", "cylinder", "capsule", "sphere"])
def test_primitive_distances_match_brute_force(kind: str) -> None:
    """Each primitive's signed distance equals the distance to its surface sampled on a
    fine grid (spacing s: the brute force is within s/sqrt(2) above the truth, hence the
    tolerance), with the sign of an inside test; and its gradient is the distance's
    derivative (central differences, 1e-6)."""
    rng = np.random.default_rng(3)
    x = rng.uniform(-0.9, 0.9, (150, 3))
    uv = _grid_surface()
    a, b, c = 0.3, 0.4, 0.5
    if kind == "box":
        params = np.tile([a, b, c], (len(x), 1))
        faces = [np.insert(uv * np.delete([a, b, c], k), k, sgn * [a, b, c][k], axis=1)
                 for k in range(3) for sgn in (-1, 1)]
        surface, inside = np.concatenate(faces), np.all(np.abs(x) < [a, b, c], axis=1)
        fn, step = box_distance, 2 * c / 119
    elif kind == "cylinder":
        params = np.tile([a, c, 0.0], (len(x), 1))
        th, z = np.pi * uv[:, 0], c * uv[:, 1]
        side = np.stack([a * np.cos(th), a * np.sin(th), z], -1)
        disc = uv[np.linalg.norm(uv, axis=1) <= 1.0] * a
        caps = [np.column_stack([disc, np.full(len(disc), s * c)]) for s in (-1, 1)]
        surface = np.concatenate([side] + caps)
        inside = (np.linalg.norm(x[:, :2], axis=1) < a) & (np.abs(x[:, 2]) < c)
        fn, step = cylinder_distance, 2 * math.pi * a / 119
    else:
        R, h = (a, 0.2) if kind == "capsule" else (a, 0.0)
        params = np.tile([R, h, 0.0], (len(x), 1))
        th, ph = np.pi * uv[:, 0], 0.5 * np.pi * uv[:, 1]
        ball = R * np.stack([np.cos(ph) * np.cos(th), np.cos(ph) * np.sin(th), np.sin(ph)], -1)
        lift = np.column_stack([np.zeros((len(ball), 2)), h * np.sign(ball[:, 2])])
        surface = np.concatenate([ball + lift,
                                  np.column_stack([R * np.cos(th), R * np.sin(th), h * uv[:, 1]])])
        near = np.column_stack([np.zeros((len(x), 2)), np.clip(x[:, 2], -h, h)])
        inside = np.linalg.norm(x - near, axis=1) < R
        fn, step = (capsule_distance if kind == "capsule" else sphere_distance), 2 * math.pi * R / 119
    d, g = fn(x, params)
    brute = _brute(surface, inside, x)
    assert np.all(np.abs(d - brute) <= step), np.abs(d - brute).max()
    eps = 1e-6
    fd = np.stack([(fn(x + eps * e, params)[0] - fn(x - eps * e, params)[0]) / (2 * eps)
                   for e in np.eye(3)], -1)
    assert np.abs(fd - g).max() < 1e-6


def test_point_triangle_distance_matches_brute_force() -> None:
    """The closest point by Voronoi regions: within the sampling spacing (1/200 of the
    edges) of the distance to 20,000 points on the triangle, above it by at most that."""
    rng = np.random.default_rng(5)
    a, b, c = np.array([0.0, 0, 0]), np.array([1.0, 0.2, 0]), np.array([0.3, 0.9, 0.1])
    u, v = np.meshgrid(np.linspace(0, 1, 201), np.linspace(0, 1, 201))
    keep = u + v <= 1.0
    pts = a + u[keep, None] * (b - a) + v[keep, None] * (c - a)
    x = rng.uniform(-1.0, 2.0, (200, 3))
    exact = point_triangle_distance(x, a, b, c)
    brute = np.min(np.linalg.norm(x[:, None] - pts[None], axis=-1), axis=1)
    assert np.all(exact <= brute + 1e-12)
    assert np.all(brute - exact < 1.5 / 200)


def test_mesh_grid_gives_the_cube_distance() -> None:
    """A cube mesh's distance grid: exact (to rounding) over the middle of its faces, where
    the distance is linear and trilinear interpolation reproduces it; within a cell of the
    box's distance everywhere nearer than two cells to the surface (edges and corners)."""
    V, F = cube_mesh(0.5)
    grid = build_grid(V, F, cells=32)
    gs = grid_set([grid])
    rng = np.random.default_rng(1)
    x = rng.uniform(-0.6, 0.6, (4000, 3))
    d, g, _ = grid_distance(x, np.zeros(len(x), int), gs)
    exact, ge = box_distance(x, np.full((len(x), 3), 0.5))
    near = np.abs(exact) < 2 * grid.cell
    assert np.abs(d - exact)[near].max() < grid.cell
    face = near & (np.sort(np.abs(x), axis=1)[:, 1] < 0.5 - 3 * grid.cell)
    assert face.sum() > 100
    assert np.abs(d - exact)[face].max() < 1e-9
    assert np.abs(g - ge)[face].max() < 1e-9


def uv_sphere(rings: int = 8, sectors: int = 12, radius: float = 0.05
              ) -> tuple[np.ndarray, np.ndarray]:
    """A closed convex mesh: a UV sphere's vertices (poles and rings) and its triangles,
    wound counter-clockwise seen from outside."""
    th = np.pi * np.arange(1, rings) / rings
    ph = 2 * np.pi * np.arange(sectors) / sectors
    ring = np.stack([np.outer(np.sin(th), np.cos(ph)), np.outer(np.sin(th), np.sin(ph)),
                     np.outer(np.cos(th), np.ones(sectors))], -1).reshape(-1, 3)
    V = radius * np.concatenate([[[0, 0, 1]], ring, [[0, 0, -1]]])
    last, F = len(V) - 1, []
    for j in range(sectors):
        k = (j + 1) % sectors
        F += [(0, 1 + j, 1 + k), (1 + (rings - 2) * sectors + j, last, 1 + (rings - 2) * sectors + k)]
        for i in range(rings - 2):
            a, b = 1 + i * sectors + j, 1 + i * sectors + k
            F += [(a, a + sectors, b + sectors), (a, b + sectors, b)]
    return V, np.array(F)


def test_mesh_grid_is_exact_at_its_nodes() -> None:
    """A UV sphere mesh's grid (12 cells): every node's distance is the brute-force least
    distance to all its triangles (1e-12 m), negative exactly where the node is behind
    every face's plane (the mesh is convex; nodes within 1e-9 m of the surface left out)."""
    V, F = uv_sphere()
    assert open_edge(F) is None
    grid = build_grid(V, F, cells=12)
    axes = [grid.origin[k] + grid.cell * np.arange(grid.dims[k]) for k in range(3)]
    nodes = np.stack(np.meshgrid(*axes, indexing="ij"), -1).reshape(-1, 3)
    a, b, c = (V[F[:, k]] for k in range(3))
    brute = point_triangle_distance(nodes[:, None], a[None], b[None], c[None]).min(axis=1)
    assert np.abs(np.abs(grid.distance) - brute).max() < 1e-12
    normal = np.cross(b - a, c - a)
    behind = np.all(np.einsum("fi,nfi->nf", normal, nodes[:, None] - a[None]) < 0.0, axis=1)
    clear = brute > 1e-9
    assert np.array_equal((grid.distance < 0.0)[clear], behind[clear])
    assert behind.sum() > 100


def test_mesh_grid_slope_is_its_own_derivative() -> None:
    """The third result of grid_distance is the derivative of the interpolated distance
    (central differences of 1e-7 of a cell, inside cells: 1e-6), inside the grid and
    outside its box (where the distance grows along the way out)."""
    V, F = cube_mesh(0.5)
    gs = grid_set([build_grid(V, F, cells=8)])
    rng = np.random.default_rng(2)
    x = rng.uniform(-1.5, 1.5, (400, 3))
    which = np.zeros(len(x), int)
    _, _, slope = grid_distance(x, which, gs)
    eps = 1e-7 * gs.cell[0]
    fd = np.stack([(grid_distance(x + eps * e, which, gs)[0]
                    - grid_distance(x - eps * e, which, gs)[0]) / (2 * eps) for e in np.eye(3)], -1)
    assert np.abs(fd - slope).max() < 1e-6


def test_open_mesh_is_named() -> None:
    """A contact with a mesh that has a face missing, or one turned over, is refused,
    naming the contact, the side and an open edge with its vertices."""
    V, F = cube_mesh()
    m = Mechanism()
    m.add_part("ground", fixed=True)
    m.add_part("lid", mass=1.0)
    for faces in (F[:-1], np.concatenate([F[:-1], F[-1:, ::-1]])):
        with pytest.raises(MechanismError, match=r"contact 'seal': shape_a mesh: the mesh is not "
                                                 r"closed: its edge between vertices \d+"):
            m.add_contact("seal", "lid", "ground", Shape.mesh(V, faces), Shape.half_space())
    assert not m.contacts



def test_bad_shapes_are_named() -> None:
    """Shapes with sizes that make no solid are refused, naming the size."""
    with pytest.raises(MechanismError, match="sphere radius must be positive"):
        Shape.sphere(-0.1)
    with pytest.raises(MechanismError, match="box size must be three positive"):
        Shape.box((0.1, 0.0, 0.1))
    with pytest.raises(MechanismError, match="half-space normal must not be zero"):
        Shape.half_space(normal=(0, 0, 0))
    with pytest.raises(MechanismError, match="cylinder length is NaN"):
        Shape.cylinder(0.1, float("nan"))


def test_a_mesh_grid_takes_the_distances_it_is_given() -> None:
    """Shape.prepare's ``nearest`` (the add-on's BVH tree) gives the grid's distances: the
    solver's own exact distances passed in build the same grid bit for bit, called once
    for all the nodes; distances 1 mm larger give every node's 1 mm larger, the inside
    (ray parity) the same."""
    from solver.base.sdf_grid import mesh_distances
    V, F = cube_mesh(0.5)
    own = Shape.mesh(V, F, cells=8)
    own.prepare("cube")
    calls = []

    def exact(points: np.ndarray) -> np.ndarray:
        calls.append(len(points))
        a, b, c = (V[F[:, k]] for k in range(3))
        return mesh_distances(points, a, b, c)
    given = Shape.mesh(V, F, cells=8)
    given.prepare("cube", exact)
    assert calls == [len(own.grid.distance)]
    np.testing.assert_array_equal(given.grid.distance, own.grid.distance)
    wider = Shape.mesh(V, F, cells=8)
    wider.prepare("cube", lambda p: exact(p) + 1e-3)
    np.testing.assert_allclose(np.abs(wider.grid.distance), np.abs(own.grid.distance) + 1e-3,
                               rtol=0, atol=1e-15)
    off = own.grid.distance != 0.0                      # (a node on the surface: either side)
    assert np.array_equal(np.sign(wider.grid.distance[off]), np.sign(own.grid.distance[off]))


@pytest.mark.parametrize("bad", [lambda p: np.zeros(3), lambda p: -np.ones(len(p)),
                                 lambda p: np.full(len(p), np.nan), lambda p: "far"])
def test_a_distance_function_that_does_not_fit_the_grid_is_named(bad) -> None:
    """A ``nearest`` giving the wrong number of distances, a negative one, a NaN or no
    numbers at all is refused naming the shape, and no grid is kept (a later prepare with
    the solver's own distances builds it)."""
    V, F = cube_mesh(0.5)
    shape = Shape.mesh(V, F, cells=8)
    with pytest.raises(MechanismError, match=r"^lid: the distance function gave"):
        shape.prepare("lid", bad)
    assert shape.grid is None
    shape.prepare("lid")
    assert shape.grid is not None
