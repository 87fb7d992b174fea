"""The sidebar's settings as solver arguments: joint kind names, the names the add-on gives
the solver's motions and torsion springs, a constant speed as an expression of t, the
three components of an applied force or torque typed as text, and the scene's gravity."""
from __future__ import annotations

import re
from typing import Callable

from ...solver import ExpressionError, MechanismError
from ...solver import CURVE_JOINT_ROWS, JOINT_COORDINATES, JOINT_ROWS, named_constants
from ...solver import parse_expression as parse
from .plots import baked_quantities

# labels that are not the solver's kind with a capital
_LABELS = {"point-on-curve": "Point on curve"}
# the curve kinds' menu descriptions (their curves are picked on the joint: io/curve_joints.py)
_CURVE_HELP = {"point-on-curve": "Marker I's origin stays on a curve object fixed to marker J's "
                                 "part (a pin in a slot): 2 equations",
               "cam": "A curve on marker I's part touches a curve on marker J's part (a cam and "
                      "its follower, both in their markers' xy planes): 1 equation"}


def kind_name(enum_value: str) -> str:
    """Solver joint kind of a JOINT_KINDS enum value ('IN_LINE' -> 'in-line')."""
    return enum_value.lower().replace("_", "-")


def kind_label(enum_value: str) -> str:
    """What the user reads for a joint kind (the menu, the joint list, the names Connect
    gives): the solver's kind with a capital ('IN_LINE' -> 'In-line')."""
    kind = kind_name(enum_value)
    return _LABELS.get(kind, kind[:1].upper() + kind[1:])


# what each kind holds (docs/conventions.md#joints), in the menu's tooltip
_HOLDS = {"fixed": "The markers' origins together and their axes aligned: no relative motion",
          "revolute": "A hinge: the origins together, the z axes parallel; turns about z",
          "prismatic": "A slider: marker I's origin on marker J's z axis, the axes aligned; "
                       "slides along z",
          "cylindrical": "Marker I's origin on marker J's z axis, the z axes parallel; turns "
                         "about and slides along z",
          "spherical": "A ball joint: the origins together; turns every way",
          "universal": "A Cardan joint: the origins together, the z axes kept perpendicular (the "
                       "two cross pins)",
          "planar": "Marker I's origin in marker J's xy plane, the z axes parallel",
          "in-line": "Marker I's origin on marker J's z axis",
          "in-plane": "Marker I's origin in marker J's xy plane",
          "parallel-axes": "The markers' z axes kept parallel",
          "perpendicular": "The markers' z axes kept perpendicular",
          "distance": "The markers' origins kept at the joint's Distance apart"}


def _kind_help(kind: str, equations: int) -> str:
    """A joint kind's tooltip: what it holds and how many of the 6 relative freedoms of two
    parts it takes away (the equations Check counts)."""
    plural = "s" if equations != 1 else ""
    return (f"{_HOLDS.get(kind, kind_label(kind))} (takes away {equations} of the 6 relative "
            f"freedoms: {equations} equation{plural})")


# the Kind menu: (enum value, label, description) per solver joint kind, 'in-line' -> 'IN_LINE',
# then the joints on curves (appended: a saved file's menu values keep their places)
JOINT_KINDS = [(k.upper().replace("-", "_"), kind_label(k), _kind_help(k, len(rows)))
               for k, rows in JOINT_ROWS.items()] + [
    (k.upper().replace("-", "_"), kind_label(k), _CURVE_HELP[k]) for k in CURVE_JOINT_ROWS]


def motion_coordinate(kind_enum: str, choice: str) -> str:
    """The coordinate a joint's motion drives: a revolute its "angle", a prismatic its
    "slide" (whatever the hidden Coordinate choice says: the panel shows it only for
    cylindrical joints), a cylindrical the one chosen ("ANGLE" or "SLIDE")."""
    allowed = JOINT_COORDINATES.get(kind_name(kind_enum), ())
    wanted = "angle" if choice == "ANGLE" else "slide"
    return wanted if wanted in allowed or not allowed else allowed[0]


