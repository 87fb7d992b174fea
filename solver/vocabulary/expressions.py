"""Safe user expressions with exact first and second derivatives.

Motions and forces are typed by users ("pi/6 + 2*pi*t", "100*sin(t) - 5*speed"). They are parsed
with ``ast`` in 'eval' mode, checked against a whitelist and turned into closures once; the text is
never eval'd, exec'd or compiled to code.  Named constants (``parse("omega*t", constants={"omega":
6.0})``) are numbers fixed at parse time, like ``pi``: a design study (solver/study/) varies one by
parsing the same text with a new value. Evaluating on a :class:`Jet` (base/jet.py: a truncated
second-order Taylor number) gives value, first and second derivative exactly, so solvers get
velocity and acceleration without finite differences.  Functions of time f(t) built from
expressions, numbers or callables are in ``timefunctions.py``.
"""
from __future__ import annotations

import ast
import builtins
import keyword
import math
import operator
from typing import Any, Callable

import numpy as np

from ..base.errors import ExpressionError
from ..base.jet import (Jet, abs, acos, asin, atan, atan2, cos, exp, fpow as _fpow, log, max, min,
                        ramp, sin, sqrt, step, step5, tan, value_of as _val)

__all__ = ["ExpressionError", "Jet", "Expression", "parse",
           "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sqrt", "exp", "log", "abs",
           "min", "max", "step", "step5", "ramp"]

MAX_LENGTH = 2000
MAX_DEPTH = 100

# name -> (function, number of arguments; -2 means "at least 2", signature hint)
_FUNCS: dict[str, tuple[Callable[..., Any], int, str]] = {
    "sin": (sin, 1, ""), "cos": (cos, 1, ""), "tan": (tan, 1, ""), "asin": (asin, 1, ""),
    "acos": (acos, 1, ""), "atan": (atan, 1, ""), "atan2": (atan2, 2, " (y, x)"),
    "sqrt": (sqrt, 1, ""), "exp": (exp, 1, ""), "log": (log, 1, ""), "abs": (abs, 1, ""),
    "min": (min, -2, ""), "max": (max, -2, ""), "step": (step, 5, " (x, x0, h0, x1, h1)"),
    "step5": (step5, 5, " (x, x0, h0, x1, h1)"), "ramp": (ramp, 3, " (x, x0, x1)")}
_CONSTANTS = {"pi": math.pi, "e": math.e}
# the arguments of step(x, x0, h0, x1, h1), step5 and ramp(x, x0, x1) where x turns
_EDGES = {"step": (1, 3), "step5": (1, 3), "ramp": (1, 2)}
# abs(u), min(u, v, ...), max(...) turn where u = 0 or two arguments meet: a kink (a jump
# of the rate) at a time the steps end on where the arguments are affine in t alone
_KINKED = ("abs", "min", "max")
# measures of the mechanism's state a force may use (Adams' function names): name -> (the
# fewest, the most marker names it takes); the markers are given as strings, DX("tip", "O")
MEASURES: dict[str, tuple[int, int]] = {
    **{n: (2, 3) for n in ("DX", "DY", "DZ", "VX", "VY", "VZ", "WX", "WY", "WZ")},
    **{n: (2, 2) for n in ("DM", "VR", "WM", "AX", "AY", "AZ")}}
MEASURE_VARIABLE = "_measures"     # the hidden variable that carries their values
_BINOPS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
           ast.Div: operator.truediv, ast.Pow: lambda a, b: (
               a ** b if isinstance(a, Jet) or isinstance(b, Jet) else _fpow(a, b))}
_CHAIN = (ast.Add, ast.Sub, ast.Mult, ast.Div)
_BAD_OPS = {ast.FloorDiv: "'//'", ast.Mod: "'%'", ast.MatMult: "'@'", ast.LShift: "'<<'",
            ast.RShift: "'>>'", ast.BitOr: "'|'", ast.BitAnd: "'&'", ast.BitXor: "'^'",
            ast.Invert: "'~'", ast.Not: "'not'"}
