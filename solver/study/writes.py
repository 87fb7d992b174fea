"""A study's parameters written into one compiled model.

The base mechanism is compiled once; each variant's Model is the base's with the arrays its
parameters write replaced (``dataclasses.replace``), and the study's stacked model (the
variant axis that the lockstep run and the sweep of variants read, study/stack.py) is built
from those written arrays directly: the parameter layer knows what varies, so nothing is
compiled again or compared field by field.  Each variant is still made through the
Builder (study/params.py ``make_variant``), whose validation applies unchanged, and its
numbers are read from its re-added items, as compile_model reads them.

What each parameter writes (``_write``, with the tables ``_FORCE_NUMBERS``, ``_FRICTION``
and ``_LIMIT``: the compiled fields that model/compile.py, model/force_model.py and
model/plans.py make from it), and the fields compile_model derives from them, written with
them (``_derive``):

  part mass             body_mass; derived: body_inverse_mass (1/m I blocks), body_weight
  part inertia          body_inertia; derived: body_inverse_inertia
  (mass, inertia, centre of mass, marker points: the parts' lengths and the model's length
  scale take the marker arms, radii of gyration and spread, model/compile.py ``sizes``; a
  variant whose length scale differs is compiled instead)
  part velocities       nothing: the start state (model/state.py read_state) reads them
  part centre of mass   body_com, and every marker point on the part as a marker position
                        below (each of its markers must be one that can be written; a
                        variant whose parts' spread could change the length scale is
                        compiled instead)
  marker position       marker_point (a ground marker's in the world); derived: the points
                        of the joint and motion rows that use it (at-point, dot-2,
                        distance: ui, uj, the turned vectors, a distance joint's length as
                        built when it has none), its body's length, body_rounding, the
                        points of the spring-dampers (and a free length as built), forces
                        and bushings at it, the rows of general motions, limits and
                        friction, the friction and curve joints' plans (a marker used by no
                        coupler or vector force: ``_marker_blocked``; a variant whose arm,
                        or the ground points' spread, could change the length scale is
                        compiled instead)
  gravity               gravity; derived: body_weight
  distance joint        its row's target in the distance rows' group (compile's zero-length
                        check made again, ``check_distance``)
  spring-damper         sd_k, sd_c, sd_L0, sd_pre, sd_fric; a constant: its actuator
  torsion spring        ts_k, ts_c, ts_th0, ts_pre, ts_fric; a constant: its actuator
  bushing               bu_k, bu_c, bu_pre (one entry of its six)
  motion, general       a constant: its function(s) of time (motion_functions)
  motion, force         (a force: its six, ld_funcs)
  joint friction        the FrictionPlan's numbers of its element
  limit                 the LimitPlan's numbers of its bounds; derived: centre
  gear, rack and        the coupler's row of scales (normalized as compile's, a two-joint
  pinion, screw,        screw's thread sense applied), a gear's pitch radii; derived: every
  coupler               row's offset.  (Whether a gear meshes at a pitch point can depend on
                        its ratio: a variant where that changes is compiled instead)

The kinds in ``_FALLBACK``, markers that ``_marker_blocked`` refuses and mechanisms with
contacts (a contact's own parameters included) are compiled per variant as before; each
says why (``unwritable``).
"""
from __future__ import annotations

import dataclasses
from types import MappingProxyType
from typing import Any

import numpy as np

from ..base.rotations import quat_to_matrix
from ..model.compile import Model, check_distance, island_rounding, row_lengths, sizes
from ..model.islands import island_anchors
from ..model.force_model import check_spring_ends
from ..model.gear_mesh import meshing
from ..model.plans import VECTORS, coupler_unit, marker_world, screw_sense
from ..vocabulary.builder import Builder
from ..vocabulary.friction import DEFAULT_TRANSITION_SPEED
from ..vocabulary.joints import AT, DIST, DOT2
from ..vocabulary.limits import DEFAULT_PENETRATION
from .params import Parameter, _expanded
from .stack import _PerVariant, _PerVariantActuator, _same_functions, stack_models

# parameter kinds that are compiled per variant, and why their numbers cannot be written
_FALLBACK = {
    ("vector_forces", None): "a vector force's measure plan is built from its parsed "
    "expressions",
}
# a mechanism with contacts: a contact's stiffness is derived from its parts' masses (its
# variants are compiled, then stacked by stack_models)
_CONTACTS = "a contact's stiffness is derived from its parts' masses"

