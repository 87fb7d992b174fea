"""Static equilibrium (Haug 1989, "Statics": accelerations and velocities zero, so
Q(q) - J(q)^T lambda = 0 and Phi(q) = 0).

Newton on (q, lambda) from the assembled start (the force balance and its tangent are
statics_newton.py's Equilibrium; steps that do not reduce the residual are halved), inside
an active-set loop over the stops and friction (``_ActiveSet``).  With no equilibrium near (a part free to move under load) the
matrix is singular or the iteration stalls, and the error names the parts that move.
"""
from __future__ import annotations

from typing import NamedTuple

import numpy as np

from ...algebra.blas import single_thread
from ...algebra.newton import NewtonOptions, newton, scaled_jacobian
from ...base.elementary import power
from ...base.errors import ExpressionError, SolverError
from ...kernels.constraints import body_arrays, evaluate, motion_values
from ...kernels.contacts import summary_rows
from ...kernels.forces import inertia_world, total_forces
from ...kernels.stop_forces import stop_forces
from ...model.compile import Model
from ...model.results import Result
from ...model.state import State
from ..checks.shared_reactions import shared_components, shared_note
from ..start.assembly import assemble_pose, curve_contacts
from ..start.loaded_bushings import loaded_bushings
from ..dynamics.friction import held_rows, hold, limit as friction_limit, loads, needed
from ...model.state import SlipState
from ..dynamics.stops import amount, check_start, describe, gaps, tolerance
from ..limit_turns import pose_turns
from .statics_newton import Equilibrium, BalanceState
from ..start.singular_start import nearby_structure
from ..structure import Structure, least_norm, self_stresses, structure


@single_thread
def statics(model: Model, state: State, max_iter: int = 100) -> tuple[Result, State]:
    """Equilibrium under gravity, springs and loads (motions held at their value at the
    state's time) from the state's pose.

    Returns a one-frame Result (velocities and accelerations zero) whose reactions and
    efforts are the equilibrium loads, and the equilibrium state.
    """
    eq = find_equilibrium(model, state, max_iter)
    return _result(model, eq.structure, eq.run, eq.x, eq.stable, eq.notes)


class Found(NamedTuple):
    """An equilibrium: ``x`` = (r, p, lambda of the rows held, the residual, J); ``run``
    the active set that found it (its ``eqm`` the force balance there, with the rows held
    in ``eqm.keep``); the structure, whether it is stable, and the assembly's notes."""
    x: tuple
    run: "_ActiveSet"
    structure: Structure
    stable: bool
    notes: tuple


def find_equilibrium(model: Model, state: State, max_iter: int = 100) -> Found:
    """The static equilibrium from the state's pose (motions at the state's time): the
    assembly, the structure, Newton inside the active set of stops and friction."""
    time = float(state.t)
    asm = assemble_pose(model, state.r, state.p, time)
    st = asm.structure or structure(model, asm.r, asm.p)
    # at a singular start (a parallelogram lined up) the rows independent near it
    st = nearby_structure(model, st, asm.r, asm.p, time, asm.track) or st
    check_start(model, asm.r, asm.p, time, pose_turns(model, asm.r, asm.p, time))
    try:
        f = motion_values(model, time)
    except ExpressionError as exc:
        raise SolverError(str(exc), time) from None
    run = _ActiveSet(model, st, time, f, asm.r, asm.p, max_iter)
    try:
        x, stable = run.equilibrium()
    except FloatingPointError as exc:        # a force with no direction on the way there
        raise SolverError(f"statics at t = {time:.6g} s: {exc} on the way to the equilibrium; "
                          "keep its ends apart there (a free length above 0, or a marker "
                          "moved)", time) from None
    _on_the_curves(model, x[0], x[1], run.eqm.track, time)
    loaded = loaded_bushings(model, asm.r, asm.p)          # (as check() and a run say)
    return Found(x, run, st, stable, tuple(asm.notes) + tuple(loaded))


