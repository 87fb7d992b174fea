"""Toothed gear meshes for the sample scenes: closed prisms on a tooth outline (trapezoidal
teeth, not involutes: they show the motion, the solver needs only the pitch radii).

Module m, z teeth: pitch radius r = z m / 2; an external gear's teeth reach r + m and its
gaps r - 1.25 m; an internal (ring) gear's teeth point inwards to r - m, its gaps reach
r + 1.25 m, and its rim is ``rim`` modules beyond the pitch circle.  A tooth is centred at
each angle phase + k 2 pi / z.  Axis along local z, the mesh centred on the origin."""
from __future__ import annotations

import math


def outline(teeth: int, module: float, internal: bool = False, phase: float = 0.0) -> list:
    """(x, y) points of the tooth outline, counter-clockwise: four per tooth (gap side,
    tip, tip, gap side)."""
    r = teeth * module / 2.0
    tip, gap = (r - module, r + 1.25 * module) if internal else (r + module, r - 1.25 * module)
    p = 2.0 * math.pi / teeth
    pts = []
    for k in range(teeth):
        c = phase + k * p
        for rad, off in ((gap, -0.3), (tip, -0.15), (tip, 0.15), (gap, 0.3)):
            pts.append((rad * math.cos(c + off * p), rad * math.sin(c + off * p)))
    return pts


def gear_mesh(teeth: int, module: float, width: float, internal: bool = False,
              phase: float = 0.0, rim: float = 3.0) -> tuple[list, list]:
    """(vertices, faces) of a closed gear prism of ``width`` along z, outward normals.
    External: the outline as top and bottom n-gons and a quad wall.  Internal: a ring
    between a circle of radius r + rim m and the inward-pointing tooth outline (quads on
    top and bottom, an outer and an inner wall)."""
    ring = outline(teeth, module, internal, phase)
    n, h = len(ring), width / 2.0
    top = [(x, y, h) for x, y in ring]
    bot = [(x, y, -h) for x, y in ring]
    if not internal:
        faces = [tuple(range(n)), tuple(range(2 * n - 1, n - 1, -1))]
        faces += [(n + k, n + (k + 1) % n, (k + 1) % n, k) for k in range(n)]
        return top + bot, faces
    R = teeth * module / 2.0 + rim * module
    outer = [(R * math.cos(math.atan2(y, x)), R * math.sin(math.atan2(y, x))) for x, y in ring]
    verts = top + bot + [(x, y, h) for x, y in outer] + [(x, y, -h) for x, y in outer]
    it, ib, ot, ob = 0, n, 2 * n, 3 * n            # index offsets: inner/outer, top/bottom
    faces = []
    for k in range(n):
        j = (k + 1) % n
        faces.append((ot + k, ot + j, it + j, it + k))        # top, normal +z
        faces.append((ib + k, ib + j, ob + j, ob + k))        # bottom, normal -z
        faces.append((ob + k, ob + j, ot + j, ot + k))        # outer wall, outwards
        faces.append((ib + j, ib + k, it + k, it + j))        # inner wall, towards the axis
    return verts, faces


def prism(outline, width: float) -> tuple[list, list]:
    """(vertices, faces) of the closed prism of ``width`` along z, centred on z = 0, over a
    counter-clockwise ``outline`` of (x, y) points (one polygon, concave allowed): a top and
    a bottom n-gon (Blender triangulates them) and a quad wall, outward normals.  The
    solver's outline helpers (involute_gear, geneva_wheel, geneva_crank) give such
    outlines; a Contact reads the prism back as a Profile."""
    ring = [(float(x), float(y)) for x, y in outline]
    n, h = len(ring), width / 2.0
    verts = [(x, y, h) for x, y in ring] + [(x, y, -h) for x, y in ring]
    faces = [tuple(range(n)), tuple(range(2 * n - 1, n - 1, -1))]
    faces += [(n + k, n + (k + 1) % n, (k + 1) % n, k) for k in range(n)]
    return verts, faces
