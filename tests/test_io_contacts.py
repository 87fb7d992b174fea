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


# -- clash detection: a kinematic bake's contacts driven into each other

clashes = io("clashes")


def test_a_clash_is_named_by_its_first_and_deepest_frames() -> None:
    """A gap dipping below zero over frames 12-14 of 10-16 (rows 2-4), deepest -3 mm at
    frame 13: the note names the contact, its parts, the first frame, the count and the
    deepest frame and depth as ``length`` writes it; a gap within the tolerance of 0 (parts
    designed touching, read through float32) is no clash."""
    frames = np.arange(10.0, 17.0)
    gap = np.array([0.01, 0.0, -0.001, -0.003, -0.002, 0.0, 0.004])
    found = clashes.find_clash(gap, 1e-9)
    assert (found.first, found.deepest, found.count) == (2, 3, 3)
    assert found.depth == pytest.approx(0.003, abs=1e-15)
    note = clashes.clash_note("c", "arm", "post", gap, frames, 1e-9, lambda m: f"{m * 1000:g} mm")
    assert note.startswith("contact 'c': parts 'arm' and 'post' overlap from frame 12 "
                           "(3 frame(s)), deepest 3 mm at frame 13"), note
    touching = np.array([1e-3, -3e-8, 0.0])
    assert clashes.find_clash(touching, clashes.clash_tolerance(0.5)) is None
    assert clashes.find_clash(touching, 0.0) is not None
    assert clashes.clash_tolerance(0.5) == pytest.approx(0.5 * 2.0 ** -20)


