"""A part's mass from a mesh of several closed shells (solver/base/shells.py): shells apart
and a cavity summed as they are; a shell lying on another (a Mirror modifier without Merge)
left out, the solid's mass exact; shells overlapping said, with the share of the volume
counted twice, against closed forms."""
from __future__ import annotations

import numpy as np
import pytest

from solver.base.mass_properties import mesh_mass_properties
from solver.base.shells import GRID_CELLS, WINDING_BUDGET, vertex_shells, winding_numbers
from test_mass_properties import box, box_inertia, prism, uv_sphere

RTOL = 1e-12        # closed forms summed over a few faces: rounding only


def join(*meshes):
    """One mesh of several: (vertices, faces), each mesh's indices shifted past the last."""
    V, F, offset = [], [], 0
    for v, f in meshes:
        V.append(np.asarray(v, dtype=float))
        F += [[i + offset for i in p] for p in f]
        offset += len(v)
    return np.vstack(V), F


def mirrored(mesh, axis=0):
    """The mesh mirrored across its own plane ``axis`` = 0 with the faces' order reversed to
    keep their normals outward: what Blender's Mirror modifier adds to the original."""
    v, f = mesh
    flip = np.ones(3)
    flip[axis] = -1.0
    return v * flip, [list(reversed(p)) for p in f]


def inside_out(mesh):
    v, f = mesh
    return v, [list(reversed(p)) for p in f]


@pytest.mark.parametrize("axes", [(0,), (0, 1), (0, 1, 2)])
def test_a_mirrored_box_on_its_origin_weighs_one_box(axes) -> None:
    """A 1 x 0.1 x 0.2 box centred on the origin mirrored (merge off) across x, x and y, or
    all three planes: 2, 4, 8 copies of the same box, 10 kg at 500 kg/m^3 (not 20, 40, 80),
    its inertia the box's (m/12 (b^2 + c^2), ...), and the copies said."""
    dims, rho = (1.0, 0.1, 0.2), 500.0
    mesh = box(dims)
    for axis in axes:
        mesh = join(mesh, mirrored(mesh, axis))
    mp = mesh_mass_properties(*mesh, density=rho)
    assert mp.mass == pytest.approx(10.0, rel=RTOL)
    np.testing.assert_allclose(mp.center_of_mass, 0.0, atol=RTOL)
    np.testing.assert_allclose(mp.inertia, box_inertia(10.0, dims), rtol=0, atol=RTOL * 1.0)
    n = 2 ** len(axes) - 1
    assert mp.warnings == (f"{n} shell{'s' if n > 1 else ''} lying on another, the same "
                           "vertices (a copy not moved, or a Mirror modifier without Merge): "
                           "left out",)


def test_shells_apart_and_a_cavity_are_summed_without_a_word() -> None:
    """Two unit cubes 3 m apart weigh 2 m^3 of water; a 2 m cube with a unit cube inside
    it turned inside out (a cavity) weighs 8 - 1 m^3: both right as summed, no warning."""
    apart = mesh_mass_properties(*join(box((1, 1, 1)), box((1, 1, 1), (3, 0, 0))))
    assert apart.volume == pytest.approx(2.0, rel=RTOL) and apart.warnings == ()
    hollow = mesh_mass_properties(*join(box((2, 2, 2)), inside_out(box((1, 1, 1)))))
    assert hollow.volume == pytest.approx(7.0, rel=RTOL) and hollow.warnings == ()


@pytest.mark.parametrize("shift, shared", [((0.5, 0.0, 0.0), 0.5), ((0.5, 0.5, 0.5), 0.125),
                                           ((0.25, -0.75, 0.5), 0.75 * 0.25 * 0.5)])
def test_two_cubes_overlapping_say_the_volume_counted_twice(shift, shared) -> None:
    """Unit cubes, the second moved by ``shift``: they share (1 - |dx|)(1 - |dy|)(1 - |dz|)
    m^3, which the sum of the shells counts twice (volume 2); the warning says that share
    of 2, and of the first cube's 1.  The boxes' intersection is the overlap itself, so
    every grid cell's centre is inside both: the estimate is exact (to 3 digits shown)."""
    mp = mesh_mass_properties(*join(box((1, 1, 1)), box((1, 1, 1), shift)))
    assert mp.volume == pytest.approx(2.0, rel=RTOL)
    assert mp.warnings == (
        f"1 pair of shells overlapping: about {100 * shared / 2:.3g}% of the volume is inside "
        f"two shells and counted twice (the shell of vertex 0 has {100 * shared:.3g}% of its "
        "volume inside that of vertex 8): join them (Boolean modifier, Union), or type the "
        "mass in",)


def shared_percent(warning: str) -> float:
    return float(warning.split("about ")[1].split("%")[0])


def test_a_cylinder_pushed_into_a_plate_says_the_volume_inside_both() -> None:
    """A 32-sided prism (circumradius 0.1, 0.4 long, axis z) pushed 0.05 into a 1 x 1 x
    0.1 plate: they share the polygon's area (32/2 r^2 sin(2 pi/32)) times 0.05.  The grid
    samples the polygon's square in cells of h = 0.2 / cells per axis; only cells within
    h/sqrt(2) of its outline can be misjudged, a band of area at most sqrt(2) h P (P its
    perimeter), whatever their signs: the tolerance."""
    r, depth = 0.1, 0.05
    rod = prism(32, r, 0.4)
    rod = (rod[0] + [0.0, 0.0, 0.05 - depth + 0.2], rod[1])
    mp = mesh_mass_properties(*join(box((1, 1, 0.1)), rod))
    area = 16 * r * r * np.sin(2 * np.pi / 32)
    summed = 0.1 + area * 0.4
    assert mp.volume == pytest.approx(summed, rel=RTOL)
    perimeter = 64 * r * np.sin(np.pi / 32)
    cells = int(np.clip(np.cbrt(WINDING_BUDGET / 136), *GRID_CELLS))   # 136 triangles
    band = np.sqrt(2) * (2 * r / cells) * perimeter * depth
    (warning,) = mp.warnings
    assert shared_percent(warning) == pytest.approx(100 * area * depth / summed,
                                                    abs=100 * band / summed)
    assert warning.endswith("join them (Boolean modifier, Union), or type the mass in")


