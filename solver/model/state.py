"""Run state apart from the compiled model (as Pinocchio's Data and MuJoCo's mjData): the
bodies' centre-of-mass positions, Euler parameters and velocities at a time, read from and
written back to a builder's part placements.

A State may carry leading axes (a block of frames: t (F,), r (F, nb, 3), ...); the
accelerations are filled in once an analysis has solved for them.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..base.rotations import cross, quat_to_matrix
from ..vocabulary.timefunctions import derivatives_of
from .compile import Model
from .force_model import spring_turns


@dataclass
class State:
    """One instant (or a block of instants) of a mechanism's motion; bodies as in Model,
    world axes, SI units."""
    t: Any                         # s: a float, or (F,) for a block of frames
    r: np.ndarray                  # (..., nb, 3) centre of mass
    p: np.ndarray                  # (..., nb, 4) Euler parameters w, x, y, z
    v: np.ndarray                  # (..., nb, 3) centre-of-mass velocity
    w: np.ndarray                  # (..., nb, 3) angular velocity
    a: np.ndarray | None = None    # (..., nb, 3) centre-of-mass acceleration, once solved
    alpha: np.ndarray | None = None  # (..., nb, 3) angular acceleration, once solved
    # (ntrack,) the tracked values at this pose (couplers' turns, curve contacts: evaluate's
    # ``ref``), as an assembly found them; None: as built (a curve contact by a global search)
    track: np.ndarray | None = None

    def moved(self, r: np.ndarray, p: np.ndarray, track: np.ndarray | None = None) -> "State":
        """The same state at another pose (velocities kept, accelerations dropped), with
        the tracked values there (None: as built)."""
        return replace(self, r=r, p=p, a=None, alpha=None, track=track)


@dataclass(frozen=True)
class SlipState:
    """The friction elements' run state (analyses/dynamics/friction.py), the arrays that
    change together when a joint sticks or slips.  Frozen: sticking, slipping and a
    reversal return a new record (friction.py ``aim``, ``hold``, ``release``;
    switching.py ``reverse``).  Which elements a resting stop holds is not kept here: it
    follows from RunState.resting (friction.py ``held_by_stops``).

    direction: (m,) each component's held slip direction d (+-1 on a coordinate, a ball's
    unit vector in marker J's axes over its three components); stuck: (n,) True for each
    element held where it is; lock: (m,) the held coordinate's value of a sticking element
    (rad or m); turn: (n, 3, 3) a sticking ball's relative orientation C_J^T C_I at its
    lock."""
    direction: np.ndarray
    stuck: np.ndarray
    lock: np.ndarray
    turn: np.ndarray

    @classmethod
    def start(cls, model: Model) -> "SlipState":
        """Every element slipping, none held: +1 on a coordinate, a ball's direction marker
        J's x (its first component)."""
        fp = model.frictions
        n = len(fp.names)
        later = np.arange(len(fp.rows)) > fp.first[fp.element]
        direction = np.where(fp.is_ball[fp.element] & later, 0.0, 1.0)
        return cls(direction, np.zeros(n, dtype=bool), np.zeros(len(fp.rows)),
                   np.tile(np.eye(3), (n, 1, 1)))

    def aimed(self, direction: np.ndarray) -> "SlipState":
        """The same record with the slip directions ``direction`` (m,)."""
        return replace(self, direction=direction)

    def sticking(self, stuck: np.ndarray) -> "SlipState":
        """The same record with the elements ``stuck`` (n,) held."""
        return replace(self, stuck=stuck)