def _on_the_curves(model: Model, r: np.ndarray, p: np.ndarray, track, time: float) -> None:
    """SolverError naming the joint where the equilibrium (r, p) has a curve contact past
    the end of its open curve: the spline continued past its end (base/curves.py) closes
    the equations there, but there is no slot to hold the part."""
    if model.curves is None:
        return
    u = evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).track
    for name, k, curve in curve_contacts(model):
        if not curve.inside(float(u[k])):
            past, end = (-u[k], "start") if u[k] < 0.0 else (u[k] - curve.length, "end")
            raise SolverError(f"statics at t = {time:.6g} s: joint {name!r}: the equilibrium "
                              f"lies with its contact {past:.4g} m past the {end} of the open "
                              f"curve {curve.name!r} (length {curve.length:.4g} m), where there "
                              "is no slot; make the curve longer, or hold the part within its "
                              "reach", time, (name,))


class _ActiveSet:
    """The stops and friction around Newton's equilibrium (stops.py's active set): bounds
    the equilibrium would pass are held, stops that would pull are let go, friction that
    cannot hold lets go, until nothing changes.  A load on a free coordinate with no
    stiffness (Newton's tangent singular along it) that pushes it toward a stop holds that
    stop, and the equilibrium is found on it.  A compliant stop is held at the penetration
    where its law carries the load the held stop took (delta = (F / k)^(1/n)), then let go:
    Newton finishes from there.  The force balance is the Equilibrium ``eqm``, its state
    (rows held, shifts, friction's holds, the branch) one record, ``eqm.state``, replaced
    as the set changes and put back to undo a try; ``start`` the branch at the start pose;
    ``slipped`` names the friction elements let go."""

    def __init__(self, model: Model, st: Structure, time: float, f: np.ndarray,
                 r: np.ndarray, p: np.ndarray, max_iter: int) -> None:
        self.model, self.st, self.time, self.max_iter = model, st, time, max_iter
        self.lm, self.fp = model.limits, model.frictions
        self.r0, self.p0 = r, p
        # the couplers' angles stay on the start's turns, the curve contacts start from its
        track = evaluate(model, *body_arrays(model, r, p)[:2]).track
        # friction: every joint whose coordinate no motion drives is held where it starts;
        # one whose friction cannot hold it (needed force above mu_s L + preload) is let go
        slip = SlipState.start(model) if self.fp is not None else None
        if slip is not None:
            rg, A = body_arrays(model, r, p)[:2]
            slip = hold(model, slip, np.flatnonzero(~self.fp.held),
                        evaluate(model, rg, A, need_jac=False, ref=track).phi, A)
        self.track = track
        self.slipped: list[str] = []
        self.eqm = Equilibrium(model, time, f, track, slip, st.keep, r, p)
        self.start = self.eqm.state.run      # the branch at the start pose

    @property
    def slip(self) -> SlipState | None:
        """What friction holds (the Equilibrium's: its residual holds those joints)."""
        return self.eqm.slip

    def _base_rows(self, held: np.ndarray) -> np.ndarray:
        """The rows held: the structure's, the stops ``held`` and friction's holds."""
        slip = self.slip
        return np.concatenate([self.st.keep, held,
                               held_rows(self.model, slip) if slip is not None
                               else np.zeros(0, int)]).astype(int)

    def _first_multipliers(self, r: np.ndarray, p: np.ndarray) -> np.ndarray:
        """The best multipliers at the pose for the start's loads (least squares)."""
        J0 = self.eqm.parts(r, p)[1]
        return np.linalg.lstsq(J0[self.eqm.keep].T, self.eqm.start_load, rcond=None)[0]

    def settle(self, r: np.ndarray, p: np.ndarray, held: np.ndarray) -> tuple:
        """The active set from the start pose (r, p) with the bounds ``held`` (rows) held:
        Newton, then stops let go or held and friction let go, until nothing changes.
        Returns (r, p, lambda, the residual, J); ``eqm.keep`` is left at its rows, and
        ``eqm.track`` at the tracked values of the pose returned."""
        model, lm, fp, eqm = self.model, self.lm, self.fp, self.eqm
        # the start's tracked values; Newton carries them from pose to pose
        eqm.state = eqm.state.on(eqm.state.run.tracked(self.track))
        n, max_iter = eqm.n, self.max_iter
        rounds = 4 * ((len(lm.rows) if lm is not None else 0)
                      + (len(fp.rows) if fp is not None else 0)) + 1
        for _ in range(rounds):
            eqm.state = eqm.state.holding(self._base_rows(held))
            lam = self._first_multipliers(r, p)
            sol = newton(eqm, (r, p, lam), NewtonOptions(max_iter, line_search=True))
            (r, p, lam), (R, J) = sol.x, sol.data
            keep = eqm.keep
            if not sol.ok and lm is not None:
                toward = _pushed_toward(model, R, J, keep, n, r, p, eqm.track,
                                        self.eqm.limit_ref)
                toward = toward[~np.isin(lm.rows[toward], held)]
                if toward.size:
                    held = np.union1d(held, lm.rows[toward])
                    continue
            if not sol.ok:
                why = (f"no convergence in {max_iter} iterations" if sol.iterations >= max_iter else
                       f"the force balance is off by {sol.err:.3g} of the loads and no step reduces it")
                eqm.fail(R, why)
            if self.slip is not None and self.slip.stuck.any() and self._friction_lets_go(r, p, lam, J):
                continue
            if lm is None:
                break
            if lm.compliant.any():
                moved, held = self._place_compliant(lam, held)
                if moved:
                    continue
            new = self._stops_held(r, p, lam, held)
            if set(new.tolist()) == set(held.tolist()):
                break
            held = new
        return r, p, lam, R, J

    def _friction_lets_go(self, r, p, lam, J) -> bool:
        """Let go the friction holds whose needed force passes their limit (True if any)."""
        model, fp, slip, keep = self.model, self.fp, self.slip, self.eqm.keep
        full = np.zeros(model.nc)
        full[keep] = lam
        rg, A = body_arrays(model, r, p)[:2]
        jac = evaluate(model, rg, A, ref=self.eqm.track).jac
        limit = friction_limit(model, loads(model, _reported(model, self.st, keep, J, jac, full),
                                            jac, A))
        over = np.flatnonzero(slip.stuck & (needed(model, full) > limit))
        if over.size:
            self.slipped.extend(fp.names[k] for k in over)
            stuck = slip.stuck.copy()
            stuck[over] = False
            eqm = self.eqm
            eqm.state = eqm.state.on(eqm.state.run.slipping(slip.sticking(stuck)))
        return bool(over.size)

    def _place_compliant(self, lam, held) -> tuple[bool, np.ndarray]:
        """Compliant stops held: placed at their penetration, then let go.  (changed, the
        bounds held)."""
        model, lm, eqm = self.model, self.lm, self.eqm
        shift = eqm.shift.copy()
        full = np.zeros(model.nc)
        full[eqm.keep] = lam
        on = np.flatnonzero(lm.compliant & np.isin(lm.rows, held))
        placed = on[shift[on] != 0.0]
        if placed.size:
            shift[placed] = 0.0
            eqm.state = eqm.state.shifted(shift)
            return True, np.setdiff1d(held, lm.rows[placed])
        if on.size:
            F = np.maximum(-lm.sgn[on] * full[lm.rows[on]], 0.0)
            shift[on] = lm.sgn[on] * power(F / lm.stiffness[on], 1.0 / lm.exponent[on])
            eqm.state = eqm.state.shifted(shift)
            return True, held
        return False, held

    def _stops_held(self, r, p, lam, held) -> np.ndarray:
        """The rigid bounds held next: those held that push, and those the pose passes."""
        model, lm = self.model, self.lm
        g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False,
                                 ref=self.eqm.track).phi, self.eqm.limit_ref)
        lam_rows = dict(zip(self.eqm.keep.tolist(), lam))
        push = np.array([-lm.sgn[b] * lam_rows.get(int(row), 0.0) for b, row in enumerate(lm.rows)])
        holding = np.isin(lm.rows, held) & ~lm.compliant
        return lm.rows[(holding & (push >= 0.0))
                       | (~holding & ~lm.compliant & (g < -tolerance(model)))]

    def _is_stable(self, x: tuple) -> bool:
        r, p, lam, R, J = x
        return _stable(self.eqm.tangent(r, p, lam, R),
                       scaled_jacobian(self.model, J, self.eqm.keep), self.eqm.cw)

    def equilibrium(self) -> tuple[tuple, bool]:
        """((r, p, lambda, R, J), stable).  An equilibrium past a rigid stop is never the
        answer, and an unstable one (Newton finds any, an arm balanced upright as well as
        hanging) is not where a stable one on a stop is near: the stop the start's load
        pushes toward (the way the mechanism would move from rest) is held from the start,
        and the equilibrium on it taken when it is stable, its stops push and it lies within
        every stop."""
        model, lm, eqm = self.model, self.lm, self.eqm
        r0, p0 = self.r0, self.p0
        x = self.settle(r0, p0, np.zeros(0, dtype=int))
        stable = self._is_stable(x)
        if lm is not None and (not stable or _past_a_stop(model, x[0], x[1], eqm.track,
                                                              eqm.limit_ref) is not None):
            first = (x, eqm.state, len(self.slipped))
            eqm.state = eqm.state.holding(self._base_rows(np.zeros(0, int)))
            J0 = eqm.parts(r0, p0)[1]
            R0 = eqm.balance(r0, p0, np.linalg.lstsq(J0[eqm.keep].T, eqm.start_load,
                                                      rcond=None)[0])[0]
            toward = _pushed_toward(model, R0, J0, eqm.keep, eqm.n, r0, p0, self.track,
                                    self.start.limit_ref)
            found = None
            if toward.size:
                # from the start's branch, no compliant stop placed (friction as it was)
                branch = eqm.state.run.turned(self.start.ts_ref).limits_at(
                    self.start.limit_ref, None)
                eqm.state = BalanceState(eqm.keep, np.zeros_like(eqm.shift), branch)
                try:
                    y = self.settle(r0, p0, lm.rows[toward])
                    if (_past_a_stop(model, y[0], y[1], eqm.track, eqm.limit_ref) is None
                            and self._is_stable(y)):
                        found = y
                except SolverError:          # no equilibrium that way: the first one stands
                    pass
            if found is not None:
                x, stable = found, True
            else:
                x, eqm.state, nslip = first
                del self.slipped[nslip:]
        turns = eqm.limit_ref
        past = _past_a_stop(model, x[0], x[1], eqm.track, turns) if lm is not None else None
        if past is not None:
            _refuse_past(model, past, x[0], x[1], eqm.track, turns, self.time)
        return x, stable