_BAD_NODES: dict[type, str] = {  # plain words for rejected constructs ("... not allowed")
    ast.Attribute: "attribute access (.) is", ast.Subscript: "subscripts ([...]) are",
    ast.List: "lists are", ast.Tuple: "commas outside a function's brackets are", ast.Set: "sets are", ast.Dict: "dicts are",
    ast.Lambda: "lambda functions are", ast.Compare: "comparisons (<, >, ==, ...) are",
    ast.BoolOp: "boolean operators (and, or) are", ast.NamedExpr: "assignments (:=) are",
    ast.IfExp: "conditional expressions (... if ... else ...) are", ast.JoinedStr: "strings are",
    ast.Starred: "star arguments (*) are", ast.ListComp: "comprehensions are",
    ast.SetComp: "comprehensions are", ast.DictComp: "comprehensions are",
    ast.GeneratorExp: "comprehensions are"}


class Expression:
    """A parsed expression: callable with keyword values of its variables (floats, arrays or
    Jets); returns a float (or array) or a Jet. Built once into closures, so calls are fast."""

    def __init__(self, source: str, variables: tuple[str, ...], name: str,
                 fn: Callable[[dict[str, Any]], Any], constants: frozenset = frozenset(),
                 measures: tuple = (), breakpoints: tuple[float, ...] = ()) -> None:
        self.source, self.variables, self.name, self._fn = source, variables, name, fn
        self.constants_used = constants     # the named constants the text uses
        # the times (s) where a step, step5 or ramp of t itself turns, at edges that are
        # numbers: where the value's derivatives jump (a step: its second; a ramp: its
        # first), which a dynamic run's steps end on rather than step across
        self.breakpoints = breakpoints
        # the state measures the text uses, (function, marker names) in the order their
        # values come in the hidden variable MEASURE_VARIABLE (..., len(measures))
        self.measures = measures
        self._prefix = f"{name}: " if name else ""

    def __repr__(self) -> str:
        return f"Expression({self.source!r}, variables={self.variables!r})"

    def _where(self, values: dict[str, Any]) -> str:
        """The values an evaluation failed at, each by the name the text uses: t, length,
        ..., and each state measure as written (DM('B', 'G')=0), never the hidden
        variable that carries the measures."""
        parts = [f"{k}={_shown_value(v)}" for k, v in values.items() if k != MEASURE_VARIABLE]
        if MEASURE_VARIABLE in values:
            m = np.asarray(_val(values[MEASURE_VARIABLE]), dtype=float)
            parts += [f"{fn}({', '.join(repr(n) for n in names)})={_shown_value(m[..., k])}"
                      for k, (fn, names) in enumerate(self.measures)]
        return ", ".join(parts)

    def __call__(self, **values: Any) -> Any:
        if values.keys() != set(self.variables):
            missing = [v for v in self.variables if v not in values]
            extra = [v for v in values if v not in self.variables]
            raise ExpressionError(f"{self._prefix}expression {self.source!r} needs values for "
                                  f"{missing} and does not know {extra}")
        try:
            return self._fn(values)
        except ZeroDivisionError:
            why = "division by zero"
        except OverflowError:
            why = "numeric overflow (the result is too large)"
        except FloatingPointError as exc:      # numpy's, on a stack of values
            why = _numpy_why(str(exc))
        except (ArithmeticError, ValueError, TypeError) as exc:  # includes ExpressionError
            why = str(exc)
        at = self._where(values)
        raise ExpressionError(f"{self._prefix}expression {self.source!r} cannot be evaluated "
                              f"at {at}: {why}", time=_one_time(values.get("t")))


def _numpy_why(message: str) -> str:
    """numpy's floating-point error ("divide by zero encountered in divide") in the words
    the scalar path uses."""
    for words, why in (("divide by zero", "division by zero"),
                       ("overflow", "numeric overflow (the result is too large)"),
                       ("invalid value", "the result is not a number (0/0, inf - inf, or a "
                                         "function outside its domain)")):
        if words in message:
            return why
    return message