@dataclass(frozen=True)
class RunState:
    """The discrete memory of a dynamic run between its steps, beside the continuous
    ``State`` the integrator carries: what a step's stages all read unchanged and what only
    the end of a step (or an event) changes.  Kept apart from State because State is an
    instant of the motion (stored frame by frame, with leading frame axes), while this is
    the branch the run is on, one per run (or per variant of a study: a leading variant
    axis).  Frozen: a new record replaces the old (``turned``, ``tracked``), so the state a
    step started from stays as it was (a long step's frames are evaluated with it).

    ts_ref: (..., nts) each torsion spring's angle at the last step end (rad), the turn its
    next angles are taken on (the atan2 branch nearest it); track: (..., ntrack) the
    tracked values (couplers' turns, curve contacts: evaluate's ``ref``) at the last
    projection, None: as built (a curve contact by a global search); resting: (nbound,)
    True for each rigid stop's bound resting on it (its row held with the joints'), None
    without stops; onset: (ncp,) each contact point's approach speed at its touchdown (m/s,
    the damping's delta'_0), NaN while the point is apart, None without contacts; robust:
    True while the run passes a singular position (least-norm solves, analyses/dynamics/
    driver.py), until it is passed or the kept rows change; rounded: True while that
    position is one the inputs' rounding folded (a parallelogram read from Blender lined
    up: analyses/dynamics/singular.py rounded_fold), its least-norm solves leaving the
    rounding's share out; slip: the friction elements'
    SlipState, None without friction; limit_ref, limit_rate: (..., nbound) each limit's
    coordinate at the last step end (rad: an angle on its joint's continuous turns, the
    turn its next angles are read on, analyses/limit_turns.py) and its rate there (rad/s
    or m/s), None: read on the turn nearest the limit's centre."""
    ts_ref: np.ndarray
    track: np.ndarray | None = None
    resting: np.ndarray | None = None
    onset: np.ndarray | None = None
    robust: bool = False
    slip: SlipState | None = None
    limit_ref: np.ndarray | None = None
    limit_rate: np.ndarray | None = None
    rounded: bool = False

    @classmethod
    def start(cls, model: Model, track: np.ndarray | None = None,
              t: float | None = None) -> "RunState":
        """A run's first record: the torsion springs on their first turn (angle 0, or at
        time t a driven joint's motion value: force_model.spring_turns), the tracked values
        as an assembly found them (None: as built), no stop resting, no contact point's
        touchdown speed known, every friction element slipping."""
        resting = (None if model.limits is None
                   else np.zeros(len(model.limits.rows), dtype=bool))
        cp = model.forces.contacts
        onset = None if cp is None else np.full(cp.n, np.nan)
        slip = None if model.frictions is None else SlipState.start(model)
        turns = (np.zeros(len(model.forces.ts_names)) if t is None else
                 spring_turns(model.forces, derivatives_of(model.motion_functions, t)))
        return cls(turns, track, resting, onset, slip=slip)

    def turned(self, ts_ref: np.ndarray) -> "RunState":
        """The same record with the torsion springs' angles ``ts_ref`` (rad)."""
        return replace(self, ts_ref=ts_ref)

    def limits_at(self, ref: np.ndarray, rate: np.ndarray) -> "RunState":
        """The same record with the limits' coordinates ``ref`` and their rates ``rate``."""
        return replace(self, limit_ref=ref, limit_rate=rate)

    def tracked(self, track: np.ndarray | None) -> "RunState":
        """The same record with the tracked values ``track`` (this one: none before, none
        now)."""
        if track is None and self.track is None:
            return self
        return replace(self, track=track)

    def rests(self, resting: np.ndarray) -> "RunState":
        """The same record with the stops' bounds ``resting`` (nbound,) resting."""
        return replace(self, resting=resting)

    def touched(self, onset: np.ndarray) -> "RunState":
        """The same record with the contact points' touchdown speeds ``onset`` (m/s)."""
        return replace(self, onset=onset)

    def slipping(self, slip: SlipState) -> "RunState":
        """The same record with the friction elements' state ``slip``."""
        return replace(self, slip=slip)

    def solving(self, robust: bool, rounded: bool = False) -> "RunState":
        """The same record with least-norm solves on (``robust`` True) or off, past a
        position the inputs' rounding folded (``rounded``, with ``robust``) or not."""
        return replace(self, robust=robust, rounded=robust and rounded)


def read_state(model: Model, mech: Any, t: float = 0.0) -> State:
    """The state at time t given by the parts' placements and initial velocities (the
    part-frame origin's velocity moved to the centre of mass)."""
    r, p, v, w = (np.zeros((model.nb, 3)), np.zeros((model.nb, 4)),
                  np.zeros((model.nb, 3)), np.zeros((model.nb, 3)))
    arm = np.zeros((model.nb, 3))
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        arm[b] = quat_to_matrix(part.orientation) @ part.center_of_mass
        r[b] = part.position + arm[b]
        p[b] = part.orientation
        w[b] = part.angular_velocity
        v[b] = part.velocity
    v += cross(w, arm)                 # the origin's velocity moved to the centre of mass
    return State(float(t), r, p, v, w)


def moved_at_origins(model: Model, state: State, r: np.ndarray, p: np.ndarray,
                     track: np.ndarray | None = None) -> State:
    """The state at another pose (r, p) (an assembly's of the parts as built) keeping each
    part-frame origin's velocity and its angular velocity, the velocities ``add_part``
    takes: the centre of mass's velocity follows its arm from the origin at the new pose
    (v_com = v_origin + w x A c), so a part turned by the assembly keeps the motion it was
    given about its origin (``State.moved`` keeps the centre of mass's velocity instead)."""
    com = model.body_com
    before = np.einsum("bij,bj->bi", quat_to_matrix(state.p / np.linalg.norm(
        state.p, axis=-1, keepdims=True)), com)
    after = np.einsum("bij,bj->bi", quat_to_matrix(p / np.linalg.norm(
        p, axis=-1, keepdims=True)), com)
    return replace(state.moved(r, p, track), v=state.v + cross(state.w, after - before))


def write_pose(model: Model, mech: Any, state: State) -> None:
    """Write the state's pose back as the parts' placements (part-frame origin and unit
    quaternion with w >= 0)."""
    for b, name in enumerate(model.body_part):
        part = mech.parts[name]
        q = state.p[b] / np.linalg.norm(state.p[b])
        if q[0] < 0:
            q = -q
        part.orientation = q
        part.position = state.r[b] - quat_to_matrix(q) @ part.center_of_mass
