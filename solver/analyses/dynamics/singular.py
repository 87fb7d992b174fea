"""Where a dynamic run's step size collapses: a singular position the motion may pass
(least-norm solves until it is passed; one the inputs' rounding folded, found where the
accelerations jump, ``rounded_fold``), redundant rows chosen anew, a lock-up, a dry joint
nearing a jam; the tests and the messages that name the joints.  Used by
analyses/dynamics/driver.py (and through it the study's lockstep run)."""
from __future__ import annotations

import numpy as np

from ...algebra.newton import scaled_jacobian
from ...algebra.rank import best_rows, involved
from ...kernels.constraints import body_arrays, evaluate, global_jacobian
from ...base.errors import ExpressionError
from ...model.compile import Model
from ...vocabulary.timefunctions import TimeFunction
from ..contact_check import overlaps
from ..general_motions import REACHED, closest_approach, lock_up_cause, reached_singular
from ..structure import Structure
from .equations import Equations
from .inside import collapsed_size

JAM_HEADROOM = 1e-2
BLOW_UP = 1e9      # a motion or load this many times (1 + its size at the start): unbounded
# a step cut below this share of a frame: does a motion or load grow without bound there?
# (a motion 1/(0.5 - t)'s steps, 0.7 (0.5 - t)^2 s, pass 1e-5 of a 24 fps frame 0.5 ms short
# of its pole, its acceleration there 2e10 rad/s^2, and reached rounding only hours later)
GROWTH_STEP = 1e-4
SOUND_CONDITION = 1e4    # scaled condition of a nearly singular Jacobian (singular_condition)
CHAIN_CONDITION = 100.0  # ... of nb parts: past CHAIN_CONDITION nb^2, for long chains
# the share of their size by which a step start's accelerations leave those continued from
# the two step starts before where the exact solves may follow the rounding's fold (then
# rounded_fold decides): a sound run's, two steps below SINGULAR_STEP of a frame, miss by
# the continuation's error, some (omega h)^2 (at most 6e-3 measured on closed chains of 5
# to 40 links read from Blender); a rounded parallelogram's grow as the inverse cube of
# the angle to its line (1e-2, 2.4e-2, 6.6e-2, 0.18 over four steps, 0.014 to 0.0056 rad)
RATES_JUMP = 0.1


def growing_without_bound(model: Model, t: float) -> tuple[tuple[str, str | None], ...]:
    """The motions' and loads' functions of time whose value at t is not finite (or cannot
    be evaluated) or BLOW_UP times 1 + their size at their start, and the motions whose
    rate or acceleration is (the parts follow all three: log(0.5 - t) is -21 where its
    acceleration is 4e17): where a step size collapses, the one that grows without bound
    there (a load 1/(0.5 - t) nearing 0.5 s) is named, with its value: (what it says, the
    motion's name or None for a load) each."""
    out = []
    motions = len(model.motion_functions)
    for i, fn in enumerate(list(model.motion_functions) + model.forces.functions()):
        if not isinstance(fn, TimeFunction):
            continue                 # (an expression of the state: the state it is at)
        orders = 3 if i < motions else 1     # (a load's value alone: its rate is not used)
        read = fn.derivatives if i < motions else (lambda x: (fn.value(x),))
        try:
            start, now = np.abs(read(fn.start)), np.array(read(t))
        except ExpressionError:
            start, now = np.zeros(orders), np.full(orders, np.inf)
        over = ~(np.abs(now) <= BLOW_UP * (1.0 + start))
        if over.any():
            j = int(np.argmax(over))
            what = ("", "its rate ", "its acceleration ")[j]
            out.append((f"{fn.name} ({fn.source}: {what}{now[j]:.3g} at t = {t:.6g} s)",
                        model.motion_names[i] if i < motions else None))
    return tuple(out)


