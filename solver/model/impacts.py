"""An impact at rigid stops during a dynamic run, as ``Result.impacts`` lists it: when,
which stops, and what the impact did to the joint coordinates (analyses/dynamics/stops.py applies
Newton's impact law; this is its record)."""
from __future__ import annotations

from typing import Iterable


class Impact(tuple):
    """One impact (``Result.impacts``): unpacks as ``(time, limits)``; the rest are fields.

    - ``time``: s, the located instant (to ``stops.EVENT_TIME``);
    - ``limits``: the names of the limits struck (one entry per bound struck; two bounds of
      different joints reached at the same instant are one impact), with ``joints`` their
      joints and ``bounds`` "lower" or "upper";
    - ``speed_before``, ``speed_after``: each struck joint coordinate's rate dq/dt just
      before and just after the impact (rad/s on an angle, m/s on a slide; signed as the
      coordinate: positive toward a larger angle or slide, so a lower stop is struck at a
      negative speed and a bounce leaves it at -e times that, or at zero when it comes to
      rest on the stop);
    - ``impulse``: the impulse each stop applies along its coordinate (N m s on an angle,
      N s on a slide; the sign of ``Result.limit``: positive toward a larger coordinate,
      so a lower stop's is positive and an upper stop's negative).  With the joints alone
      in the way it is the coordinate's effective inertia times its change of speed.

    Each per-stop field is a tuple in the order of ``limits``."""

    _FIELDS = ("joints", "bounds", "speed_before", "speed_after", "impulse")

    def __new__(cls, time: float, limits: Iterable[str], joints: Iterable[str] = (),
                bounds: Iterable[str] = (), speed_before: Iterable[float] = (),
                speed_after: Iterable[float] = (), impulse: Iterable[float] = ()) -> "Impact":
        self = super().__new__(cls, (float(time), tuple(limits)))
        self._extra = (tuple(joints), tuple(bounds), tuple(map(float, speed_before)),
                       tuple(map(float, speed_after)), tuple(map(float, impulse)))
        return self

    def __reduce__(self):          # pickles with its fields (a study's Results travel)
        return (Impact, (self[0], self[1]) + self._extra)

    def __repr__(self) -> str:
        fields = ", ".join(f"{n}={v!r}" for n, v in zip(self._FIELDS, self._extra))
        return f"Impact(time={self[0]!r}, limits={self[1]!r}, {fields})"

    @property
    def time(self) -> float:
        return self[0]

    @property
    def limits(self) -> tuple[str, ...]:
        return self[1]

    @property
    def joints(self) -> tuple[str, ...]:
        return self._extra[0]

    @property
    def bounds(self) -> tuple[str, ...]:
        return self._extra[1]

    @property
    def speed_before(self) -> tuple[float, ...]:
        return self._extra[2]

    @property
    def speed_after(self) -> tuple[float, ...]:
        return self._extra[3]

    @property
    def impulse(self) -> tuple[float, ...]:
        return self._extra[4]
