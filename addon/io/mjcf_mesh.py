"""MJCF mesh assets read without Blender, for the mass a mesh geom gives its body.

A ``<mesh>`` asset's vertices come from its inline ``vertex`` (and ``face``) or its
``file``: STL (binary or ASCII) or OBJ (``v`` and ``f`` lines, polygons fanned), looked for
under the compiler's ``meshdir`` (else ``assetdir``) relative to the model file's folder;
``scale`` multiplies each axis.  The solid whose mass MuJoCo takes (MuJoCo's XML reference,
"mesh/inertia", as MuJoCo 3 and 4 compile it, checked against the compiled models):

- a mesh without faces (``vertex`` alone) and ``inertia="convex"``: the convex hull;
- ``inertia="exact"``: the solid its faces bound;
- the default ``"legacy"``: the tetrahedra from the faces' area-weighted centroid to each
  triangle, their volumes taken unsigned: the solid the faces bound when every triangle
  faces away from that centroid (a star-shaped mesh), which is what is read; another mesh
  is an error (set ``inertia="exact"`` on it or give the body an ``<inertial>``);
- ``"shell"`` (or the geom's ``shellinertia``): not computed (NaN, an error if it counts).

The geom's mass is ``mass`` or ``density`` x that volume; its centre the solid's centre of
mass in the geom frame (MuJoCo moves the geom there and turns it to the principal axes,
which leaves the body's sums as they are).
"""
from __future__ import annotations

import os
import struct
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ...solver import MechanismError, mesh_mass_properties

HULL_POINTS = 100       # a hull by planes through point triples: n^4 / 6 (0.24 s at 100)
HULL_BLOCK = 4096        # triples tested at once (an array of 4096 x n distances)
STAR_TOL = 1e-9         # relative: a tetrahedron's signed volume below -tol x the total


@dataclass(frozen=True)
class MeshSolid:
    """A mesh asset's solid: ``volume`` m^3, ``center`` (3,) mesh frame, ``inertia`` (3, 3)
    per unit density about the centre (m^5), mesh axes; all NaN for a shell."""
    volume: float
    center: np.ndarray
    inertia: np.ndarray


