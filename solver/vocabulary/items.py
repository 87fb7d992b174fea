"""The records of the user's vocabulary that the builder keeps by name: parts, markers,
joints and motions, and the force elements (Nikravesh 1988, "Translational / Rotational
spring-damper-actuator"; conventions in kernels/forces.py), with their validating
constructors."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..base.errors import ExpressionError, MechanismError
from .expressions import named_constants, parse
from .timefunctions import time_function
from .validate import nonnegative as _nonneg, number as _number


@dataclass
class Part:
    name: str
    fixed: bool
    mass: float
    inertia: np.ndarray          # (3, 3) about the centre of mass, part axes, kg m^2
    center_of_mass: np.ndarray   # (3,) in the part frame, m
    position: np.ndarray         # (3,) part-frame origin in world, m
    orientation: np.ndarray      # (4,) part frame in world, w x y z
    velocity: np.ndarray         # (3,) of the part-frame origin, world, m/s
    angular_velocity: np.ndarray  # (3,) world axes, rad/s


@dataclass
class Marker:
    name: str
    part: str
    position: np.ndarray         # (3,) in the part frame
    orientation: np.ndarray      # (4,) in the part frame


@dataclass
class Joint:
    name: str
    kind: str
    marker_i: str
    marker_j: str
    length: float | None = None  # distance joints only
    curves: tuple = ()           # curve joints: (curve on J,) or (curve on I, curve on J)


@dataclass
class Motion:
    name: str
    joint: str
    coordinate: str              # "angle" (rad) or "slide" (m)
    function: Any                # expressions.TimeFunction
    source: Any = None           # the expression as given (a number, text, a callable or a table)
    constants: dict = field(default_factory=dict)   # named constants of a text expression
    breakpoints: Any = None      # the breakpoints as given (times, s), beside the parse's own


@dataclass
class GeneralMotion:
    """Marker I's pose prescribed relative to marker J: ``axes`` (some of "x", "y", "z",
    its origin in J's axes, m, and "b1", "b2", "b3", its body-fixed 1-2-3 angles, rad)
    each driven by its function of time (expressions.TimeFunction); ``actuated``: the joint
    coordinates that carry its effort (Builder.add_general_motion)."""
    name: str
    marker_i: str
    marker_j: str
    axes: tuple[str, ...]
    functions: tuple[Any, ...]
    source: tuple[Any, ...]
    constants: dict = field(default_factory=dict)
    actuators: tuple = ()                  # as given: joint names or (joint, coordinate)
    # each actuator's (joint, coordinate, label): the joint coordinate that carries the
    # motion's effort, and its key in Result.actuator_efforts
    actuated: tuple[tuple[str, str, str], ...] = ()


@dataclass
class SpringDamper:
    name: str
    marker_i: str
    marker_j: str
    stiffness: float
    damping: float
    free_length: float | None
    preload: float
    friction: float
    actuator: Callable[..., float] | None
    constants: dict = field(default_factory=dict)   # named constants of a text actuator


@dataclass
class TorsionSpring:
    name: str
    joint: str
    stiffness: float
    damping: float
    free_angle: float
    preload: float
    friction: float
    actuator: Callable[..., float] | None
    constants: dict = field(default_factory=dict)   # named constants of a text actuator


@dataclass
class Bushing:
    """Six-component linear spring-damper from marker J to marker I (model/bushings.py):
    stiffness (N/m x3, N m/rad x3), damping (N s/m x3, N m s/rad x3) and preload (N x3,
    N m x3, the load on I at zero displacement) along and about marker J's x, y, z."""
    name: str
    marker_i: str
    marker_j: str
    stiffness: np.ndarray
    damping: np.ndarray
    preload: np.ndarray


@dataclass
class VectorForce:
    """Force and torque on marker I's part at its origin, the opposite on marker J's part
    (model/vector_forces.py): six components along ``frame``'s axes (a marker's name, or
    "world"), each a number or an Expression of t and the state's measures."""
    name: str
    marker_i: str
    marker_j: str
    frame: str
    components: tuple                 # six: float or Expression
    source: tuple                     # six: as given (numbers or texts)
    constants: dict = field(default_factory=dict)