# (table, parameter field) -> (compiled path, item attribute) of the number it writes
_FORCE_NUMBERS = {
    ("springs", "stiffness"): ("sd_k", "stiffness"), ("springs", "damping"): ("sd_c", "damping"),
    ("springs", "free_length"): ("sd_L0", "free_length"),
    ("springs", "preload"): ("sd_pre", "preload"), ("springs", "friction"): ("sd_fric", "friction"),
    ("torsion_springs", "stiffness"): ("ts_k", "stiffness"),
    ("torsion_springs", "damping"): ("ts_c", "damping"),
    ("torsion_springs", "free_angle"): ("ts_th0", "free_angle"),
    ("torsion_springs", "preload"): ("ts_pre", "preload"),
    ("torsion_springs", "friction"): ("ts_fric", "friction"),
    ("bushings", "stiffness"): ("bu_k", "stiffness"), ("bushings", "damping"): ("bu_c", "damping"),
    ("bushings", "preload"): ("bu_pre", "preload"),
}
_FORCE_NAMES = {"springs": "sd_names", "torsion_springs": "ts_names", "bushings": "bu_names"}
# friction parameter -> FrictionPlan field (the transition speed's default as compile's)
_FRICTION = {"static": "static", "dynamic": "dynamic", "transition_speed": "speed",
             "viscous": "viscous", "preload": "preload", "radius": "radius", "arm": "arm",
             "bearing_length": "length"}
# limit parameter -> LimitPlan field (a rigid stop's stiffness 0, the penetration's default)
_LIMIT = {"lower": "value", "upper": "value", "restitution": "restitution",
          "stiffness": "stiffness", "exponent": "exponent", "damping": "damping",
          "penetration": "penetration"}

Path = tuple  # attribute names (and a RowGroup's index in a tuple of groups) from the Model


class _Compile(Exception):
    """The variant's derived numbers may differ beyond what the parameters write: compile it."""


def unwritable(base: Builder, params: list[Parameter]) -> str | None:
    """Why a study of ``params`` cannot write its variants into the base's compiled model
    (each is then compiled), or None when it can."""
    if getattr(base, "contacts", None):
        return _CONTACTS
    for p, _ in _expanded(base, params, [0.0] * len(params)):
        why = _FALLBACK.get((p.table, p.field)) or _FALLBACK.get((p.table, None))
        if why is None and p.table == "markers":
            why = _marker_blocked(base, p.item)
        if why is None and p.field == "center_of_mass":    # it moves its part's markers
            why = next((f"its marker {k!r}: {_marker_blocked(base, k)}"
                        for k, mk in base.markers.items()
                        if mk.part == p.item and _marker_blocked(base, k)), None)
        if why is not None:
            return f"{p.name}: {why}"
    return None


def _marker_blocked(base: Builder, marker: str) -> str | None:
    """Why a marker's point cannot be written, or None: used by an item whose plan or
    force element takes its point: a vector force (its measure plan), a coupler (its
    coordinates' rows, their values as built, a gear's pitch point) or a general motion's
    actuator joint (the coordinate rows its efforts are carried by)."""
    users = [(f"vector force {n!r}", (it.marker_i, it.marker_j, it.frame))
             for n, it in base.vector_forces.items()]
    users += [(f"{cp.kind} {n!r}", sum((_joint_markers(base, j) for j, _, _ in cp.terms), ()))
              for n, cp in base.couplers.items()]
    users += [(f"general motion {n!r}'s actuators",               # (Model.actuators' rows)
               sum((_joint_markers(base, j) for j, _, _ in gm.actuated), ()))
              for n, gm in base.general_motions.items()]
    for what, markers in users:
        if marker in markers:
            return f"{what} takes its point into its own plan or force element"
    return None


def _joint_markers(base: Builder, joint: str) -> tuple[str, str]:
    jt = base.joints[joint]
    return jt.marker_i, jt.marker_j


