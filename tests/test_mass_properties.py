"""solver.base.mass_properties against closed forms and independent computations.

Tolerances.  The module sums O(10-1000) tetrahedron terms, each a few floating-point
operations on coordinates of the mesh's own size (the reference point is subtracted first),
so results carry a relative error of a few hundred ulps at most (~1e-14).  Closed forms are
therefore checked to 1e-12 relative (100x margin); a wrong coefficient (1/60 vs 1/120, a
missing parallel-axis term, a wrong frame) changes results at O(1) or O(h^2/r^2) and fails
by many orders.  Independent numerical references (scipy ConvexHull volume, a degree-2 exact
tetrahedron quadrature over a hull fan) have the same rounding level: 1e-11.  Polygonal
approximations of a sphere are checked against rigorous geometric bounds (inscribed and
circumscribed balls), not against a fudge factor.
"""
from __future__ import annotations

from collections import Counter

import numpy as np
import pytest
from scipy.spatial import ConvexHull

from solver import MechanismError
from solver.base.mass_properties import MassProperties, mesh_mass_properties, part_frame_from_matrix
from solver.base.rotations import quat_to_matrix

RTOL = 1e-12        # closed forms (module docstring)
RTOL_NUM = 1e-11    # independent numerical references

# Blender's default cube (bpy.ops.mesh.primitive_cube_add): vertex and polygon order.
CUBE_V = np.array([(1, 1, 1), (1, 1, -1), (1, -1, 1), (1, -1, -1),
                   (-1, 1, 1), (-1, 1, -1), (-1, -1, 1), (-1, -1, -1)], dtype=float)
CUBE_F = [(0, 4, 6, 2), (3, 2, 6, 7), (7, 6, 4, 5), (5, 1, 3, 7), (1, 0, 2, 3), (5, 4, 0, 1)]


def box(dims, center=(0.0, 0.0, 0.0)):
    """Blender cube scaled to dims (a, b, c) and moved to center: (vertices, quads)."""
    return CUBE_V * 0.5 * np.asarray(dims) + np.asarray(center), [list(f) for f in CUBE_F]


def box_inertia(mass, dims):
    a, b, c = dims
    return mass / 12.0 * np.diag([b * b + c * c, a * a + c * c, a * a + b * b])


def prism(n, r, h):
    """Regular n-gon prism, axis z, centred at 0: n-gon caps and quad sides (Blender cylinder)."""
    ang = 2 * np.pi * np.arange(n) / n
    ring = np.stack([r * np.cos(ang), r * np.sin(ang)], axis=1)
    V = np.vstack([np.column_stack([ring, np.full(n, -h / 2)]), np.column_stack([ring, np.full(n, h / 2)])])
    F = [list(range(n - 1, -1, -1)), list(range(n, 2 * n))]
    F += [[i, (i + 1) % n, n + (i + 1) % n, n + i] for i in range(n)]
    return V, F


def pyramid(n, r, h):
    """Regular n-gon pyramid (cone): base at z = 0, apex at (0, 0, h)."""
    ang = 2 * np.pi * np.arange(n) / n
    V = np.vstack([np.column_stack([r * np.cos(ang), r * np.sin(ang), np.zeros(n)]), [(0.0, 0.0, h)]])
    F = [list(range(n - 1, -1, -1))] + [[i, (i + 1) % n, n] for i in range(n)]
    return V, F


def uv_sphere(segments, rings, r=1.0):
    """Blender-style UV sphere: poles, rings - 1 latitude rings of `segments` vertices,
    triangle fans at the poles and quads between rings."""
    lon = 2 * np.pi * np.arange(segments) / segments
    lat = np.pi * np.arange(1, rings) / rings
    ring_pts = [np.column_stack([r * np.sin(t) * np.cos(lon), r * np.sin(t) * np.sin(lon),
                                 np.full(segments, r * np.cos(t))]) for t in lat]
    V = np.vstack([[(0.0, 0.0, r)]] + ring_pts + [[(0.0, 0.0, -r)]])
    idx = lambda k, i: 1 + k * segments + i % segments           # noqa: E731
    south = len(V) - 1
    F = [[0, idx(0, i), idx(0, i + 1)] for i in range(segments)]
    F += [[idx(k, i), idx(k + 1, i), idx(k + 1, i + 1), idx(k, i + 1)]
          for k in range(rings - 2) for i in range(segments)]
    F += [[south, idx(rings - 2, i + 1), idx(rings - 2, i)] for i in range(segments)]
    return V, F