def _result(model: Model, st: Structure, run: _ActiveSet, x: tuple, stable: bool,
            notes) -> tuple[Result, State]:
    """The one-frame Result of the equilibrium x = (r, p, lambda, R, J) and its state."""
    r, p, lam, _, J = x
    time, keep, nb = run.time, run.eqm.keep, model.nb
    zero = np.zeros((nb, 3))
    out = Result.empty(model, np.array([float(time)]), "static")
    out.notes += list(notes)
    if run.slipped:
        out.notes.append(f"friction {', '.join(map(repr, run.slipped))} cannot hold the start (the needed "
                         "force exceeds the static limit): the equilibrium shown is without it")
    out.method = "static equilibrium (Newton)"
    out.spring_turns = np.array(run.eqm.ts_ref, dtype=float)   # the turns Newton wound them
    out.stable = stable
    if not out.stable:
        out.notes.append("the equilibrium is unstable (a small push moves the mechanism away "
                         "from it, like an inverted pendulum); start nearer the stable one")
    rg, A, vg, wg = body_arrays(model, r, p, zero, zero)
    ev = evaluate(model, rg, A, vg, wg)
    lam_full = np.zeros(model.nc)
    lam_full[keep] = lam
    lam_full = _reported(model, st, keep, J, ev.jac, lam_full)
    fp, slip = model.frictions, run.slip
    if slip is not None:              # what friction holds (its multiplier), or nothing
        held_parts = slip.stuck[fp.element]
        out._friction[0, held_parts] = -lam_full[fp.rows[held_parts]]
    stop = stop_forces(model, ev.phi, ev.jac, np.zeros((nb + 1, 6)), run.eqm.limit_ref)
    if stop is not None:              # a compliant stop's push, read as its limit's force
        lam_full[model.limits.rows[stop.bounds]] = -stop.Qq
    rest = State(time, r, p, zero, zero, zero, zero)
    out.store(0, rest, lam_full, ev.jac, ev.track)
    out.shared_reactions = shared_components(model, st, r, p, ev.track)
    shared = shared_note(out.shared_reactions, len(st.redundant), "at the equilibrium")
    out.notes += [shared] if shared else []
    _, fe = total_forces(model, time, rg, A, vg, wg, run.eqm.ts_ref)
    out.store_energy(0, inertia_world(model, A[:nb]), fe.potential, 0.0, 0.0)
    if fe.contact is not None:        # the contacts' forces at rest (Result.contact)
        out._contact[0] = summary_rows(model.forces.contacts, fe.contact, rg)
    return out, rest


