"""A design study's parameters, addressed by name, and a variant: a copy of the mechanism with
the parameters set.

A parameter is ``<item>.<field>`` (an item's name may itself hold dots: "Crank.001.mass"; the
longest item name that fits is taken) or ``gravity.<axis>``:

  part (moving)       mass, center_of_mass.x|y|z, inertia.xx|yy|zz|xy|xz|yz (about the centre
                      of mass, part axes; xy sets Ixy and Iyx), velocity.x|y|z,
                      angular_velocity.x|y|z (the initial ones)
  marker              position.x|y|z (in its part's frame)
  distance joint      length
  spring-damper       stiffness, damping, free_length, preload, friction
  torsion spring      stiffness, damping, free_angle, preload, friction
  bushing             stiffness.x|y|z|rx|ry|rz, damping.*, preload.* (along and about
                      marker J's axes)
  motion, force,      a named constant of its expression (``add_motion(..., "omega*t",
  vector force,       constants={"omega": 6.0})`` -> "<motion>.omega"), and so a spring's
  general motion      or torsion spring's of its actuator
  gear                ratio (r_2 / r_1; with pitch radii, r_1 kept)
  rack and pinion     pitch_radius (m)
  screw               pitch (m per turn)
  coupler             scale1, scale2 (, scale3)
  joint friction      static (the dynamic coefficient follows it when the friction has
                      one coefficient), dynamic, transition_speed, viscous, preload,
                      radius, arm, bearing_length
  limit               lower, upper (the bounds it has), restitution (a rigid stop) or
                      stiffness, exponent, damping, penetration (a compliant one)
  contact             restitution, friction (static; the dynamic coefficient follows it when
                      the contact has one coefficient), dynamic_friction, slip_speed, and
                      the law it was built with: stiffness and exponent, time_constant,
                      or young, poisson and exponent (Hertz; "young" sets both sides,
                      "young.a" and "young.b" one side each, and so for poisson)
  gravity             gravity.x|y|z (an item named "gravity" takes precedence)
  constants           constants.<name>: a named constant in every motion, force and
                      spring whose expression uses it, all at once (as the Blender
                      scene's Constants are shared; an item named "constants" takes
                      precedence)

A part's inertia is the one it was given (or computed from its mass at add_part): varying the
mass leaves it; vary "inertia.*" with it.  A variant is made by re-adding each changed item
through the Builder's own add_* method on a deep copy, so the Builder's validation (a positive
mass, a positive definite inertia, a non-negative stiffness ...) applies unchanged and the
user's mechanism is never touched; the items keep their order.
"""
from __future__ import annotations

import copy
import difflib
import math
from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np

from ..base.errors import MechanismError, StudyError
from ..vocabulary.builder import Builder
from ..vocabulary.validate import vector

_AXES = ("x", "y", "z")
_INERTIA = {"xx": (0, 0), "yy": (1, 1), "zz": (2, 2), "xy": (0, 1), "xz": (0, 2), "yz": (1, 2),
            "yx": (0, 1), "zx": (0, 2), "zy": (1, 2)}
_SPRING = ("stiffness", "damping", "free_length", "preload", "friction")
_EXPRESSIONS = ("motions", "general_motions", "loads", "springs", "torsion_springs",
                "vector_forces")                       # the items with named constants
_TORSION = ("stiffness", "damping", "free_angle", "preload", "friction")
_FRICTION = ("static", "dynamic", "transition_speed", "viscous", "preload", "radius", "arm",
             "bearing_length")
_COMPLIANT = ("stiffness", "exponent", "damping", "penetration")
_BUSHING = ("stiffness", "damping", "preload")
_SIX = ("x", "y", "z", "rx", "ry", "rz")          # along, then about, marker J's axes
# a contact's parameter -> its Contact attribute (vocabulary/contacts.py), where they differ
_CONTACT_ATTRIBUTE = {"friction": "static", "dynamic_friction": "dynamic"}
_SIDES = ("a", "b")                               # a pair's entries: part A's side, part B's
_PAIRS = ("young", "poisson")
# the builder's tables: attribute, kind (as in its error messages)
TABLES = (("parts", "part"), ("markers", "marker"), ("joints", "joint"),
          ("springs", "spring-damper"), ("torsion_springs", "torsion spring"),
          ("motions", "motion"), ("loads", "force"), ("couplers", "coupler"),
          ("limits", "limit"), ("frictions", "friction"), ("bushings", "bushing"),
          ("vector_forces", "vector force"), ("general_motions", "general motion"),
          ("contacts", "contact"))


