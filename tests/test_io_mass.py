"""The add-on's mass properties without Blender (addon/io/mass.py): typed-in values and a
mesh's solid moved to the part frame, in the scene's units, its loops as Blender stores
them; what Check says of a mesh or a mass out of the ordinary."""
from __future__ import annotations

import numpy as np
import pytest

from test_io_addon import M0, S0, io, solver

mass, part_frames = io("mass"), io("part_frames")


CUBE_VERTS = np.array([[x, y, z] for x in (-0.5, 0.5) for y in (-0.5, 0.5) for z in (-0.5, 0.5)])
CUBE_FACES = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]


def test_inertia_six_and_matrix_are_inverse() -> None:
    six = (1.0, 2.0, 3.0, -0.1, 0.2, -0.3)
    I = mass.inertia_matrix(six)
    np.testing.assert_array_equal(I, I.T)
    assert (I[0, 1], I[0, 2], I[1, 2]) == (-0.1, 0.2, -0.3)
    assert mass.inertia_six(I) == six


def test_typed_in_centre_of_mass_goes_to_the_part_frame() -> None:
    """A COM typed in local (scaled) coordinates (1, 2, -1) BU on an object scaled S0, in
    centimetres: S0 (1, 2, -1) * 0.01 m in part axes; mass and inertia as typed."""
    props = mass.typed_in(3.5, (1.0, 2.0, -1.0), (1.0, 2.0, 3.0, 0.0, 0.0, 0.1), S0, 0.01)
    assert props["mass"] == 3.5
    np.testing.assert_allclose(props["center_of_mass"], (0.02, 0.01, -0.015), rtol=1e-15)
    np.testing.assert_array_equal(props["inertia"], mass.inertia_matrix((1.0, 2.0, 3.0, 0.0, 0.0, 0.1)))


def test_mesh_of_a_scaled_box() -> None:
    """A unit cube mesh shifted by d in local coordinates on an object M0 (scale S0 = 2, 0.5,
    1.5), in millimetres, density 7800: a box of a x b x c = S0 mm: mass rho abc, inertia
    m (b^2 + c^2) / 12 ... in part axes, centre of mass S0 d."""
    d = np.array([0.1, -0.2, 0.3])
    scale = 1e-3
    props, warning = mass.from_mesh("box", CUBE_VERTS + d, CUBE_FACES, part_frames.part_frame(M0),
                                    7800.0, scale)
    a, b, c = np.diag(S0) * scale
    m = 7800.0 * a * b * c
    assert warning == ""
    assert props["mass"] == pytest.approx(m, rel=1e-13)
    np.testing.assert_allclose(props["inertia"], m / 12 * np.diag([b * b + c * c, a * a + c * c,
                                                                   a * a + b * b]), rtol=0,
                               atol=1e-13 * m * a * a)
    np.testing.assert_allclose(props["center_of_mass"], S0 @ d * scale, atol=1e-16)


def test_loops_listed_out_of_polygon_order_are_read_in_it() -> None:
    """A mesh's loops as Blender may store them (polygons' loop_start not ascending): the
    corners put one polygon after another give the cube's mass as its face list does."""
    sizes = np.array([len(f) for f in CUBE_FACES])
    order = np.array([3, 0, 5, 1, 4, 2])                  # the polygons' loops stored thus
    stored = np.concatenate([CUBE_FACES[k] for k in order])
    starts = np.empty(6, dtype=int)
    starts[order] = np.cumsum(sizes[order]) - sizes[order]
    corners = stored[mass.in_polygon_order(starts, sizes)]
    assert corners.tolist() == [i for f in CUBE_FACES for i in f]
    frame = part_frames.part_frame(M0)
    by_list, _ = mass.from_mesh("box", CUBE_VERTS, CUBE_FACES, frame, 7800.0, 1e-3)
    by_loops, _ = mass.from_mesh("box", CUBE_VERTS, corners, frame, 7800.0, 1e-3, sizes)
    assert by_loops["mass"] == by_list["mass"]
    np.testing.assert_array_equal(by_loops["inertia"], by_list["inertia"])


def test_mesh_errors_name_the_part() -> None:
    frame = part_frames.part_frame(np.eye(4))
    flat = np.array([[0.0, 0, 0], [1, 0, 0], [1, 1, 0], [0, 1, 0]])
    with pytest.raises(solver.MechanismError, match=r"part 'sheet': the mesh encloses no volume"):
        mass.from_mesh("sheet", flat, [(0, 1, 2, 3)], frame, 1000.0, 1.0)
    with pytest.raises(solver.MechanismError, match=r"part 'bad': "):
        mass.from_mesh("bad", CUBE_VERTS, CUBE_FACES[:-1] + [(1, 5, 7, 99)], frame, 1000.0, 1.0)
    for density in (0.0, -5.0, float("nan")):
        with pytest.raises(solver.MechanismError, match=r"part 'box': density .* above 0"):
            mass.from_mesh("box", CUBE_VERTS, CUBE_FACES, frame, density, 1.0)