def _reported(model: Model, st: Structure, keep: np.ndarray, J: np.ndarray, jac: np.ndarray,
              lam: np.ndarray) -> np.ndarray:
    """The multipliers lam (nc,) of the kept rows as reported, and as friction's load takes
    them: with redundant rows, the least-norm joint multipliers with the same forces on the
    parts (structure.least_norm, as the sweep and dynamics report them).  J: the global
    Jacobian (nc, 6 nb) and jac its rows' blocks, at the pose."""
    if not st.redundant.size:
        return lam

    def solve_kept(F: np.ndarray) -> np.ndarray:     # J_k^T x = F for each F (k, nb, 6)
        return np.linalg.lstsq(J[keep].T, F.reshape(len(F), -1).T, rcond=None)[0].T
    return least_norm(self_stresses(model, keep, st.redundant, jac, solve_kept))(lam)


def _pushed_toward(model: Model, R: np.ndarray, J: np.ndarray, keep: np.ndarray, n: int,
                   r, p, track, turns=None) -> np.ndarray:
    """The limit bounds (LimitPlan index) that an unbalanced load on the free motions pushes
    their coordinate toward: the load R[:n] projected on the motions the kept rows allow
    (null space of J[keep]) moves each bound's gap at the rate sgn J_row x; negative: toward
    it.  Bounds already past, or far, count alike: the nearest is the one Newton reaches."""
    lm = model.limits
    Jk = J[keep]
    if Jk.size:
        _, s, vt = np.linalg.svd(Jk)
        N = vt[np.sum(s > 1e-9 * s.max()):].T
    else:
        N = np.eye(n)
    x = N @ (N.T @ R[:n])
    rate = lm.sgn * (J[lm.rows] @ x)
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi,
             turns)
    toward = np.flatnonzero(rate < -1e-9 * max(float(np.abs(R[:n]).max()), 1e-300)
                            * np.linalg.norm(J[lm.rows], axis=1))
    if toward.size > 1:            # the nearest stop along the way is the one reached
        toward = toward[[int(np.argmin(g[toward] / -rate[toward]))]]
    return toward