@dataclass(frozen=True)
class Parameter:
    """One resolved parameter: ``name`` as given; ``table`` (a TABLES attribute, or
    "gravity"), ``item``, ``field`` and ``index`` (an axis 0..2, an inertia entry (i, j), or
    None) say what it sets."""
    name: str
    table: str
    item: str
    field: str
    index: Any = None

    @property
    def target(self) -> tuple:
        return (self.table, self.item, self.field, self.index)


def item_fields(builder: Builder, table: str, item: str) -> list[str]:
    """The parameter fields an item has (canonical spellings), [] for none."""
    if table == "parts":
        if builder.parts[item].fixed:
            return []
        return (["mass"] + [f"center_of_mass.{a}" for a in _AXES]
                + [f"inertia.{k}" for k in ("xx", "yy", "zz", "xy", "xz", "yz")]
                + [f"velocity.{a}" for a in _AXES] + [f"angular_velocity.{a}" for a in _AXES])
    if table == "markers":
        return [f"position.{a}" for a in _AXES]
    if table == "joints":
        return ["length"] if builder.joints[item].kind == "distance" else []
    if table == "springs":
        return list(_SPRING) + list(builder.springs[item].constants)
    if table == "torsion_springs":
        return list(_TORSION) + list(builder.torsion_springs[item].constants)
    if table in ("motions", "loads", "vector_forces", "general_motions"):
        return list(getattr(builder, table)[item].constants)
    if table == "couplers":
        return builder.couplers[item].parameters
    if table == "frictions":          # (a ball's friction has no thrust arm or bearing)
        ball = builder.frictions[item].coordinate == "rotation"
        return [f for f in _FRICTION if not (ball and f in ("arm", "bearing_length"))]
    if table == "bushings":
        return [f"{f}.{c}" for f in _BUSHING for c in _SIX]
    if table == "limits":
        lm = builder.limits[item]
        bounds = [b for b in ("lower", "upper") if getattr(lm, b) is not None]
        return bounds + (list(_COMPLIANT) if lm.stiffness is not None else ["restitution"])
    if table == "contacts":
        return _contact_fields(builder.contacts[item])
    return []


def _contact_fields(contact: Any) -> list[str]:
    """A contact's parameters: those of the stiffness law it was built with (a stiffness
    and its exponent; a time constant, whose law is linear; or Young's moduli and
    Poisson's ratios, both sides or one, and the exponent) among the restitution and
    friction's."""
    if contact.stiffness is not None:
        law = ["stiffness", "exponent"]
    elif contact.time_constant is not None:
        law = ["time_constant"]
    else:
        law = ["exponent"] + [f"{f}{s}" for f in _PAIRS for s in ("", ".a", ".b")]
    return ["restitution"] + law + ["friction", "dynamic_friction", "slip_speed"]


def parameter_names(builder: Builder) -> list[str]:
    """Every parameter a study of ``builder`` may vary, in the builder's order."""
    out = []
    for table, _ in TABLES:
        for item in getattr(builder, table):
            out += [f"{item}.{f}" for f in item_fields(builder, table, item)]
    return (out + [f"gravity.{a}" for a in _AXES]
            + [f"constants.{c}" for c in shared_constants(builder)])


def shared_constants(builder: Builder) -> dict[str, list[tuple[str, str]]]:
    """{named constant: [(table, item) of every motion, force and spring whose expression
    uses it]}, the names sorted: what "constants.<name>" sets."""
    out: dict[str, list[tuple[str, str]]] = {}
    for table in _EXPRESSIONS:
        for item, it in getattr(builder, table).items():
            for c in it.constants:
                out.setdefault(c, []).append((table, item))
    return dict(sorted(out.items()))