def oriented_hull(points):
    """ConvexHull triangles reoriented outward using the hull's facet normals."""
    hull = ConvexHull(points)
    T = hull.simplices.copy()
    P = points[T]
    n = np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])
    flip = np.einsum("ij,ij->i", n, hull.equations[:, :3]) < 0
    T[flip] = T[flip][:, ::-1]
    return hull, T


def quadrature_properties(points, density):
    """Independent reference: the convex hull fanned into tetrahedra from its vertex mean,
    |det| volumes, and the 4-point tetrahedron rule exact for quadratics (Keast 1986)."""
    hull = ConvexHull(points)
    o = points[hull.vertices].mean(axis=0)
    P = points[hull.simplices] - o
    vol6 = np.abs(np.linalg.det(P))                               # (T,)
    alpha, beta = 0.5854101966249685, 0.1381966011250105
    # barycentric weights of the 4 points on (p0, p1, p2); the 4th corner is the origin o
    lam = np.array([[alpha, beta, beta], [beta, alpha, beta], [beta, beta, alpha], [beta, beta, beta]])
    X = np.einsum("qk,tkj->tqj", lam, P)                         # (T, 4 points, 3)
    w = vol6[:, None] / 6.0 / 4.0
    vol = vol6.sum() / 6.0
    first = np.einsum("tq,tqi->i", w, X)
    second = np.einsum("tq,tqi,tqj->ij", w, X, X)
    m = first / vol
    C = second - vol * np.outer(m, m)
    return vol, o + m, density * (np.trace(C) * np.eye(3) - C)


def random_rotation(rng):
    q = rng.normal(size=4)
    return quat_to_matrix(q / np.linalg.norm(q))


def affine(L, t):
    M = np.eye(4)
    M[:3, :3], M[:3, 3] = L, t
    return M


def assert_same(p: MassProperties, q: MassProperties, rtol):
    scale_I = np.abs(q.inertia).max()
    assert p.volume == pytest.approx(q.volume, rel=rtol)
    assert p.mass == pytest.approx(q.mass, rel=rtol)
    np.testing.assert_allclose(p.center_of_mass, q.center_of_mass, rtol=0, atol=rtol * 10)
    np.testing.assert_allclose(p.inertia, q.inertia, rtol=0, atol=rtol * scale_I)


# --------------------------------------------------------------------------- closed forms

def test_box_quads_blender_order():
    dims, center, rho = (0.3, 1.7, 2.9), (0.4, -1.1, 2.3), 7850.0
    V, F = box(dims, center)
    mp = mesh_mass_properties(V, F, density=rho)
    vol = np.prod(dims)
    assert mp.closed and mp.warnings == ()
    assert mp.volume == pytest.approx(vol, rel=RTOL)
    assert mp.mass == pytest.approx(rho * vol, rel=RTOL)
    np.testing.assert_allclose(mp.center_of_mass, center, rtol=RTOL)
    expected = box_inertia(rho * vol, dims)
    np.testing.assert_allclose(mp.inertia, expected, rtol=0, atol=RTOL * expected.max())
    np.testing.assert_array_equal(mp.inertia, mp.inertia.T)


@pytest.mark.parametrize("n", [3, 4, 6, 17, 64])
def test_regular_prism_exact(n):
    """Regular n-gon (circumradius r) x height h.  Area A = n r^2 sin(t) / 2, t = 2 pi / n;
    polar area moment J = sum over the n centre triangles (0, p, q) of
    A_tri/6 (|p|^2 + |q|^2 + p.q) = A r^2 (2 + cos t) / 6, isotropic in-plane for n >= 3.
    So Izz = m r^2 (2 + cos t) / 6 and Ixx = Iyy = m r^2 (2 + cos t) / 12 + m h^2 / 12
    (n -> inf: the cylinder's m r^2 / 2 and m (3 r^2 + h^2) / 12)."""
    r, h, rho = 0.35, 1.3, 2700.0
    V, F = prism(n, r, h)
    mp = mesh_mass_properties(V, F, density=rho)
    t = 2 * np.pi / n
    m = rho * n * r * r * np.sin(t) / 2 * h
    k = (2 + np.cos(t)) * r * r
    expected = np.diag([m * k / 12 + m * h * h / 12, m * k / 12 + m * h * h / 12, m * k / 6])
    assert mp.closed and mp.warnings == ()
    assert mp.mass == pytest.approx(m, rel=RTOL)
    np.testing.assert_allclose(mp.center_of_mass, 0.0, atol=RTOL * r)
    np.testing.assert_allclose(mp.inertia, expected, rtol=0, atol=RTOL * expected.max())