@dataclass
class Load:
    name: str
    marker: str
    force: list            # 3 TimeFunctions
    torque: list           # 3 TimeFunctions
    frame: str             # "world" or "marker"
    source: tuple = ()     # (force, torque) as given
    constants: dict = field(default_factory=dict)   # named constants of its text components


class ScalarFunction:
    """f(*variables) from a number or a safe expression string: callable with the variables'
    values in order; pickles as its recipe (the number, or the text and its variables)."""

    def __init__(self, spec: Any, variables: tuple[str, ...], what: str,
                 constants: dict | None = None) -> None:
        self._recipe = (spec, tuple(variables), what, dict(constants) if constants else None)
        self.constants_used: frozenset = frozenset()     # named constants the text uses
        if isinstance(spec, str):
            try:
                self._expr = parse(spec, variables, what, constants)
            except ExpressionError as exc:
                raise MechanismError(str(exc)) from None
            self._names = tuple(variables)
            self.constants_used = self._expr.constants_used
        else:
            self._expr, self._c = None, _number(spec, what)

    @property
    def source(self) -> Any:
        """The number or text it was made from (a study re-adds its item from it)."""
        return self._recipe[0]

    def __call__(self, *args: Any) -> Any:
        if self._expr is None:
            return self._c
        return self._expr(**dict(zip(self._names, args)))

    def __reduce__(self) -> Any:
        return (ScalarFunction, self._recipe)

    def __deepcopy__(self, memo: dict) -> "ScalarFunction":
        return self           # immutable: a copied mechanism shares it


def scalar_function(spec: Any, variables: tuple[str, ...], what: str,
                    constants: dict | None = None) -> Callable[..., float] | None:
    """A safe f(*variables) from None, a number, an expression string (``constants``: named
    numbers it may use) or a callable."""
    if constants and not isinstance(spec, str):
        raise MechanismError(f"{what}: named constants apply to an expression string only")
    if spec is None:
        return None
    if (isinstance(spec, (int, float)) and not isinstance(spec, bool)) or isinstance(spec, str):
        return ScalarFunction(spec, variables, what, constants)
    if callable(spec):
        return spec
    raise MechanismError(f"{what} must be a number, an expression of {', '.join(variables)} or a "
                         f"callable, got {type(spec).__name__}")


def _actuator(spec: Any, variables: tuple[str, ...], what: str, constants: dict | None):
    """(f, constants) of a spring's actuator with its named constants validated, each one
    used by the text."""
    try:
        consts = named_constants(constants, variables, f"{what}: ")
    except ExpressionError as exc:
        raise MechanismError(str(exc)) from None
    fn = scalar_function(spec, variables, f"{what}: actuator", consts)
    unused_constants(consts, [fn], what)
    return fn, consts


def make_spring_damper(name: str, marker_i: str, marker_j: str, stiffness: Any, damping: Any,
                       free_length: Any, preload: Any, friction: Any, actuator: Any,
                       constants: dict | None = None) -> SpringDamper:
    what = f"spring-damper {name!r}"
    L0 = None if free_length is None else _nonneg(free_length, f"{what}: free_length")
    fn, consts = _actuator(actuator, ("t", "length", "speed"), what, constants)
    return SpringDamper(name, marker_i, marker_j, _nonneg(stiffness, f"{what}: stiffness"),
                        _nonneg(damping, f"{what}: damping"), L0, _number(preload, f"{what}: preload"),
                        _nonneg(friction, f"{what}: friction"), fn, consts)


def make_bushing(name: str, marker_i: str, marker_j: str, stiffness: Any, damping: Any,
                 preload: Any) -> Bushing:
    what = f"bushing {name!r}"
    k = _six(stiffness, f"{what}: stiffness", nonnegative=True)
    c = _six(damping, f"{what}: damping", nonnegative=True)
    return Bushing(name, marker_i, marker_j, k, c, _six(preload, f"{what}: preload"))