def _field(builder: Builder, table: str, item: str, field: str) -> tuple[str, Any] | None:
    """(field, index) if ``field`` names one of the item's parameters, else None."""
    head, _, tail = field.partition(".")
    if table == "parts" and not builder.parts[item].fixed:
        if field == "mass":
            return "mass", None
        if head in ("center_of_mass", "velocity", "angular_velocity") and tail in _AXES:
            return head, _AXES.index(tail)
        if head == "inertia" and tail in _INERTIA:
            return "inertia", _INERTIA[tail]
    elif table == "markers" and head == "position" and tail in _AXES:
        return "position", _AXES.index(tail)
    elif table == "bushings" and head in _BUSHING and tail in _SIX:
        return head, _SIX.index(tail)
    elif table in ("springs", "torsion_springs") and field in (_SPRING if table == "springs"
                                                              else _TORSION):
        return field, None
    elif table in _EXPRESSIONS and field in getattr(builder, table)[item].constants:
        return "constant", field
    elif table == "contacts" and field in item_fields(builder, table, item):
        return _CONTACT_ATTRIBUTE.get(head, head), _SIDES.index(tail) if tail else None
    elif field in item_fields(builder, table, item):
        return field, None
    return None


def resolve(builder: Builder, name: Any) -> Parameter:
    """The Parameter ``name`` addresses in ``builder``, or StudyError naming it and what the
    valid ones are."""
    if not isinstance(name, str) or not name:
        raise StudyError(f"a parameter name must be a non-empty string, got {name!r}")
    found = []
    for table, kind in TABLES:
        for item in getattr(builder, table):
            if name.startswith(item + "."):
                found.append((len(item), table, kind, item))
    for _, table, kind, item in sorted(found, reverse=True):
        field = name[len(item) + 1:]
        hit = _field(builder, table, item, field)
        if hit is not None:
            return Parameter(name, table, item, hit[0], hit[1])
    if not found and name.startswith("gravity.") and name[8:] in _AXES:
        return Parameter(name, "gravity", "gravity", "gravity", _AXES.index(name[8:]))
    if not found and name.startswith("constants."):
        shared = shared_constants(builder)
        if name[10:] in shared:
            return Parameter(name, "constants", "constants", "constant", name[10:])
        raise StudyError(f"unknown parameter {name!r}: no motion, force or spring uses a "
                         f"named constant {name[10:]!r}"
                         + (f"; the named constants are: {', '.join(shared)}" if shared else ""))
    if found:
        _, table, kind, item = max(found)
        if table == "couplers":          # a gear, a rack and pinion, a screw, a coupler
            kind = builder.couplers[item].kind.replace("-", " ")
        fields = item_fields(builder, table, item)
        if table == "parts" and builder.parts[item].fixed:
            why = f"part {item!r} is fixed: it has no parameters"
        elif table in ("motions", "loads") and not fields:
            why = (f"{kind} {item!r} has no named constants (give them as add_"
                   f"{'motion' if table == 'motions' else 'force'}(..., constants={{'name': value}}) "
                   "and use the names in the expression)")
        elif not fields:
            why = f"{kind} {item!r} has no parameters"
        else:
            why = f"{kind} {item!r} has no parameter {name[len(item) + 1:]!r}; its parameters: " \
                  + ", ".join(fields)
        raise StudyError(f"unknown parameter {name!r}: {why}")
    if name.startswith("gravity."):
        raise StudyError(f"unknown parameter {name!r}: gravity's parameters are gravity.x, "
                         "gravity.y and gravity.z")
    valid = parameter_names(builder)
    close = difflib.get_close_matches(name, valid, n=3)
    hint = f" (did you mean {' or '.join(map(repr, close))}?)" if close else ""
    shown = ", ".join(valid[:40]) + (f", ... ({len(valid)} in all)" if len(valid) > 40 else "")
    raise StudyError(f"unknown parameter {name!r}: no item of the mechanism is named "
                     f"{name.rsplit('.', 1)[0]!r}{hint}; the parameters are: {shown}")


# the physical quantity of a parameter field whose unit is not one of its own (N/m, kg m^2,
# a constant of an expression: ""): what a user interface shows in its own units
_QUANTITY = {("parts", "mass"): "mass", ("parts", "center_of_mass"): "length",
             ("parts", "velocity"): "velocity", ("parts", "angular_velocity"): "angular velocity",
             ("markers", "position"): "length", ("joints", "length"): "length",
             ("springs", "free_length"): "length", ("torsion_springs", "free_angle"): "angle",
             ("couplers", "pitch_radius"): "length", ("couplers", "pitch"): "length",
             ("frictions", "radius"): "length", ("frictions", "arm"): "length",
             ("frictions", "bearing_length"): "length", ("gravity", "gravity"): "acceleration",
             ("contacts", "slip_speed"): "velocity"}


