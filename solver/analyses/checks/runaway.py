"""A dynamic run whose motion grows without bound, said to the user.

A force element that pushes the way a part moves (a spring or actuator of negative
stiffness, a sign mistaken in an expression) makes the motion grow exponentially: the run
follows it faithfully, to positions of 1e20 m and more, and the bake plays a part leaving
the scene. The equations are met and the energy balances, so no other check sees it.
``runaway_note`` names the part that first moved RUNAWAY times its mechanism's size from
where it started, with the time.
"""
from __future__ import annotations

import numpy as np

from ...model.compile import Model

# of a part's mechanism's size (Model.body_size): moved this far from its start, the
# motion is taken as running away (a 5 cm ball falls 50 km before it: 100 s of free fall)
RUNAWAY = 1e6


def runaway_note(model: Model, times: np.ndarray, r: np.ndarray) -> str:
    """The note of the first part whose centre of mass r (frames, nb, 3) m moved RUNAWAY
    times its mechanism's size from its first frame's, at which time of ``times`` (s);
    empty where none did."""
    if not len(times) or not model.nb:
        return ""
    d = np.linalg.norm(r - r[:1], axis=-1)                   # (frames, nb) m
    far = d > RUNAWAY * np.asarray(model.body_size)
    if not far.any():
        return ""
    k = int(np.argmax(far.any(axis=-1)))                     # the first such frame
    b = int(np.argmax(np.where(far[k], d[k], -1.0)))
    return (f"part {model.body_part[b]!r} runs away: {d[k, b]:.3g} m from where it started "
            f"at t = {times[k]:.6g} s ({d[k, b] / model.body_size[b]:.3g} times its "
            f"mechanism's size), and {d[-1].max():.3g} m at the end: the motion grows without "
            "bound; look for a spring, actuator or force that pushes the way the part moves "
            "(a negative stiffness, a sign in an expression)")
