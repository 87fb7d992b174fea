"""The separate mechanisms of one model: its moving parts grouped into islands, parts that no
joint, coupler, spring, bushing, vector force, general motion or contact joins (through
another moving part; the ground joins nothing) in different islands, and each island's size.

A scene may hold mechanisms side by side (a copy 50 m aside): each island's size is the
spread of its own parts and ground points, so one mechanism's scale, and the tolerances and
rotation weights drawn from it, do not grow with the distance to another."""
from __future__ import annotations

from typing import Any

import numpy as np


def _root(parent: list[int], k: int) -> int:
    while parent[k] != k:
        parent[k] = parent[parent[k]]
        k = parent[k]
    return k


def island_of(mech: Any, moving: list, marker_body: dict) -> dict:
    """{node: island root} where a node is a moving body (0..nb-1, in ``moving``'s order)
    or a ground marker's name: the bodies and ground markers each element joins united."""
    nb = len(moving)
    names = [m for m in marker_body if marker_body[m] == nb]
    node = {m: nb + k for k, m in enumerate(names)}
    node.update({m: b for m, b in marker_body.items() if b < nb})
    parent = list(range(nb + len(names)))
    body = {p.name: b for b, p in enumerate(moving)}

    def unite(ids: list[int]) -> None:
        for k in ids[1:]:
            a, b = _root(parent, ids[0]), _root(parent, k)
            parent[b] = a

    def markers(*ms: Any) -> None:
        unite([node[m] for m in ms if isinstance(m, str) and m in node])

    for jt in mech.joints.values():
        markers(jt.marker_i, jt.marker_j)
    for table in (mech.springs, mech.bushings, mech.general_motions):
        for it in table.values():
            markers(it.marker_i, it.marker_j)
    for vf in mech.vector_forces.values():
        markers(vf.marker_i, vf.marker_j, vf.frame)
    for cp in mech.couplers.values():
        markers(*[m for t in cp.terms
                  for m in (mech.joints[t[0]].marker_i, mech.joints[t[0]].marker_j)])
    for ct in mech.contacts.values():
        unite([body[p] for p in (ct.part_a, ct.part_b) if p in body])
    out = {b: _root(parent, b) for b in range(nb)}
    out.update({m: _root(parent, node[m]) for m in names})
    return out


def island_labels(mech: Any, moving: list, marker_body: dict) -> np.ndarray:
    """(nb,) int: each moving body's island, numbered 0, 1, ... in the order of its first
    body (one mechanism: all 0)."""
    root = island_of(mech, moving, marker_body)
    first: dict[int, int] = {}
    return np.array([first.setdefault(root[b], len(first)) for b in range(len(moving))],
                    dtype=int)


def island_anchors(mech: Any, moving: list, marker_body: dict, marker_point: dict) -> np.ndarray:
    """(nb, 3) m, world: where each moving body's island is held, the mean of the ground
    markers it is joined to (0, the world origin, for an island joined to none: a part free
    or on contacts alone).  A position's size is measured from it (integrators/control.py
    ``error_scale``): where a mechanism is fixed, not where the world's origin is."""
    nb = len(moving)
    root = island_of(mech, moving, marker_body)
    points: dict[int, list] = {}
    for m, b in marker_body.items():
        if b == nb:
            points.setdefault(root[m], []).append(np.asarray(marker_point[m], float))
    mean = {k: np.mean(v, axis=0) for k, v in points.items()}
    return np.array([mean.get(root[b], np.zeros(3)) for b in range(nb)]).reshape(nb, 3)


def island_sizes(mech: Any, moving: list, rot: dict, marker_body: dict, marker_point: dict,
                 arm: np.ndarray) -> np.ndarray:
    """(nb,) m: the size of each moving body's island, the largest of its bodies' ``arm``
    (marker arms and radii of gyration, (nb,)) and the spread (largest extent along x, y or
    z) of its bodies' centres of mass and the ground markers it is joined to."""
    nb = len(moving)
    root = island_of(mech, moving, marker_body)
    points: dict[int, list] = {}
    for b, p in enumerate(moving):
        points.setdefault(root[b], []).append(p.position + rot[p.name] @ p.center_of_mass)
    for m, b in marker_body.items():
        if b == nb:
            points.setdefault(root[m], []).append(marker_point[m])
    size = {k: float(np.max(np.ptp(np.array(v), axis=0))) for k, v in points.items()}
    for b in range(nb):
        size[root[b]] = max(size[root[b]], float(arm[b]))
    return np.array([size[root[b]] for b in range(nb)])


def island_max(body_island: np.ndarray, value: np.ndarray) -> np.ndarray:
    """(nb,) the largest of ``value`` (nb,) over each body's island (``body_island`` (nb,),
    Model.body_island): a quantity of each separate mechanism (its largest load, speed or
    reach), not of the largest one beside it."""
    isl = np.asarray(body_island, int)
    top = np.full(int(isl.max(initial=-1)) + 1, -np.inf)
    np.maximum.at(top, isl, np.asarray(value, float))
    return top[isl]


def island_reach(mech: Any, moving: list, marker_body: dict, world: dict) -> np.ndarray:
    """(nb,) m: how far from the world's origin each moving body's island reaches, the
    largest distance of its parts' origins, its parts' markers and the ground markers it is
    joined to (``world``: {marker: its world point}).  Float32 rounds a coordinate relative
    to its own size, so an island far from the origin carries a larger absolute rounding
    than one beside it at the origin (compile.py ``island_rounding``)."""
    nb = len(moving)
    root = island_of(mech, moving, marker_body)
    reach: dict[int, float] = {}

    def extend(node: Any, x: Any) -> None:
        reach[root[node]] = max(reach.get(root[node], 0.0), float(np.linalg.norm(x)))
    for b, p in enumerate(moving):
        extend(b, p.position)
    for m, b in marker_body.items():
        extend(m if b == nb else b, world[m])
    return np.array([reach[root[b]] for b in range(nb)])