def test_a_sphere_inside_a_box_is_said_to_lie_inside_it() -> None:
    """A unit UV sphere (16 x 8) joined inside a 3 m cube: all its volume inside the cube's,
    counted twice: about 100% of the sphere's volume is said (to within the grid's band
    around the sphere, as above: sqrt(2) h times its area 4 pi)."""
    sphere = uv_sphere(16, 8)
    alone = mesh_mass_properties(*sphere).volume
    (warning,) = mesh_mass_properties(*join(box((3, 3, 3)), sphere)).warnings
    inside = float(warning.split("has ")[1].split("%")[0])
    cells = int(np.clip(np.cbrt(WINDING_BUDGET / (16 * 8 * 2 - 32 + 12)), *GRID_CELLS))
    band = np.sqrt(2) * (2.0 / cells) * 4 * np.pi
    assert inside == pytest.approx(100.0, abs=100 * band / alone)
    assert "the shell of vertex 8 has" in warning and "inside that of vertex 0" in warning


@pytest.mark.parametrize("seed", range(4))
def test_vertex_shells_finds_each_piece_in_any_vertex_order(seed) -> None:
    """k boxes and spheres joined, their vertices shuffled: k shells, each vertex labelled
    with its own piece's, by the smallest vertex index in it."""
    rng = np.random.default_rng(seed)
    pieces = [box((1, 1, 1), rng.normal(size=3) * 5) if rng.random() < 0.5
              else uv_sphere(8, 4) for _ in range(int(rng.integers(1, 7)))]
    V, F = join(*pieces)
    piece = np.repeat(np.arange(len(pieces)), [len(p[0]) for p in pieces])
    perm = rng.permutation(len(V))                  # new index of each old vertex
    F = [[int(perm[i]) for i in f] for f in F]
    sizes = np.array([len(f) for f in F])
    flat = np.concatenate(F)
    label = vertex_shells(flat, sizes, np.cumsum(sizes) - sizes, len(V))
    old_piece = np.empty(len(V), dtype=int)
    old_piece[perm] = piece
    for k in range(len(pieces)):
        mine = np.flatnonzero(old_piece == k)
        assert np.all(label[mine] == mine.min())


def test_winding_number_is_one_inside_and_zero_outside() -> None:
    """A unit cube's triangles about points inside (1), outside (0), and inside it turned
    inside out (-1): the solid angles sum to 4 pi or 0 (to rounding)."""
    V, F = box((1, 1, 1))
    tris = np.array([[f[0], f[k], f[k + 1]] for f in F for k in (1, 2)])
    A, B, C = V[tris[:, 0]], V[tris[:, 1]], V[tris[:, 2]]
    P = np.array([[0.0, 0.0, 0.0], [0.4, -0.3, 0.2], [2.0, 0.0, 0.0], [0.0, 0.6, 0.0]])
    np.testing.assert_allclose(winding_numbers(P, A, B, C), [1, 1, 0, 0], atol=1e-12)
    np.testing.assert_allclose(winding_numbers(P, A, C, B), [-1, -1, 0, 0], atol=1e-12)


def test_a_shell_inside_out_and_inside_no_other_is_flipped() -> None:
    """A 2 m cube and a unit cube 3 m away turned inside out: the second is no cavity (its
    centre is inside no other shell), so it is flipped: 9 m^3, not 8 - 1, and said; the
    same unit cube inside the 2 m cube stays a cavity (7 m^3); every shell inside out is
    the whole mesh's, flipped as one (9 m^3)."""
    apart = join(box((2, 2, 2)), inside_out(box((1, 1, 1), (3, 0, 0))))
    mp = mesh_mass_properties(*apart)
    assert mp.volume == pytest.approx(9.0, rel=RTOL)
    assert mp.warnings == ("1 shell inside out (negative volume) and inside no other: "
                           "flipped",)
    both = mesh_mass_properties(*join(inside_out(box((2, 2, 2))),
                                      inside_out(box((1, 1, 1), (3, 0, 0)))))
    assert both.volume == pytest.approx(9.0, rel=RTOL)
    assert both.warnings == ("inside-out normals (negative volume): flipped",)


def test_copies_among_many_shells_are_each_left_out_once() -> None:
    """Five boxes of different sizes and places, each twice and one three times, the
    shells in shuffled order: six copies left out, the five boxes' volume exact, and a
    box of the same size elsewhere (no copy) kept."""
    rng = np.random.default_rng(7)
    boxes = [box(rng.uniform(0.5, 1.0, 3), (3.0 * i, 0.0, 0.0)) for i in range(5)]
    pieces = boxes + boxes + [boxes[2], box(boxes[0][0].ptp(axis=0), (0.0, 5.0, 0.0))]
    order = rng.permutation(len(pieces))
    mp = mesh_mass_properties(*join(*[pieces[i] for i in order]))
    exact = sum(np.prod(b[0].ptp(axis=0)) for b in boxes) + np.prod(boxes[0][0].ptp(axis=0))
    assert mp.volume == pytest.approx(exact, rel=RTOL)
    assert mp.warnings == ("6 shells lying on another, the same vertices (a copy not moved, "
                           "or a Mirror modifier without Merge): left out",)