def quantity(builder: Builder, name: str) -> str:
    """What parameter ``name`` measures: "length" (m), "mass" (kg), "angle" (rad), "velocity"
    (m/s), "angular velocity" (rad/s), "acceleration" (m/s^2), "per length" (1/m), or "" for
    any other unit (a stiffness, an inertia, a ratio, an expression's constant).  A limit's
    bounds and penetration are an angle or a length by its joint coordinate; a general
    coupler's scale is per length on a slide (the relation counts the slide in metres),
    without a unit on an angle.  StudyError for an unknown name, as ``resolve``."""
    p = resolve(builder, name)
    if p.table == "limits" and p.field in ("lower", "upper", "penetration"):
        return "angle" if builder.limits[p.item].coordinate == "angle" else "length"
    if p.table == "couplers" and p.field.startswith("scale"):
        term = builder.couplers[p.item].terms[int(p.field[len("scale"):]) - 1]
        return "per length" if term[1] == "slide" else ""
    return _QUANTITY.get((p.table, p.field), "")


def resolve_all(builder: Builder, names: Any) -> list[Parameter]:
    """Each name resolved; StudyError for an unknown one or two that set the same value."""
    params = [resolve(builder, n) for n in names]
    seen: dict[tuple, str] = {}
    for p in params:
        for target in _targets(builder, p):
            if target in seen:
                raise StudyError(f"parameters {seen[target]!r} and {p.name!r} set the same value")
            seen[target] = p.name
    return params


def _targets(builder: Builder, p: Parameter) -> list[tuple]:
    """The values ``p`` sets: its own, for a contact's pair (young, poisson) set whole each
    side's, or for "constants.<name>" the constant in each item that uses it."""
    if p.table == "contacts" and p.field in _PAIRS and p.index is None:
        return [(p.table, p.item, p.field, k) for k in range(len(_SIDES))]
    if p.table != "constants":
        return [p.target]
    return [(table, item, "constant", p.index)
            for table, item in shared_constants(builder)[p.index]]


def _expanded(builder: Builder, params: list[Parameter], values: list[float]):
    """(Parameter, value) pairs with each "constants.<name>" split into one per item that
    uses the constant."""
    for p, v in zip(params, values):
        if p.table != "constants":
            yield p, v
            continue
        for table, item, field, index in _targets(builder, p):
            yield Parameter(p.name, table, item, field, index), v


def make_variant(base: Builder, params: list[Parameter], values: Any, index: int,
                 shared: bool = False) -> Builder:
    """A deep copy of ``base`` with each parameter set to its value; StudyError naming the
    variant ``index``, the parameters and what the Builder refused.  ``shared``: a copy
    of the tables only, sharing with ``base`` the items it does not change (setting a
    value replaces an item, never changes one in place): for a variant that is checked or
    compiled and dropped, never handed to the user."""
    values = [float(v) for v in values]
    if shared:
        out = copy.copy(base)
        for name, val in vars(base).items():
            if isinstance(val, dict):
                setattr(out, name, dict(val))
    else:
        out = copy.deepcopy(base)
    groups: dict[tuple[str, str], list[tuple[Parameter, float]]] = {}
    for p, v in _expanded(base, params, values):
        groups.setdefault((p.table, p.item), []).append((p, v))
    for (table, item), changes in groups.items():
        try:
            _apply(out, table, item, changes)
        except MechanismError as exc:
            what = ", ".join(f"{p.name} = {v:g}" for p, v in changes)
            raise StudyError(f"variant {index}: {what}: {exc}") from None
    return out