class Writer:
    """The variants of one study written into ``model``, the compiled ``base``: ``model(v)``
    a variant's Model from its Builder, ``stack(models)`` the stacked model of written
    variants.  Make it only for parameters ``unwritable`` accepts."""

    def __init__(self, base: Builder, model: Model, params: list[Parameter]) -> None:
        self.base, self.base_model, self.params = base, model, params
        self._written: dict[int, tuple[Model, dict[Path, Any]]] = {}
        self._ends = _row_markers(model, base)       # each row's markers, made once

    def model(self, variant: Builder) -> Model | None:
        """``variant``'s Model (a make_variant of the base with this study's parameters):
        the base's with its written arrays; None when its length scale may differ from the
        base's (then compile it)."""
        m = self.base_model
        out: dict[Path, Any] = {}
        try:
            for p, _ in _expanded(self.base, self.params, [0.0] * len(self.params)):
                _write(out, m, self.base, variant, p)
            _derive(out, m, self.base, variant, self._ends)
        except _Compile:
            return None
        written = _put(m, {k: _read_only(v) for k, v in out.items()})
        self._written[id(written)] = (written, out)
        return written

    def stack(self, models: list[Model], axes: int = 0, motions: bool = True,
              switched: bool = False) -> Model | None:
        """stack_models(models, axes, motions, switched) from the arrays the parameters
        wrote (the same model, made without comparing every field); models not all written
        here are stacked by stack_models."""
        found = [self._written.get(id(m)) for m in models]
        if any(f is None or f[0] is not m for f, m in zip(found, models)):
            return stack_models(models, axes, motions, switched)
        m0 = models[0]
        if not switched and (m0.limits is not None or m0.frictions is not None):
            return None
        paths = dict.fromkeys(k for _, out in found for k in out)
        updates: dict[Path, Any] = {}
        for path in paths:
            if path[-1] in _FUNCTIONS or path in _SHARED:
                continue                   # (the first variant's, as stack_models keeps them)
            x = np.stack([_get(m, path) for m in models])
            if bool((x == x[0]).all()):
                continue                   # (as stack_models: equal in every variant)
            updates[path] = x.reshape(x.shape[:1] + (1,) * axes + x.shape[1:])
        stiff = updates.get(("limits", "stiffness"))
        if stiff is not None:
            compliant = stiff.reshape(len(models), -1) > 0.0
            if not (compliant == compliant[0]).all():
                return None                # a stop rigid in some variants, compliant in others
        updates.update(_stacked_functions(models, axes, motions))
        return _put(m0, updates)


_FUNCTIONS = ("motion_functions", "ld_funcs", "sd_act", "ts_act")
# kept as the first variant's in a stack (stack.py _SHARED_OK; a coupler's pitch radii)
_SHARED = (("marker_point",), ("body_rounding",), ("couplers", "radii"))


