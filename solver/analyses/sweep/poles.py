"""A singular position (a pole: a dead centre, links lined up, where two assembly branches
meet) that a sweep passes between two output frames.  There det J of the kept rows goes
through zero and changes sign, and the two branches lie close on either side of it, so a
frame just beside it may be solved onto the other branch, where the motion turns back:
a slider-crank driven by its slide, x = 0.4 - 0.05 (t - 1.001)^2 m at 10 fps, had its
crank turn back at the dead centre (frame 10, 1 ms before it, solved on the mirror
branch: the crank 1.83 rad from its pose at 1.6 s) without a word.

A frame is looked at again where the sign of det J differs from the frame before's (a pole
passed) or, come near a pole (its scaled condition RISE times the frame before's), where
its velocities turn back against those the frame before carries to it (a frame on the
mirror branch, the pole passed there and back).  Its interval is then walked by a sweep
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


def suspect(sweep: Any, sign: np.ndarray, cond: np.ndarray, ks: np.ndarray, V: np.ndarray,
            W: np.ndarray, Ac: np.ndarray, Al: np.ndarray) -> int | None:
    """The first frame of a block (its index) that leaves the frame before across a pole:
    det J's ``sign`` (V, F) changes from the frame before's, or, where ``cond`` (V, F) is
    RISE times the frame before's, its velocities V, W (V, F, nb, 3) turn back (they miss
    those carried from the frame before, v + a h (accelerations Ac, Al), by more than
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
    size = np.maximum(np.abs(now).max(axis=(-2, -1)), np.abs(carried).max(axis=(-2, -1)))
    back = (np.abs(now - carried).max(axis=(-2, -1)) > size) & near
    bad = (flip | back).any(axis=0)
    return int(np.argmax(bad)) if bad.any() else None


def walk(sweep: Any, k: int, make, newton) -> tuple | None:
    """Walk the interval from the sweep's last solved frame to frame k by a sweep (``make``
    (models, model, structure, starts, times, axis): the sweep's class; ``newton`` its
    Newton) of SUBSTEPS sub-frames that goes on from the sweep's last frame as the sweep
    would (its predictor, turns and signs): (k, each variant's pose (V, 1, nb, 3),
    (V, 1, nb, 4) and tracked values (V, 1, ntrack) or None at frame k, and (variant,
    note) of a pole passed, or None), or None where the walk stops (a lock-up or a stop on
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
    sub.run(lambda ks: None)
    if any(e is not None for e in sub.errors) or len(sub.alive) < len(models):
        return None
    R = np.stack([o._r[-1] for o in sub.results])[:, None]
    P = np.stack([o._p[-1] for o in sub.results])[:, None]
    tr = None if not sweep.model.ntrack else np.stack(
        [o.track[-1] for o in sub.results])[:, None]
    return k, R, P, tr, _note(sub, sweep, k, newton)


def noted(sweep: Any, walked: tuple) -> None:
    """Note the pole a walk (``walk``'s) passed on its variant's Result, once."""
    if walked[4] is None:
        return
    i, note = walked[4]
    notes = sweep.results[sweep.alive[i]].notes
    if note not in notes:
        notes.append(note)


def _note(sub: Any, sweep: Any, k: int, newton) -> tuple[int, str] | None:
    """(variant, note) of the pole the walk ``sub`` passed between frames k - 1 and k (of
    the first variant whose det J changes sign on it), or None.  A frame on a pole (its
    sign 0: lined_up.py passes it) has no side."""
    s0 = sweep.prev.state
    times = np.concatenate([[float(s0.t)]] + [t for t, _ in sub.signs_seen])
    signs = np.concatenate([sweep.det_last[0][:, None]] + [g for _, g in sub.signs_seen], 1)
    sided = np.flatnonzero((signs != 0).all(axis=0))     # (a sub-frame on the pole: none)
    flip = signs[:, sided[1:]] != signs[:, sided[:-1]]
    flips = np.flatnonzero(flip.any(axis=0))
    if not flips.size:
        return None
    i = int(np.argmax(flip[:, flips[0]]))
    j, j1 = int(sided[flips[0]]), int(sided[flips[0] + 1])
    if j == 0:
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
    a, b, sa, J = float(times[j]), float(times[j1]), signs[i, j], None
    while b - a > LOCATED * (times[-1] - times[0]):
        c = 0.5 * (a + b)
        sc, Jc = det_sign(c)
        if sc is None:
            break
        a, b, J = (c, b, Jc) if sc == sa else (a, c, Jc)
    who = () if J is None else involved(span.model, J, keep)
    t = 0.5 * (a + b)
    return i, (f"the sweep passed a singular position (joints and motions involved: "
               f"{', '.join(who)}) at t = {t:.6g} s (between frames {k - 1} and {k}) on the "
               "branch it came along, walked in sub-steps from the frame before; near it "
               "the joints' reactions and the motions' efforts grow without bound")