@pytest.mark.parametrize("n", [3, 5, 32])
def test_regular_pyramid_exact(n):
    """Cone over a regular n-gon: V = A h / 3, COM h/4 above the base.  Sections scale by
    (1 - z/h): Izz = rho J h / 5 = m r^2 (2 + cos t) / 10, and
    Ixx = rho (J/2) h / 10 + m (3/80) h^2 = m r^2 (2 + cos t) / 20 + 3 m h^2 / 80
    (n -> inf: the cone's 3 m r^2 / 10 and 3 m r^2 / 20 + 3 m h^2 / 80)."""
    r, h, rho = 0.8, 2.1, 1000.0
    V, F = pyramid(n, r, h)
    mp = mesh_mass_properties(V, F, density=rho)
    t = 2 * np.pi / n
    m = rho * n * r * r * np.sin(t) / 2 * h / 3
    k = (2 + np.cos(t)) * r * r
    ixx = m * k / 20 + 3 * m * h * h / 80
    expected = np.diag([ixx, ixx, m * k / 10])
    assert mp.closed and mp.warnings == ()
    assert mp.mass == pytest.approx(m, rel=RTOL)
    np.testing.assert_allclose(mp.center_of_mass, [0, 0, h / 4], rtol=0, atol=RTOL * h)
    np.testing.assert_allclose(mp.inertia, expected, rtol=0, atol=RTOL * expected.max())


def test_non_convex_l_prism_matches_two_boxes():
    """An L-shaped 6-gon extruded: the fan of a non-convex polygon has negative triangles,
    still exact.  Reference: the union of two boxes via the parallel-axis theorem."""
    pts = [(0, 0), (3, 0), (3, 1), (1, 1), (1, 2), (0, 2)]        # ccw, reflex corner at (1, 1)
    h, rho = 0.5, 1000.0
    V = np.array([(x, y, 0.0) for x, y in pts] + [(x, y, h) for x, y in pts])
    F = [[5, 4, 3, 2, 1, 0], [6, 7, 8, 9, 10, 11]] + [[i, (i + 1) % 6, 6 + (i + 1) % 6, 6 + i] for i in range(6)]
    dims = np.array([(3.0, 1.0, h), (1.0, 1.0, h)])
    centers = np.array([(1.5, 0.5, h / 2), (0.5, 1.5, h / 2)])
    ms = rho * dims.prod(axis=1)
    M = ms.sum()
    com = ms @ centers / M
    inertia = sum(box_inertia(m, d) + m * (np.dot(c - com, c - com) * np.eye(3) - np.outer(c - com, c - com))
                  for m, d, c in zip(ms, dims, centers))
    mp = mesh_mass_properties(V, F, density=rho)
    assert mp.closed and mp.warnings == ()
    assert mp.mass == pytest.approx(M, rel=RTOL)
    np.testing.assert_allclose(mp.center_of_mass, com, rtol=0, atol=RTOL * 3)
    np.testing.assert_allclose(mp.inertia, inertia, rtol=0, atol=RTOL * np.abs(inertia).max())


# --------------------------------------------------------------------------- UV sphere

def test_uv_sphere_matches_convex_hull_and_quadrature():
    """A UV sphere's quads are planar isosceles trapezoids, so the mesh is the convex hull
    of its vertices: scipy's hull volume and an independent hull quadrature must agree."""
    V, F = uv_sphere(32, 16, r=1.3)
    rho = 500.0
    mp = mesh_mass_properties(V, F, density=rho)
    vol, com, inertia = quadrature_properties(V, rho)
    assert mp.closed and mp.warnings == ()
    assert mp.volume == pytest.approx(ConvexHull(V).volume, rel=RTOL_NUM)
    assert mp.volume == pytest.approx(vol, rel=RTOL_NUM)
    np.testing.assert_allclose(mp.center_of_mass, com, rtol=0, atol=RTOL_NUM)
    np.testing.assert_allclose(mp.inertia, inertia, rtol=0, atol=RTOL_NUM * inertia.max())