def test_a_contacts_arrow_point_is_the_centroid_while_touching_else_the_closest() -> None:
    """Result.contact's centroid (NaN apart) where the parts touch, Result.interference's
    point of closest approach where they do not."""
    plots = io("plots")
    hit = {"point": np.array([[np.nan] * 3, [1.0, 2.0, 3.0]])}
    near = {"point": np.array([[4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])}
    np.testing.assert_array_equal(plots.contact_points(hit, near), [[4.0, 5.0, 6.0], [1.0, 2.0, 3.0]])
    # baked (replaced by a re-bake, removed by Clear Bake) but not among Plot's curves
    assert not any(plots.is_plot_channel(f'["{p}"]') for p in plots.CONTACT_POINT_PROPS)
    assert all(plots.is_baked_channel(f'["{p}"]') for p in plots.BAKED_PROPS)
    assert plots.is_plot_channel('["contact_gap"]')


def test_a_contact_arrow_starts_at_its_point_in_blender_units() -> None:
    """A contact's arrow starts at its baked point (m) over the Unit Scale and points along
    its force at ARROW_SCALE Blender units per newton; nothing for a contact not baked or
    with a NaN."""
    arrows = io("arrows")
    props = dict(zip(arrows.CONTACT_FORCE + arrows.CONTACT_POINT, (0.0, 0.0, 50.0, 0.01, 0.02, -0.003)))
    origin, force = arrows.contact_arrow(props, 0.001)
    np.testing.assert_allclose(origin, [10.0, 20.0, -3.0], rtol=1e-15)
    lines = arrows.force_arrows([origin], [force])
    np.testing.assert_allclose(lines[:2], [[10.0, 20.0, -3.0], [10.0, 20.0, -3.0 + 50.0 * arrows.ARROW_SCALE]],
                               rtol=1e-6)                        # float32 vertices
    assert arrows.contact_arrow({k: v for k, v in props.items() if "point" not in k}, 1.0) is None
    assert arrows.contact_arrow({**props, "part_contact_point_y": float("nan")}, 1.0) is None


# -- a Mesh side's checks: open edges where the user finds them, a grid too coarse

checks = io("mesh_checks")


def test_open_edges_are_a_holes_border_and_a_flipped_faces_edges() -> None:
    """A closed box has none; one triangle removed leaves its three edges open; one
    triangle turned over makes its three edges run the same way as its neighbours'.  The
    refusal names the contact, how many, the first edge's vertex numbers and world
    positions, and the remedies."""
    V, F = box_mesh((1.0, 1.0, 1.0), (0.0, 0.0, 0.0))
    assert checks.open_edges(F).shape == (0, 2)
    assert {tuple(sorted(e)) for e in checks.open_edges(F[1:])} == \
        {tuple(sorted(e)) for e in (F[0, [0, 1]], F[0, [1, 2]], F[0, [2, 0]])}
    flipped = F.copy()
    flipped[0] = flipped[0, ::-1]
    assert len(checks.open_edges(flipped)) == 6          # its 3 edges and their neighbours'
    checks.refuse_open_mesh(WHAT, F, V)                  # closed: nothing said
    world = V + np.array([10.0, 0.0, 0.0])
    i, j = (int(x) for x in checks.open_edges(F[1:])[0])
    with pytest.raises(solver.MechanismError) as err:
        checks.refuse_open_mesh(WHAT, F[1:], world)
    text = str(err.value)
    assert text.startswith(f"{WHAT}: the mesh is not closed: 3 edge(s) are open or wound "
                           f"against a neighbour, the first between vertices {i} at "), text
    at = lambda k: "(" + ", ".join(f"{x:.4g}" for x in world[k]) + ")"      # noqa: E731
    assert f"{i} at {at(i)} and {j} at {at(j)} (world)" in text
    assert "Non Manifold" in text and "Fill Holes" in text and "fitted shape" in text


def test_a_plate_thinner_than_two_cells_is_named_with_the_cells_that_see_it() -> None:
    """A plate 1 x 0.4 x 0.02 m: its thinnest part is 0.02 m (from a broad face's centroid
    to the opposite face, exactly), so its grid of 32 cells (0.03125 m) is too coarse and
    100 cells (0.01 m, half the thickness) will do.  The criterion is the solver's own
    grid: at 32 cells its mid-plane reads outside the plate (d >= 0: a point pushed there
    feels nothing), at 100 it reads inside (-0.01 m, 1e-3: trilinear between exact nodes)."""
    from mechanism_animator.solver.base.sdf_grid import grid_distance, grid_set
    V, F = box_mesh((1.0, 0.4, 0.02), (0.0, 0.0, 0.0))
    thin = checks.thinnest(V, F)
    assert thin.thickness == pytest.approx(0.02, abs=1e-12)
    assert abs(thin.where[2]) == pytest.approx(0.01, abs=1e-12)
    assert checks.cells_needed(1.0, 0.02) == 100
    note = checks.coarse_grid_note("contact 'c': Shape A, part 'plate'", V, F, 32, lambda m: f"{m:g} m")
    assert note == ("contact 'c': Shape A, part 'plate': its thinnest part, 0.02 m, is under two "
                    "grid cells of 0.03125 m (Grid Cells 32): points pushed into it may feel no "
                    "force; Grid Cells 100 (cells of 0.01 m) would follow it")
    assert checks.coarse_grid_note("c", V, F, 100, str) is None
    assert "even Grid Cells 256 would not" in checks.coarse_grid_note(
        "c", *box_mesh((1.0, 0.4, 0.005), (0.0, 0.0, 0.0)), 32, str)
    mid = np.array([[0.1, 0.05, 0.0]])
    for cells, inside in ((32, False), (100, True)):
        shape = solver.Shape.mesh(V, F, cells=cells)
        shape.prepare("plate")
        d = grid_distance(mid, np.zeros(1, int), grid_set([shape.grid]))[0][0]
        assert (d < 0.0) == inside, (cells, d)
    assert d == pytest.approx(-0.01, abs=1e-3)


def fan_prism(outline: np.ndarray, lo: float, hi: float, twist: int = 0
              ) -> tuple[np.ndarray, np.ndarray]:
    """A prism from z = lo to hi over the counter-clockwise ``outline`` (k, 2), each cap a
    fan of triangles about a centre vertex (as sample_scenes/ratchet.py builds its
    wheel), the walls joining top vertex i to bottom vertices i + twist and i + 1 + twist
    (``twist`` 0: upright walls)."""
    n = len(outline)
    V = np.concatenate([np.column_stack([outline, np.full(n, hi)]),
                        np.column_stack([outline, np.full(n, lo)]),
                        [[*outline.mean(axis=0), hi], [*outline.mean(axis=0), lo]]])
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces += [(2 * n, i, j), (2 * n + 1, n + j, n + i)]
        bi, bj = n + (i + twist) % n, n + (j + twist) % n
        faces += [(i, bi, bj), (i, bj, j)]
    return V, np.array(faces)


def test_a_prism_mesh_is_read_as_its_outline_and_a_leaning_one_is_named() -> None:
    """A hexagon prism from z = -0.01 to 0.03 with fan caps: the Profile is the hexagon
    (the fans' centres are inside the caps, not on the outline), 0.04 thick, centred at
    z = 0.01; Auto resolves it to Profile.  The same vertices with the walls joined one
    vertex round (every wall leaning, the outlines the same) is refused naming how far
    a side leans over the thickness; Auto then resolves it to Mesh."""
    cp = io("contact_profiles")
    t = np.arange(6) * np.pi / 3
    hexagon = 0.05 * np.column_stack([np.cos(t), np.sin(t)])
    V, F = fan_prism(hexagon, -0.01, 0.03)
    loops, lo, hi = cp.prism_outline(V, F, WHAT)
    (loop,) = loops
    assert len(loop) == 6 and (lo, hi) == (-0.01, 0.03)
    assert np.abs(loop[:, None, :] - hexagon[None]).sum(axis=2).min(axis=1).max() == 0.0
    assert cs.resolved_kind("AUTO", V, F) == "PROFILE"
    shape = cs.contact_shape(WHAT, "PROFILE", V, F, UP, 32, ground=False)
    assert shape.kind == "profile" and shape.params[0] == pytest.approx(0.02, abs=1e-15)
    np.testing.assert_allclose(shape.position, [0.0, 0.0, 0.01], atol=1e-15)
    V, F = fan_prism(hexagon, -0.01, 0.03, twist=1)
    with pytest.raises(solver.MechanismError, match=r"contact 'hit': Shape A, part 'lid': "
                                                    r"not a prism along the part's z: a side "
                                                    r"leans [0-9.]+ m"):
        cs.contact_shape(WHAT, "PROFILE", V, F, UP, 32, ground=False)
    assert cs.resolved_kind("AUTO", V, F) == "MESH"


def test_auto_takes_a_box_as_a_box_and_a_turned_or_open_one_as_it_is() -> None:
    """A box 0.2 x 0.1 x 0.05 off the origin (float32 vertices, as Blender stores them),
    and the same box cut in two across x (12 vertices, the cut's triangles in the faces),
    resolve to Box, fitted to their bounds: read as a Profile its flat ends would carry no
    points.  Turned 30 deg about z in the part frame it is another prism (Profile); with
    its top's two triangles taken away (open) it is no box; a hexagon prism stays a
    Profile."""
    size, centre = np.array([0.2, 0.1, 0.05]), np.array([0.3, -0.1, 0.2])
    unit = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
    V = (unit * size + centre).astype(np.float32).astype(float)
    F = box_triangles(V)
    assert cs.is_box(V, F) and cs.resolved_kind("AUTO", V, F) == "BOX"
    shape = cs.contact_shape(WHAT, "BOX", V, F, UP, 32, ground=False)
    np.testing.assert_allclose(shape.params, size / 2, rtol=1e-6)
    np.testing.assert_allclose(shape.position, centre, atol=1e-7)
    halves = np.vstack([V, (V[[0, 1, 2, 3]] + V[[4, 5, 6, 7]]) / 2])      # 8..11 at x = 0.3
    left = box_triangles(halves[[0, 1, 2, 3, 8, 9, 10, 11]])
    right = box_triangles(halves[[8, 9, 10, 11, 4, 5, 6, 7]])
    inner = np.all(np.isin(left, [4, 5, 6, 7]), axis=1)                 # the cut's own face
    outer = ~np.all(np.isin(right, [0, 1, 2, 3]), axis=1)
    cut = np.vstack([np.array([0, 1, 2, 3, 8, 9, 10, 11])[left[~inner]],
                     np.array([8, 9, 10, 11, 4, 5, 6, 7])[right[outer]]])
    assert len(cut) == 20 and cs.resolved_kind("AUTO", halves, cut) == "BOX"
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    turned = (V - centre) @ np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]]).T
    assert not cs.is_box(turned, F) and cs.resolved_kind("AUTO", turned, F) == "PROFILE"
    top = np.all(np.isclose(V[F][:, :, 2], V[:, 2].max()), axis=1)
    assert not cs.is_box(V, F[~top])
    t = np.arange(6) * np.pi / 3
    V6, F6 = fan_prism(0.05 * np.column_stack([np.cos(t), np.sin(t)]), -0.01, 0.03)
    assert not cs.is_box(V6, F6) and cs.resolved_kind("AUTO", V6, F6) == "PROFILE"


