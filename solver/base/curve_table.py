"""Many curves as one table (curves.py): the spans of all of them side by side, each point
naming its curve, so that a point on each of a mechanism's curve joints (and of a study's
variants) is evaluated, and its nearest point found, by one set of numpy calls whatever
the number of curves.  A point's numbers are the bits ``Curve.evaluate`` and
``Curve.nearest`` give it alone (the same polynomial product, ``polynomial_rows``; the
same Newton, ``project_points``; the span found by exact comparisons).
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from .curves import Curve, nearest_within, polynomial_rows


class CurveTable:
    """The curves ``curves`` (read-only) as one table; per curve: ``closed``, ``length``,
    ``size`` and ``reach`` (two of its longest spans: how far a tracked u may move);
    ``all_closed``; ``index`` (0, 1, ... n - 1): the curve of each of n points (..., n) in
    order, and ``pairs`` (n/2, 2): of points (..., n/2, 2) (a cam's curves I and J).
    ``evaluate`` and ``nearest`` take any points; ``rows`` is evaluate without the
    conversions (the kernels' own arrays); ``span`` finds each point's span."""

    def __init__(self, curves: tuple[Curve, ...]) -> None:
        self.curves = tuple(curves)
        self.closed = np.array([c.closed for c in curves], dtype=bool)
        self.length = np.array([c.length for c in curves], dtype=float)
        self.size = np.array([c.size for c in curves], dtype=float)
        self.reach = np.array([2.0 * c._h.max() for c in curves], dtype=float)
        self.index = np.arange(len(curves))
        # every curve closed, or none: one form for all (nearest_within)
        self._uniform = bool(self.closed[0]) if len(set(self.closed.tolist())) == 1 else None
        self.all_closed = self._uniform is True
        nspan = np.array([len(c._h) for c in curves], dtype=np.intp)
        self._coef = np.concatenate([c._coef for c in curves])
        self._first = np.concatenate([[0], np.cumsum(nspan)[:-1]]).astype(np.intp)
        self._last = nspan - 1
        # every curve's breaks in order, keyed (curve, u) as complex numbers: numpy orders
        # them by real part, then imaginary, so one exact search finds the span of u on its
        # own curve (searchsorted on the curve's breaks would: no sum, no rounding)
        breaks = [c._breaks for c in curves]
        self._breaks = np.concatenate(breaks)
        self._keys = np.empty(len(self._breaks), dtype=complex)
        self._keys.real = np.repeat(self.index, [len(b) for b in breaks])
        self._keys.imag = self._breaks
        self._bfirst = np.concatenate([[0], np.cumsum([len(b) for b in breaks])[:-1]]).astype(np.intp)
        for a in (self.closed, self.length, self.size, self.reach, self.index, self._coef,
                  self._keys, self._breaks, self._bfirst, self._first, self._last):
            a.flags.writeable = False
        # one curve: its own search (the same span and offset, fewer calls)
        self.span = (lambda c, u: curves[0]._span(u)) if len(curves) == 1 else self._span
        # the curves' numbers the search reads, for the points (..., n) of index and (..., n,
        # 2) of pairs (a cam's curves I, J) made once, for other points gathered per call
        self.pairs = self.index.reshape(-1, 2) if len(curves) % 2 == 0 else None
        self._numbers = {}
        for c in (self.index, self.pairs):
            if c is not None:
                self._numbers[id(c)] = self._gather(c)

    def _gather(self, c: np.ndarray) -> tuple[np.ndarray, ...]:
        return self.closed[c], self.length[c], self._bfirst[c], self._last[c], self._first[c]

    def _span(self, c: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(span index into the table, offset s) of each u (of the points' whole shape) on
        curve c: Curve._span's."""
        numbers = self._numbers.get(id(c))
        closed, length, bfirst, last, first = numbers if numbers is not None else self._gather(c)
        if self._uniform is None:
            u = np.where(closed, np.mod(u, length), u)
        elif self._uniform:
            u = np.mod(u, length)
        key = np.empty(u.shape, dtype=complex)
        key.real, key.imag = c, u
        i = np.minimum(np.maximum(np.searchsorted(self._keys, key, side="right") - 1 - bfirst, 0),
                       last)
        return first + i, u - self._breaks[bfirst + i]

    def evaluate(self, c: Any, u: Any, derivatives: int = 3) -> np.ndarray:
        """(derivatives + 1, *shape, 3): x(u) of curve c and its u-derivatives (c and u
        broadcast together), each point as ``self.curves[c].evaluate(u)`` gives it."""
        c, u = np.asarray(c, dtype=np.intp), np.asarray(u, dtype=float)
        if c.ndim > u.ndim or c.size > u.size:      # u takes the points' whole shape
            u = np.broadcast_to(u, np.broadcast_shapes(c.shape, u.shape))
        return self.rows(c, u, derivatives)

    def rows(self, c: np.ndarray, u: np.ndarray, derivatives: int) -> np.ndarray:
        """``evaluate`` for c an index array broadcasting against u (float, the points'
        whole shape), as the kernels hold them: no conversions."""
        return polynomial_rows(self.span, self._coef, derivatives, u, c)

    def same_turn(self, c: np.ndarray, u: np.ndarray, start: np.ndarray) -> np.ndarray:
        """u of closed curves c moved by whole lengths to within half a length of ``start``
        where it lies farther (the same points, on the tracked value's turn: a contact's
        Newton or a global search may land a turn away); open curves' u as it is."""
        length = self.length[c]
        turns = np.round((u - start) / length)
        return np.where(self.closed[c] & (turns != 0.0), u - turns * length, u)

    def nearest(self, c: np.ndarray, p: np.ndarray, guess: np.ndarray) -> np.ndarray:
        """u of the point of curve c nearest p (..., 3), the local minimum within two spans
        of ``guess``: ``self.curves[c].nearest(p, guess)`` for every point at once (c
        broadcasting against p's points, e.g. ``index`` for (..., n, 3))."""
        u0 = np.array(np.broadcast_to(np.asarray(guess, dtype=float), np.shape(p)[:-1]))
        closed = self.closed[c] if self._uniform is None else self._uniform
        c = np.asarray(c, dtype=np.intp)
        return nearest_within(lambda u, d: self.rows(c, u, d), p, u0, self.reach[c],
                              closed, self.length[c])


@lru_cache(maxsize=16)          # (a mechanism's curve joints need one or two)
def curve_table(curves: tuple[Curve, ...]) -> CurveTable:
    """The table of ``curves`` (the same table for the same curves: they are read-only)."""
    return CurveTable(curves)