def _past_a_stop(model: Model, r, p, track, turns=None) -> int | None:
    """The first rigid bound (LimitPlan index) the pose lies past, beyond the tolerance of
    stops.tolerance, or None."""
    lm = model.limits
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi,
             turns)
    past = np.flatnonzero(~lm.compliant & (g < -tolerance(model)))
    return int(past[0]) if past.size else None


def _refuse_past(model: Model, b: int, r, p, track, turns, time: float) -> None:
    """SolverError naming the limit and joint whose rigid bound b the only equilibrium
    found lies past (never returned as an answer)."""
    lm = model.limits
    g = gaps(model, evaluate(model, *body_arrays(model, r, p)[:2], need_jac=False, ref=track).phi,
             turns)
    raise SolverError(f"no static equilibrium within the stops: the one found has "
                      f"{describe(model, b)} by {amount(model, b, float(-g[b]), 3)} "
                      f"(t = {time:.6g} s), and none "
                      "was found on the stop the load pushes toward; start the mechanism nearer "
                      "the pose it should rest in", time, (lm.names[b], lm.joints[b]))


def _stable(T: np.ndarray, Js: np.ndarray, cw: np.ndarray) -> bool:
    """Stable when the stiffness -T is positive semi-definite on the motions the constraints
    allow (the null space of J; coordinates scaled by cw so lengths and angles compare)."""
    K = -(T * cw[None, :]) / cw[:, None]          # stiffness in scaled coordinates
    if Js.size:
        _, s, vt = np.linalg.svd(Js)
        N = vt[np.sum(s > 1e-9 * s.max()):].T
    else:
        N = np.eye(K.shape[0])
    if N.size == 0:
        return True
    H = N.T @ (0.5 * (K + K.T)) @ N
    lam = np.linalg.eigvalsh(H)
    return bool(lam[0] >= -1e-7 * max(1.0, float(np.abs(lam).max())))