def _shown_value(value: Any) -> str:
    """One variable's value as a message writes it: a number in full (the time it failed
    at, exactly), a stack of them as its range."""
    try:
        v = np.asarray(_val(value), dtype=float)
    except (TypeError, ValueError):
        return repr(_val(value))
    if v.ndim == 0:
        return repr(float(v))
    return f"{float(v.min())!r} .. {float(v.max())!r}" if v.size else "(none)"


def _kinks(args: list) -> list[float]:
    """The times where abs of one argument, or min or max of several, turns: each argument
    (a closure of t alone) that is affine in t, u(t) = u0 + s t (checked at t = 0, 1, 2 to
    1e-12 of its size), meets zero (abs) or another one (min, max) there; none when an
    argument is not affine (its kinks are not located: a step over one is held to the
    error goal as any other)."""
    lines = []
    for a in args:
        try:
            u0, u1, u2 = (float(a({"t": x})) for x in (0.0, 1.0, 2.0))
        except (ArithmeticError, ValueError, TypeError):
            return []
        if not abs(u2 - 2.0 * u1 + u0) <= 1e-12 * (abs(u0) + abs(u1) + abs(u2)):
            return []
        lines.append((u0, u1 - u0))
    if len(lines) == 1:
        lines.append((0.0, 0.0))          # abs(u): where u meets 0
    out = []
    for i, (ai, si) in enumerate(lines):
        for aj, sj in lines[i + 1:]:
            if si != sj:
                t = (aj - ai) / (si - sj)
                if math.isfinite(t):
                    out.append(t)
    return out


def _one_time(t: Any) -> float | None:
    """The time (s) an expression was evaluated at, when it was one time (not a stack)."""
    t = _val(t)
    return float(t) if t is not None and np.ndim(t) == 0 else None