def _apply(b: Builder, table: str, item: str, changes: list[tuple[Parameter, float]]) -> None:
    """Set one item's parameters on the copy ``b`` by re-adding it (the Builder validates)."""
    if table == "gravity":
        g = b.gravity.copy()
        for p, v in changes:
            g[p.index] = v
        b.gravity = vector(g, 3, "gravity")
        return
    old = getattr(b, table)[item]
    if table == "parts":
        f = {"mass": old.mass, "inertia": old.inertia.copy(), "center_of_mass": old.center_of_mass.copy(),
             "velocity": old.velocity.copy(), "angular_velocity": old.angular_velocity.copy()}
        for p, v in changes:
            if p.field == "mass":
                f["mass"] = v
            elif p.field == "inertia":
                i, j = p.index
                f["inertia"][i, j] = f["inertia"][j, i] = v
            else:
                f[p.field][p.index] = v
        _readd(b, table, item, lambda: b.add_part(item, fixed=old.fixed, position=old.position,
                                                  orientation=old.orientation, **f))
        # the orientation as it was (re-adding normalizes it again, which may move a last bit)
        b.parts[item] = replace(b.parts[item], orientation=old.orientation)
    elif table == "markers":
        pos = old.position.copy()
        for p, v in changes:
            pos[p.index] = v
        _readd(b, table, item, lambda: b.add_marker(item, old.part, pos, old.orientation))
        b.markers[item] = replace(b.markers[item], orientation=old.orientation)
    elif table == "joints":
        _readd(b, table, item, lambda: b.add_joint(item, old.kind, old.marker_i, old.marker_j,
                                                   changes[-1][1]))
    elif table in ("springs", "torsion_springs"):
        f = {k: getattr(old, k) for k in (_SPRING if table == "springs" else _TORSION)}
        f.update({p.field: v for p, v in changes if p.field != "constant"})
        consts = {**old.constants, **{p.index: v for p, v in changes if p.field == "constant"}}
        add: Callable = b.add_spring_damper if table == "springs" else b.add_torsion_spring
        ends = (old.marker_i, old.marker_j) if table == "springs" else (old.joint,)
        # a text actuator is parsed again with its constants; a callable is passed on
        act = getattr(old.actuator, "source", old.actuator)
        _readd(b, table, item,
               lambda: add(item, *ends, actuator=act, constants=consts or None, **f))
    elif table == "motions":
        consts = {**old.constants, **{p.index: v for p, v in changes}}
        _readd(b, table, item, lambda: b.add_motion(item, old.joint, old.source, old.coordinate,
                                                    constants=consts,
                                                    breakpoints=old.breakpoints))
    elif table == "loads":
        consts = {**old.constants, **{p.index: v for p, v in changes}}
        _readd(b, table, item, lambda: b.add_force(item, old.marker, old.source[0], old.source[1],
                                                   old.frame, constants=consts))
    elif table == "couplers":
        _readd(b, table, item, lambda: _add_coupler(b, item, old, {p.field: v for p, v in changes}))
    elif table == "frictions":
        f = {k: getattr(old, k) for k in _FRICTION}
        f.update({p.field: v for p, v in changes})
        if _follows(old, {p.field for p, _ in changes}):
            f["dynamic"] = None               # (add_friction's: the static)
        _readd(b, table, item, lambda: b.add_friction(item, old.joint, coordinate=old.coordinate,
                                                      **f))
    elif table == "limits":
        f = {k: getattr(old, k) for k in ("lower", "upper", "restitution", "rest_speed")
             + _COMPLIANT}
        f.update({p.field: v for p, v in changes})
        _readd(b, table, item, lambda: b.add_limit(item, old.joint, coordinate=old.coordinate,
                                                   **f))
    elif table == "general_motions":
        consts = {**old.constants, **{p.index: v for p, v in changes}}
        _readd(b, table, item, lambda: b.add_general_motion(
            item, old.marker_i, old.marker_j, constants=consts, actuators=old.actuators,
            **{a: _given(src) for a, src in zip(old.axes, old.source)}))
    elif table == "vector_forces":
        consts = {**old.constants, **{p.index: v for p, v in changes}}
        _readd(b, table, item, lambda: b.add_vector_force(
            item, old.marker_i, old.marker_j, old.source[:3], old.source[3:],
            old.frame, constants=consts))
    elif table == "bushings":
        f = {k: np.array(getattr(old, k)) for k in _BUSHING}
        for p, v in changes:
            f[p.field][p.index] = v
        _readd(b, table, item, lambda: b.add_bushing(item, old.marker_i, old.marker_j, **f))
    elif table == "contacts":
        f = _contact_law(old, changes)
        _readd(b, table, item, lambda: b.add_contact(item, old.part_a, old.part_b, old.shape_a,
                                                     old.shape_b, **f))
    else:                                     # resolve() lets no other table through
        raise AssertionError(table)


