"""Clusters of a contact side's points, each in a bounding ball, tested against the side's
reach box before any point of it is (kernels/contact_geometry.py ``candidates``).

A gear's profile offers a thousand edge points and only the teeth near the other gear
come within its reach: mapping every point into the other shape's frame and testing its
box and grid cells costs about 0.05 us a point on every right-hand side (gear_teeth's
3,528 points: 190 us of its 800, 513 of them in a box and 177 within reach).  A ball
that misses the box holds no point that meets it, so its points are left out at the cost
of one ball per cluster; the points of the balls that meet the box are tested as before,
and the points within reach are the same, in the same order (the culling changes no
number, only how many points are looked at).

Clusters are bins of a side's points on a coarse grid in its body's frame (about
CLUSTER_POINTS points a bin), each with the centre of its points' box and the largest
distance of a point from it; a capsule's moving points (model/contact_model.py SLIDING,
FAR_END) travel along its axis and are never left out (a ball of infinite radius).  Made
only for plans of at least CLUSTER_FROM points: below, the balls' test costs about what
it saves.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

CLUSTER_POINTS = 32     # points a cluster's bin holds on average (a side's extent / bins)
CLUSTER_FROM = 1000     # a plan's points from which its clusters are made (measured)


@dataclass(frozen=True)
class Clusters:
    """(ncl,) clusters: the side, the centre (ncl, 3) in the points' body's frame (m), the
    radius (m; inf for a capsule's moving points), the side's reach box lo, hi (ncl, 3) in
    its distance's shape frame; and each point's cluster ``of_point`` (np,)."""
    side: np.ndarray
    centre: np.ndarray
    radius: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    of_point: np.ndarray


def clusters(point: np.ndarray, side: np.ndarray, moving: np.ndarray, reach_lo: np.ndarray,
             reach_hi: np.ndarray) -> Clusters | None:
    """The clusters of points (np, 3) in their bodies' frames on their sides (np,), the
    ``moving`` ones (np,) alone in a ball of infinite radius, each cluster's reach box that
    of its points (one per side: ``reach_lo``, ``reach_hi`` (np, 3)); None below
    CLUSTER_FROM points."""
    n = len(point)
    if n < CLUSTER_FROM:
        return None
    key = np.zeros((n, 5), dtype=np.int64)        # (side, moving point's own, bin x y z)
    key[:, 0] = side
    key[moving, 1] = 1 + np.flatnonzero(moving)
    for s in np.unique(side):
        at = np.flatnonzero((side == s) & ~moving)
        if not len(at):
            continue
        p = point[at]
        low, extent = p.min(axis=0), p.max(axis=0) - p.min(axis=0)
        bins = max(1, round(math.sqrt(len(at) / CLUSTER_POINTS)))
        size = float(extent.max()) / bins
        key[at, 2:] = np.floor((p - low) / size).astype(np.int64) if size > 0.0 else 0
    _, of_point = np.unique(key, axis=0, return_inverse=True)
    of_point = of_point.reshape(-1)
    count = int(of_point.max()) + 1
    lo = np.full((count, 3), np.inf)
    hi = np.full((count, 3), -np.inf)
    np.minimum.at(lo, of_point, point)
    np.maximum.at(hi, of_point, point)
    centre = 0.5 * (lo + hi)
    radius = np.zeros(count)
    np.maximum.at(radius, of_point, np.linalg.norm(point - centre[of_point], axis=1))
    radius[of_point[moving]] = np.inf
    first = np.zeros(count, dtype=np.int64)
    first[of_point[::-1]] = np.arange(n)[::-1]       # each cluster's first point
    out = Clusters(side[first], centre, radius, reach_lo[first],
                   reach_hi[first], of_point)
    for x in vars(out).values():
        x.setflags(write=False)
    return out
