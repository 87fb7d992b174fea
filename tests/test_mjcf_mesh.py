"""Mesh geoms' mass in the MJCF import checked against MuJoCo's compile of the same files:
inline vertex meshes (their convex hull) with a scale, an STL cube (binary and ASCII) and
a non-convex OBJ, each body's mass, centre and inertia as MuJoCo compiles them, and a
swing beside MuJoCo's run; a bad or missing mesh file named with its line.

Tolerances: MuJoCo reads mesh vertices as float32 and so does the import, then both sum
the same tetrahedra in double: 1e-12 relative on the mass, 1e-12 m on the centre and
inertia (all of order 1e-3..10); the swing is RK4's error beside the solver's, 1e-8 m as in
test_mjcf_import.py.
"""
from __future__ import annotations

import struct

import numpy as np
import pytest

from test_io_addon import io, solver
from test_mjcf_import import import_and_compare

mujoco = pytest.importorskip("mujoco")
mjcf, mm = io("mjcf"), io("mjcf_mechanism")
TESTDATA = mujoco.__file__.rsplit("/", 1)[0] + "/testdata/model.xml"

PHI = (1 + 5 ** 0.5) / 2
ICOSAHEDRON = " ".join(f"{x} {y} {z}" for a in (-1, 1) for b in (-PHI, PHI)
                       for x, y, z in ((0, a, b), (a, b, 0), (b, 0, a)))
TETRAHEDRON = "0 0 0  1 0 0  0 1 0  0 0 1"
SPHERE_POINTS = np.random.default_rng(1).normal(size=(40, 3))      # on a sphere: 40 corners
SPHERE = " ".join(f"{x:.6f}" for x in (SPHERE_POINTS.T / np.linalg.norm(SPHERE_POINTS, axis=1)).T
                  .ravel())
CUBE = [(x, y, z) for x in (0, 1) for y in (0, 1) for z in (0, 1)]
CUBE_QUADS = [(0, 1, 3, 2), (4, 6, 7, 5), (0, 4, 5, 1), (2, 3, 7, 6), (0, 2, 6, 4), (1, 5, 7, 3)]


def body_xml(asset: str, geom: str = 'mesh="m"', extra: str = "") -> str:
    return f"""<mujoco><compiler angle="radian"{extra}/><asset>{asset}</asset><worldbody>
      <body name="a" pos="0 0 1" euler="0.3 0 0"><joint axis="0 1 0"/>
      <geom type="mesh" {geom} pos="0.2 0.1 -0.3" euler="0.1 0.5 -0.2"/>
      </body></worldbody></mujoco>"""


def assert_as_compiled(path: str) -> None:
    """Every body's mass, centre and inertia of the file at ``path`` as MuJoCo compiles it
    (tolerances: module docstring); bodies in file order are MuJoCo's ids 1, 2, ..."""
    model, ref = mjcf.read_mjcf(path), mujoco.MjModel.from_xml_path(path)
    assert len(model.bodies) == ref.nbody - 1
    for i, (name, b) in enumerate(model.bodies.items(), 1):
        assert b.mass == pytest.approx(ref.body_mass[i], rel=1e-12), name
        assert np.allclose(b.center, ref.body_ipos[i], atol=1e-12), name
        R = solver.quat_to_matrix(ref.body_iquat[i])
        assert np.allclose(b.inertia, R @ np.diag(ref.body_inertia[i]) @ R.T, atol=1e-12), name


def triangles() -> list:
    """The cube's twelve triangles, outward, as point triples."""
    return [[CUBE[q[0]], CUBE[q[k]], CUBE[q[k + 1]]] for q in CUBE_QUADS for k in (1, 2)]


def write_stl(path, binary: bool) -> None:
    tris = [[[2 * c - 0.5 for c in p] for p in t] for t in triangles()]   # 2 m wide, shifted
    if binary:
        data = b"\0" * 80 + struct.pack("<I", len(tris))
        for t in tris:
            data += struct.pack("<12fH", 0, 0, 0, *[c for p in t for c in p], 0)
        path.write_bytes(data)
    else:
        path.write_text("solid c\n" + "".join(
            "facet normal 0 0 0\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in t)
            + "endloop\nendfacet\n" for t in tris) + "endsolid c\n")