@pytest.mark.parametrize("segments", [8, 16, 32, 64, 128])
def test_uv_sphere_between_inscribed_and_circumscribed_balls(segments):
    """The inscribed polyhedron contains the ball of radius r_in (nearest face plane) and
    lies in the ball of radius r.  Volume and every axial moment about the centre (= COM by
    symmetry) are monotone in the set: 4/3 pi r_in^3 <= V <= 4/3 pi r^3 and
    8/15 pi rho r_in^5 <= I_ii <= 8/15 pi rho r^5; the band shrinks as O(1/segments^2)."""
    r, rho = 1.0, 1000.0
    V, F = uv_sphere(segments, segments // 2, r)
    r_in = -ConvexHull(V).equations[:, 3].max()
    mp = mesh_mass_properties(V, F, density=rho)
    assert 4 / 3 * np.pi * r_in ** 3 <= mp.volume <= 4 / 3 * np.pi * r ** 3
    diag = np.diag(mp.inertia)
    assert np.all(8 / 15 * np.pi * rho * r_in ** 5 <= diag)
    assert np.all(diag <= 8 / 15 * np.pi * rho * r ** 5)
    np.testing.assert_allclose(mp.center_of_mass, 0.0, atol=1e-14)
    np.testing.assert_allclose(mp.inertia - np.diag(diag), 0.0, atol=RTOL * diag.max())
    assert 1 - r_in <= (np.pi / segments) ** 2                  # faces span 2 pi / n: the band closes


def test_uv_sphere_error_is_second_order():
    """Volume deficit of the inscribed UV sphere halves twice per doubling of resolution."""
    err = []
    for seg in (32, 64, 128):
        mp = mesh_mass_properties(*uv_sphere(seg, seg // 2), density=1.0)
        err.append(4 / 3 * np.pi - mp.volume)
    assert 3.9 < err[0] / err[1] < 4.1 and 3.9 < err[1] / err[2] < 4.1


# --------------------------------------------------------------------------- frames

def test_part_frame_trs():
    rng = np.random.default_rng(7)
    R, s, t = random_rotation(rng), np.array([0.5, 2.0, 3.5]), rng.normal(size=3)
    pos, q, S = part_frame_from_matrix(affine(R * s, t))
    np.testing.assert_allclose(pos, t, rtol=0, atol=1e-15)
    assert q[0] >= 0 and np.linalg.norm(q) == pytest.approx(1.0, abs=1e-15)
    np.testing.assert_allclose(quat_to_matrix(q), R, rtol=0, atol=1e-14)
    np.testing.assert_allclose(S, np.diag(s), rtol=0, atol=1e-14)


def test_part_frame_mirror_follows_blender_decompose():
    """Blender's Matrix.decompose() of scale (-2, 1, 1): rotation 180 deg about x, scale
    (-2, -1, -1).  Ours: R = diag(1, -1, -1), S = diag(-2, -1, -1)."""
    _, q, S = part_frame_from_matrix(affine(np.diag([-2.0, 1.0, 1.0]), np.zeros(3)))
    np.testing.assert_allclose(quat_to_matrix(q), np.diag([1.0, -1.0, -1.0]), atol=1e-15)
    np.testing.assert_allclose(S, np.diag([-2.0, -1.0, -1.0]), atol=1e-15)


def test_box_with_translation_rotation_nonuniform_scale():
    rng = np.random.default_rng(11)
    dims, center, rho = np.array([1.0, 2.0, 0.5]), np.array([0.3, -0.2, 0.7]), 1200.0
    s, R, t = np.array([0.4, 2.5, 1.7]), random_rotation(rng), np.array([3.0, -1.0, 5.0])
    M = affine(R * s, t)
    V, F = box(dims, center)
    mp = mesh_mass_properties(V, F, density=rho, matrix=M)
    wdims = dims * s
    m = rho * np.prod(wdims)
    assert mp.closed and mp.warnings == ()
    assert mp.volume == pytest.approx(np.prod(wdims), rel=RTOL)
    assert mp.mass == pytest.approx(m, rel=RTOL)
    np.testing.assert_allclose(mp.center_of_mass, center, rtol=0, atol=RTOL * 10)
    expected = box_inertia(m, wdims)                              # scaled box in the rotated axes
    np.testing.assert_allclose(mp.inertia, expected, rtol=0, atol=RTOL * expected.max())
    # the same solid given in world coordinates
    Vw = V @ M[:3, :3].T + t
    w = mesh_mass_properties(Vw, F, density=rho)
    np.testing.assert_allclose((M @ np.append(mp.center_of_mass, 1.0))[:3], w.center_of_mass, rtol=0, atol=1e-12 * 10)
    np.testing.assert_allclose(R @ mp.inertia @ R.T, w.inertia, rtol=0, atol=RTOL * expected.max())
    assert w.mass == pytest.approx(mp.mass, rel=RTOL)


@pytest.mark.parametrize("mirror", [False, True])
def test_general_linear_part_with_shear(mirror):
    """General L (shear, optionally a mirror): matrix results agree with the world-vertex
    mesh through L = R S: world COM = matrix @ c_local, I_world = R I R^T; a mirror is not
    an inside-out mesh."""
    rng = np.random.default_rng(3 + mirror)
    L = np.eye(3) + 0.4 * rng.normal(size=(3, 3))
    if (np.linalg.det(L) < 0) != mirror:
        L[:, 0] *= -1
    M = affine(L, rng.normal(size=3) * 10)
    V, F = prism(7, 0.6, 1.1)
    V = V + [0.2, 0.1, -0.3]
    mp = mesh_mass_properties(V, F, density=900.0, matrix=M)
    w = mesh_mass_properties(V @ L.T + M[:3, 3], F, density=900.0)
    _, q, S = part_frame_from_matrix(M)
    R = quat_to_matrix(q)
    np.testing.assert_allclose(R @ S, L, rtol=0, atol=1e-14)
    np.testing.assert_allclose(S, S.T, atol=0)
    assert mp.closed and mp.warnings == ()
    assert mp.mass == pytest.approx(w.mass, rel=RTOL)
    np.testing.assert_allclose((M @ np.append(mp.center_of_mass, 1.0))[:3], w.center_of_mass, rtol=0, atol=1e-12 * 10)
    np.testing.assert_allclose(R @ mp.inertia @ R.T, w.inertia, rtol=0, atol=RTOL * np.abs(w.inertia).max())
    # the world-vertex mesh of a mirrored object is inside out; the matrix path knows better
    assert w.warnings == (("inside-out normals (negative volume): flipped",) if mirror else ())


def test_far_from_origin_keeps_accuracy():
    """A 1 x 2 x 3 box at 1e4: about the world origin its second moments are ~1e8 times its
    inertia, so without subtracting a nearby reference point ~1e-8 relative would be lost."""
    dims, rho = (1.0, 2.0, 3.0), 1000.0
    center = np.array([1e4, -1e4, 1e4])
    R = random_rotation(np.random.default_rng(5))
    V, F = box(dims)
    mp = mesh_mass_properties(V @ R.T + center, F, density=rho)
    m = rho * 6.0
    expected = R @ box_inertia(m, dims) @ R.T
    assert mp.mass == pytest.approx(m, rel=1e-9)
    np.testing.assert_allclose(mp.center_of_mass - center, 0.0, atol=1e-9 * 3)
    np.testing.assert_allclose(mp.inertia, expected, rtol=0, atol=1e-9 * expected.max())


# --------------------------------------------------------------------------- face input

def test_triangles_equal_quads():
    V, F = box((0.7, 1.1, 2.3), (1.0, 2.0, -0.5))
    tri_a = np.array([t for f in F for t in ((f[0], f[1], f[2]), (f[0], f[2], f[3]))])
    tri_b = np.array([t for f in F for t in ((f[1], f[2], f[3]), (f[1], f[3], f[0]))])  # other diagonal
    q = mesh_mass_properties(V, F)
    for T in (tri_a, tri_b):
        assert T.dtype.kind == "i" and T.shape == (12, 3)
        p = mesh_mass_properties(V, T)
        assert p.closed and p.warnings == ()
        assert_same(p, q, 1e-13)


def test_mixed_polygon_sizes_equal_triangulated():
    """Prism: two 9-gons and nine quads in one ragged list, against an (m, 3) array whose
    caps are fanned from a different corner."""
    V, F = prism(9, 0.5, 0.8)
    assert sorted({len(f) for f in F}) == [4, 9]
    tris = []
    for f in F:
        g = f[4:] + f[:4] if len(f) == 9 else f
        tris += [(g[0], g[k], g[k + 1]) for k in range(1, len(g) - 1)]
    assert_same(mesh_mass_properties(V, np.array(tris)), mesh_mass_properties(V, F), 1e-13)
    assert_same(mesh_mass_properties(V, tuple(tuple(f) for f in F)), mesh_mass_properties(V, F), 0)


def test_corners_with_polygon_sizes_equal_the_ragged_list():
    """Every polygon's corners one polygon after another with their counts (how Blender
    stores a mesh's loops) give the ragged list's numbers bit for bit."""
    V, F = prism(9, 0.5, 0.8)
    flat = np.array([i for f in F for i in f], dtype=np.int32)
    sizes = np.array([len(f) for f in F], dtype=np.int32)
    assert_same(mesh_mass_properties(V, flat, polygon_sizes=sizes), mesh_mass_properties(V, F), 0)
    with pytest.raises(ValueError, match="add up to"):
        mesh_mass_properties(V, flat[:-1], polygon_sizes=sizes)
    with pytest.raises(ValueError, match=">= 3"):
        mesh_mass_properties(V, flat, polygon_sizes=np.r_[sizes[:-1], 2, sizes[-1] - 2])
    with pytest.raises(ValueError, match="integers"):
        mesh_mass_properties(V, flat.astype(float), polygon_sizes=sizes)


# --------------------------------------------------------------------------- mesh problems

def test_inside_out_is_flipped_with_warning():
    V, F = box((1.0, 2.0, 3.0), (0.5, 0.5, 0.5))
    good = mesh_mass_properties(V, F)
    bad = mesh_mass_properties(V, [f[::-1] for f in F])
    assert bad.warnings == ("inside-out normals (negative volume): flipped",)
    assert bad.closed
    assert bad.volume > 0
    assert_same(bad, good, 1e-14)


def test_open_mesh():
    V, F = box((1.0, 2.0, 3.0))
    mp = mesh_mass_properties(V, F[1:])
    assert not mp.closed
    assert mp.warnings == ("open mesh: 4 boundary edges",)


def test_non_manifold_duplicate_face():
    V, F = box((1.0, 2.0, 3.0))
    mp = mesh_mass_properties(V, F + [F[2]])
    assert not mp.closed
    assert "non-manifold: 4 edges shared by more than two faces" in mp.warnings


def test_inconsistent_orientation():
    V, F = box((1.0, 2.0, 3.0))
    F[3] = F[3][::-1]
    mp = mesh_mass_properties(V, F)
    assert not mp.closed
    assert mp.warnings == ("inconsistent face orientation: 4 edges joining faces of opposite orientation",)


def edge_verdict(F):
    """(closed, open edges, edges in more than two faces, edges joining faces of opposite
    orientation) counted edge by edge, the definition the vectorized check implements."""
    uses = Counter((f[k], f[(k + 1) % len(f)]) for f in F for k in range(len(f))
                   if f[k] != f[(k + 1) % len(f)])
    edges = Counter()
    for (u, v), n in uses.items():
        edges[min(u, v), max(u, v)] += n
    n_open = sum(1 for n in edges.values() if n == 1)
    n_multi = sum(1 for n in edges.values() if n > 2)
    n_flip = sum(1 for e, n in edges.items() if n == 2 and uses[e] != 1)
    return not (n_open or n_multi or n_flip), n_open, n_multi, n_flip


@pytest.mark.parametrize("seed", range(12))
def test_edge_check_matches_counting_edge_by_edge(seed):
    """A UV sphere's faces dropped, repeated, reversed, or a corner repeated, at random:
    the mesh's verdict (closed, and each warning's count) is the one counted edge by edge,
    whether it takes the closed surface's shortcut (every edge once each way) or not."""
    rng = np.random.default_rng(seed)
    V, F = uv_sphere(8, 5)
    F = [list(f) for f in F]
    for _ in range(int(rng.integers(0, 3))):
        k = int(rng.integers(len(F)))
        change = int(rng.integers(4))
        if change == 0:
            F.pop(k)
        elif change == 1:
            F.append(list(F[k]))
        elif change == 2:
            F[k] = F[k][::-1]
        else:
            F[k].insert(1, F[k][0])
    closed, n_open, n_multi, n_flip = edge_verdict(F)
    mp = mesh_mass_properties(V, F)
    assert mp.closed == closed
    said = dict(w.split(": ")[:2] for w in mp.warnings if ": " in w)
    assert int(said.get("open mesh", "0 ").split()[0]) == n_open
    assert int(said.get("non-manifold", "0 ").split()[0]) == n_multi
    assert int(said.get("inconsistent face orientation", "0 ").split()[0]) == n_flip


def test_zero_volume():
    """A double-sided square: closed and consistently oriented, but flat."""
    V = np.array([(0, 0, 0), (1, 0, 0), (1, 1, 0), (0, 1, 0)], dtype=float)
    mp = mesh_mass_properties(V, [(0, 1, 2, 3), (3, 2, 1, 0)])
    assert mp.closed and mp.warnings == ("zero volume",)
    assert mp.mass == 0.0 and mp.volume == 0.0
    np.testing.assert_array_equal(mp.inertia, 0.0)
    np.testing.assert_allclose(mp.center_of_mass, [0.5, 0.5, 0.0])


# --------------------------------------------------------------------------- random hulls

@pytest.mark.parametrize("seed", range(6))
def test_random_convex_hull(seed):
    rng = np.random.default_rng(seed)
    pts = rng.normal(size=(int(rng.integers(8, 200)), 3)) * rng.uniform(0.1, 3.0, size=3) + rng.normal(size=3)
    hull, T = oriented_hull(pts)
    rho = 1000.0
    mp = mesh_mass_properties(pts, T, density=rho)
    vol, com, inertia = quadrature_properties(pts, rho)
    assert mp.closed and mp.warnings == ()
    assert mp.volume == pytest.approx(hull.volume, rel=RTOL_NUM)
    assert mp.volume == pytest.approx(vol, rel=RTOL_NUM)
    np.testing.assert_allclose(mp.center_of_mass, com, rtol=0, atol=RTOL_NUM * np.ptp(pts))
    np.testing.assert_allclose(mp.inertia, inertia, rtol=0, atol=RTOL_NUM * inertia.max())
    np.testing.assert_array_equal(mp.inertia, mp.inertia.T)
    ev = np.linalg.eigvalsh(mp.inertia)                          # ascending I1 <= I2 <= I3
    assert ev[0] > 0
    assert ev[0] + ev[1] > ev[2]                                 # = 2 rho int x3^2 dV > 0 in principal axes


# --------------------------------------------------------------------------- input errors

@pytest.mark.parametrize("density", [0.0, -1.0, np.nan, np.inf])
def test_bad_density(density):
    with pytest.raises(ValueError, match="density"):
        mesh_mass_properties(*box((1, 1, 1)), density=density)


def test_bad_input_is_a_mechanism_error():
    """The reference's promise: bad input is a MechanismError (a ValueError), here too,
    text where numbers belong included."""
    V, F = box((1, 1, 1))
    for call in (lambda: mesh_mass_properties(V, []), lambda: mesh_mass_properties("cube", F),
                 lambda: mesh_mass_properties(V, F, density="oak"),
                 lambda: part_frame_from_matrix(np.zeros((3, 3)))):
        with pytest.raises(MechanismError):
            call()


def test_bad_input():
    V, F = box((1, 1, 1))
    W = V.copy()
    W[3, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        mesh_mass_properties(W, F)
    with pytest.raises(ValueError, match="at least 4 vertices"):
        mesh_mass_properties(V[:3], [(0, 1, 2)])
    with pytest.raises(ValueError, match="no faces"):
        mesh_mass_properties(V, [])
    with pytest.raises(ValueError, match=r"shape \(n, 3\)"):
        mesh_mass_properties(V[:, :2], F)
    with pytest.raises(ValueError, match="indices"):
        mesh_mass_properties(V, F + [(0, 1, 8)])
    with pytest.raises(ValueError, match=">= 3"):
        mesh_mass_properties(V, F + [(0, 1)])
    with pytest.raises(ValueError, match="zero"):
        mesh_mass_properties(V, F, matrix=affine(np.diag([1.0, 0.0, 1.0]), np.zeros(3)))
    with pytest.raises(ValueError, match="affine"):
        mesh_mass_properties(V, F, matrix=np.ones((4, 4)))
    with pytest.raises(ValueError, match="4x4"):
        part_frame_from_matrix(np.eye(3))