def motion_name(joint: str, coordinate: str = "angle") -> str:
    """Solver name of the motion on a joint's "angle" or "slide" (what errors and the CSV show)."""
    return f"{joint}: motion" + ("" if coordinate == "angle" else " (slide)")


def torsion_spring_name(joint: str) -> str:
    """Solver name of the torsion spring on a joint."""
    return f"{joint}: torsion spring"


def speed_expression(speed: float) -> str:
    """Expression of t for a constant speed from zero (rad/s or m/s): the float's repr, so
    the solver parses the very same number."""
    return f"{float(speed)!r}*t"


def split_components(text: str, what: str) -> list:
    """'0, 10*sin(t), 0' -> [0.0, '10*sin(t)', 0.0]: commas outside parentheses split;
    numbers become floats, anything else stays an expression of t.  MechanismError naming
    ``what`` unless there are three components."""
    parts, depth, cur = [], 0, ""
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    parts.append(cur)
    if len(parts) != 3:
        raise MechanismError(f"{what}: give three components separated by commas, got {text!r}")
    out = []
    for p in parts:
        p = p.strip()
        try:
            out.append(float(p))
        except ValueError:
            out.append(p)
    return out


def scene_constants(pairs) -> dict[str, float]:
    """The scene's Constants, (name, value) pairs as the Constants list holds them, as the
    named constants every motion, force and spring expression may use: {name: value}, or
    MechanismError naming the constant that is unnamed, named twice or named like t, pi, e
    or a function."""
    out: dict[str, float] = {}
    for k, (name, value) in enumerate(pairs):
        name = str(name).strip()
        if not name:
            raise MechanismError(f"Constants: entry {k + 1} has no name")
        if name in out:
            raise MechanismError(f"Constants: {name!r} is defined twice")
        out[name] = value
    try:
        return named_constants(out, ("t",), "Constants: ")
    except ExpressionError as exc:
        raise MechanismError(str(exc)) from None


def used_constants(texts, constants: dict[str, float],
                   variables: tuple[str, ...] = ("t",), measures: bool = False) -> dict[str, float]:
    """The named ``constants`` that the expression texts (of ``variables``; numbers among
    them are skipped) use, for add_motion/add_force/a spring's actuator (which refuse a
    constant no expression uses).  A text that does not parse gets them all, so the
    solver's error lists them among the allowed names.  ``measures``: the texts may use the
    state's measures (a force with a Reaction marker: the solver's add_vector_force)."""
    used: set[str] = set()
    for text in texts:
        if isinstance(text, str) and constants:
            try:
                used |= parse(text, variables, constants=constants,
                              measures=measures).constants_used
            except ExpressionError:
                return dict(constants)
    return {k: v for k, v in constants.items() if k in used}


EARTH = 9.80665     # m/s^2


def gravity_note(gravity, scale: float,
                 earth_text: Callable[[float], str] | None = None, metric: bool = True) -> str:
    """A note when the scene's Gravity (Blender units per s^2, as Blender's own physics reads
    it) is far from Earth's in SI at a unit scale other than 1: a millimetre scene keeps
    the default -9.81, which is 0.00981 m/s^2 there, and every part falls a thousand times
    too slowly.  "" when it is within a factor 2 of Earth's, zero, or the scale is 1.
    The value to set is written as the Gravity field takes it: ``earth_text`` writes an
    acceleration in m/s^2 in the scene's units (a unit system: the field shows and takes
    the stored value times the unit scale, so Earth's is typed 9.80665 m/s^2); None (no
    unit system: the field takes Blender units/s^2 as stored) gives 9.80665 / scale.  Not
    ``metric`` (Imperial: the field shows ft/s^2), the scene's gravity is also given as the
    field shows it."""
    g = float(sum(x * x for x in gravity)) ** 0.5
    si = g * scale
    if scale == 1.0 or g == 0.0 or 0.5 * EARTH <= si <= 2.0 * EARTH:
        return ""
    if earth_text is not None:
        shown = "" if metric else f" ({earth_text(si)})"
        return (f"gravity: the scene's Gravity is {si:.4g} m/s^2{shown} at unit scale {scale:g} "
                f"({g:.4g} Blender units/s^2, as Blender's own physics reads it); for Earth's "
                f"set Scene > Gravity to {earth_text(EARTH)} along its direction")
    return (f"gravity: the scene's Gravity {g:.4g} Blender units/s^2 is {si:.4g} m/s^2 at unit "
            f"scale {scale:g} (Blender's own physics reads it so too); for Earth's set Scene > "
            f"Gravity to {EARTH / scale:.6g} along its direction")


