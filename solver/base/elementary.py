"""numpy's elementary functions, each value's last bit independent of where arrays lie.

numpy 1.26 on a CPU with AVX-512 evaluates exp, log, power, arctan2, arccos, arcsin,
arctan and tan by a vectorized loop unless it judges the output to overlap an input, and
then by the C library's function element by element; the two round apart in the last bit
for about a quarter of the inputs.  Its test takes an input's extent as its step times the
loop's length and counts touching ranges as overlap, so a strided input (a column, a row
of a transposed table, or a one-element view whose unused stride numpy keeps from its
parent) claims memory beyond its own, and whether a freshly allocated output falls into
that claim depends on the allocator: the same run repeated, or a study's variant beside its
separate run, could then differ in the last bits (and a chaotic mechanism visibly, later).
Here every array argument is first copied into a fresh C-ordered array, whose claim is its
own memory, which a fresh output never touches: the vectorized loop runs every time.
sin, cos, sqrt and the arithmetic operators round the same on every path and need none of
this.  (numpy 2 chooses its loop without such a test; the copy costs a microsecond.)
"""
from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["arccos", "arcsin", "arctan", "arctan2", "exp", "log", "power", "tan"]


def _on_one_path(ufunc: np.ufunc, *args: Any) -> Any:
    """``ufunc(*args)`` with each array argument copied fresh (floats pass as they are)."""
    return ufunc(*(np.array(a, dtype=float) if isinstance(a, np.ndarray) else a
                   for a in args))


def arctan2(y: Any, x: Any) -> Any:
    """The angle of (x, y) in (-pi, pi] (rad), elementwise."""
    return _on_one_path(np.arctan2, y, x)


def power(a: Any, b: Any) -> Any:
    """a ** b elementwise (float)."""
    return _on_one_path(np.power, a, b)


def exp(x: Any) -> Any:
    """e ** x elementwise."""
    return _on_one_path(np.exp, x)


def log(x: Any) -> Any:
    """The natural logarithm elementwise."""
    return _on_one_path(np.log, x)


def arccos(x: Any) -> Any:
    """The angle in [0, pi] whose cosine is x, elementwise."""
    return _on_one_path(np.arccos, x)


def arcsin(x: Any) -> Any:
    """The angle in [-pi/2, pi/2] whose sine is x, elementwise."""
    return _on_one_path(np.arcsin, x)


def arctan(x: Any) -> Any:
    """The angle in (-pi/2, pi/2) whose tangent is x, elementwise."""
    return _on_one_path(np.arctan, x)


def tan(x: Any) -> Any:
    """The tangent elementwise."""
    return _on_one_path(np.tan, x)