def _write(out: dict, m: Model, base: Builder, v: Builder, p: Parameter) -> None:
    """Write parameter ``p`` of variant ``v`` into ``out`` ({path: new array or list},
    copies of the base model's ``m``)."""
    item = p.item
    if p.table == "parts":
        b = m.body_part.index(item)
        if p.field == "mass":
            _array(out, m, ("body_mass",))[b] = v.parts[item].mass
        elif p.field == "inertia":
            _array(out, m, ("body_inertia",))[b] = v.parts[item].inertia
        elif p.field == "center_of_mass":
            _array(out, m, ("body_com",))[b] = v.parts[item].center_of_mass
            for k, mk in v.markers.items():
                if mk.part == item:
                    _write_point(out, m, v, k)
        # velocity, angular_velocity: the start state's (read_state), not the model's
    elif p.table == "gravity":
        _array(out, m, ("gravity",))[:] = v.gravity
    elif p.table == "joints":                # a distance joint's length
        check_distance(item, v.joints[item].length, m.length_scale)
        row = int(np.flatnonzero((m.row_joint == list(base.joints).index(item))
                                 & (m.row_kind == DIST))[0])
        at = int(m.plan.inv[row])
        gi = next(k for k, g in enumerate(m.plan.groups) if g.kind == DIST)
        _array(out, m, ("plan", "groups", gi, "target"))[at - m.plan.groups[gi].rows.start] = \
            v.joints[item].length
    elif p.field == "constant":
        _write_function(out, m, base, v, p)
    elif p.table == "couplers":
        _write_coupler(out, m, v, item)
    elif p.table == "markers":
        _write_point(out, m, v, item)
    elif (p.table, p.field) in _FORCE_NUMBERS:
        field, attr = _FORCE_NUMBERS[(p.table, p.field)]
        i = getattr(m.forces, _FORCE_NAMES[p.table]).index(item)
        value = getattr(getattr(v, p.table)[item], attr)
        target = _array(out, m, ("forces", field))
        if p.index is None:
            target[i] = value
        else:                                # a bushing's component
            target[i, p.index] = value[p.index]
    elif p.table == "frictions":
        fc = v.frictions[item]
        value = getattr(fc, p.field)
        if p.field == "transition_speed" and value is None:
            value = DEFAULT_TRANSITION_SPEED
        k = m.frictions.names.index(item)
        _array(out, m, ("frictions", _FRICTION[p.field]))[k] = value
        if p.field == "static":              # (the dynamic may follow it: params._follows)
            _array(out, m, ("frictions", "dynamic"))[k] = fc.dynamic
    elif p.table == "limits":
        lm, lp = v.limits[item], m.limits
        for k, (name, bound) in enumerate(zip(lp.names, lp.bounds)):
            if name != item or (p.field in ("lower", "upper") and bound != p.field):
                continue
            value = getattr(lm, p.field)
            if p.field == "stiffness":
                value = value or 0.0
            elif p.field == "penetration" and value is None:
                value = DEFAULT_PENETRATION
            _array(out, m, ("limits", _LIMIT[p.field]))[k] = value
    else:                                    # unwritable() lets no other kind through
        raise AssertionError((p.table, p.field))


def _write_point(out: dict, m: Model, v: Builder, marker: str) -> None:
    """A marker's point as compile_model keeps it: in its moving part's body frame, from
    the centre of mass, or a ground marker's in the world."""
    mk = v.markers[marker]
    part = v.parts[mk.part]
    point = (part.position + quat_to_matrix(part.orientation) @ mk.position if part.fixed
             else mk.position - part.center_of_mass)
    _dict(out, m, ("marker_point",))[marker] = _read_only(np.array(point, dtype=float))


def _write_coupler(out: dict, m: Model, v: Builder, item: str) -> None:
    """A coupler's scales as compile's plan normalizes them (model/plans.py ``couplers``:
    s / max |s_i| u_i, u 1 rad or its mechanism's size), and a gear's pitch radii."""
    plan, cp = m.couplers, v.couplers[item]
    k = plan.names.index(item)
    s = np.array([x for _, _, x in cp.terms])
    if cp.kind == "screw" and cp.terms[0][0] != cp.terms[1][0]:
        s[0] *= screw_sense(v, item, cp.terms[0][0], cp.terms[1][0], m.marker_body)
    n = int(plan.count[k])
    ends = m.row_ends[int(np.flatnonzero(m.row_coupler == k)[0])]
    unit = np.where(plan.is_angle[plan.terms[k, :n]], 1.0, coupler_unit(m.body_size, ends))
    _array(out, m, ("couplers", "scale"))[k, :n] = s / np.max(np.abs(s) * unit)
    _list(out, m, ("couplers", "radii"))[k] = cp.radii
    if meshing(v, cp, m.length_scale, m.marker_body) != (k in plan.mesh_coupler):
        raise _Compile(item)             # its mesh rows come or go (gear_mesh.py)


def _write_function(out: dict, m: Model, base: Builder, v: Builder, p: Parameter) -> None:
    """A named constant: the item's function(s) as the variant's Builder parsed them."""
    item = p.item
    if p.table == "motions":
        _list(out, m, ("motion_functions",))[list(base.motions).index(item)] = \
            v.motions[item].function
    elif p.table == "general_motions":
        at = len(base.motions)
        for name, gm in base.general_motions.items():
            if name == item:
                break
            at += len(gm.axes)
        fns = v.general_motions[item].functions
        _list(out, m, ("motion_functions",))[at: at + len(fns)] = fns
    elif p.table == "loads":
        ld = v.loads[item]
        _list(out, m, ("forces", "ld_funcs"))[m.forces.ld_names.index(item)] = ld.force + ld.torque
    else:                                    # a spring's or torsion spring's actuator
        field = "sd_act" if p.table == "springs" else "ts_act"
        i = getattr(m.forces, _FORCE_NAMES[p.table]).index(item)
        _list(out, m, ("forces", field))[i] = getattr(v, p.table)[item].actuator


