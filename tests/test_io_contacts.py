"""addon/io/contact_shapes.py without Blender: a Contact object's shapes from a part's mesh
in the part frame (the primitives fitted to the mesh's bounds, the Floor's plane, a
mirrored mesh's winding) and the errors that name the contact.

Tolerances: the fits are a few additions of the vertices' coordinates, so they are compared
to 1e-12 m (doubles on sizes of order 1)."""
from __future__ import annotations

import numpy as np
import pytest

from test_io_addon import io, solver

cs = io("contact_shapes")
WHAT = "contact 'hit': Shape A, part 'lid'"


def box_mesh(size, centre) -> tuple[np.ndarray, np.ndarray]:
    """A closed box of full edges ``size`` about ``centre``: 8 vertices, 12 triangles wound
    counter-clockwise seen from outside."""
    corners = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    faces = np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])
    return corners * 0.5 * np.asarray(size) + np.asarray(centre), faces


def signed_volume(vertices: np.ndarray, faces: np.ndarray) -> float:
    """The divergence theorem's volume: positive for faces wound outward."""
    a, b, c = (vertices[faces[:, k]] for k in range(3))
    return float(np.einsum("ij,ij->i", a, np.cross(b, c)).sum() / 6.0)


def z_axis(shape) -> np.ndarray:
    """The shape's z axis in the part frame."""
    return solver.quat_to_matrix(shape.orientation) @ np.array([0.0, 0.0, 1.0])


UP = np.array([0.0, 0.0, 1.0])


def test_primitives_are_fitted_to_the_bounds_in_the_part_frame() -> None:
    """A 0.2 x 0.1 x 0.4 box mesh about (1, 2, 3): the Box is its bounds; the Sphere is
    centred in them with half the largest extent; the Cylinder runs along z (the longest)
    with half the larger other extent as radius and the z extent as length; the Capsule's
    length is that less two radii."""
    V, F = box_mesh((0.2, 0.1, 0.4), (1.0, 2.0, 3.0))
    box = cs.fitted_shape("BOX", V, F, UP, 32)
    assert box.kind == "box" and np.allclose(box.params, (0.1, 0.05, 0.2), atol=1e-12)
    assert np.allclose(box.position, (1.0, 2.0, 3.0), atol=1e-12)
    ball = cs.fitted_shape("SPHERE", V, F, UP, 32)
    assert ball.params[0] == pytest.approx(0.2, abs=1e-12)
    assert np.allclose(ball.position, (1.0, 2.0, 3.0), atol=1e-12)
    can = cs.fitted_shape("CYLINDER", V, F, UP, 32)
    assert can.params == pytest.approx((0.1, 0.2), abs=1e-12)     # radius, half length
    assert np.allclose(z_axis(can), (0.0, 0.0, 1.0), atol=1e-12)
    pill = cs.fitted_shape("CAPSULE", V, F, UP, 32)
    assert pill.params == pytest.approx((0.1, 0.1), abs=1e-12)    # radius, half of 0.4 - 0.2
    assert np.allclose(pill.position, (1.0, 2.0, 3.0), atol=1e-12)


@pytest.mark.parametrize("size, axis", [((0.6, 0.1, 0.2), 0), ((0.1, 0.6, 0.2), 1),
                                        ((0.3, 0.3, 0.3), 2), ((0.3, 0.3, 0.1), 1)])
def test_a_cylinder_runs_along_the_longest_extent(size, axis) -> None:
    """Along x, y or z, whichever extent is longest (z, then y, on a tie): its shape z
    axis is that part axis, its radius half the larger of the others."""
    V, F = box_mesh(size, (0.0, 0.0, 0.0))
    can = cs.fitted_shape("CYLINDER", V, F, UP, 32)
    assert np.allclose(np.abs(z_axis(can)), np.eye(3)[axis], atol=1e-12)
    others = [size[k] for k in range(3) if k != axis]
    assert can.params == pytest.approx((0.5 * max(others), 0.5 * size[axis]), abs=1e-12)