@pytest.mark.parametrize("density, said", [(1e39, "denser than any solid"), (0.01, "lighter than any solid")])
def test_implausible_density_is_named_with_the_mass_it_gives(density: float, said: str) -> None:
    """A unit cube of density 1e39 kg/m^3 weighs 1e39 kg: the note names the part, the
    density, that mass and the field; so for 0.01 kg/m^3; steel and balsa say nothing."""
    frame = part_frames.part_frame(np.eye(4))
    props, _ = mass.from_mesh("arm", CUBE_VERTS, CUBE_FACES, frame, density, 1.0)
    note = mass.implausible_note("arm", props["mass"], density)
    assert note.startswith(f"part 'arm': density {density:.4g} kg/m^3 is {said}")
    assert f"the part weighs {density:.4g} kg; check its Density" in note
    for fine in (7850.0, 150.0, 22590.0):
        props, _ = mass.from_mesh("arm", CUBE_VERTS, CUBE_FACES, frame, fine, 1.0)
        assert mass.implausible_note("arm", props["mass"], fine) is None


@pytest.mark.parametrize("kg", [1e36, 1e-12])
def test_implausible_typed_in_mass_is_named(kg: float) -> None:
    note = mass.implausible_note("arm", kg)
    assert note is not None and note.startswith(f"part 'arm': mass {kg:.4g} kg is ")
    assert mass.implausible_note("arm", 2.0) is None and mass.implausible_note("arm", 1e5) is None


def test_mesh_note_names_the_problem_and_the_mass_used() -> None:
    """An open unit cube (one face gone) gets the divergence-theorem mass of its five faces
    (800 kg, not the solid's 1000); the note names the part, the edges and that mass, and
    says how to fix it; inside-out faces alone are flipped: the mass is right, no fix."""
    frame = part_frames.part_frame(np.eye(4))
    props, warning = mass.from_mesh("lid", CUBE_VERTS, CUBE_FACES[:-1], frame, 1000.0, 1.0)
    assert warning == "open mesh: 4 boundary edges"
    note = mass.mesh_note("lid", warning, props["mass"])
    assert note.startswith("part 'lid': open mesh: 4 boundary edges; mass used 800 kg (")
    assert "close the mesh" in note
    flipped = [tuple(reversed(f)) for f in CUBE_FACES]
    props, warning = mass.from_mesh("cube", CUBE_VERTS, flipped, frame, 1000.0, 1.0)
    assert mass.mesh_note("cube", warning, props["mass"]) == (
        "part 'cube': inside-out normals (negative volume): flipped; mass used 1000 kg")


def test_a_mesh_read_again_is_not_summed_again() -> None:
    """The unit-density solid of a mesh is kept by its numbers: the same vertices, faces
    and placement read again give the same solid without a sum over the faces; a vertex
    moved or another placement is summed anew, as is a ragged list of faces (a quad split
    in two triangles: no key) each time, with the same mass."""
    frame = part_frames.part_frame(M0)
    solids, real = [], mass.mesh_mass_properties
    mass._solids.clear()                           # (other tests read this cube before)

    def counted(*a, **k):
        solids.append(1)
        return real(*a, **k)
    mass.mesh_mass_properties = counted
    try:
        first, _ = mass.from_mesh("box", CUBE_VERTS, CUBE_FACES, frame, 7800.0, 1e-3)
        again, _ = mass.from_mesh("box", CUBE_VERTS.copy(), list(CUBE_FACES), frame, 7800.0,
                                  1e-3)
        assert len(solids) == 1 and again["mass"] == first["mass"]
        np.testing.assert_array_equal(again["inertia"], first["inertia"])
        moved = CUBE_VERTS.copy()
        moved[7] *= 1.1
        mass.from_mesh("box", moved, CUBE_FACES, frame, 7800.0, 1e-3)
        mass.from_mesh("box", CUBE_VERTS, CUBE_FACES, part_frames.part_frame(np.eye(4)),
                       7800.0, 1e-3)
        assert len(solids) == 3
        a, b, c, d = CUBE_FACES[0]
        ragged = [(a, b, c), (a, c, d)] + CUBE_FACES[1:]
        for _ in range(2):
            split, _ = mass.from_mesh("box", CUBE_VERTS, ragged, frame, 7800.0, 1e-3)
            assert split["mass"] == pytest.approx(first["mass"], rel=1e-14)
        assert len(solids) == 5
    finally:
        mass.mesh_mass_properties = real


def test_what_is_kept_is_the_newest_asked_for() -> None:
    """io/kept.py: a Kept of two keeps the two keys asked for last (asking again refreshes
    a key), makes nothing for a key it keeps, keeps nothing a failing make raised, and a
    digest tells arrays by their dtype and shape as well as their bytes."""
    kept_mod = io("kept")
    made = []

    def make(x):
        return lambda: made.append(x) or x
    k = kept_mod.Kept(2)
    assert [k.get("a", make(1)), k.get("b", make(2)), k.get("a", make(9))] == [1, 2, 1]
    k.get("c", make(3))                          # b, the oldest asked for, goes
    assert k.get("a", make(9)) == 1 and k.get("b", make(4)) == 4 and made == [1, 2, 3, 4]

    def fails():
        raise solver.MechanismError("no")
    with pytest.raises(solver.MechanismError):
        k.get("d", fails)
    assert k.get("d", make(5)) == 5
    z = np.zeros(4)
    assert kept_mod.digest(z) == kept_mod.digest(z.copy())
    assert kept_mod.digest(z) != kept_mod.digest(z.reshape(2, 2))
    assert kept_mod.digest(z) != kept_mod.digest(z.astype(np.float32))