class _Builder:
    """Validates the AST against the whitelist and turns it into closures (env dict -> value)."""

    def __init__(self, source: str, variables: tuple[str, ...], prefix: str,
                 constants: dict[str, float], measures: bool = False) -> None:
        self.source, self.variables, self.prefix = source, variables, prefix
        self.constants, self.used = constants, set()
        self.breaks: set[float] = set()    # the times where a step or ramp of t turns
        self.measures_allowed = measures
        self.measures: list[tuple[str, tuple[str, ...]]] = []
        funcs = tuple(_FUNCS) + (tuple(MEASURES) if measures else ())
        self.allowed = (f"allowed: {', '.join(variables + tuple(constants) + tuple(_CONSTANTS))} "
                        f"and the functions {', '.join(funcs)}")

    def fail(self, what: str) -> None:
        raise ExpressionError(f"{self.prefix}expression {self.source!r} {what}")

    def case_hint(self, name: str) -> str:
        """"; names are lower case: did you mean 'sin'?" for a name written in capitals
        ("Sin", "PI"), else nothing."""
        known = self.variables + tuple(self.constants) + tuple(_CONSTANTS) + tuple(_FUNCS)
        lower = name.lower()
        return f"; names are lower case: did you mean {lower!r}?" if lower in known and lower != name else ""

    @staticmethod
    def constant_hint(name: str) -> str:
        """"; a constant of your own is given as constants={'omega': ...} ..." for a name
        that could be a user's constant (not Python's own, nor private), else nothing."""
        if name.startswith("_") or hasattr(builtins, name) or keyword.iskeyword(name):
            return ""
        return (f"; a constant of your own is given as constants={{{name!r}: ...}} (in "
                "Blender, on the Constants panel)")

    def build(self, node: ast.AST, depth: int) -> Callable[[dict[str, Any]], Any]:
        if depth > MAX_DEPTH:
            self.fail(f"is nested too deeply (more than {MAX_DEPTH} levels)")
        if isinstance(node, ast.Constant):
            c = node.value
            if isinstance(c, bool) or c is None:
                self.fail(f"is invalid: booleans and None are not allowed ({c!r})")
            if isinstance(c, (str, bytes)):
                self.fail("is invalid: strings are not allowed")
            if not isinstance(c, (int, float)):
                self.fail(f"is invalid: the constant {c!r} is not allowed (only real numbers)")
            try:
                f = float(c)
            except OverflowError:
                self.fail("is invalid: a number is too large")
            return lambda env: f
        if isinstance(node, ast.Name):
            n = node.id
            if n in self.variables:
                return operator.itemgetter(n)
            if n in _CONSTANTS or n in self.constants:
                k = _CONSTANTS[n] if n in _CONSTANTS else self.constants[n]
                if n in self.constants:
                    self.used.add(n)
                return lambda env: k
            if n in _FUNCS:
                self.fail(f"is invalid: '{n}' is a function and must be called, e.g. {n}(t)")
            if n in MEASURES and self.measures_allowed:
                self.fail(f"is invalid: '{n}' is a measure of the state and must be called "
                          f"with its markers, e.g. {n}('I', 'J')")
            hint = self.case_hint(n) or self.constant_hint(n)
            self.fail(f"uses a name that is not allowed: '{n}' ({self.allowed}){hint}")
        if isinstance(node, ast.BinOp):
            op = _BINOPS.get(type(node.op))
            if op is None:
                hint = "use ** for powers" if isinstance(node.op, ast.BitXor) else "use + - * / **"
                self.fail(f"is invalid: the operator {_BAD_OPS.get(type(node.op), '?')} is not "
                          f"allowed ({hint})")
            rest = [(op, node.right)]  # a left-assoc chain t + 1 + 1 ... is flat, not nested
            while isinstance(node.left, ast.BinOp) and type(node.left.op) in _CHAIN:
                node = node.left
                rest.append((_BINOPS[type(node.op)], node.right))
            first = self.build(node.left, depth + 1)
            terms = [(o, self.build(r, depth + 1)) for o, r in reversed(rest)]
            if len(terms) == 1:
                b = terms[0][1]
                return lambda env: op(first(env), b(env))

            def chain(env: dict[str, Any]) -> Any:
                acc = first(env)
                for o, f in terms:
                    acc = o(acc, f(env))
                return acc
            return chain
        if isinstance(node, ast.UnaryOp):
            if not isinstance(node.op, (ast.USub, ast.UAdd)):
                self.fail(f"is invalid: the operator {_BAD_OPS.get(type(node.op), '?')} is not "
                          f"allowed")
            a = self.build(node.operand, depth + 1)
            return (lambda env: -a(env)) if isinstance(node.op, ast.USub) else a
        if isinstance(node, ast.Call):
            return self.call(node, depth)
        what = _BAD_NODES.get(type(node), f"the construct '{type(node).__name__}' is")
        hint = " (a decimal number takes a point: 3.5, not 3,5)" if isinstance(node, ast.Tuple) else ""
        if isinstance(node, (ast.Compare, ast.IfExp, ast.BoolOp)):
            hint = " (a switch in time is a step(t, t0, before, t1, after), or min or max)"
        self.fail(f"is invalid: {what} not allowed{hint}")
        raise AssertionError  # unreachable

    def call(self, node: ast.Call, depth: int) -> Callable[[dict[str, Any]], Any]:
        if not isinstance(node.func, ast.Name):
            if isinstance(node.func, ast.Constant):
                self.fail(f"is invalid: the number {node.func.value!r} is followed by brackets "
                          f"as if it were a function; a product needs *, e.g. {node.func.value!r}*(t + 1)")
            self.build(node.func, depth + 1)  # reports attribute access, lambda, ...
            self.fail("is invalid: only the allowed functions can be called")
        n = node.func.id
        if n in MEASURES:
            return _measure_call(self, node, n)
        if n not in _FUNCS:
            if n in self.variables or n in _CONSTANTS or n in self.constants:
                self.fail(f"is invalid: '{n}' is not a function")
            if n.startswith("_") or hasattr(builtins, n):
                self.fail(f"uses a name that is not allowed: '{n}' ({self.allowed})")
            self.fail(f"calls an unknown function '{n}' (known functions: {', '.join(_FUNCS)})"
                      f"{self.case_hint(n)}")
        fn, nargs, hint = _FUNCS[n]
        if node.keywords:
            self.fail(f"is invalid: keyword arguments are not allowed (in the call of '{n}')")
        got = len(node.args)
        if nargs == -2 and got < 2:
            self.fail(f"is invalid: '{n}' takes at least 2 arguments, got {got}")
        if nargs > 0 and got != nargs:
            plural = "argument" if nargs == 1 else "arguments"
            self.fail(f"is invalid: '{n}' takes {nargs} {plural}{hint}, got {got}")
        args = [self.build(a, depth + 1) for a in node.args]
        if n in _EDGES and isinstance(node.args[0], ast.Name) and node.args[0].id == "t":
            self.breaks.update(args[k]({}) for k in _EDGES[n] if self.constant(node.args[k]))
        if n in _KINKED and "t" in self.variables and all(map(self.of_time, node.args)):
            self.breaks.update(_kinks(args))
        if len(args) == 1:
            a0 = args[0]
            return lambda env: fn(a0(env))
        return lambda env: fn(*[a(env) for a in args])


    def of_time(self, node: ast.AST) -> bool:
        """Does the (valid) subexpression ``node`` use no variable but t and no measure?"""
        return not any((isinstance(a, ast.Name) and a.id in self.variables and a.id != "t")
                       or (isinstance(a, ast.Call) and isinstance(a.func, ast.Name)
                           and a.func.id in MEASURES) for a in ast.walk(node))

    def constant(self, node: ast.AST) -> bool:
        """Does the (valid) subexpression ``node`` use no variable and no measure?"""
        return not any((isinstance(a, ast.Name) and a.id in self.variables)
                       or (isinstance(a, ast.Call) and isinstance(a.func, ast.Name)
                           and a.func.id in MEASURES) for a in ast.walk(node))


