"""A singular position (a pole: a dead centre, links lined up, where two assembly branches
meet) that a sweep passes between two output frames.  There det J of the kept rows goes
through zero and changes sign, and the two branches lie close on either side of it, so a
frame just beside it may be solved onto the other branch, where the motion turns back:
a slider-crank driven by its slide, x = 0.4 - 0.05 (t - 1.001)^2 m at 10 fps, had its
crank turn back at the dead centre (frame 10, 1 ms before it, solved on the mirror
branch: the crank 1.83 rad from its pose at 1.6 s) without a word.

A frame is looked at again where the sign of det J differs from the frame before's (a pole
passed) or, come near a pole (its scaled condition RISE times the frame before's), where
a part's velocities turn back against those the frame before carries to it (a frame on the
mirror branch, the pole passed there and back).  A large mechanism swept the banded way
(algebra.py) has no det J: its nearness is its Cholesky pivots' ratio (``pivot_ratio``),
its sign taken as the frame before's but where that ratio jumps by RISE (``banded_signs``)
and at the sub-frames of a walk (a dense LU each, on those few frames only).  Its interval is then walked by a sweep
of SUBSTEPS sub-frames from the frame before (each predicted off the last, so a pole is
passed on the branch the motion came along, as across a frame on it, lined_up.py), and
the frame is solved again from the walk's pose.  Where the walk changes det's sign, the
result notes the pole, the instant (located by bisection on det's sign on poses solved
between the two sub-frames around it) and the joints and motions whose rows lose rank
there (rank.py ``involved``)."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...algebra.rank import involved
from ...kernels.constraints import global_jacobian
from ...model.state import State
from .between import Interval

SUBSTEPS = 16         # sub-frames of a walked interval
RISE = 10.0           # a frame whose (scaled) condition is this many times the frame
#                       before's has come near a pole (a sound motion's changes little
#                       from frame to frame; 1 ms from a dead centre 2e4, the frame
#                       before 1e2: test_sweep_between.py); a
#                       turned-back velocity there is walked (a motion that turns back
#                       itself walks to the same pose)
LOCATED = 1e-9        # of a frame interval: a pole's instant located to this
NOISE = 1e-6          # of the fastest part's speed: a part's own below it is at rest (its
#                       velocities' rounding may turn back); each part is looked at on its
#                       own, so parts moving faster elsewhere (6 driven wheels at 1 rad/s
#                       beside a slider-crank, test_sweep_banded_poles.py) do not hide its turn


def suspect(sweep: Any, sign: np.ndarray, cond: np.ndarray, ks: np.ndarray, V: np.ndarray,
            W: np.ndarray, Ac: np.ndarray, Al: np.ndarray) -> int | None:
    """The first frame of a block (its index) that leaves the frame before across a pole:
    det J's ``sign`` (V, F) changes from the frame before's, or, where ``cond`` (V, F) is
    RISE times the frame before's, its velocities V, W (V, F, nb, 3) turn back (a part's
    miss those carried from the frame before, v + a h (accelerations Ac, Al), by more than
    either's size, rotations times the part's length); None where none does."""
    prev = sweep.prev.state
    side = np.concatenate([sweep.det_last[0][:, None], sign[:, :-1]], axis=1)
    flip = (sign != side) & (side != 0)           # (a frame on a pole: sign 0, no side)
    near = cond > RISE * np.concatenate([sweep.det_last[1][:, None], cond[:, :-1]], axis=1)
    if not near.any():
        return int(np.argmax(flip.any(axis=0))) if flip.any() else None

    def before(first, x):
        return np.concatenate([first[:, None], x[:, :-1]], axis=1)
    h = np.diff(sweep.times[np.r_[ks[0] - 1, ks]])[None, :, None, None]
    L = sweep.alg.blen[:, None, :, None]
    carried = np.concatenate([before(prev.v, V) + h * before(prev.a, Ac),
                              L * (before(prev.w, W) + h * before(prev.alpha, Al))], axis=-1)
    now = np.concatenate([V, L * W], axis=-1)
    size = np.maximum(np.abs(now).max(axis=-1), np.abs(carried).max(axis=-1))   # (V, F, nb)
    floor = NOISE * size.max(axis=-1, keepdims=True)
    back = (np.abs(now - carried).max(axis=-1) > np.maximum(size, floor)).any(axis=-1) & near
    bad = (flip | back).any(axis=0)
    return int(np.argmax(bad)) if bad.any() else None


def banded_signs(sweep: Any, near: np.ndarray, jac: np.ndarray) -> np.ndarray:
    """(1, F) det J's sign at a banded block's frames, as the frame before's (``det_last``)
    but where a frame's nearness to a pole (``near`` (1, F), algebra.py ``pivot_ratio``)
    is RISE times the frame before's or a RISE-th of it (come near a pole, or left one):
    there the signs of that frame and the one before are found by a dense LU of each (Jacobian
    blocks ``jac`` (1, F, nc, 12), the sweep's last frame's before the block), and where
    they differ the signs from that frame on are turned."""
    last_sign, last_near = sweep.det_last
    before = np.concatenate([last_near[:, None], near[:, :-1]], axis=1)
    sign = np.repeat(last_sign[:, None], near.shape[1], axis=1)
    keep = sweep.st.keep

    def dense(j_blocks: np.ndarray) -> float:
        return np.linalg.slogdet(global_jacobian(sweep.model, j_blocks)[keep])[0]
    for j in np.flatnonzero(((near > RISE * before) | (before > RISE * near))[0]):
        ahead = sweep.prev.jac[0] if j == 0 else jac[0, j - 1]
        if dense(jac[0, j]) * dense(ahead) < 0.0:
            sign[:, j:] *= -1.0
    return sign


def walk(sweep: Any, k: int, make, newton) -> tuple | None:
    """Walk the interval from the sweep's last solved frame to frame k by a sweep (``make``
    (models, model, structure, starts, times, axis): the sweep's class; ``newton`` its
    Newton) of SUBSTEPS sub-frames that goes on from the sweep's last frame as the sweep
    would (its predictor, turns and signs): (k, each variant's pose (V, 1, nb, 3),
    (V, 1, nb, 4) and tracked values (V, 1, ntrack) or None at frame k, and [(variant,
    note)] of the poles passed), or None where the walk stops (a lock-up or a stop on
    the way: the frame stays as it was solved)."""
    s, q = sweep.prev.state, sweep.prev.q
    times = np.linspace(float(s.t), float(sweep.times[k]), SUBSTEPS + 1)[1:]
    starts = [State(s.t, s.r[i], s.p[i], s.v[i], s.w[i], s.a[i], s.alpha[i],
                    track=None if q is None else q[i]) for i in range(len(sweep.alive))]
    models = [sweep.models[v] for v in sweep.alive]
    sub = make(models, sweep.model, sweep.st, starts, times, sweep.axis)
    sub.walking = True
    for name in ("prev", "det_last", "lim", "ts_ref", "watch_last"):
        setattr(sub, name, getattr(sweep, name))
    if sweep.alg.sparse:                  # (banded: the last frame's sign of det J, dense)
        J = global_jacobian(sweep.model, sweep.prev.jac)[..., sweep.st.keep, :]
        sub.det_last = (np.linalg.slogdet(J)[0], sweep.det_last[1])
    sub.det_start = sub.det_last
    sub.run(lambda ks: None)
    if any(e is not None for e in sub.errors) or len(sub.alive) < len(models):
        return None
    R = np.stack([o._r[-1] for o in sub.results])[:, None]
    P = np.stack([o._p[-1] for o in sub.results])[:, None]
    tr = None if not sweep.model.ntrack else np.stack(
        [o.track[-1] for o in sub.results])[:, None]
    return k, R, P, tr, _note(sub, sweep, k, newton)


def noted(sweep: Any, walked: tuple) -> None:
    """Note the pole a walk (``walk``'s) passed on each of its variants' Results, once."""
    for i, note in walked[4]:
        notes = sweep.results[sweep.alive[i]].notes
        if note not in notes:
            notes.append(note)


def _note(sub: Any, sweep: Any, k: int, newton) -> list[tuple[int, str]]:
    """[(variant, note)] of the pole each variant of the walk ``sub`` passed between frames
    k - 1 and k (the first sub-interval where its det J changes sign).  A sub-frame on a
    pole (its sign 0: lined_up.py passes it) has no side."""
    times = np.concatenate([[float(sweep.prev.state.t)]] + [t for t, _ in sub.signs_seen])
    signs = np.concatenate([sub.det_start[0][:, None]] + [g for _, g in sub.signs_seen], 1)
    out = []
    for i in range(len(signs)):
        sided = np.flatnonzero(signs[i] != 0)
        flips = np.flatnonzero(signs[i, sided[1:]] != signs[i, sided[:-1]])
        if flips.size:
            j, j1 = int(sided[flips[0]]), int(sided[flips[0] + 1])
            t, who = _located(sub, sweep, i, times, j, j1, signs[i, j], newton)
            out.append((i, f"the sweep passed a singular position (joints and motions "
                           f"involved: {', '.join(who)}) at t = {t:.6g} s (between frames "
                           f"{k - 1} and {k}) on the branch it came along, walked in "
                           "sub-steps from the frame before; near it the joints' reactions "
                           "and the motions' efforts grow without bound"))
    return out


def _located(sub: Any, sweep: Any, i: int, times: np.ndarray, j: int, j1: int, sa: float,
             newton) -> tuple[float, tuple[str, ...]]:
    """(the instant (s), the joints and motions involved) of variant i's pole between the
    walk's sub-frames j and j1 (0: the sweep's last frame; det's sign there ``sa``): by
    bisection on det's sign of poses solved from sub-frame j, to LOCATED of the walk."""
    if j == 0:
        s0 = sweep.prev.state
        last = State(s0.t, *(x[i] for x in (s0.r, s0.p, s0.v, s0.w, s0.a, s0.alpha)))
        q, qd = (None, None) if sweep.prev.q is None else (sweep.prev.q[i], sweep.prev.qd[i])
    else:
        res = sub.results[i]
        last = State(times[j], res._r[j - 1], res._p[j - 1], res._v[j - 1], res._w[j - 1],
                     res._a[j - 1], res._alpha[j - 1])
        q = qd = None
        if sweep.model.ntrack:
            q = res.track[j - 1]
            qd = (res.track[j] - q) / (times[j + 1] - times[j])   # (the sub-frames' spacing)
    span = Interval(sub, i, last, q, qd, newton)
    keep = sweep.st.keep

    def det_sign(t: float):
        jac = span.solved(t)
        if jac is None:
            return None, None
        J = global_jacobian(span.model, jac[0, 0])
        return np.linalg.slogdet(J[keep])[0], J
    a, b, J = float(times[j]), float(times[j1]), None
    while b - a > LOCATED * (times[-1] - times[0]):
        c = 0.5 * (a + b)
        sc, Jc = det_sign(c)
        if sc is None:
            break
        a, b, J = (c, b, Jc) if sc == sa else (a, c, Jc)
    return 0.5 * (a + b), () if J is None else involved(span.model, J, keep)
