"""Joint friction in dynamics (vocabulary/friction.py has the model).

Slipping, an element's generalized force along its coordinate q (an angle or a slide; a
ball's three relative rotations about marker J's axes, q' its relative angular velocity) is

    Q_q = -(mu(|q'|) L + preload) u - c q',    u = q' / |q'| while q' . d > 0, else d,

d the held direction of slip (+-1, or a unit vector for a ball, set at each event and held
so that the right-hand side stays smooth up to the next: the instant q' . d reaches zero is
located like an impact, and a ball's u turning away from d is followed exactly meanwhile),
L the load from the joint's reaction (``loads``) and mu the static coefficient below the
transition speed, the dynamic one above 1.5 times it (a cubic step between).  The load
depends on the multipliers, which depend on the friction: the multipliers' response to
each slipping element's friction is solved once, and the loads' fixed point iterated on the
reactions alone (``with_slip``).

The run state (which elements stick, where, and the slip directions) is a frozen
SlipState (model/state.py), RunState.slip: ``aim``, ``hold`` and ``release`` return a new
one.

Sticking: the coordinate's rows are held at their values (``hold``; a ball's three
rotations about its lock orientation, kernels/constraints.py ``spin``) and their
multipliers are the friction, -lambda along q; the joint sticks at a zero of q' . d when
|lambda| <= mu_s L + preload, and slips again (direction lambda / |lambda|) when it exceeds it.
"""
from __future__ import annotations

from dataclasses import replace

import numpy as np

from ...base.einsum import einsum
from ...base.rotations import cross
from ...kernels.constraints import row_forces, row_rates, spin_measure
from ...model.compile import Model
from ...model.state import SlipState
from ...vocabulary.joints import ANGLE
from .slip_load import ITERATIONS, jam, one_slipping

# a ball slowing below this fraction of its transition speed is at rest: it sticks if its
# friction can hold it, else it slips on the way the needed torque pushes (``event``)
STILL = 1e-2
_FIRST = np.array([1.0, 0.0, 0.0])


def _dot(a, b):
    return einsum("...i,...i->...", a, b)


def wrap(x: np.ndarray, angle: np.ndarray) -> np.ndarray:
    """Angle differences into (-pi, pi] where ``angle``; lengths as they are."""
    return np.where(angle, (x + np.pi) % (2.0 * np.pi) - np.pi, x)


def rates(model: Model, jac: np.ndarray, vel: np.ndarray, ends: np.ndarray | None = None
          ) -> np.ndarray:
    """(..., m) the friction components' rates q' from the rows' Jacobian blocks (..., nc, W)
    and body velocities vel (..., nb+1, 6) (ground last, zero); ``ends``: the rows' bodies
    (model.row_ends of the friction rows), if the caller keeps them."""
    return row_rates(model, model.frictions.rows, jac, vel, ends)


def per_element(model: Model, x: np.ndarray) -> np.ndarray:
    """(..., n) the sums over each element's components of x (..., m) (x itself where
    every element has one component)."""
    return x if model.frictions.single else np.add.reduceat(x, model.frictions.first, axis=-1)