def _derive(out: dict, m: Model, base: Builder, v: Builder, ends: list) -> None:
    """The fields compile_model derives from the written ones (as it derives them);
    _Compile when the variant's length scale may differ from the base's."""
    mass = out.get(("body_mass",))
    inertia = out.get(("body_inertia",))
    points = out.get(("marker_point",), m.marker_point)
    if mass is not None or inertia is not None or ("body_com",) in out \
            or points is not m.marker_point:     # the parts' sizes (model/compile.py sizes)
        moving = [v.parts[n] for n in m.body_part[:m.nb]]
        length_scale, lengths, size = sizes(v, moving, m.marker_body, points)
        if length_scale != m.length_scale:
            raise _Compile("length scale")
        out[("body_length",)] = lengths
        anchor = island_anchors(v, moving, dict(m.marker_body), points)
        if not np.array_equal(anchor, m.body_anchor):
            out[("body_anchor",)] = anchor
        if not np.array_equal(size, m.body_size):
            if m.couplers is not None and any(
                    coupler_unit(size, e) != coupler_unit(m.body_size, e)
                    for e in m.row_ends[m.row_coupler >= 0]):
                raise _Compile("coupler unit")      # its scales (plans.py couplers)
            out[("body_size",)] = size
            out[("row_length",)] = row_lengths(m.row_is_length, m.row_ends, size)
        rounding = island_rounding(v, moving, m.marker_body, size)
        if not np.array_equal(rounding, m.body_rounding):
            out[("body_rounding",)] = rounding
    if mass is not None:
        minv = _array(out, m, ("body_inverse_mass",))
        minv[: m.nb, :3, :3] = np.eye(3)[None] / mass[:, None, None]
    if mass is not None or ("gravity",) in out:
        g = out.get(("gravity",), m.gravity)
        ms = m.body_mass if mass is None else mass
        out[("body_weight",)] = ms[:, None] * np.asarray(g, float)[None, :]
    if inertia is not None:
        out[("body_inverse_inertia",)] = np.linalg.inv(inertia)
    if ("limits", "value") in out:
        lp, value = m.limits, out[("limits", "value")]
        centre = _array(out, m, ("limits", "centre"))
        for k, name in enumerate(lp.names):
            lm = v.limits[name]
            both = lm.lower is not None and lm.upper is not None
            centre[k] = 0.5 * (lm.lower + lm.upper) if both else value[k]
    if ("marker_point",) in out:
        _derive_points(out, m, base, v, ends)
    if ("couplers", "scale") in out:
        cp, scale = m.couplers, out[("couplers", "scale")]
        out[("couplers", "offset")] = np.sum(scale * cp.q0[cp.terms], axis=1)


def _derive_points(out: dict, m: Model, base: Builder, v: Builder, ends: list) -> None:
    """What compile_model derives from moved marker points (on moving parts, used by no
    plan or force element): the at-point, dot-2 and distance rows' points of the joints
    and joint motions between them (and the turned vectors, RowGroup.vecs and
    RowPlan.vecs), a distance joint's length as built when it has none, and the input's
    rounding gap (the bodies' lengths and the length scale: ``_derive``)."""
    points, ls = out[("marker_point",)], m.length_scale
    moved = [k for k in points if points[k] is not m.marker_point[k]]
    for r in np.flatnonzero(np.isin(m.row_kind, (AT, DOT2, DIST))):
        mi, mj, jt = ends[r]
        j = int(m.row_joint[r])
        if mi not in moved and mj not in moved:
            continue
        gi = next(k for k, g in enumerate(m.plan.groups)
                  if g.rows.start <= m.plan.inv[r] < g.rows.stop)
        g = m.plan.groups[gi]
        at = (int(m.plan.inv[r]) - g.rows.start) // (3 if g.kind == AT else 1)
        _array(out, m, ("plan", "groups", gi, "ui"))[at] = points[mi]
        _array(out, m, ("plan", "groups", gi, "uj"))[at] = points[mj]
        if g.kind == DIST and j >= 0 and v.joints[jt.name].length is None:
            L = float(np.linalg.norm(marker_world(v, mi) - marker_world(v, mj)))
            check_distance(jt.name, L, ls)
            _array(out, m, ("plan", "groups", gi, "target"))[at] = L
    _turned_vectors(out, m)
    _force_points(out, m, base, v, moved)
    _plan_points(out, m, base, moved)


