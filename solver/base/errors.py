"""Exceptions the solver raises: bad input is a ``MechanismError`` (a ``ValueError``) that
names the item; a failed analysis is a ``SolverError`` that names the time and the joints
involved and carries the frames solved before it; ``shown`` writes numbers into a message."""
from __future__ import annotations

import math
from typing import Any

import numpy as np


class MechanismError(ValueError):
    """Invalid mechanism input: unknown or duplicate names, bad numbers, wrong joint kinds.
    ``time`` (s, or None): the time at which the input failed, when it is a function of
    time that cannot be evaluated there (a caller names its frame)."""

    def __init__(self, *args: Any, time: float | None = None) -> None:
        super().__init__(*args)
        self.time = time


class StudyError(MechanismError):
    """Invalid design-study input (solver/study/): an unknown parameter, a value a variant
    cannot take (named with the variant's index), empty samples; raised before anything runs."""


class SolverError(RuntimeError):
    """An analysis could not go on.

    Attributes: ``time`` (s, or None), ``joints`` (names of the items involved: joints and
    motions, or parts for statics),
    ``result`` (a ``Result`` with the frames solved before the failure, or None).
    """

    def __init__(self, message: str, time: float | None = None,
                 joints: tuple[str, ...] = (), result: Any = None) -> None:
        super().__init__(message)
        self.time = time
        self.joints = tuple(joints)
        self.result = result


class SolverCancelled(SolverError):
    """The caller's progress callback asked to stop; ``result`` holds the frames solved."""


class ExpressionError(MechanismError):
    """Any parse or evaluation failure of a user expression (bad input, so a
    ``MechanismError``); the message names the expression and what is wrong; ``time`` (s,
    or None) the time it failed at, when it was evaluated at one time t."""


class FrictionJam(np.linalg.LinAlgError):
    """Slipping joints whose friction raises its own load faster than itself: s = mu L(s) +
    preload has no solution s >= 0 (Painleve's paradox, a drawer pushed off its axis, a
    self-locking screw), so the joints jam (analyses/dynamics/friction.py ``with_slip``).  ``names``:
    the friction elements; ``index``: the first leading index (a frame of a block, a stage)
    where it happens, () for a single state.  A LinAlgError, so that every analysis that
    stops on a singular system stops on it; the analyses name it with its time."""

    def __init__(self, names: tuple[str, ...], index: tuple[int, ...] = ()) -> None:
        super().__init__(
            f"joint friction {', '.join(repr(n) for n in names)} jams its joint: slipping, its "
            f"friction would raise its own load faster than itself: its coefficient is too "
            f"large for the joint's pin radius, thrust arm or bearing length")
        self.names, self.index = tuple(names), tuple(index)

    def at(self, t: float) -> str:
        """The message an analysis stops with, at time t (s)."""
        return f"jam at t = {t:.6g} s: {self}"

    def __reduce__(self):          # (pickled by its arguments, not its message)
        return (FrictionJam, (self.names, self.index))


def finite_number(value: Any, what: str) -> float:
    """``value`` as a finite float, or MechanismError naming ``what`` (never numpy's or
    Python's own TypeError for a string, nor a NaN let through)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise MechanismError(f"{what} must be a number, got {value!r}") from None
    if not math.isfinite(x):
        raise MechanismError(f"{what} is NaN or infinite")
    return x


def whole_number(value: Any, what: str) -> int:
    """``value`` as an int, or MechanismError naming ``what``: a count (teeth, slots, grid
    cells) given as 12.5, NaN or text is refused, never cut to 12 by int()."""
    x = finite_number(value, what)
    if isinstance(value, bool) or x != math.floor(x):
        raise MechanismError(f"{what} must be a whole number, got {value!r}")
    return int(x)


def shown(numbers: Any) -> str:
    """Numbers as a user reads them in a message, "(nan, 0, 0.25)": never numpy's repr
    (array([nan, 0., 0.], dtype=float32)), whatever type the caller passed."""
    return "(" + ", ".join(f"{float(x):.6g}" for x in np.asarray(numbers).reshape(-1)) + ")"


def known_names(known: Any) -> str:
    """"(known: 'pivot2', 'pin_A')": the first 12 of the names a mechanism has of a kind and
    how many in all, or "(the mechanism has none)", so a reader picks the right one."""
    names = list(known or ())
    if not names:
        return "(the mechanism has none)"
    more = f", ... {len(names)} in all" if len(names) > 12 else ""
    return f"(known: {', '.join(map(repr, names[:12]))}{more})"


def unknown(kind: str, name: Any, known: Any) -> MechanismError:
    """The error for a ``kind`` ("joint", "motion", ...) named by a name the mechanism does
    not have: "unknown joint 'drive' (known: 'pivot2', 'pin_A')" (``known_names``)."""
    return MechanismError(f"unknown {kind} {name!r} {known_names(known)}")