def read_stl(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), triangles (m, 3)) of a binary or ASCII STL file, the triangles'
    equal corners one vertex."""
    with open(path, "rb") as f:
        data = f.read()
    if len(data) >= 84 and len(data) == 84 + 50 * struct.unpack("<I", data[80:84])[0]:
        m = struct.unpack("<I", data[80:84])[0]
        rec = np.frombuffer(data[84:], dtype=np.dtype([("n", "<f4", 3), ("v", "<f4", (3, 3)),
                                                        ("a", "<u2")]), count=m)
        V = rec["v"].reshape(-1, 3).astype(float)
    else:
        words = data.decode("ascii", errors="replace").split()
        V = np.array([[float(w) for w in words[k + 1:k + 4]]
                      for k, w in enumerate(words) if w == "vertex"], dtype=float).reshape(-1, 3)
        if V.shape[0] == 0 or V.shape[0] % 3:
            raise ValueError("no triangles (neither binary nor ASCII STL)")
    V, shared = np.unique(V, axis=0, return_inverse=True)    # corners welded: edges shared
    return V, shared.reshape(-1, 3)


def read_obj(path: str) -> tuple[np.ndarray, np.ndarray]:
    """(vertices (n, 3), triangles (m, 3)) of an OBJ file, each polygon fanned from its
    first corner; negative indices count back from the last vertex read."""
    V, F = [], []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            w = line.split()
            if w and w[0] == "v":
                V.append([float(x) for x in w[1:4]])
            elif w and w[0] == "f":
                ix = [int(t.split("/")[0]) for t in w[1:]]
                ix = [i - 1 if i > 0 else len(V) + i for i in ix]
                F += [[ix[0], ix[k], ix[k + 1]] for k in range(1, len(ix) - 1)]
    if not F:
        raise ValueError("no faces")
    return np.array(V, dtype=float), np.array(F, dtype=int)


def convex_hull_faces(V: np.ndarray) -> list[list[int]]:
    """The faces of the convex hull of points V (n, 3), each a polygon of vertex indices
    counter-clockwise seen from outside: every plane through three points with all points
    on one side, its points ordered by angle about their mean.  The triples are tested in
    blocks (one array of every point's distance to each block's planes)."""
    scale = np.ptp(V, axis=0).max()
    tol = 1e-9 * scale      # a point this close to a plane lies in it (rounding of V)
    faces, seen = [], set()
    centroid = V.mean(axis=0)
    triples = np.array(list(combinations(range(len(V)), 3)), dtype=int).reshape(-1, 3)
    for block in np.array_split(triples, max(1, len(triples) // HULL_BLOCK)):
        P = V[block]                                        # (b, 3 points, 3)
        n = np.cross(P[:, 1] - P[:, 0], P[:, 2] - P[:, 0])
        norm = np.linalg.norm(n, axis=1)
        flat = norm <= tol * scale
        n = n / np.where(flat, 1.0, norm)[:, None]
        s = np.einsum("bpk,bk->bp", V[None, :, :] - P[:, :1, :], n)   # (b, all points)
        one_side = ~flat & ((s.max(axis=1) <= tol) | (s.min(axis=1) >= -tol))
        for b in np.flatnonzero(one_side):
            on = frozenset(np.flatnonzero(np.abs(s[b]) <= tol).tolist())
            if on in seen:
                continue
            seen.add(on)
            i, j = block[b, :2]
            out = n[b] if (V[i] - centroid) @ n[b] > 0 else -n[b]
            u = (V[j] - V[i]) / np.linalg.norm(V[j] - V[i])
            faces.append(hull_2d(sorted(on), (V - V[i]) @ u, (V - V[i]) @ np.cross(out, u)))
    return faces


def hull_2d(points: list, x: np.ndarray, y: np.ndarray) -> list:
    """The corners of the convex hull of ``points`` (indices into the coordinates x, y),
    counter-clockwise (Andrew's monotone chain), points inside or on its edges left out."""
    pts = sorted(points, key=lambda p: (x[p], y[p]))
    cross = lambda o, a, b: (x[a] - x[o]) * (y[b] - y[o]) - (y[a] - y[o]) * (x[b] - x[o])
    chain = []
    for seq in (pts, pts[::-1]):
        half: list = []
        for p in seq:
            while len(half) >= 2 and cross(half[-2], half[-1], p) <= 0:
                half.pop()
            half.append(p)
        chain += half[:-1]
    return chain


def mesh_solid(V: np.ndarray, F: np.ndarray | None, mode: str) -> MeshSolid:
    """The solid MuJoCo takes a mesh's mass from (module docstring); raises ValueError."""
    if mode == "shell":
        return MeshSolid(np.nan, np.full(3, np.nan), np.full((3, 3), np.nan))
    if F is None or mode == "convex":
        if len(V) > HULL_POINTS:
            raise ValueError(f"the convex hull of {len(V)} vertices is not computed (at most "
                             f"{HULL_POINTS}); give the faces or an <inertial>")
        faces = convex_hull_faces(V)
    else:
        faces = F
        if mode == "legacy":
            A, B, C = (V[F[:, k]] for k in range(3))
            area = np.linalg.norm(np.cross(B - A, C - A), axis=1)
            c = (area[:, None] * (A + B + C)).sum(axis=0) / (3 * area.sum())
            tet = np.einsum("ij,ij->i", A - c, np.cross(B - c, C - c))
            if tet.min() < -STAR_TOL * np.abs(tet).sum():
                raise ValueError("MuJoCo's default (legacy) inertia of a mesh that is not "
                                 "star-shaped about its centroid is not computed; set "
                                 "inertia=\"exact\" on the mesh or give the body an <inertial>")
    try:
        p = mesh_mass_properties(V, faces, density=1.0)
    except MechanismError as exc:
        raise ValueError(str(exc)) from None
    if faces is F and not p.closed:
        raise ValueError("the mesh is not a closed surface (each edge in two faces, once "
                         "each way), which MuJoCo's mass of it needs; close it or give the "
                         "body an <inertial>")
    if not p.volume > 0:
        raise ValueError("the mesh encloses no volume")
    return MeshSolid(p.volume, p.center_of_mass, p.inertia)


def mesh_assets(root, folder: str) -> dict:
    """Each ``<mesh>`` asset's name -> (its element, the folder its file is under: the
    compiler's meshdir, else assetdir, in the model's ``folder``)."""
    compiler = root.one("compiler")
    c = compiler.attrib if compiler is not None else {}
    where = os.path.join(folder, c.get("meshdir", c.get("assetdir", "")))
    out = {}
    for asset in root.all("asset"):
        for m in asset.all("mesh"):
            a = m.attrib
            name = a.get("name", os.path.splitext(os.path.basename(a.get("file", "")))[0])
            out[name] = (m, where)
    return out


def load_solid(a: dict, where: str) -> MeshSolid:
    """The MeshSolid of a ``<mesh>`` element's attributes (its default class applied),
    files under the folder ``where``; raises ValueError naming what is wrong."""
    scale = np.array([float(s) for s in a.get("scale", "1 1 1").split()], dtype=float)
    if "vertex" in a:
        V = np.array([float(s) for s in a["vertex"].split()], dtype=float)
        if V.size % 3 or V.size < 12:
            raise ValueError(f"vertex has {V.size} numbers, not at least 4 points of 3")
        V = V.reshape(-1, 3)
        F = np.array([int(s) for s in a["face"].split()]).reshape(-1, 3) if "face" in a else None
    elif "file" in a:
        path = os.path.join(where, a["file"])
        if not os.path.isfile(path):
            raise ValueError(f"no mesh file at {path!r}")
        ext = os.path.splitext(path)[1].lower()
        if ext not in (".stl", ".obj"):
            raise ValueError(f"mesh file {a['file']!r}: only STL and OBJ files are read")
        try:
            V, F = read_stl(path) if ext == ".stl" else read_obj(path)
        except (ValueError, IndexError, struct.error) as exc:
            raise ValueError(f"mesh file {a['file']!r} cannot be read: {exc}") from None
    else:
        raise ValueError("the mesh has neither vertex nor file")
    V = V.astype(np.float32).astype(float) * scale      # MuJoCo reads float vertices
    return mesh_solid(V, F, a.get("inertia", "legacy"))


class MeshError(ValueError):
    """A mesh that cannot be read: the message and the line (of the mesh or the geom)."""

    def __init__(self, message: str, line: int) -> None:
        super().__init__(message)
        self.line = line


def geom_solid(meshes: dict, solids: dict, attrib, e, a: dict) -> MeshSolid:
    """The MeshSolid of a mesh geom (element ``e``, attributes ``a``) from ``meshes``
    (mesh_assets), read once per asset into ``solids``; ``attrib(element, "main")`` applies
    the default classes.  Raises MeshError naming the mesh and its line."""
    name = a.get("mesh", "")
    if name not in meshes:
        raise MeshError(f"{e.label()}: no mesh asset {name!r}", e.line)
    m, folder = meshes[name]
    key = (name, a.get("shellinertia", "false") == "true")
    if key not in solids:
        ma = attrib(m, "main")
        try:
            solids[key] = load_solid({**ma, "inertia": "shell"} if key[1] else ma, folder)
        except ValueError as exc:
            raise MeshError(f"mesh {name!r} (of {e.label()} at line {e.line}): {exc}",
                            m.line) from None
    return solids[key]