def _row_markers(m: Model, base: Builder) -> list:
    """(marker I, marker J, joint or None) of each model row, as compile_model made it:
    a joint's rows, a motion's (its joint's markers), a general motion's (its markers),
    a limit's and a friction's (their joint's); (None, None, None) for the others."""
    motions = [base.joints[mo.joint] for mo in base.motions.values()]
    general = [(gm.marker_i, gm.marker_j, None) for gm in base.general_motions.values()
               for _ in gm.axes]
    frictions = list(base.frictions.values())
    out = []
    for r in range(m.nc):
        j, mo = int(m.row_joint[r]), int(m.row_motion[r])
        lm, fr = int(m.row_limit[r]), int(m.row_friction[r])
        jt = (base.joints[m.joint_names[j]] if j >= 0 else motions[mo] if 0 <= mo < len(motions)
              else base.joints[m.limits.joints[lm]] if lm >= 0
              else base.joints[frictions[fr].joint] if fr >= 0 else None)
        if jt is not None:
            out.append((jt.marker_i, jt.marker_j, jt))
        elif mo >= 0:
            out.append(general[mo - len(motions)])
        else:
            out.append((None, None, None))
    return out


def _plan_points(out: dict, m: Model, base: Builder, moved: list[str]) -> None:
    """The points of moved markers in the friction plan (each element's marker I) and the
    curve joints' plan (a point on a curve's marker I and its curve's marker J, a cam's
    two markers), as model/plans.py takes them from marker_point."""
    points = out[("marker_point",)]
    for k, fc in enumerate(base.frictions.values()):
        mi = base.joints[fc.joint].marker_i
        if mi in moved:
            _array(out, m, ("frictions", "point_i"))[k] = points[mi]
    pcs = [j for j in base.joints.values() if j.kind == "point-on-curve"]
    cams = [j for j in base.joints.values() if j.kind == "cam"]
    for k, jt in enumerate(pcs):
        if jt.marker_i in moved:
            _array(out, m, ("curves", "pc_ui"))[k] = points[jt.marker_i]
        if jt.marker_j in moved:
            _array(out, m, ("curves", "pc_off"))[k] = points[jt.marker_j]
    for k, jt in enumerate(cams):
        for side, mk in enumerate((jt.marker_i, jt.marker_j)):
            if mk in moved:
                _array(out, m, ("curves", "cam_off"))[k, side] = points[mk]


def _force_points(out: dict, m: Model, base: Builder, v: Builder, moved: list[str]) -> None:
    """The points of the spring-dampers, applied forces and bushings at moved markers (as
    compile_forces takes them from marker_point), a spring's free length as built when it
    has none, and compile's check that a spring's ends are apart."""
    points = out[("marker_point",)]
    for i, sd in enumerate(v.springs.values()):      # (its free length maybe varied too)
        if sd.marker_i in moved or sd.marker_j in moved:
            _array(out, m, ("forces", "sd_si"))[i] = points[sd.marker_i]
            _array(out, m, ("forces", "sd_sj"))[i] = points[sd.marker_j]
            check_spring_ends(sd, lambda k: marker_world(v, k))
            if sd.free_length is None:
                _array(out, m, ("forces", "sd_L0"))[i] = np.linalg.norm(
                    marker_world(v, sd.marker_i) - marker_world(v, sd.marker_j))
    for i, ld in enumerate(base.loads.values()):
        if ld.marker in moved:
            _array(out, m, ("forces", "ld_point"))[i] = points[ld.marker]
    for i, bu in enumerate(base.bushings.values()):
        if bu.marker_i in moved or bu.marker_j in moved:
            _array(out, m, ("forces", "bu_si"))[i] = points[bu.marker_i]
            _array(out, m, ("forces", "bu_sj"))[i] = points[bu.marker_j]


