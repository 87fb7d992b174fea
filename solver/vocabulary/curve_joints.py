"""Joints on curves: a point that stays on a curve (Adams PTCV: a pin in a slot, a roller in a
track) and two planar curves that stay in contact (Adams CVCV: a cam and its follower).

Each curve is given in its marker's frame (metres): a ``base.curves.Curve``, or its points
((n, 3) or (n, 2)) with ``closed``.  Conventions (kernels/curve_rows.py has the equations):
- point on curve: marker I's origin lies on the curve fixed to marker J; two equations, the
  point's offsets off the curve along the curve's normal (in marker J's xy plane for a planar
  curve: z_J x tangent) and binormal (z_J with the tangent part removed; x_J's where the
  curve runs along z_J, a slot drawn along the marker's z axis).  The reaction is the force
  normal to the curve.
- cam: curve I (on marker I's part, in marker I's xy plane) and curve J (in marker J's xy
  plane) touch with a common tangent; the markers' z axes must stay parallel (a planar or
  revolute joint elsewhere keeps the motion planar).  One equation: the separation along
  the common normal.  The contact force is reported; a cam contact never pulls in reality,
  and a result whose contact would have to pull says so (time and force).
"""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.curves import Curve
from ..base.errors import MechanismError

PLANAR_TOL = 1e-9       # a cam's curve must lie in its marker's xy plane to this share of its size


def as_curve(spec: Any, closed: bool | None, what: str) -> Curve:
    """A Curve from a Curve or from points (closed must then be given)."""
    if isinstance(spec, Curve):
        return spec
    if closed is None:
        raise MechanismError(f"{what}: give closed=True or False with the curve's points")
    return Curve.from_points(spec, bool(closed), what)


def check_planar(curve: Curve, what: str) -> None:
    """A cam's curve must lie in its marker's xy plane (z = 0 in the marker frame)."""
    z = np.abs(curve.points[:, 2]).max()
    if z > PLANAR_TOL * curve.size:
        raise MechanismError(f"{what}: the curve leaves its marker's xy plane by {z:.3g} m; a cam "
                             "contact needs both curves in their markers' xy planes")
