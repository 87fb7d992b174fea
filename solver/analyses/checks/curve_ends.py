"""The ends of open curves that curve joints' contacts run on (a pin in a slot, a cam's
follower on an open profile): each contact's distance along its curve from the start and
from the end, u and length - u (m, >= 0 on the curve), and its error where a run takes it
past one, at a frame or between two (sweep/between.py, dynamics/inside.py)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...base.errors import SolverError
from ..start.assembly import curve_contacts

END_TOL = 1e-9        # of its mechanism's size: a contact this far past an end is off (its
#                       tracked value is Newton's, to ~1e-12 of it)


class OpenEnds(tuple):
    """The curve contacts on open curves, (joint name, index in the tracked values, curve)
    each, with the columns their distances need made once (``track_index``, ``length``
    (m)): a run keeps one and reads every frame's distances from it in a fixed number of
    numpy calls, whatever the number of curves."""

    def __new__(cls, items):
        self = super().__new__(cls, items)
        self.track_index = np.array([k for _, k, _ in items], dtype=int)
        self.length = np.array([c.length for _, _, c in items])
        return self


def open_ends(model) -> OpenEnds:
    """(joint name, index in the tracked values, curve) of every curve contact on an open
    curve (its two ends watched)."""
    return OpenEnds([(n, k, c) for n, k, c in curve_contacts(model) if not c.closed])


def end_sizes(model, ends: OpenEnds) -> np.ndarray:
    """(2 n,) m: the size of the mechanism each watched end's contact is in (its joint's
    two parts' island, Model.size_of), starts then ends as ``end_gaps``: the length
    END_TOL is of, not a larger mechanism's beside it."""
    j = [model.joint_names.index(name) for name, _, _ in ends]
    bodies = np.array([[model.marker_body[model.joint_marker_i[k]],
                        model.marker_body[model.joint_marker_j[k]]] for k in j],
                      dtype=int).reshape(-1, 2)
    return np.tile(model.size_of(bodies), 2)


def end_gaps(ends: OpenEnds, track: np.ndarray, rate: np.ndarray | None = None):
    """(g, g') (..., 2 n): each contact's distance from its curve's start, then from its
    end (m), and their rates (m/s; None without ``rate``), from the tracked values
    ``track`` (..., ntrack) and their rates."""
    k = ends.track_index
    u = track[..., k]
    g = np.concatenate([u, ends.length - u], axis=-1)
    if rate is None:
        return g, None
    du = rate[..., k]
    return g, np.concatenate([du, -du], axis=-1)


def hermite(g0, d0, g1, d1, h, s):
    """The cubic Hermite interpolant of values g0, g1 and rates d0, d1 over an interval of
    h s, at the shares s of it (broadcast)."""
    s2, s3 = s * s, s * s * s
    return ((2 * s3 - 3 * s2 + 1) * g0 + (s3 - 2 * s2 + s) * h * d0
            + (3 * s2 - 2 * s3) * g1 + (s3 - s2) * h * d1)


def off_curve_error(name: str, curve: Any, t: float, k: int, result) -> SolverError:
    """The SolverError of a curve contact ``name`` found off its open curve at frame k (t,
    s), with the frames before (a sweep's, and any run's checked at its frames, run.py)."""
    return SolverError(f"joint {name!r}: the contact ran off the end of the open curve "
                       f"{curve.name!r} at t = {t:.6g} s (frame {k}); make the curve longer or "
                       "the motion shorter", t, (name,), result.truncated(k))


def between_message(ends: list, item: int, t: float, k: int, back: bool) -> tuple[str, str]:
    """(message, joint) of the contact whose gap ``item`` (``end_gaps``' order) went past
    at t (s), between frames k - 1 and k; ``back``: both frames on the curve (it came
    back before frame k)."""
    name, _, curve = ends[item % len(ends)]
    end = "end" if item >= len(ends) else "start"
    return (f"joint {name!r}: the contact ran off the {end} of the open curve "
            f"{curve.name!r} at t = {t:.6g} s (between frames {k - 1} and {k})"
            + (", with both frames on it" if back else "")
            + "; make the curve longer or the motion shorter", name)
