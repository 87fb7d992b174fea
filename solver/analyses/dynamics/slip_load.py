"""The load of one slipping friction element: the fixed point s = g(s) = mu L(R + s dR) +
preload of friction.py's ``with_slip`` when a single element slips, for many states on
leading axes (a step's stages, a study's variants) or for one.

L(R + s dR) = sum_j w_j |V_j + s W_j| over the reaction's parts j (the side force, the side
moment, the thrust; friction.py ``_parts``, linear in the reaction) is convex in s, so
Newton on g(s) - s from s = 0 (where g >= 0) climbs monotonically to the root (each tangent
lies below the convex g - s), its slope exact from the parts,

    g'(s) = mu sum_j w_j (V_j + s W_j) . W_j / |V_j + s W_j|.

It stops when s repeats g(s) to 1e-13, or when the rate of convergence says that what the
last step left is below that (Hairer and Wanner 1996, IV.8's stopping rule): two or three
evaluations of g on a door's dry hinge.  A slope g' >= 1 where g(s) > s leaves no root
above: the joint jams (FrictionJam); after ITERATIONS a state within 1e-10 is taken, any
other jams.

A single state's problem is three 3-vectors: numpy's call overhead would be most of its
cost, so it is solved on Python floats (``_one_state``) with exactly the arithmetic of the
stacked path (``_stacked``: every sum taken term by term in the same order), so that a
study's variant keeps its separate run's bits.
"""
from __future__ import annotations

import math

import numpy as np

from ...base.errors import FrictionJam
from ...model.compile import Model

ITERATIONS = 30     # Newton iterations of the loads' fixed point, three or four the rule


def one_slipping(model: Model, k: int, RdR: np.ndarray, z: np.ndarray, mw: np.ndarray,
                 pre, ball: bool) -> tuple:
    """(s (...), 1 - g'(s) (...)): element k's friction s = g(s) = sum_j mw_j |V_j + s W_j|
    + pre, from its reaction and the reaction's response to a unit friction RdR (2, ..., 2,
    3) (force and moment, N and N m, world axes), its joint's axis z (..., 3), the parts'
    weights times the coefficient mw (..., 3) and the preload ``pre`` (N or N m).  The parts
    V_j of a reaction (F, M): the side force F - (F . z) z, the side moment, the thrust
    (F . z, 0, 0); a ball's whole force.  A non-finite reaction (a wild trial stage) is a
    LinAlgError."""
    if RdR.ndim == 3 and mw.ndim == 1 and getattr(pre, "ndim", 0) == 0:
        F, dF = RdR.tolist()
        zz = z.tolist()
        if not all(map(math.isfinite, F[0] + F[1] + dF[0] + dF[1] + zz)):
            raise np.linalg.LinAlgError("non-finite joint reactions in the friction loads")
        return _one_state(model, k, _parts_one(F, zz, ball), _parts_one(dF, zz, ball),
                          mw.tolist(), float(pre))
    if not np.logical_and.reduce(np.isfinite(RdR), axis=None):
        raise np.linalg.LinAlgError("non-finite joint reactions in the friction loads")
    VW = _parts(RdR, z, ball)
    return _stacked(model, k, VW[0], VW[1], mw, pre)


def _parts(R: np.ndarray, z: np.ndarray, ball: bool) -> np.ndarray:
    """(..., 3, 3) the parts of reactions R (..., 2, 3) about axes z (..., 3)."""
    V = np.zeros(R.shape[:-2] + (3, 3))
    if ball:
        V[..., 0, :] = R[..., 0, :]
        return V
    zk = z[..., None, :]
    ax = R[..., 0] * zk[..., 0] + R[..., 1] * zk[..., 1] + R[..., 2] * zk[..., 2]
    V[..., :2, :] = R - ax[..., None] * zk
    V[..., 2, 0] = ax[..., 0]
    return V


def _parts_one(R: list, z: list, ball: bool) -> list:
    """_parts of one reaction, on floats (the same arithmetic)."""
    if ball:
        return [list(R[0]), [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]]
    side, axial = [], []
    for f in R:
        a = f[0] * z[0] + f[1] * z[1] + f[2] * z[2]
        axial.append(a)
        side.append([f[0] - a * z[0], f[1] - a * z[1], f[2] - a * z[2]])
    return side + [[axial[0], 0.0, 0.0]]


def _one_state(model: Model, k: int, V: list, W: list, mw: list, pre: float) -> tuple:
    """one_slipping for a single state's parts V, W (3 x 3 floats), on floats: the
    arithmetic of ``_stacked``, term by term."""
    s, flat, last = 0.0, 1.0, None
    for _ in range(ITERATIONS):
        Vs = V if last is None else [[v + s * w for v, w in zip(vj, wj)]
                                     for vj, wj in zip(V, W)]
        size = [math.sqrt(x * x + y * y + z * z) for x, y, z in Vs]
        g = size[0] * mw[0] + size[1] * mw[1] + size[2] * mw[2] + pre
        res = g - s
        big = abs(res)
        if big <= 1e-13 * abs(g) + 1e-300:
            return np.float64(g), np.float64(flat)
        e = [(x[0] * y[0] + x[1] * y[1] + x[2] * y[2]) * (m / (n if n > 0.0 else math.inf))
             for x, y, m, n in zip(Vs, W, mw, size)]
        turn = 1.0 - (e[0] + e[1] + e[2])
        if turn <= 0.0 and res > 0.0:              # g grows as fast as s: no root
            jam(model, np.array([k]), np.array([res]), np.array([g]), np.True_)
        step = res / (turn if turn > 0.0 else 1.0)
        s1 = max(s + step, 0.0)
        if last is not None:                       # settles_quickly, on floats
            theta = big / (last + (last == 0.0))
            if theta < 0.5 and theta / max(1.0 - theta, 0.5) * abs(step) <= 1e-13 * abs(s1):
                return np.float64(s1), np.float64(turn)
        s, flat, last = s1, turn, big
    if not abs(res) <= 1e-10 * abs(g) + 1e-300:
        jam(model, np.array([k]), np.array([res]), np.array([g]), np.True_)
    return np.float64(g), np.float64(flat)