L_SHAPE = [(0, 0), (2, 0), (2, 1), (1, 1), (1, 2), (0, 2)], [(1, 2, 3, 4), (1, 4, 5, 6)]
U_SHAPE = [(0, 0), (3, 0), (3, 3), (2, 3), (2, 1), (1, 1), (1, 3), (0, 3)], \
    [(1, 2, 5, 6), (1, 6, 7, 8), (2, 3, 4, 5)]


def write_prism_obj(path, shape) -> None:
    """A closed prism 1 deep as OBJ quads: its outline (counter-clockwise) and the convex
    quads (1-based outline corners) that tile it.  The L is not convex but star-shaped
    about its surface centroid (MuJoCo's default inertia is then the exact one); the U is
    not."""
    outline, quads = shape
    n = len(outline)
    v = [f"v {x} {y} {z}" for z in (0, 1) for x, y in outline]
    f = [f"f {' '.join(str(i) for i in q[::-1])}" for q in quads] + \
        [f"f {' '.join(str(i + n) for i in q)}" for q in quads] + \
        [f"f {k + 1} {(k + 1) % n + 1} {(k + 1) % n + n + 1} {k + n + 1}" for k in range(n)]
    path.write_text("\n".join(v + f) + "\n")


@pytest.mark.parametrize("vertex, scale", [(TETRAHEDRON, "0.3 0.5 0.2"),
                                           (ICOSAHEDRON, "0.05 0.07 0.04"),
                                           (SPHERE, "0.1 0.1 0.1")])
def test_inline_vertex_meshes_have_mujocos_mass_properties(tmp_path, vertex, scale):
    path = tmp_path / "m.xml"
    path.write_text(body_xml(f'<mesh name="m" vertex="{vertex}" scale="{scale}"/>'))
    assert_as_compiled(str(path))


def test_mujocos_own_test_model_imports_with_its_mesh_body():
    """The icosahedron body (testdata/model.xml line 91) was refused as massless."""
    assert_as_compiled(TESTDATA)


def test_stl_cube_in_the_meshdir_has_mujocos_mass_properties(tmp_path):
    """A binary STL against MuJoCo's compile; the same cube in ASCII STL (which MuJoCo 4
    does not read) gives the same numbers."""
    (tmp_path / "meshes").mkdir()
    write_stl(tmp_path / "meshes" / "cube.stl", True)
    path = tmp_path / "m.xml"
    path.write_text(body_xml('<mesh file="cube.stl" scale="0.1 0.2 0.15"/>', 'mesh="cube"',
                             ' meshdir="meshes"'))
    assert_as_compiled(str(path))
    binary = mjcf.read_mjcf(str(path)).bodies["a"]
    write_stl(tmp_path / "meshes" / "cube.stl", False)
    ascii_ = mjcf.read_mjcf(str(path)).bodies["a"]
    assert ascii_.mass == pytest.approx(binary.mass, rel=1e-12)
    assert np.allclose(ascii_.inertia, binary.inertia, atol=1e-12)


@pytest.mark.parametrize("inertia", ["", 'inertia="exact"', 'inertia="convex"'])
def test_a_non_convex_obj_has_mujocos_mass_properties_and_swings_as_in_mujoco(tmp_path, inertia):
    write_prism_obj(tmp_path / "l.obj", L_SHAPE)
    path = tmp_path / "m.xml"
    path.write_text(body_xml(f'<mesh name="m" file="l.obj" scale="0.1 0.1 0.05" {inertia}/>',
                             'mesh="m" density="800"'))
    assert_as_compiled(str(path))
    import_and_compare(path.read_text().replace('file="l.obj"', f'file="{tmp_path}/l.obj"'),
                       1.5, 1e-8)