def _six(value: Any, what: str, nonnegative: bool = False) -> np.ndarray:
    """Six numbers (three along, three about marker J's axes), or one for all six."""
    try:
        a = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise MechanismError(f"{what} must be six numbers (x, y, z, then about x, y, z), "
                             f"got {value!r}") from None
    if a.size == 1:
        a = np.repeat(a, 6)
    if a.size != 6:
        raise MechanismError(f"{what} must be six numbers (x, y, z, then about x, y, z), "
                             f"got {a.size}")
    if not np.all(np.isfinite(a)):
        raise MechanismError(f"{what} has a NaN or infinite value")
    if nonnegative and np.any(a < 0):
        bad = ", ".join("x y z rx ry rz".split()[i] for i in np.flatnonzero(a < 0))
        raise MechanismError(f"{what} must not be negative (component {bad})")
    a.setflags(write=False)
    return a


def make_vector_force(name: str, marker_i: str, marker_j: str, force: Any, torque: Any,
                      frame: str, constants: dict | None = None) -> VectorForce:
    """Six components, each a finite number or the text of an expression of t and the
    state's measures (DX("I", "J"), VX, WX, AZ, ...: vocabulary/expressions.py MEASURES)."""
    what = f"vector force {name!r}"
    consts = named_constants(constants, ("t",), f"{what}: ")
    comps, source = [], []
    for label, given in (("force", force), ("torque", torque)):
        if isinstance(given, str) or not hasattr(given, "__len__") or len(given) != 3:
            raise MechanismError(f"{what}: {label} must be three components (numbers or "
                                 f"expressions), got {given!r}")
        for axis, spec in zip("xyz", given):
            part = f"{what}: {label} {axis}"
            if isinstance(spec, str):
                comps.append(parse(spec, ("t",), part, consts, measures=True))
            else:
                comps.append(_number(spec, part))
            source.append(spec)
    fns = [c for c in comps if not isinstance(c, float)]
    unused_constants(consts, fns, what)
    return VectorForce(name, marker_i, marker_j, frame, tuple(comps), tuple(source), consts)


def make_torsion_spring(name: str, joint: str, stiffness: Any, damping: Any, free_angle: Any,
                        preload: Any, friction: Any, actuator: Any,
                        constants: dict | None = None) -> TorsionSpring:
    what = f"torsion spring {name!r}"
    fn, consts = _actuator(actuator, ("t", "angle", "speed"), what, constants)
    return TorsionSpring(name, joint, _nonneg(stiffness, f"{what}: stiffness"),
                         _nonneg(damping, f"{what}: damping"), _number(free_angle, f"{what}: free_angle"),
                         _number(preload, f"{what}: preload"), _nonneg(friction, f"{what}: friction"),
                         fn, consts)


def make_load(name: str, marker: str, force: Any, torque: Any, frame: str,
              constants: dict | None = None) -> Load:
    """A Load; ``constants``: named numbers its text components may use (each one used by at
    least one of them)."""
    what = f"force {name!r}"
    if frame not in ("world", "marker"):
        raise MechanismError(f"{what}: frame must be 'world' or 'marker', got {frame!r}")
    comps = []
    try:
        consts = named_constants(constants, ("t",), f"{what}: ")
    except ExpressionError as exc:
        raise MechanismError(str(exc)) from None
    for label, vec in (("force", force), ("torque", torque)):
        if isinstance(vec, str) or callable(vec) or not hasattr(vec, "__len__") or len(vec) != 3:
            raise MechanismError(f"{what}: {label} must have 3 components (numbers, expressions "
                                 f"of t or callables), got {vec!r}")
        try:
            comps.append([time_function(c, name=f"{what}: {label}[{k}]",
                                        constants=consts if isinstance(c, str) else None)
                          for k, c in enumerate(vec)])
        except ExpressionError as exc:
            raise MechanismError(str(exc)) from None
    unused_constants(consts, comps[0] + comps[1], what)
    return Load(name, marker, comps[0], comps[1], frame, (tuple(force), tuple(torque)), consts)


def unused_constants(constants: dict, functions: list, what: str) -> None:
    """MechanismError naming a named constant that none of ``functions`` uses (varying it
    would change nothing)."""
    used = set().union(*(getattr(f, "constants_used", ()) for f in functions))
    unused = [k for k in constants if k not in used]
    if unused:
        raise MechanismError(f"{what}: the constant(s) {', '.join(map(repr, unused))} appear in "
                             "no expression")