def _stacked(model: Model, k: int, V: np.ndarray, W: np.ndarray, mw: np.ndarray, pre):
    """one_slipping over leading axes, each state stopping where it would alone."""
    s = np.zeros(V.shape[:-2])
    flat = s + 1.0            # 1 - g' at the last iterate that took a step
    last = None               # each state's |g(s) - s| at the iterate before
    held = None               # states already settled: (settled, s, flat)
    for _ in range(ITERATIONS):
        Vs = V if last is None else V + s[..., None, None] * W      # (s = 0 at first)
        sq = Vs * Vs
        size = np.sqrt(sq[..., 0] + sq[..., 1] + sq[..., 2])
        t = size * mw
        g = t[..., 0] + t[..., 1] + t[..., 2] + pre
        res = g - s
        big = np.abs(res)
        done = (big <= 1e-13 * np.abs(g) + 1e-300) | (False if held is None else held[0])
        if np.logical_and.reduce(done, axis=None):
            return _settled(g, flat, held)
        d = Vs * W
        e = (d[..., 0] + d[..., 1] + d[..., 2]) * (mw / np.where(size > 0.0, size, np.inf))
        turn = 1.0 - (e[..., 0] + e[..., 1] + e[..., 2])
        if np.logical_or.reduce(turn <= 0.0, axis=None):   # g grows as fast as s: no root
            stuck = (turn <= 0.0) & (res > 0.0) & ~done
            if stuck.any():
                jam(model, np.array([k]), res[..., None], g[..., None], stuck)
        step = res / np.where(turn > 0.0, turn, 1.0)
        s1 = np.maximum(s + step, 0.0)
        quick = False if last is None else settles_quickly(big, last, step, s1)
        if np.logical_or.reduce(done | quick, axis=None):   # some states settle now
            held = _hold(held, done, quick, g, s1, flat, turn)
            s1, turn = np.where(held[0], held[1], s1), np.where(held[0], held[2], turn)
            if np.logical_and.reduce(held[0], axis=None):
                return s1, turn
        s, flat, last = s1, turn, big
    bad = ~(np.abs(res) <= 1e-10 * np.abs(g) + 1e-300) & ~done
    if bad.any():
        jam(model, np.array([k]), res[..., None], g[..., None], bad)
    return _settled(g, flat, held)


def settles_quickly(big, last, step, s):
    """Each state where Newton converges at the rate theta = |g - s| / the last's below 1/2
    and what is left after ``step``, about theta / (1 - theta) of it (Hairer-Wanner IV.8's
    stopping rule), is below 1e-13 of s: no evaluation is needed to see it.  Floats or
    arrays alike."""
    theta = big / (last + (last == 0.0))        # (a state settled at 0 is held anyway)
    left = theta / np.maximum(1.0 - theta, 0.5) * np.abs(step)   # (1 - theta where < 1/2)
    return (theta < 0.5) & (left <= 1e-13 * np.abs(s))


def _hold(held, done: np.ndarray, quick: np.ndarray, g: np.ndarray, s1: np.ndarray,
          flat: np.ndarray, turn: np.ndarray) -> tuple:
    """The states settled so far, their s and 1 - g' frozen as each would have stopped
    alone: (settled, s, flat); ``done``: settled by s repeating g(s) (their g, and the
    flat of the iterate before), ``quick`` by the rate rule (their new s and flat)."""
    if held is None:
        held = (np.zeros(done.shape, dtype=bool), np.zeros(done.shape), np.zeros(done.shape))
    old, s_h, f_h = held
    new_done, new_quick = done & ~old, quick & ~done & ~old
    return (old | new_done | new_quick,
            np.where(new_done, g, np.where(new_quick, s1, s_h)),
            np.where(new_done, flat, np.where(new_quick, turn, f_h)))


def _settled(g: np.ndarray, flat: np.ndarray, held) -> tuple:
    """(s, flat) of every state: g where it repeats s, the held values where it settled
    before (none held: g and flat as they are)."""
    if held is None:
        return g, flat
    return np.where(held[0], held[1], g), np.where(held[0], held[2], flat)


def jam(model: Model, live: np.ndarray, res: np.ndarray, g: np.ndarray, where: np.ndarray):
    """Raise FrictionJam for the first state of ``where`` (leading axes), naming its
    elements whose load did not settle."""
    index = tuple(int(i) for i in np.argwhere(where)[0]) if np.ndim(where) else ()
    r, gg = res[index], g[index]
    off = np.abs(r) > 1e-10 * np.abs(gg) + 1e-300
    names = tuple(model.frictions.names[k] for k in live[off]) or \
        tuple(model.frictions.names[k] for k in live)
    raise FrictionJam(names, index)