def _measure_call(builder: "_Builder", node: ast.Call, n: str) -> Callable[[dict[str, Any]], Any]:
    """A state measure's call: its marker names (string constants), recorded in the
    builder; the closure reads its value from the hidden variable."""
    if not builder.measures_allowed:
        builder.fail(f"is invalid: '{n}' measures the mechanism's state, which only a vector "
                     "force's components may use (add_vector_force), not a motion, an applied "
                     "force or an actuator")
    least, most = MEASURES[n]
    if node.keywords:
        builder.fail(f"is invalid: keyword arguments are not allowed (in the call of '{n}')")
    got = len(node.args)
    if not least <= got <= most:
        many = f"{least}" if least == most else f"{least} or {most}"
        builder.fail(f"is invalid: '{n}' takes {many} marker names, e.g. {n}(\"I\", \"J\"), got {got}")
    names = []
    for a in node.args:
        if not (isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value):
            builder.fail(f"is invalid: the arguments of '{n}' are marker names in quotes, "
                         f"e.g. {n}(\"I\", \"J\")")
        names.append(a.value)
    key = (n, tuple(names))
    if key not in builder.measures:
        builder.measures.append(key)
    k = builder.measures.index(key)
    return lambda env: env[MEASURE_VARIABLE][..., k]


def parse(source: str, variables: tuple[str, ...] = ("t",), name: str = "",
          constants: dict[str, float] | None = None, measures: bool = False) -> Expression:
    """Parse safely (whitelisted AST, no eval). `name` (e.g. "motion 'drive'") prefixes errors.
    ``constants``: named numbers the text may use (``{"omega": 6.0}``), fixed at parse time.
    ``measures``: the text may use the state's measures (MEASURES: DX("I", "J"), ...), whose
    values the caller passes as the variable MEASURE_VARIABLE (Expression.measures says
    which)."""
    prefix = f"{name}: " if name else ""
    variables = tuple(variables)
    for v in variables:
        if (not isinstance(v, str) or not v.isidentifier() or keyword.iskeyword(v)
                or v in _CONSTANTS or v in _FUNCS):
            raise ExpressionError(f"{prefix}{v!r} cannot be used as a variable name")
    consts = named_constants(constants, variables, prefix)
    if not isinstance(source, str):
        raise ExpressionError(f"{prefix}expression must be a string, got {type(source).__name__}")
    text = source.strip()
    if not text:
        raise ExpressionError(f"{prefix}expression is empty")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"{prefix}expression is too long ({len(text)} characters, "
                              f"at most {MAX_LENGTH})")
    builder = _Builder(text, variables, prefix, consts, measures)
    depth = deepest = 0
    for ch in text:  # brackets leave no AST node, so count them here (also guards ast.parse)
        depth += (ch in "([{") - (ch in ")]}")
        deepest = depth if depth > deepest else deepest
    if deepest > MAX_DEPTH:
        builder.fail(f"is nested too deeply (more than {MAX_DEPTH} levels of brackets)")
    try:
        tree = ast.parse(text, mode="eval")
    except SyntaxError as exc:
        if not exc.offset or exc.offset > len(text.rstrip()):   # Python's 0: the input ended
            builder.fail(f"is incomplete: it ends where more must follow ({exc.msg})")
        hint = ("; a number next to a name needs * between them, e.g. 2*pi"
                if "decimal literal" in exc.msg else "")
        builder.fail(f"has a syntax error at column {exc.offset}: {exc.msg}{hint}")
    except (ValueError, RecursionError, MemoryError) as exc:
        builder.fail(f"cannot be parsed: {exc or 'nested too deeply'}")
    fn = builder.build(tree.body, 1)
    if builder.measures:
        variables = variables + (MEASURE_VARIABLE,)
    return Expression(text, variables, name, fn, frozenset(builder.used),
                      tuple(builder.measures),
                      tuple(sorted(b for b in builder.breaks if math.isfinite(b))))