def gave_up(model: Model, hs: float, t: float, frame_dt: float) -> bool:
    """Does a rejected step cut to hs (s) at t end the run: cut to rounding
    (``collapsed_size``), or below GROWTH_STEP of a frame (frame_dt, s) where a motion or
    load grows without bound (a pole's steps shrink as its distance squared: never to
    rounding)?"""
    return bool(collapsed_size(hs, t)) or (hs < GROWTH_STEP * frame_dt
                                           and bool(growing_without_bound(model, t)))


def near_jam(sysm: Equations) -> tuple[str, ...]:
    """The friction elements whose headroom from a jam (friction.with_slip: 1 - dg/ds) was
    below JAM_HEADROOM at the last right-hand side, any of its stages: where a step size
    collapses, the friction that grows without bound there (a crosshead nearing its
    friction angle) is named."""
    room = sysm.headroom
    if room is None:
        return ()
    close = np.min(np.reshape(room, (-1, room.shape[-1])), axis=0) < JAM_HEADROOM
    return tuple(sysm.m.frictions.names[i] for i in np.flatnonzero(close))


def singular_condition(model: Model) -> float:
    """The scaled condition above which a mechanism's Jacobian counts as nearly singular:
    1e4 (a sound mechanism's is 1 to 100; it grows like 1/sqrt(distance) towards a limit
    position, measured 3e5 one nanosecond before one), or 100 nb^2 for nb parts past 10:
    a sound open chain's own grows about 2.8 nb^2 with its length (6.25e4 for 150 links,
    straight or folded), and stays some 36 times under it."""
    return max(SOUND_CONDITION, CHAIN_CONDITION * float(model.nb) ** 2)


def near_singular(model: Model, st: Structure, r: np.ndarray, p: np.ndarray,
                  share: float = 0.0) -> tuple[str, ...]:
    """Joints and motions of a nearly singular constraint Jacobian, else ().  Called when
    the step size collapsed: a scaled 2-norm condition above ``singular_condition`` is
    taken as the cause; ``share`` (``rounded_share``), where larger than its inverse, the
    smallest singular value's share of the largest below which it is."""
    if not st.keep.size or not model.nb:
        return ()
    J, s = _singular_values(model, st, r, p)
    bound = singular_condition(model)
    if s[-1] * (min(bound, 1.0 / share) if share > 0.0 else bound) > s[0]:
        return ()
    return involved(model, J, st.keep)


def _singular_values(model: Model, st: Structure, r: np.ndarray, p: np.ndarray):
    """(the global Jacobian, the singular values of its kept rows scaled) at the pose r, p."""
    rg, A = body_arrays(model, r, p)[:2]
    J = global_jacobian(model, evaluate(model, rg, A).jac)
    return J, np.linalg.svd(scaled_jacobian(model, J, st.keep), compute_uv=False)


def rounded_share(model: Model, keep: np.ndarray) -> float:
    """The share of the largest singular value of the kept rows' scaled Jacobian below
    which a direction they lose may be the inputs' rounding alone: sqrt(8 rounding) for
    inputs given rounded (Model.row_rounding: Blender's float32), 0 for exact ones, as the
    start's test (start/singular_start.py) and the sweep's (sweep/lined_up.py) rank it.
    A length mismatch delta folds a singular position by some sqrt(2 delta / length) rad
    (a parallelogram read from Blender, its coupler 3 m long and 3e-8 m short of its
    ground pivots' distance: its two branches do not cross but bend into each other within
    some 1.5e-4 rad of its line)."""
    return float(np.sqrt(8.0 * np.max(model.row_rounding[keep], initial=0.0)))


def rates_jumped(rates: tuple, cw: np.ndarray) -> bool:
    """Do the accelerations at the last of three step starts ``rates`` ((t (s), a (nb, 6),
    ...) each) leave those continued linearly from the two before by RATES_JUMP of their
    size (scaled: rotations in body lengths, ``cw`` (6 nb,))?"""
    (t0, a0, *_), (t1, a1, *_), (t2, a2, *_) = rates
    guess = (a1 + (t2 - t1) / (t1 - t0) * (a1 - a0)).reshape(-1) * cw
    return bool(np.abs(a2.reshape(-1) * cw - guess).max() > RATES_JUMP * np.abs(guess).max())