def test_a_profile_on_its_end_on_a_floor_sinks_half_its_thickness_over_levels() -> None:
    """A square Profile 0.04 thick with 2 levels: its lowest points stand 0.01 above its
    end face, so upright on a Floor (its axis along the Floor's normal, either way) it sinks
    0.01 m, tilted 30 deg that times cos 30 deg; tilted past 45 deg (on its side, as a
    rolling wheel) it stands on its side, not its end: 0."""
    square = np.array([[-0.05, -0.05], [0.05, -0.05], [0.05, 0.05], [-0.05, 0.05]])
    profile = solver.Shape.profile(square, 0.04, levels=2)
    floor = solver.Shape.half_space((0.0, 0.0, 0.0), (0.0, 0.0, 1.0))
    about_x = lambda a: np.array([[1.0, 0.0, 0.0], [0.0, np.cos(a), -np.sin(a)],    # noqa: E731
                                  [0.0, np.sin(a), np.cos(a)]])
    assert cs.end_sink(profile, np.eye(3), floor, np.eye(3)) == pytest.approx(0.01, rel=1e-12)
    assert cs.end_sink(profile, about_x(np.pi), floor, np.eye(3)) == pytest.approx(0.01, rel=1e-12)
    assert cs.end_sink(profile, about_x(np.pi / 6), floor, np.eye(3)) == pytest.approx(
        0.01 * np.cos(np.pi / 6), rel=1e-12)
    assert cs.end_sink(profile, about_x(np.radians(50.0)), floor, np.eye(3)) == 0.0
    assert cs.end_sink(profile, about_x(np.pi / 2), floor, np.eye(3)) == 0.0
    assert cs.end_sink(profile, np.eye(3), floor, about_x(np.pi / 2)) == 0.0      # a wall