def _taken(name: Any, variables: tuple[str, ...]) -> str:
    """Why ``name`` cannot name a constant, in the user's words."""
    if name in variables:
        return f"{name!r} is a variable the expression is a function of"
    if name in _CONSTANTS:
        return f"{name!r} is a built-in constant"
    if name in _FUNCS:
        return f"{name!r} is a function"
    return ("a name is letters, digits and underscores, starting with a letter (and not a "
            "Python keyword)")


def named_constants(constants: Any, variables: tuple[str, ...] = ("t",),
                    prefix: str = "") -> dict[str, float]:
    """Validated named constants: {identifier: finite number}, no name of a variable, a
    built-in constant (pi, e) or a function; ExpressionError otherwise."""
    if constants is None:
        return {}
    if not isinstance(constants, dict):
        raise ExpressionError(f"{prefix}constants must be a dict of name -> number, got "
                              f"{type(constants).__name__}")
    out = {}
    for k, v in constants.items():
        if (not isinstance(k, str) or not k.isidentifier() or keyword.iskeyword(k)
                or k.startswith("_") or k in variables or k in _CONSTANTS or k in _FUNCS):
            raise ExpressionError(f"{prefix}{k!r} cannot be used as a constant's name: "
                                  f"{_taken(k, variables)}")
        try:
            x = float(v)
        except (TypeError, ValueError):
            raise ExpressionError(f"{prefix}constant {k!r} must be a number, got {v!r}") from None
        if isinstance(v, bool) or not math.isfinite(x):
            raise ExpressionError(f"{prefix}constant {k!r} must be a finite number, got {v!r}")
        out[k] = x
    return out