def rounded_fold(model: Model, st: Structure, before: tuple, r: np.ndarray, p: np.ndarray,
                 hs: float, frame_dt: float) -> tuple[str, ...]:
    """The joints of a singular position of the joints that the inputs' rounding folded,
    which the run nears at the pose r, p (a step of hs (s) from the pose ``before``,
    (r, p)), else (): the kept rows lose rank within the rounding's share
    (``rounded_share``) and their smallest singular value falls fast enough over the step
    to vanish within a frame (frame_dt, s), no motion among them (a motion's dead centre:
    free_singular's).  A long closed chain read from Blender is ill-conditioned by its
    length alone (a chain of 20: its share 1.3e-3, under the rounding's 2.1e-3), but its
    smallest singular value stays (at its rate, it vanishes a thousand frames on); a
    parallelogram nearing its line loses it in proportion to the angle left (0.03 of a
    frame ahead where its accelerations jump, 4e-3 rad from the line)."""
    share = rounded_share(model, st.keep)
    if share <= 0.0 or not st.keep.size or not model.nb:
        return ()
    J, s = _singular_values(model, st, r, p)
    if s[-1] >= share * s[0]:
        return ()
    s0 = _singular_values(model, st, *before)[1]
    fall = s0[-1] / s0[0] - s[-1] / s[0]
    if not fall * frame_dt > hs * s[-1] / s[0]:
        return ()
    who = involved(model, J, st.keep)
    return () if any(n in model.motion_names for n in who) else who


def rows_chosen_anew(model: Model, st: Structure, r: np.ndarray, p: np.ndarray) -> Structure | None:
    """When the kept rows are nearly dependent here but another subset of the same size
    (motions always kept) is well conditioned, that subset; else None (a true singular
    position, where every subset loses rank)."""
    if not st.redundant.size:
        return None
    J = global_jacobian(model, evaluate(model, *body_arrays(model, r, p)[:2]).jac)
    jrows = model.constraint_rows
    mrows = np.intersect1d(st.keep, np.flatnonzero(model.row_motion >= 0))
    nj = len(st.keep) - len(mrows)
    kj = best_rows(model, J, jrows, nj)
    new = Structure(np.concatenate([kj, mrows]), np.setdiff1d(jrows, kj), st.dof, st.driven_dof,
                    st.bad_motions)
    if set(new.keep) == set(st.keep) or near_singular(model, new, r, p):
        return None
    return new


def free_singular(model: Model, st: Structure, r: np.ndarray, p: np.ndarray,
                  t_ahead: float | None = None, track=None) -> tuple[str, ...]:
    """The joints (and motions) of a singular position the run may pass (their
    constraints dependent for an instant, e.g. a parallelogram lined up), else (): not
    singular, or a motion driven into a position it cannot pass (a lock-up).  A motion
    among the dependent rows passes where its target stays within reach at ``t_ahead``
    (s; a frame's spacing past the run's time, beyond the instant it reaches the position;
    None: never): a slide whose crank it drives touching the
    dead centre and turning back, its speed zero there (the crank carried through by its
    momentum: no constraint impulse can turn it there, the rows' Jacobian having no
    component along it), but not one still pushing at the dead centre, or a general
    motion's target leaving the reach (``within_reach``)."""
    who = near_singular(model, st, r, p)
    motions = tuple(n for n in who if n in model.motion_names)
    if not motions:
        return who
    if t_ahead is None or not within_reach(model, motions, st.keep, r, p, t_ahead, track):
        return ()
    return who