def per_component(model: Model, a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(..., m) each component's element's entry of a and of b (..., n)."""
    e = model.frictions.element
    return (a, b) if model.frictions.single else (a.take(e, axis=-1), b.take(e, axis=-1))


def magnitudes(model: Model, x: np.ndarray) -> np.ndarray:
    """(..., n) |x| over each element's components: a speed, a held force's size."""
    return np.sqrt(per_element(model, x * x))


def joint_reactions(model: Model, lam: np.ndarray, jac: np.ndarray, A: np.ndarray):
    """(R (..., n, 2, 3), z (..., n, 3)) in world axes: every element's joint reaction on
    part I at marker I, force R[..., 0, :] and moment R[..., 1, :], and its joint axis z_J.
    R is linear in lam."""
    (rows, starts), (ends, vecs) = model.frictions.reaction_rows, model.frictions.reaction_vectors
    g = -lam.take(rows, axis=-1)[..., None] * jac.take(rows, axis=-2)[..., :6]   # on body I
    R = np.add.reduceat(g, starts, axis=-2).reshape(lam.shape[:-1] + (len(starts), 2, 3))
    arm_z = einsum("...nij,...nj->...ni", A.take(ends, axis=-3), vecs)   # A_I s_I, then A_J z_J
    R[..., 1, :] -= cross(arm_z[..., :len(starts), :], R[..., 0, :])   # the moment about marker I
    return R, arm_z[..., len(starts):, :]


def _across(R: np.ndarray, z: np.ndarray):
    """(axial parts (..., n, 2), the parts across the axis (..., n, 2, 3), their norms):
    the vectors across, not sqrt(|R|^2 - axial^2), whose difference under a pure thrust
    leaves rounding of 1e-8 |F|."""
    ax = einsum("...nki,...ni->...nk", R, z)
    P = R - ax[..., None] * z[..., None, :]
    return ax, P, np.sqrt(einsum("...nki,...nki->...nk", P, P))


def load_of(model: Model, R: np.ndarray, z: np.ndarray) -> np.ndarray:
    """(..., n) each element's load L from its joint reaction R (joint_reactions): the limit
    of its friction is mu L + preload (vocabulary/friction.py).  A pin's or slide's is
    lever (|F_xy| + |M_xy| / length) + arm |F_z| (F_xy, M_xy across the axis z), a ball's
    radius |F|."""
    fp = model.frictions
    ax, _, side = _across(R, z)
    L = einsum("...nk,...nk->...n", side, fp.side_levers) + fp.arm * np.abs(ax[..., 0])
    if fp.kinds[0]:
        L = np.where(fp.is_ball, fp.radius * np.sqrt(_dot(R[..., 0, :], R[..., 0, :])), L)
    return L


def loads(model: Model, lam: np.ndarray, jac: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., n) each element's load L (load_of) from the multipliers lam (..., nc)."""
    return load_of(model, *joint_reactions(model, lam, jac, A))


def coefficient(model: Model, speed: np.ndarray) -> np.ndarray:
    """mu(|q'|) (..., n) from the elements' speeds: static up to the transition speed,
    dynamic from 1.5 times it, a cubic step (Adams STEP) between."""
    fp = model.frictions
    s = np.minimum(np.maximum((speed - fp.speed) / fp.step_span[0], 0.0), 1.0)   # (np.clip's)
    return fp.static + fp.step_span[1] * s * s * (3.0 - 2.0 * s)


def slip_direction(model: Model, vq: np.ndarray, direction: np.ndarray,
                   speed: np.ndarray | None = None) -> np.ndarray:
    """(..., m) u: q' / |q'| while q' . d > 0, else the held direction d (``speed``: the
    elements' |q'|, if known)."""
    speed = magnitudes(model, vq) if speed is None else speed
    ahead = (per_element(model, vq * direction) > 0.0) & (speed > 0.0)
    on, size = per_component(model, ahead, np.where(ahead, speed, 1.0))
    return np.where(on, vq / size, direction)


def load_gradient(model: Model, R: np.ndarray, z: np.ndarray) -> np.ndarray:
    """dL/dR (..., n, 2, 3): the gradient of each element's load (load_of) with respect to
    its reaction's force and moment (zero where a norm is zero, or rounding of the whole
    reaction, as under a pure thrust, where the side's direction is noise: L is a sum of
    norms, convex, and any subgradient serves Newton there)."""
    fp = model.frictions
    ax, P, side = _across(R, z)
    whole = np.sqrt(einsum("...nki,...nki->...nk", R, R))
    big = (side > 1e-12 * whole) & (side > 0.0)
    g = P * (fp.side_levers / np.where(big, side, np.inf))[..., None]
    g[..., 0, :] += (fp.arm * np.sign(ax[..., 0]))[..., None] * z
    if fp.kinds[0]:
        ball = fp.is_ball[..., None, None]
        full = np.where(whole > 0.0, whole, np.inf)[..., 0, None]
        g = np.where(ball, 0.0, g)
        g[..., 0, :] += np.where(ball[..., 0], fp.radius[..., None] * R[..., 0, :] / full, 0.0)
    return g


def with_slip(model: Model, respond, lam: np.ndarray, jac: np.ndarray, A: np.ndarray,
              vq: np.ndarray, direction: np.ndarray, sliding: np.ndarray):
    """The slipping elements' friction Q_q (..., m) and the multipliers lam (..., nc) with
    it, the sum of ``respond``'s other output (accelerations) for it, and each element's
    headroom (..., n): 1 - dg/ds, how far its friction is from raising its own load as fast
    as itself (0: a jam; coupled elements: 1 / the row sum of |(I - dg/ds)^-1|; inf where it
    does not slip).

    Q_q = -s u - c q' with s = mu L(lam) + preload per element: the directions u do not
    depend on the loads, and lam is affine in the forces, so lam(s) = lam + dlam_c + sum_k
    s_k dlam_k with one response per slipping element (``respond(Q_q) -> (dlam, other)``:
    the linear response of the multipliers, and of anything else, to generalized forces
    Q_q along the friction components; called once, one element's unit force (..., m), or
    several elements' on a leading axis of their own, (L, ..., m); the dynamics' is a sum of
    each component's response, all solved with the multipliers), and the joint reactions
    are linear in lam (their
    reactions and the responses' are one call).  The only nonlinear part, s = g(s) = mu
    L(F(s)) + preload (L: norms of the reaction, affine in s), is solved on the reactions
    alone: with one element slipping by ``_one_slipping`` (Newton on the norms of its
    reaction's parts, a few small numpy calls an iterate), with several by
    ``_coupled_loads`` (Newton with the loads' gradients).  Where no s >= 0 solves it (g
    grows faster than s) the joints jam: ``FrictionJam``.  A non-finite load (a wild trial
    state) is a LinAlgError, as a singular system is.  With leading axes (a step's stages, a
    study's variants) each state's Newton stops where it would alone, so that each takes
    the bits of its own call.  ``sliding`` (m,) marks the
    components of slipping elements; the others get no friction."""
    fp = model.frictions
    e = fp.element
    speed = magnitudes(model, vq)
    u = slip_direction(model, vq, direction, speed)
    mu = coefficient(model, speed)
    other = None
    if fp.kinds[1]:
        Qq = np.where(sliding, -fp.viscous[..., e] * vq, 0.0)
        if np.any(fp.viscous[..., e[sliding]] > 0.0):
            dlam, other = respond(Qq)
            lam = lam + dlam
    else:
        Qq = np.zeros(vq.shape)
    live = np.logical_or.reduceat(sliding, fp.first).nonzero()[0]
    headroom = np.zeros(lam.shape[:-1] + (len(fp.names),)) + np.inf
    if not live.size:
        return Qq, lam, other, headroom
    if len(live) == 1:
        k = int(live[0])
        return _with_one(model, k, respond, lam, jac, A, mu,
                         -u if len(fp.names) == 1 else np.where(sliding & (e == k), -u, 0.0),
                         Qq, other, headroom)
    # the responses to each live element's friction of size 1, all at once on a leading
    # axis of their own: Q_k (L, ..., m), their multipliers (L, ..., nc)
    mine = (e == live[:, None]).reshape((len(live),) + (1,) * (u.ndim - 1) + e.shape)
    Qk = np.where(sliding & mine, -u, 0.0)
    dlam, outs = respond(Qk)
    both, z = joint_reactions(model, np.concatenate([lam[None], dlam]), jac, A)
    R, dR = both[0], np.moveaxis(both[1:], 0, -4)                   # dR (..., live, n, 2, 3)
    s = _coupled_loads(model, live, mu, R, dR, z, headroom)
    sl = np.moveaxis(s, -1, 0)[..., None]                # (L, ..., 1): each response's size
    Qq = Qq + (sl * Qk).sum(axis=0)
    lam = lam + (sl * dlam).sum(axis=0)
    if outs is not None:
        o = (sl.reshape(sl.shape[:-1] + (1,) * (outs.ndim - sl.ndim + 1)) * outs).sum(axis=0)
        other = o if other is None else other + o
    return Qq, lam, other, headroom


def _with_one(model: Model, k: int, respond, lam: np.ndarray, jac: np.ndarray, A: np.ndarray,
              mu: np.ndarray, Qk: np.ndarray, Qq: np.ndarray, other, headroom: np.ndarray):
    """with_slip's outputs when element k alone slips: its unit friction Qk (..., m) (-u on
    its components), the responses to it and the reactions of lam and of them in one call
    each, its size s by ``_one_slipping``, and Qq, lam, other moved by s times them."""
    dlam, out = respond(Qk)
    both = np.empty((2,) + lam.shape)     # the reactions of lam and of dlam: one call
    both[0], both[1] = lam, dlam
    both, z = joint_reactions(model, both, jac, A)
    s, headroom[..., k] = _one_slipping(model, k, mu, both, z)
    s = s[..., None]
    if out is not None:
        o = s[..., None] * out
        other = o if other is None else other + o
    return Qq + s * Qk, lam + s * dlam, other, headroom


def _one_slipping(model: Model, k: int, mu: np.ndarray, RdR: np.ndarray, z: np.ndarray):
    """(s (...), headroom (...)): the one slipping element k's friction s = g(s) = mu L(R +
    s dR) + preload and 1 - g'(s) there (RdR (2, ..., n, 2, 3): the reactions R and dR, z
    (..., n, 3) the joints' axes), by slip_load.py."""
    fp = model.frictions
    ball = bool(fp.kinds[3][k])           # (is_ball is shared by a study's variants)
    w = fp.radius[..., k, None] * _FIRST if ball else fp.load_weights[..., k, :]
    return one_slipping(model, k, RdR[..., k, :, :], z[..., k, :], mu[..., k, None] * w,
                        fp.preload[..., k], ball)


def _coupled_loads(model: Model, live: np.ndarray, mu: np.ndarray, R: np.ndarray,
                   dR: np.ndarray, z: np.ndarray, headroom: np.ndarray) -> np.ndarray:
    """(..., live) the sizes s of several slipping elements' friction, s = g(s) = mu L(R +
    sum_l s_l dR_l) + preload, and their headroom written into ``headroom`` (..., n): Newton
    on g(s) - s, g's slope dg_n/ds_l = mu_n dL/dR_n . dR_ln from the norms' gradients
    (``load_gradient``).  It stops when s repeats itself to 1e-13, or when the rate of
    convergence says that what the last step left is below that (Hairer-Wanner IV.8's
    rule, an estimate: misses up to 6e-13 seen): four on a strongly coupled pin, four or
    five on three coupled dry pins (the plain iteration s <- g(s) took 7 and ran out of
    its 60).  The force and the moment go together through every product (``R``: (..., n,
    2, 3)), so that a load is a dozen numpy calls.  A step that would make some s negative
    stops there at 0; where no s >= 0 solves it the joints jam: ``FrictionJam``; after
    ITERATIONS, a state within 1e-10 is taken, any other jams."""
    fp = model.frictions
    s = np.zeros(R.shape[:-3] + (len(live),))
    mu_live = mu[..., live, None]
    last = None               # the iterate before: each state's largest |g(s) - s|
    held = np.zeros(s.shape[:-1], dtype=bool)    # states settled (each as it would alone)
    kept = s.copy()                              # their s
    for _ in range(ITERATIONS):
        Rs = R + einsum("...l,...lnki->...nki", s, dR)
        g = (mu * load_of(model, Rs, z) + fp.preload)[..., live]
        if not np.isfinite(g).all():     # a wild state (a trial stage): not the friction's
            raise np.linalg.LinAlgError("non-finite joint reactions in the friction loads")
        res = g - s
        size = np.max(np.abs(res), axis=-1)
        conv = (size <= 1e-13 * np.max(np.abs(g), axis=-1) + 1e-300) & ~held
        kept = np.where(conv[..., None], g, kept)
        held = held | conv
        if np.all(held):
            return kept
        gR = load_gradient(model, Rs, z)[..., live, :, :]     # g's slope: dg_n/ds_l
        Jg = mu_live * einsum("...nki,...lnki->...nl", gR, dR[..., live, :, :])
        G, room = _newton_matrices(np.eye(len(live)) - Jg)   # (singular: plain steps, 0)
        headroom[..., live] = np.where(held[..., None], headroom[..., live], room)
        step = (G @ res[..., None])[..., 0]
        s_new = s + step
        if not (np.isfinite(s_new).all() and np.all(s_new >= 0.0)):
            # a plain step where the step is not finite, and s >= 0
            s_new = np.maximum(np.where(np.isfinite(step), s_new, g), 0.0)
            stuck = ~held & np.all(s_new == s, axis=-1)
            if stuck.any():             # held at 0 with g(0) > 0: no s >= 0 solves it
                jam(model, live, res, g, stuck)
        if last is not None:
            # converging at the rate theta: what is left after this step is about
            # theta / (1 - theta) of it (Hairer-Wanner IV.8's stopping rule); below 1e-13
            # of s, no evaluation is needed to see it
            theta = size / np.where(last > 0.0, last, np.inf)
            left = theta / (1.0 - theta) * np.max(np.abs(step), axis=-1)
            quick = ~held & (theta < 0.5) & (left <= 1e-13 * np.max(np.abs(s_new), axis=-1))
            kept = np.where(quick[..., None], s_new, kept)
            held = held | quick
            if np.all(held):
                return kept
        last, s = size, np.where(held[..., None], kept, s_new)
    bad = ~held & ~(np.max(np.abs(res), axis=-1) <= 1e-10 * np.max(np.abs(g), axis=-1) + 1e-300)
    if bad.any():
        jam(model, live, res, g, bad)
    return np.where(held[..., None], kept, s)


def _newton_matrices(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(G = M^-1, headroom 1 / the row sums of |G|) of each state's (..., L, L); a state
    whose M is singular gets plain steps (G = I) and headroom 0, the others their own."""
    try:
        G = np.linalg.inv(M)
        return G, 1.0 / np.sum(np.abs(G), axis=-1)
    except np.linalg.LinAlgError:
        pass
    flat = M.reshape((-1,) + M.shape[-2:])
    G, room = np.empty(flat.shape), np.empty(flat.shape[:-1])
    for i, Mi in enumerate(flat):             # (rare: find the singular states)
        try:
            G[i] = np.linalg.inv(Mi)
            room[i] = 1.0 / np.sum(np.abs(G[i]), axis=-1)
        except np.linalg.LinAlgError:
            G[i], room[i] = np.eye(M.shape[-1]), 0.0
    return G.reshape(M.shape), room.reshape(M.shape[:-1])


def limit(model: Model, load: np.ndarray) -> np.ndarray:
    """The largest friction a sticking element holds: mu_s L + preload."""
    fp = model.frictions
    return fp.static * load + fp.preload


def needed(model: Model, lam: np.ndarray) -> np.ndarray:
    """(..., n) the size of the friction a held element needs, |lambda| over its rows."""
    return magnitudes(model, lam[..., model.frictions.rows])


def body_forces(model: Model, Qq: np.ndarray, jac: np.ndarray, nbg: int) -> np.ndarray:
    """(..., nb+1, 6) the generalized forces Q_q grad q on the bodies (ground row last)."""
    return row_forces(model, model.frictions.rows, Qq, jac, nbg)


def ball_turn(model: Model, A: np.ndarray, which: np.ndarray) -> np.ndarray:
    """(k, 3, 3) the balls' relative orientations C_J^T C_I (world axes from the bodies'
    rotation matrices A (nb+1, 3, 3)) of the elements ``which``."""
    fp = model.frictions
    Ri = A[fp.bi[which]] @ fp.axes_i[which]
    Rj = A[fp.bj[which]] @ fp.axes_j[which]
    return np.swapaxes(Rj, -1, -2) @ Ri


def held_rows(model: Model, slip: SlipState) -> np.ndarray:
    """The constraint rows of the sticking elements' coordinates."""
    fp = model.frictions
    return fp.rows[slip.stuck[fp.element]]


def held_by_stops(model: Model, resting: np.ndarray | None) -> np.ndarray:
    """(n,) True for each element whose coordinate a resting stop holds (``resting``:
    RunState.resting, None without stops): it takes no friction, the stop's row holds it."""
    fp = model.frictions
    if resting is None:
        return np.zeros(len(fp.names), dtype=bool)
    bounds, owner = fp.stop_owner
    return np.bincount(owner, weights=resting[bounds], minlength=len(fp.names)) > 0.0


def free(model: Model, slip: SlipState, frozen: np.ndarray) -> np.ndarray:
    """(n,) slipping elements whose speed's zero crossing is an event: not sticking, not
    held by a motion or by a resting stop (``frozen``, held_by_stops)."""
    return ~slip.stuck & ~frozen & ~model.frictions.held


def parts(model: Model, which: np.ndarray) -> np.ndarray:
    """The components (indices into the friction rows) of the elements ``which``."""
    return np.flatnonzero(np.isin(model.frictions.element, which))


def event(model: Model, slip: SlipState, vq: np.ndarray, vq0: np.ndarray | None) -> np.ndarray:
    """(..., n) the event function of the slipping elements at rates vq, in a step that
    started at rates vq0 (None: no balls): q' . d, and for a ball that started the step
    faster than STILL times its transition speed also that speed's excess, so that a ball
    coming to rest is caught before its slip direction turns arbitrarily fast (near |q'| =
    0 d(q'/|q'|)/dt grows like 1/|q'|: no step size follows it down to zero)."""
    fp = model.frictions
    g = per_element(model, vq * slip.direction)    # q' . d
    if vq0 is None:
        return g
    floor = STILL * fp.speed
    armed = fp.is_ball & (magnitudes(model, vq0) > floor)
    return np.where(armed, np.minimum(g, magnitudes(model, vq) - floor), g)


def aim(model: Model, slip: SlipState, vq: np.ndarray,
        which: np.ndarray | None = None) -> SlipState:
    """Slip directions from the rates vq (m,): the way each element (of ``which``, or all)
    moves; an element standing still keeps its direction."""
    fp = model.frictions
    speed = magnitudes(model, vq)
    go = speed > 0.0 if which is None else np.isin(np.arange(len(speed)), which) & (speed > 0.0)
    c = go[fp.element]
    direction = slip.direction.copy()
    direction[c] = vq[c] / speed[fp.element][c]
    return slip.aimed(direction)


def hold(model: Model, slip: SlipState, which: np.ndarray, phi: np.ndarray,
         A: np.ndarray) -> SlipState:
    """Stick the elements ``which`` where they are: the coordinate values phi (nc,) of
    their rows, a ball's orientation from the rotation matrices A (nb+1, 3, 3)."""
    fp = model.frictions
    stuck, lock, turn = slip.stuck.copy(), slip.lock.copy(), slip.turn.copy()
    stuck[which] = True
    c = parts(model, which)
    lock[c] = phi[fp.rows[c]]
    balls = which[fp.is_ball[which]]
    turn[balls] = ball_turn(model, A, balls)
    return replace(slip, stuck=stuck, lock=lock, turn=turn)


def release(model: Model, slip: SlipState, which: np.ndarray, lam: np.ndarray) -> SlipState:
    """Let the elements ``which`` slip the way their held force lambda (nc,) pushes."""
    fp = model.frictions
    stuck, direction = slip.stuck.copy(), slip.direction.copy()
    stuck[which] = False
    c = parts(model, which)
    size = needed(model, lam)[fp.element[c]]
    direction[c] = np.where(size > 0.0, lam[fp.rows[c]] / np.where(size > 0.0, size, 1.0),
                            direction[c])
    return replace(slip, stuck=stuck, direction=direction)


def lock_residual(model: Model, slip: SlipState, res: np.ndarray, A: np.ndarray) -> None:
    """Put the sticking rows' residuals into res (nc,) in place: a coordinate's distance
    from its held value; a ball's rotation from its lock orientation L,
    vee(skew(C_J^T C_I L^T)) (kernels/constraints.py ``spin``)."""
    fp = model.frictions
    c = np.flatnonzero(slip.stuck[fp.element])
    if not c.size:
        return
    rows = fp.rows[c]
    ball = fp.is_ball[fp.element[c]]
    res[rows[~ball]] = wrap(res[rows[~ball]] - slip.lock[c[~ball]],
                            model.row_kind[rows[~ball]] == ANGLE)
    balls = np.flatnonzero(slip.stuck & fp.is_ball)
    if balls.size:
        Ri = A[fp.bi[balls]] @ fp.axes_i[balls] @ np.swapaxes(slip.turn[balls], -1, -2)
        Rj = A[fp.bj[balls]] @ fp.axes_j[balls]
        res[fp.rows[parts(model, balls)]] = spin_measure(Ri, Rj).reshape(-1)