def _turned_vectors(out: dict, m: Model) -> None:
    """The body-fixed vectors of the groups whose points were written (RowGroup.vecs, in
    VECTORS order) and the plan's all turned together (RowPlan.vecs), as _plan stacks them."""
    changed = False
    for gi, g in enumerate(m.plan.groups):
        ui, uj = out.get(("plan", "groups", gi, "ui")), out.get(("plan", "groups", gi, "uj"))
        if ui is None and uj is None:
            continue
        ui = g.ui if ui is None else ui
        uj = g.uj if uj is None else uj
        pick = {"i": ui, "j": uj, "a": g.a, "b": g.b, "I": uj}
        out[("plan", "groups", gi, "vecs")] = np.stack([pick[c] for c in VECTORS[g.kind]])
        changed = True
    if changed:
        out[("plan", "vecs")] = np.concatenate([
            out.get(("plan", "groups", gi, "vecs"), g.vecs).reshape(-1, 3)
            for gi, g in enumerate(m.plan.groups)])


def _stacked_functions(models: list[Model], axes: int, motions: bool) -> dict:
    """The per-variant functions of a stack, as stack_models makes them: loads and
    actuators that differ between the variants each variant's own, and motions (when
    ``motions``)."""
    out: dict[Path, Any] = {}
    fm0 = models[0].forces
    if not _same_functions([[f for fs in m.forces.ld_funcs for f in fs] for m in models]):
        out[("forces", "ld_funcs")] = [
            [_PerVariant([m.forces.ld_funcs[i][j] for m in models], axes)
             for j in range(len(fs))] for i, fs in enumerate(fm0.ld_funcs)]
    if not _same_functions([list(m.forces.sd_act) + list(m.forces.ts_act) for m in models]):
        for kind in ("sd_act", "ts_act"):
            out[("forces", kind)] = [None if a is None else _PerVariantActuator(
                [getattr(m.forces, kind)[i] for m in models])
                for i, a in enumerate(getattr(fm0, kind))]
    if motions and not _same_functions([m.motion_functions for m in models]):
        out[("motion_functions",)] = tuple(
            _PerVariant([m.motion_functions[i] for m in models])
            for i in range(len(models[0].motion_functions)))
    return out


# ------------------------------------------------------------------- paths into a Model
def _get(obj: Any, path: Path) -> Any:
    for key in path:
        obj = obj[key] if isinstance(key, int) else getattr(obj, key)
    return obj


def _array(out: dict, m: Model, path: Path) -> np.ndarray:
    """The written copy of the base's array at ``path`` (made on first use)."""
    if path not in out:
        out[path] = np.array(_get(m, path))
    return out[path]


def _dict(out: dict, m: Model, path: Path) -> dict:
    """The written copy of the base's mapping at ``path`` (marker points)."""
    if path not in out:
        out[path] = dict(_get(m, path))
    return out[path]


def _list(out: dict, m: Model, path: Path) -> list:
    """The written copy of the base's list (or tuple) of functions at ``path``."""
    if path not in out:
        out[path] = list(_get(m, path))
    return out[path]


def _read_only(value: Any) -> Any:
    """A written array read-only as the compiled ones; a function list as compile's type."""
    if isinstance(value, np.ndarray):
        value.setflags(write=False)
    return value


def _put(obj: Any, updates: dict[Path, Any]) -> Any:
    """``obj`` with the values at the paths replaced: each dataclass on the way a
    ``dataclasses.replace`` of the base's, each tuple of groups a new tuple."""
    heads: dict[Any, dict] = {}
    for path, value in updates.items():
        heads.setdefault(path[0], {})[path[1:]] = value
    changed = {}
    for key, rest in heads.items():
        if () in rest:
            value = rest[()]
            old = obj[key] if isinstance(key, int) else getattr(obj, key)
            if isinstance(old, tuple) and isinstance(value, list):
                value = tuple(value)          # (motion functions, pitch radii)
            elif isinstance(old, MappingProxyType):
                value = MappingProxyType(value)   # (marker points: read-only as compiled)
        else:
            value = _put(obj[key] if isinstance(key, int) else getattr(obj, key), rest)
        changed[key] = value
    if isinstance(obj, tuple):
        return tuple(changed.get(k, x) for k, x in enumerate(obj))
    return dataclasses.replace(obj, **changed)