def _contact_law(old: Any, changes: list[tuple[Parameter, float]]) -> dict[str, Any]:
    """add_contact's arguments for contact ``old`` with the ``changes`` (Parameter.field
    a Contact attribute; a pair's index None for both sides): its law as built, the
    dynamic friction following the static when the contact has one coefficient and only
    the static is set."""
    f = {"restitution": old.restitution, "stiffness": old.stiffness, "exponent": old.exponent,
         "time_constant": old.time_constant, "young": old.young, "poisson": old.poisson,
         "static": old.static, "dynamic": old.dynamic, "slip_speed": old.slip_speed}
    for p, v in changes:
        if p.field in _PAIRS:
            pair = list(f[p.field])
            for k in range(len(_SIDES)) if p.index is None else (p.index,):
                pair[k] = v
            f[p.field] = tuple(pair)
        else:
            f[p.field] = v
    if _follows(old, {p.field for p, _ in changes}):
        f["dynamic"] = None
    f["friction"], f["dynamic_friction"] = f.pop("static"), f.pop("dynamic")
    return f


def _follows(old: Any, fields: set[str]) -> bool:
    """Whether the dynamic coefficient of a joint's friction or a contact ``old`` follows a
    varied static one: the item has one coefficient (the dynamic equal to the static, as
    add_friction and add_contact make it when given the static alone) and the dynamic is
    not varied itself, so that the variant is the item added again with that static."""
    return old.dynamic == old.static and "static" in fields and "dynamic" not in fields


def _add_coupler(b: Builder, name: str, old: Any, new: dict[str, float]) -> None:
    """Add coupler ``name`` again as ``old`` (vocabulary/couplers.py) with the parameters
    ``new`` (Coupler.parameters), through the Builder's add_* (which validates them): a
    gear's mesh (external, internal, belt or chain) and pitch radii (the first kept), a
    screw's hand and joints, a coupler's joints and coordinates as they were."""
    (j1, _, s1), (j2, _, _) = old.terms[:2]
    if old.kind == "gear":
        ratio, mesh = new["ratio"], old.mesh
        if not ratio > 0.0:          # (as itself, not as the second pitch radius it makes)
            raise MechanismError(f"gear {name!r}: ratio must be positive, got {ratio}")
        how = (dict(radii=(old.radii[0], old.radii[0] * ratio)) if old.radii
               else dict(ratio=ratio))
        b.add_gear(name, j1, j2, mesh=mesh, pressure_angle=math.degrees(old.pressure_angle),
                   helix_angle=math.degrees(old.helix_angle),
                   **how)
    elif old.kind == "rack-and-pinion":          # terms: the pinion's angle, the rack's slide
        b.add_rack_pinion(name, j1, j2, new["pitch_radius"])
    elif old.kind == "screw":                    # terms: the angle, then the slide
        b.add_screw(name, j1, new["pitch"], None if j1 == j2 else j2,
                    "right" if s1 < 0.0 else "left")
    else:
        scales = [new.get(f"scale{k + 1}", t[2]) for k, t in enumerate(old.terms)]
        b.add_coupler(name, [t[0] for t in old.terms], scales, [t[1] for t in old.terms])


def _readd(b: Builder, table: str, item: str, add: Callable[[], None]) -> None:
    """Take ``item`` out of ``b``'s table, add it again with ``add`` and restore the order."""
    entries = getattr(b, table)
    order = list(entries)
    del entries[item]
    add()
    moved = [(k, entries[k]) for k in order]
    entries.clear()
    entries.update(moved)


def values_table(params: list[Parameter], values: np.ndarray) -> list[dict[str, float]]:
    """Rows of values as dicts: parameter name -> value."""
    return [{p.name: float(v) for p, v in zip(params, row)} for row in np.asarray(values)]


def _given(source: Any) -> Any:
    """A motion component as given again: a text is parsed anew with the new constants, a
    number or a callable passed on."""
    return getattr(source, "source", source)