def test_contacts_sharing_a_pair_of_parts_are_noted_once_per_pair() -> None:
    """Two contacts on ball and floor (either way round) make one note naming both; a
    contact on another pair, alone, none."""
    notes = cs.shared_pair_notes([("c1", "ball", "floor"), ("c2", "floor", "ball"),
                                  ("c3", "ball", "wall")])
    assert notes == ["contacts 'c1', 'c2' all join parts 'ball' and 'floor': their forces add "
                     "(each its own stiffness, each baked force a share): keep one, or delete "
                     "the others"]
    assert cs.shared_pair_notes([("c1", "ball", "floor")]) == []


def uv_sphere_vertices(radius: float, segments: int = 32, rings: int = 16) -> np.ndarray:
    """(n, 3) a UV sphere's vertices (as Blender's primitive places them), centre 0."""
    polar = np.pi * np.arange(1, rings) / rings
    azimuth = 2 * np.pi * np.arange(segments) / segments
    P, A = np.meshgrid(polar, azimuth, indexing="ij")
    ring = np.column_stack([(np.sin(P) * np.cos(A)).ravel(), (np.sin(P) * np.sin(A)).ravel(),
                            np.cos(P).ravel()])
    return radius * np.vstack([[0.0, 0.0, 1.0], ring, [0.0, 0.0, -1.0]])


