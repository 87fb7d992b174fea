"""Joint coordinates over a run's frames, read from the joints' markers as
docs/conventions.md defines them: an angle followed by its rates, so that a joint turning
half a turn or more between frames keeps its turns, and a slide (``joint_coordinate``: the
public reading, a design study's table, Export CSV)."""
from __future__ import annotations

import numpy as np

from ...base.elementary import arctan2
from ...base.errors import MechanismError
from ...model.results import Result
from ...vocabulary.joints import JOINT_COORDINATES


def joint_coordinate(result: Result, joint: str, coordinate: str | None = None) -> np.ndarray:
    """(n,) joint ``joint``'s coordinate at every frame of ``result``: its "angle" (rad, x_I
    from x_J about z_J, turns kept: ``joint_angle``) or its "slide" (m, I's origin from J's
    along z_J).  ``coordinate`` None: the joint's own (a revolute's angle, a prismatic's
    slide; a cylindrical joint has both: name one).  MechanismError naming the joint for an
    unknown joint, a joint kind without that coordinate, or a cylindrical joint's left
    unnamed."""
    model = result.model
    if joint not in model.joint_names:
        raise MechanismError(f"unknown joint {joint!r} (joints: {', '.join(model.joint_names)})")
    kind = model.joint_kind[model.joint_names.index(joint)]
    has = JOINT_COORDINATES.get(kind, ())
    if not has:
        raise MechanismError(f"joint {joint!r} is {kind}, which has no angle or slide "
                             "coordinate (revolute, prismatic and cylindrical joints have)")
    if coordinate is None:
        if len(has) > 1:
            raise MechanismError(f"joint {joint!r} is {kind}: name its coordinate, "
                                 f"{' or '.join(map(repr, has))}")
        coordinate = has[0]
    if coordinate not in has:
        raise MechanismError(f"joint {joint!r} is {kind}, whose coordinate is "
                             f"{' or '.join(map(repr, has))}, not {coordinate!r}")
    return joint_angle(result, joint) if coordinate == "angle" else _slide(result, joint)


def _slide(result: Result, joint: str) -> np.ndarray:
    """(n,) m: the slide of the joint's marker I's origin from J's along z_J."""
    model = result.model
    k = model.joint_names.index(joint)
    oi = result.marker_frame(model.joint_marker_i[k])[0]
    oj, aj = result.marker_frame(model.joint_marker_j[k])
    return np.einsum("ni,ni->n", oi - oj, aj[:, :, 2])


def joint_angle(result: Result, joint: str) -> np.ndarray:
    """(n,) rad: a revolute's or cylindrical joint's angle (x_I from x_J about z_J, as
    docs/conventions.md defines it) at every frame, the first in (-pi, pi], each next on
    the turn nearest the one before plus the change its rate (w_I - w_J) . z_J gives by the
    trapezoidal rule, so that a joint turning half a turn or more between frames keeps its
    turns; a Result that kept no velocities is unwrapped frame to frame."""
    model = result.model
    k = model.joint_names.index(joint)
    mi, mj = model.joint_marker_i[k], model.joint_marker_j[k]
    ai, aj = result.marker_frame(mi)[1], result.marker_frame(mj)[1]
    xi = ai[:, :, 0]
    raw = arctan2(np.einsum("ni,ni->n", xi, aj[:, :, 1]),
                  np.einsum("ni,ni->n", xi, aj[:, :, 0]))
    if "velocities" not in result.kept or len(raw) < 2:
        return np.unwrap(raw)
    rate = np.einsum("ni,ni->n", _spin(result, mi) - _spin(result, mj), aj[:, :, 2])
    change = 0.5 * np.diff(result.times) * (rate[:-1] + rate[1:])
    turns = np.round((change - np.diff(raw)) / (2.0 * np.pi))
    return raw + 2.0 * np.pi * np.concatenate([[0.0], np.cumsum(turns)])


def _spin(result: Result, marker: str) -> np.ndarray:
    """(n, 3) rad/s, world axes: the angular velocity of the part that carries ``marker``."""
    model = result.model
    b = model.marker_body[marker]
    if b == model.nb:                                  # the ground
        return np.zeros((len(result.times), 3))
    return result.angular_velocity(model.body_part[b])

