"""What a bake animates on each joint object (its reaction and its motions' efforts) and on
each coupler object (the generalized force it applies along each coupled coordinate, and a
gear's tooth force), as custom-property series (one value per frame) for the Graph Editor.

Reaction (the solver's convention, docs/conventions.md): force and torque the joint applies to part I
at marker I's origin, world axes, N and N m; each as x, y, z components and the magnitude.
Effort: the force or torque a motion applies along its coordinate (N m for an angle, N for
a slide), on the joint that motion drives.
Coupler: Result.coupler's torque (N m, on an angle) or force (N, on a slide) along each
coupled coordinate, on part I of that joint, as "coupler_torque_<k>" or "coupler_force_<k>"
with k the coupler's joint field (1, 2, 3 for A, B, C: a screw on one cylindrical joint has
both on field 1); a toothed gear (not a belt) given by its pitch radii, or by teeth or
ratio where its axes mesh at a pitch point, also "tooth_force" (N, along the line of action,
Result.tooth_force).
Cam: "contact_force" (N) along the common normal, positive pushing (Result.contact_force;
negative where the follower would lift off), besides the cam joint's reaction.
Stops: "limit_force" (N m on an angle, N on a slide) the joint's stops apply along its
coordinate, positive toward a larger angle or slide, zero inside the range (Result.limit);
friction: "friction_force" (N m or N) along the coordinate (Result.friction), from every
analysis (a kinematic sweep's motions carry it in their efforts); a spherical joint's
friction torque on part I as "friction_torque_x", "_y", "_z" (world axes, as the reaction)
and its magnitude "friction_torque".
Force with a Reaction marker (a force of state): "applied_force_x", "_y", "_z",
"applied_force" and "applied_torque_*" on the force object (Result.vector_force).
Torsion spring: "torsion_spring_torque" (N m) on its joint, positive resisting the angle
(part I takes it backwards about marker J's z, Result.torsion_spring).
Spring: "spring_force" (N, the tension: positive pulling its two markers together, negative
pushing them apart, Result.spring) and, not plotted, "spring_length" (m, Result.spring_length)
on the spring object.
Bushing: "bushing_force_x", "_y", "_z", "bushing_force" and "bushing_torque_*" on the
bushing object: the load it applies to marker I's part at marker I's origin, world axes
(Result.bushing; marker J's part takes the opposite).
Contact between parts: "part_contact_force_x", "_y", "_z" and "part_contact_force" (N,
world axes: the force on part A; part B takes the opposite) and "part_contact_penetration"
(m, the deepest; 0 apart) on the contact object (Result.contact), and "contact_gap" (m, the
least gap between the two shapes, negative the deepest penetration: Result.interference,
a kinematic bake's clash detection).  Named apart from a cam joint's "contact_force", the
scalar push along the cam's normal.  Beside these, not plotted: "part_contact_point_x",
"_y", "_z" (m, world), where the viewport draws the force: the touching points' centroid
weighted by their penetration while the parts touch, else where they come closest.
Marker that follows an object: "follow_force_x", "_y", "_z" and "follow_force" (N) on the
marker: the force its general motion applies to the marker's part at the marker, along the
axes it follows in (Relative To's, or the world's), zero along a direction left free
(Result.general_motion): the effort an actuator at that point would give; where it follows
a rotation, "follow_torque_x", "_y", "_z" and "follow_torque" (N m, same axes,
Result.general_motion_torque).  A following marker's Actuators: each joint's force or torque
along its coordinate as that joint's "motion_effort" (angle, N m) or "motion_effort_slide"
(slide, N) (Result.actuator_efforts; the follow's own force and torque then read zero).
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from ...solver import MechanismError

REACTION_PROPS = ("reaction_force_x", "reaction_force_y", "reaction_force_z", "reaction_force",
                  "reaction_torque_x", "reaction_torque_y", "reaction_torque_z", "reaction_torque")
EFFORT_PROPS = {"angle": "motion_effort", "slide": "motion_effort_slide"}
COUPLER_PROPS = tuple(f"coupler_{w}_{k}" for k in (1, 2, 3) for w in ("torque", "force")) + ("tooth_force",)
CONTACT_PROP = "contact_force"
LIMIT_PROP, FRICTION_PROP = "limit_force", "friction_force"
TORSION_PROP = "torsion_spring_torque"
SPRING_PROP, SPRING_LENGTH_PROP = "spring_force", "spring_length"
BALL_FRICTION_PROPS = ("friction_torque_x", "friction_torque_y", "friction_torque_z", "friction_torque")
BUSHING_PROPS = ("bushing_force_x", "bushing_force_y", "bushing_force_z", "bushing_force",
                 "bushing_torque_x", "bushing_torque_y", "bushing_torque_z", "bushing_torque")
VECTOR_FORCE_PROPS = ("applied_force_x", "applied_force_y", "applied_force_z", "applied_force",
                      "applied_torque_x", "applied_torque_y", "applied_torque_z", "applied_torque")
PART_CONTACT_PROPS = ("part_contact_force_x", "part_contact_force_y", "part_contact_force_z",
                      "part_contact_force", "part_contact_penetration", "contact_gap")
CONTACT_POINT_PROPS = ("part_contact_point_x", "part_contact_point_y", "part_contact_point_z")
FOLLOW_PROPS = ("follow_force_x", "follow_force_y", "follow_force_z", "follow_force")
FOLLOW_TORQUE_PROPS = ("follow_torque_x", "follow_torque_y", "follow_torque_z", "follow_torque")
PLOT_PROPS = REACTION_PROPS + tuple(EFFORT_PROPS.values()) + COUPLER_PROPS + (
    CONTACT_PROP, LIMIT_PROP, FRICTION_PROP, TORSION_PROP, SPRING_PROP) + BALL_FRICTION_PROPS + \
    BUSHING_PROPS + VECTOR_FORCE_PROPS + PART_CONTACT_PROPS + FOLLOW_PROPS + FOLLOW_TORQUE_PROPS
BAKED_PROPS = PLOT_PROPS + CONTACT_POINT_PROPS + (SPRING_LENGTH_PROP,)


def _prop_of(data_path: str) -> str:
    """'["name"]' -> "name" (a custom property's F-curve path); "" for any other path."""
    return data_path[2:-2] if data_path.startswith('["') and data_path.endswith('"]') else ""


def is_baked_channel(data_path: str) -> bool:
    """Whether an F-curve's ``data_path`` is one of the series a bake writes on a joint,
    coupler, bushing, force, contact or following marker ('["reaction_force_x"]', ...)."""
    return _prop_of(data_path) in BAKED_PROPS


def is_plot_channel(data_path: str) -> bool:
    """Whether an F-curve's ``data_path`` is one of the baked series Plot shows: the
    forces, efforts and a contact's depth and gap (not where its arrow is drawn)."""
    return _prop_of(data_path) in PLOT_PROPS


def coupler_prop(coordinate: str, field: int) -> str:
    """The property of a coupler's term on joint field ``field`` (1-3): torque on an angle,
    force on a slide."""
    return f"coupler_{'torque' if coordinate == 'angle' else 'force'}_{field}"


def reaction_series(force: np.ndarray, torque: np.ndarray,
                    props: Sequence[str] = REACTION_PROPS) -> dict[str, np.ndarray]:
    """``props`` (REACTION_PROPS, or BUSHING_PROPS) -> (n,) values of a ``force`` and a
    ``torque`` (n, 3): the components, then the magnitude, of each."""
    F, T = force, torque
    return dict(zip(props, (F[:, 0], F[:, 1], F[:, 2], np.linalg.norm(F, axis=1),
                            T[:, 0], T[:, 1], T[:, 2], np.linalg.norm(T, axis=1))))


def vector_force_plots(result, forces: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """Force name -> {VECTOR_FORCE_PROPS -> (n,) values}: a force with a Reaction marker
    (the solver's vector force), on its marker's part at the marker, world axes
    (Result.vector_force; the reaction marker's part takes the opposite)."""
    return {name: reaction_series(*result.vector_force(name), props=VECTOR_FORCE_PROPS)
            for name in forces}


def contact_points(hit: Mapping[str, np.ndarray], near: Mapping[str, np.ndarray]) -> np.ndarray:
    """(n, 3) m, world: where a contact's force is drawn at each frame, the touching points'
    centroid (Result.contact's "point") while the parts touch, else where they come
    closest (Result.interference's "point")."""
    touching = np.isfinite(hit["point"]).all(axis=1)
    return np.where(touching[:, None], hit["point"], near["point"])


def part_contact_plots(result, contacts: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """Contact name -> {PART_CONTACT_PROPS and CONTACT_POINT_PROPS -> (n,) values}: the
    force on part A (N, world axes), its magnitude, the deepest penetration (m)
    (Result.contact), the least gap (m, Result.interference) and where the force is drawn
    (m, world: ``contact_points``)."""
    out = {}
    for name in contacts:
        hit, near = result.contact(name), result.interference(name)
        F, P = hit["force"], contact_points(hit, near)
        out[name] = dict(zip(PART_CONTACT_PROPS + CONTACT_POINT_PROPS,
                             (F[:, 0], F[:, 1], F[:, 2], np.linalg.norm(F, axis=1),
                              hit["penetration"], near["gap"], P[:, 0], P[:, 1], P[:, 2])))
    return out


def follow_plots(result, follows: Mapping[str, str]) -> dict[str, dict[str, np.ndarray]]:
    """Marker name -> {FOLLOW_PROPS -> (n,) values} where it follows a location
    (Result.general_motion: N on the marker's part, J's axes) and {FOLLOW_TORQUE_PROPS ->
    ...} where it follows a rotation (Result.general_motion_torque: N m, J's axes);
    ``follows``: general motion name -> the following marker's name."""
    out = {}
    for motion, marker in follows.items():
        series: dict[str, np.ndarray] = {}
        if _drives(result, motion, "xyz"):
            series.update(_vector_series(FOLLOW_PROPS, result.general_motion(motion)))
        if _drives(result, motion, ("b1", "b2", "b3")):
            series.update(_vector_series(FOLLOW_TORQUE_PROPS, result.general_motion_torque(motion)))
        out[marker] = series
    return out


def actuator_plots(result, actuators: Mapping[str, Sequence[tuple[str, str, str]]]
                   ) -> dict[str, dict[str, np.ndarray]]:
    """Joint name -> {EFFORT_PROPS[coordinate] -> (n,) N or N m}: the effort of each
    actuator of a general motion along its joint's coordinate (Result.actuator_efforts);
    ``actuators``: general motion name -> [(joint name, "angle" | "slide", label)]."""
    out: dict[str, dict[str, np.ndarray]] = {}
    for motion, acts in actuators.items():
        efforts = result.actuator_efforts(motion)
        for joint, coord, label in acts:
            out.setdefault(joint, {})[EFFORT_PROPS[coord]] = efforts[label]
    return out


def _drives(result, motion: str, directions) -> bool:
    """Whether general motion ``motion`` holds any of ``directions`` (its rows "motion.x")."""
    return any(f"{motion}.{a}" in result.model.motion_names for a in directions)


def _vector_series(props: Sequence[str], V: np.ndarray) -> dict[str, np.ndarray]:
    """The components of V (n, 3) and its magnitude, under ``props``."""
    return dict(zip(props, (V[:, 0], V[:, 1], V[:, 2], np.linalg.norm(V, axis=1))))


def bushing_plots(result, bushings: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """Bushing name -> {BUSHING_PROPS -> (n,) values}: the force and torque the bushing
    applies to marker I's part at marker I's origin, world axes (Result.bushing)."""
    return {name: reaction_series(*result.bushing(name), props=BUSHING_PROPS)
            for name in bushings}


def spring_plots(result, springs: Sequence[str]) -> dict[str, dict[str, np.ndarray]]:
    """Spring name -> {SPRING_PROP: (n,) tension N, SPRING_LENGTH_PROP: (n,) length m}
    (Result.spring, Result.spring_length)."""
    return {name: {SPRING_PROP: result.spring(name),
                   SPRING_LENGTH_PROP: result.spring_length(name)} for name in springs}


def friction_series(result, name: str, joint: str) -> dict[str, np.ndarray]:
    """A friction element's baked series: FRICTION_PROP along an angle or slide, or a ball's
    BALL_FRICTION_PROPS (Result.friction's torque in marker J's axes turned into world axes)."""
    f = result.friction(name)
    if f.ndim == 1:
        return {FRICTION_PROP: f}
    m = result.model
    _, C = result.marker_frame(m.joint_marker_j[m.joint_names.index(joint)])
    T = np.einsum("nij,nj->ni", C, f)
    return dict(zip(BALL_FRICTION_PROPS, (T[:, 0], T[:, 1], T[:, 2], np.linalg.norm(T, axis=1))))


def joint_plots(result, joints: Sequence[str], motions: Mapping[str, tuple[str, str]],
                cams: Sequence[str] = (), limits: Mapping[str, str] | None = None,
                frictions: Mapping[str, str] | None = None,
                torsions: Mapping[str, str] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Joint name -> {property -> (n,) values} from a solver Result: the reaction series,
    then the effort of each motion on it, a cam's contact force, the stops', the friction's
    and the torsion spring's force or torque.  ``motions``: motion name -> (joint name,
    "angle" | "slide"); ``cams``: the cam joints' names; ``limits``, ``frictions``,
    ``torsions``: item name -> joint name."""
    efforts: dict[str, dict[str, np.ndarray]] = {}
    for name, (joint, coord) in motions.items():
        efforts.setdefault(joint, {})[EFFORT_PROPS[coord]] = result.effort(name)
    for name in cams:
        efforts.setdefault(name, {})[CONTACT_PROP] = result.contact_force(name)
    for name, joint in (limits or {}).items():
        efforts.setdefault(joint, {})[LIMIT_PROP] = result.limit(name)
    for name, joint in (frictions or {}).items():
        efforts.setdefault(joint, {}).update(friction_series(result, name, joint))
    for name, joint in (torsions or {}).items():
        efforts.setdefault(joint, {})[TORSION_PROP] = result.torsion_spring(name)
    return {joint: {**reaction_series(*result.reaction(joint)), **efforts.get(joint, {})}
            for joint in joints}


def coupler_plots(result, couplers: Mapping[str, Any]) -> dict[str, dict[str, np.ndarray]]:
    """Coupler name -> {property -> (n,) values} from a solver Result; ``couplers``: name ->
    its io.couplers.CouplerCall (``props``: one per column of Result.coupler, then
    "tooth_force" when ``tooth_force``)."""
    out = {}
    for name, call in couplers.items():
        Q = result.coupler(name)
        series = {prop: Q[:, k] for k, prop in enumerate(call.props[:Q.shape[1]])}
        if call.tooth_force:
            try:
                series["tooth_force"] = result.tooth_force(name)
            except MechanismError:   # teeth or ratio on axes that do not mesh at a pitch point
                pass
        out[name] = series
    return out


def baked_quantities(bushings: int, vector_forces: int, springs: int = 0) -> tuple[str, ...]:
    """What a bake and Export CSV read from a solver Result beside the poses (solve's
    ``keep``): the reactions and efforts (the joints', motions', general motions' and
    actuators' series), and the velocities where a bushing's, vector force's or spring's
    (``springs``: spring-dampers and torsion springs) load is written (their laws read
    them).  The couplers', cams', stops', friction's and contacts' series are always kept;
    accelerations, energy and the joints' multipliers are read by neither, so a long bake
    does not hold them."""
    return ("reactions", "efforts") + (("velocities",) if bushings or vector_forces or springs
                                       else ())