def within_reach(model: Model, motions: tuple[str, ...], held: np.ndarray, r: np.ndarray,
                 p: np.ndarray, t: float, track=None) -> bool:
    """Can the mechanism meet the ``motions``' values at time t (s) from the pose (r, p),
    the other rows ``held`` holding (general_motions.closest_approach: its residual within
    REACHED of each row's length)?"""
    target = np.flatnonzero(np.isin(model.row_motion, [
        k for k, n in enumerate(model.motion_names) if n in motions]))
    try:
        gap = closest_approach(model, target, np.setdiff1d(held, target), r, p, t, track)
    except (np.linalg.LinAlgError, ValueError, ExpressionError):
        return False
    return bool(np.abs(gap / model.row_length[target]).max(initial=0.0) <= REACHED)


def collapsed(sysm: Equations, st: Structure, r: np.ndarray, p: np.ndarray, t: float,
              hs: float, t_out: float, k: int, track) -> tuple[str, tuple[str, ...]]:
    """(message, joints) of a run whose step size fell to hs (s) at t below what rounding
    allows, on its way to frame k at t_out: a singular position (its joints, and how far
    the motion is from reaching it: ``lock_up_cause``), a dry joint nearing a jam, a load
    growing without bound, the contacts pressed there (``pressed_contacts``), or else a
    discontinuity or an extremely stiff element."""
    model = sysm.m
    who = near_singular(model, st, r, p)
    why = (f"the mechanism is at a singular position (joints involved: {', '.join(who)})"
           if who else "a discontinuity or an extremely stiff element")
    jam = near_jam(sysm)
    grows = () if who or jam else growing_without_bound(model, t)
    if grows:
        why = f"{'; '.join(g for g, _ in grows)} grows without bound there"
    pressed = () if who or jam or grows else pressed_contacts(model, r, p)
    if pressed:
        why = (f"{'; '.join(pressed)}: a contact that stiff, on parts that light, takes "
               "steps this short; check its stiffness or time constant and the parts' "
               "masses")
    if jam and not who:
        who = jam
        why = (f"joint friction {', '.join(map(repr, jam))} nears a jam: "
               "slipping, it raises its own load nearly as fast as itself "
               "and grows without bound; its coefficient is too large for "
               "the joint's pin radius, thrust arm or bearing length")
    reach = lock_up_cause(model, who, st.keep, r, p, t, t_out, track,
                          f" at t = {t_out:.6g} s (frame {k})") if who else ""
    who = who or tuple(n for _, n in grows if n is not None)      # (the motions growing)
    return (f"integration failed at t = {t:.6g} s: the step size fell below {hs:.1e} s "
            f"({why})" + (f"; {reach}" if reach else ""), who)


def pressed_contacts(model: Model, r: np.ndarray, p: np.ndarray) -> tuple[str, ...]:
    """Each contact whose parts overlap at the pose (r, p): its name, its parts and how deep
    (m), deepest first; () without contacts or none touching."""
    cp = model.forces.contacts
    if cp is None:
        return ()
    depth = overlaps(model, r, p)
    return tuple(f"contact {cp.names[k]!r} presses parts {cp.part_a[k]!r} and "
                 f"{cp.part_b[k]!r} {depth[k]:.3g} m into each other"
                 for k in np.argsort(-depth) if depth[k] > 0.0)


def lock_up(model: Model, st: Structure, r: np.ndarray, p: np.ndarray,
            t: float) -> tuple[str, tuple[str, ...]]:
    """(message, joints) of equations that became singular at t where the motion cannot
    pass (a motion among the dependent rows, or least-norm solves failing too): the joints
    involved and, where a motion drives them there, which and why."""
    rg, A = body_arrays(model, r, p)[:2]
    J = global_jacobian(model, evaluate(model, rg, A).jac)
    who = involved(model, J, st.keep)
    why = reached_singular(model, who, p, t)
    return (f"lock-up at t = {t:.6g} s: the constraint equations became singular "
            f"(joints involved: {', '.join(who)})" + (f"; {why}" if why else ""), who)