def test_mujocos_default_inertia_of_a_mesh_not_star_shaped_is_refused_by_name(tmp_path):
    """MuJoCo's default (legacy) takes the tetrahedra from the centroid unsigned, more than
    a U's volume (7 m^3, a 3 x 3 square less a 1 x 2 gap): the import says so rather than
    give another number; inertia="exact" is read."""
    write_prism_obj(tmp_path / "u.obj", U_SHAPE)
    path = tmp_path / "m.xml"
    path.write_text(body_xml('<mesh name="m" file="u.obj"/>', 'mesh="m" density="1"'))
    with pytest.raises(mjcf.MjcfError, match=r"line 1: mesh 'm' .*inertia=\"exact\""):
        mjcf.read_mjcf(str(path))
    path.write_text(body_xml('<mesh name="m" file="u.obj" inertia="exact"/>',
                             'mesh="m" density="1"'))
    assert_as_compiled(str(path))
    assert mjcf.read_mjcf(str(path)).bodies["a"].mass == pytest.approx(7, rel=1e-12)


def test_a_mesh_shell_inertia_is_refused_naming_the_geom(tmp_path):
    path = tmp_path / "m.xml"
    path.write_text(body_xml(f'<mesh name="m" vertex="{TETRAHEDRON}"/>',
                             'mesh="m" shellinertia="true"'))
    with pytest.raises(mjcf.MjcfError, match=r"line 3: geom 'a: geom0': the shell inertia"):
        mjcf.read_mjcf(str(path))


def test_a_primitive_fitted_to_a_mesh_is_refused_naming_the_geom(tmp_path):
    """MuJoCo sizes a box with mesh="m" from the mesh (0.232 kg here at 1 kg/m^3): the
    import gave it no mass."""
    path = tmp_path / "m.xml"
    path.write_text(body_xml(f'<mesh name="m" vertex="{TETRAHEDRON}"/>', 'mesh="m" density="1"')
                    .replace('type="mesh"', 'type="box"'))
    with pytest.raises(mjcf.MjcfError, match=r"line 3: <geom>: a box fitted to mesh 'm'"):
        mjcf.read_mjcf(str(path))


@pytest.mark.parametrize("asset, says", [
    ('<mesh name="m" file="gone.stl"/>', r"line 1: mesh 'm' .*line 3\): no mesh file at"),
    ('<mesh name="m" file="bad.stl"/>', r"line 1: mesh 'm' .*bad.stl' cannot be read"),
    ('<mesh name="m" file="m.ply"/>', r"line 1: mesh 'm' .*only STL and OBJ"),
    ('<mesh name="n" vertex="0 0 0 1 0 0 0 1 0 0 0 1"/>', r"line 3: <geom.*no mesh asset 'm'"),
    ('<mesh name="m" file="open.obj"/>', r"line 1: mesh 'm' .*not a closed surface"),
    ('<mesh name="m" vertex="0 0 0 1 0 0 0 1 0 1 1 0"/>', r"line 1: mesh 'm' .*no volume"),
])
def test_a_bad_or_missing_mesh_is_named_with_its_line(tmp_path, asset, says):
    """A missing file, an STL without triangles, a format not read, a geom naming no
    asset, an open surface (MuJoCo gives it a mass that depends on its own origin: an open
    unit cube 0.804 kg at 1 kg/m^3), a flat mesh."""
    (tmp_path / "bad.stl").write_text("solid x\nfacet\nvertex 0 0\nendsolid\n")
    (tmp_path / "m.ply").write_text("ply\n")
    write_prism_obj(tmp_path / "open.obj", L_SHAPE)      # the L with its last face left out
    (tmp_path / "open.obj").write_text((tmp_path / "open.obj").read_text().rsplit("f", 1)[0])
    path = tmp_path / "m.xml"
    path.write_text(body_xml(asset))
    with pytest.raises(mjcf.MjcfError, match=says):
        mjcf.read_mjcf(str(path))