def typed(x: float) -> float:
    """A value as typed into a Blender float field: the field keeps 32 bits (0.15 is held as
    0.15000000596...), so it is read back to the 7 significant digits the field shows."""
    return float(f"{float(x):.7g}")


def tolerance(settings) -> float:
    """The Tolerance of the scene's Mechanism settings as the solver gets it, as typed (1e-6,
    not the 9.99999997e-07 the field holds): a bake, a study and the command line then give
    a script's ``solve(tolerance=1e-6)`` to the last bit."""
    return typed(settings.tolerance)


def solve_options(settings) -> dict:
    """The scene's analysis settings as the solver's keyword arguments, the one place the
    add-on builds them (Bake, Bake Variant, Export CSV, the Study panel and the command
    line): ``analysis`` ("auto", "kinematic" or "dynamic") and ``tolerance`` as typed."""
    return {"analysis": settings.analysis.lower(), "tolerance": tolerance(settings)}


def bake_options(settings, bushings: int = 0, vector_forces: int = 0, springs: int = 0) -> dict:
    """``solve_options`` of a bake or Export CSV: with ``keep``, the Result quantities they
    read (io/plots.py ``baked_quantities``; a study keeps every quantity for its metrics)."""
    return {**solve_options(settings), "keep": baked_quantities(bushings, vector_forces, springs)}


def state_measures(texts) -> list[str]:
    """The state measures (DX, VX, ...) the expression texts use, in order (numbers and
    texts that do not parse: none)."""
    found: list[str] = []
    for text in texts:
        if isinstance(text, str):
            try:
                found += [m for m, _ in parse(text, ("t",), measures=True).measures if m not in found]
            except ExpressionError:
                pass
    return found


# the solver's words for a setting the panel spells otherwise (its Python argument)
_PANEL_TERMS = (("use analysis='dynamic'", "set Analysis to Auto or Dynamic"),
                ("Mechanism.assemble() moves the parts there", "Assemble shows it"))
# an expression's unknown name, with the names allowed after it (solver/vocabulary/expressions)
_UNKNOWN_NAME = re.compile(r"uses a name that is not allowed: '([A-Za-z]\w*)' \(allowed: [^)]*\)")


def in_panel_terms(message: str) -> str:
    """A solver message with its Python arguments said as the sidebar names the setting; an
    expression's unknown name with where a named constant is given: the scene's Constants,
    which objects appended or linked from another file do not bring with them."""
    for solver_words, panel_words in _PANEL_TERMS:
        message = message.replace(solver_words, panel_words)
    return _UNKNOWN_NAME.sub(lambda m: f"{m[0]}; if it is a named constant, add {m[1]!r} "
                             "under Constants (the scene's own: objects appended from another "
                             "file come without them)", message)


def kinematic_note(analysis: str, driven_dof: int) -> str | None:
    """Check's warning when the Analysis setting is Kinematic but motions leave freedoms
    undriven (a Bake would stop at its first frame), or None."""
    if analysis != "KINEMATIC" or driven_dof <= 0:
        return None
    return (f"Analysis is Kinematic, but {driven_dof} degree(s) of freedom are not driven by "
            "motions: Bake would stop; drive them, or set Analysis to Auto or Dynamic")