def uv_sphere_triangles(segments: int = 32, rings: int = 16) -> np.ndarray:
    """(f, 3) the triangles of ``uv_sphere_vertices``' surface: fans at the poles, each
    quad between two rings split in two."""
    ring = lambda k: 1 + (k * segments) + np.arange(segments)          # noqa: E731
    nxt = lambda i: np.roll(i, -1)                                     # noqa: E731
    top, bottom = 0, 1 + (rings - 1) * segments
    F = [np.column_stack([np.full(segments, top), ring(0), nxt(ring(0))]),
         np.column_stack([np.full(segments, bottom), nxt(ring(rings - 2)), ring(rings - 2)])]
    for k in range(rings - 2):
        a, b = ring(k), ring(k + 1)
        F += [np.column_stack([a, b, nxt(b)]), np.column_stack([a, nxt(b), nxt(a)])]
    return np.vstack(F)


def box_triangles(V: np.ndarray) -> np.ndarray:
    """The twelve triangles of a box whose 8 vertices are ordered x, y, z (as below)."""
    quads = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]
    return np.array([t for a, b, c, d in quads for t in ((a, b, c), (a, c, d))])


def test_auto_takes_a_faceted_sphere_as_a_sphere() -> None:
    """A UV sphere of 32 segments and 16 rings (float32 vertices, as Blender stores them):
    its vertices on one sphere and its facets within 2% of it, Auto resolves it to Sphere,
    fitted with the vertices' radius at their centre.  A sphere stretched 1% along z, a
    cube (its corners on a sphere, its faces far inside) and a coarse sphere of 6 segments
    and 3 rings (facets 14% in) stay meshes."""
    V = uv_sphere_vertices(0.05).astype(np.float32).astype(float) + [0.3, -0.1, 0.2]
    F = uv_sphere_triangles()
    assert cs.is_sphere(V, F) and cs.resolved_kind("AUTO", V, F) == "SPHERE"
    shape = cs.contact_shape(WHAT, "SPHERE", V, F, UP, 32, ground=False)
    assert shape.params[0] == pytest.approx(0.05, rel=1e-6)
    np.testing.assert_allclose(shape.position, [0.3, -0.1, 0.2], atol=1e-8)
    assert not cs.is_sphere(V * [1.0, 1.0, 1.01], F)
    cube = np.array([[x, y, z] for x in (-1, 1) for y in (-1, 1) for z in (-1, 1)], float)
    assert not cs.is_sphere(cube, box_triangles(cube))
    assert cs.resolved_kind("AUTO", cube, box_triangles(cube)) == "BOX"
    assert not cs.is_sphere(uv_sphere_vertices(1.0, 6, 3), uv_sphere_triangles(6, 3))


def test_a_flat_level_top_is_told_from_a_ramp_and_a_bowl() -> None:
    """A slab in world axes has a flat, level top, as has a single level quad; the slab
    tilted 20 deg about y (its top one edge) or by 1e-5 rad, a bowl (the lower half of a
    UV sphere: its rim on top, its inside facing up) and a slab with a boss on top do not."""
    slab = np.array([[x, y, z] for x in (-1.0, 1.0) for y in (-0.5, 0.5) for z in (-0.1, 0.0)])
    F = box_triangles(slab)
    assert cs.flat_top(slab, F)
    assert cs.flat_top(np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]]),
                       np.array([[0, 1, 2], [0, 2, 3]]))

    def tilted(V, angle):
        c, s = np.cos(angle), np.sin(angle)
        return V @ np.array([[c, 0.0, s], [0.0, 1.0, 0.0], [-s, 0.0, c]]).T
    assert not cs.flat_top(tilted(slab, np.radians(20.0)), F)
    assert not cs.flat_top(tilted(slab, 1e-5), F)
    V, T = uv_sphere_vertices(1.0), uv_sphere_triangles()
    lower = V[:, 2] <= 1e-12
    keep = np.all(lower[T], axis=1)
    index = np.cumsum(lower) - 1
    assert not cs.flat_top(V[lower], index[T[keep]][:, ::-1])    # seen from inside: a bowl
    boss = slab * [0.1, 0.1, 1.0] + [0.0, 0.0, 0.1]
    both = np.vstack([slab, boss])
    assert not cs.flat_top(both, np.vstack([F, box_triangles(boss) + 8]))