def test_a_floor_is_the_plane_through_the_top_along_world_up() -> None:
    """A ground box turned so that world up is the part's (0, sin a, cos a): the Floor's
    normal is that vector and its plane passes through the vertex highest along it."""
    V, F = box_mesh((1.0, 1.0, 0.2), (0.0, 0.0, 0.0))
    a = 0.3
    up = np.array([0.0, np.sin(a), np.cos(a)])
    floor = cs.fitted_shape("FLOOR", V, F, up, 32)
    assert floor.kind == "half-space"
    assert np.allclose(z_axis(floor), up, atol=1e-12)
    assert float(floor.position @ up) == pytest.approx(float((V @ up).max()), abs=1e-12)


def test_mesh_vertices_take_the_stretch_and_a_mirror_keeps_faces_outward() -> None:
    """Local vertices go to the part frame as S @ v times the unit scale; a negative scale
    mirrors the mesh, and its faces are turned so that the volume stays positive (wound
    outward, as Shape.mesh needs)."""
    V, F = box_mesh((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    S = np.diag([2.0, 1.0, 0.5])
    P = cs.part_vertices(V, S, 0.001)
    assert np.allclose(P, V * [0.002, 0.001, 0.0005], atol=1e-15)
    mirror = np.diag([-1.0, 1.0, 1.0])
    M = cs.part_vertices(V, mirror, 1.0)
    assert signed_volume(M, F) < 0.0
    assert signed_volume(M, cs.outward_faces(F, mirror)) == pytest.approx(1.0, abs=1e-12)
    assert np.array_equal(cs.outward_faces(F, S), F)


def test_shape_errors_name_the_contact_and_side() -> None:
    V, F = box_mesh((0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    with pytest.raises(solver.MechanismError, match=f"^{WHAT}: Floor is for a ground part"):
        cs.contact_shape(WHAT, "FLOOR", V, F, UP, 32, ground=False)
    with pytest.raises(solver.MechanismError, match=f"^{WHAT}: the part has no mesh"):
        cs.contact_shape(WHAT, "BOX", None, None, UP, 32, ground=False)
    with pytest.raises(solver.MechanismError, match=f"^{WHAT} mesh: the mesh is not closed"):
        cs.contact_shape(WHAT, "MESH", V, F[1:], UP, 32, ground=False)
    flat = V * [1.0, 1.0, 0.0]
    with pytest.raises(solver.MechanismError, match=f"^{WHAT}: box size must be three positive"):
        cs.contact_shape(WHAT, "BOX", flat, F, UP, 32, ground=False)
    mesh = cs.contact_shape(WHAT, "MESH", V, F, UP, 8, ground=False)
    assert mesh.kind == "mesh" and mesh.grid is not None          # checked and built once


def test_a_mesh_read_again_keeps_its_built_grid() -> None:
    """The same vertices, triangles and cells give the same Shape (its distance grid built
    once: Check, Bake and Drag each read the scene); other numbers a new one; the cache
    holds the last MESH_CACHE_SIZE meshes."""
    V, F = box_mesh((0.1, 0.1, 0.1), (0.0, 0.0, 0.0))
    first = cs.contact_shape(WHAT, "MESH", V, F, UP, 8, ground=False)
    again = cs.contact_shape(WHAT, "MESH", V.copy(), F.copy(), UP, 8, ground=False)
    assert again is first and again.grid is first.grid
    assert cs.contact_shape(WHAT, "MESH", V, F, UP, 9, ground=False) is not first
    assert cs.contact_shape(WHAT, "MESH", V * 1.01, F, UP, 8, ground=False) is not first
    for k in range(cs.MESH_CACHE_SIZE):
        cs.mesh_shape(V + k + 1.0, F, 4)
    assert cs.contact_shape(WHAT, "MESH", V, F, UP, 8, ground=False) is not first
