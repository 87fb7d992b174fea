"""What a dynamic run's step does at its end (analyses/dynamics/driver.py DynamicRun's
stages after the projection): the step's event acted on (an impact by Newton's law, a
slipping joint sticking, a stuck one breaking loose, a resting stop or stuck joint let go;
friction's instants recorded) and the run state after it (exact solves again past a
singular position, the torsion springs' turns, the contact points' touchdown speeds).
Where any of these makes the right-hand side jump, the next step starts afresh
(``_rates_jump``)."""
from __future__ import annotations

import numpy as np

from ...kernels.constraints import motion_values
from .events import StepEnd, record_friction
from .frames import project_run
from .friction import aim, release
from .inside import SINGULAR_STEP
from .singular import near_singular, rates_jumped, rounded_fold, rounded_share
from .switching import (energy_of, friction_rates, kinetic_of, released, slipping, stick,
                        switched, use_rows)
from .touchdown import contact_time, touch
from ..structure import Structure


# the share of the kinetic energy a passage of a singular position with least-norm solves
# may move the energy balance (kinetic + potential - work) by before the Result says it
# (or 100 times the run's tolerance, where that is larger): a four-bar on the Grashof
# boundary moved 4e-8 of it given exactly and up to 4e-5 given in float32 and declared
# so (input_precision 2^-24), but 3e-3 to 9e-2 per passage declared exact (a geometry
# 1e-8 m off the crossing: the least-norm solves act as an impact there)
PASSAGE_SHARE = 5e-4


def passage_share(tolerance: float) -> float:
    """The share of the kinetic energy a passage may move the energy balance by
    (PASSAGE_SHARE, or 100 times the run's ``tolerance`` where larger)."""
    return max(PASSAGE_SHARE, 100.0 * tolerance)


def passage_note(losses: list, tolerance: float) -> str | None:
    """The Result's note of the passages of singular positions whose least-norm solves
    moved the energy balance by more than ``passage_share`` of the kinetic energy: the
    largest, how many more and the sum, J, and whether the velocities after them were
    rescaled to the energy before; ``losses``: (t start, t end (s), lost (J, negative:
    gained), kinetic energy (J), restored) each (StepActions._passage_ends); None where
    none did."""
    share = passage_share(tolerance)
    over = [x for x in losses if abs(x[2]) > share * x[3]]
    if not over:
        return None
    t0, _, lost, ke, _ = max(over, key=lambda x: abs(x[2]))
    kept = [x for x in over if x[4]]
    word = ("would have lost" if lost > 0 else "would have gained") if kept else (
        "lost" if lost > 0 else "gained")
    more = (f" and {len(over) - 1} more like it, {sum(x[2] for x in over):.3g} J in all"
            if len(over) > 1 else f", {lost:.3g} J in all")
    how = ("; the velocities after " + ("them" if len(kept) > 1 else "it")
           + " were rescaled to the energy before" + (
               f" ({len(kept)} of {len(over)})" if len(kept) < len(over) else "")
           if kept else "")
    return (f"the mechanism {word} {abs(lost):.3g} J ({100 * abs(lost) / ke:.2g}% of its "
            f"kinetic energy) over the passage of the singular position at t = {t0:.6g} s"
            f"{more}: least-norm solves there act as an impact, the geometry being off "
            f"the singular one by more than its declared rounding{how}; give its "
            "coordinates exactly, or declare their rounding (input_precision: 2^-24 for "
            "float32 numbers)")


# what a step advances in the carry (driver.py DynamicRun): kept where a fold is taken,
# put back where it is refuted (StepActions._fold_refuted)
_CARRY = ("t", "r", "p", "v", "w", "work", "h", "grow", "resting", "t_last", "rate_age",
          "y_frame", "st", "touch_by", "done", "stored")


class StepActions:
    """DynamicRun's stages at a step's end (a mixin: the carry's attributes are the run's:
    model, sysm, stops, base, st, run, t, r, p, v, w, work, f_end, stepper, out,
    contacts)."""

    def _act(self, ended: StepEnd) -> None:
        """The step's event acted on: stops struck (impact), slipping joints stopped
        (stick where the static limit holds), a stuck joint breaking loose, or else stops
        and stuck joints let go where they pull; friction's instants recorded."""
        run = self.run
        held = None if run.slip is None else run.slip.stuck
        if ended.hit.size:                 # Newton's impact law; slow rebounds rest
            self._impact(ended.hit)
        elif ended.slid.size:              # stick if the static limit holds the joint
            (self.r, self.p, self.v, self.w), self.st, self.run = stick(
                self.sysm, self.t, self.r, self.p, self.v, self.w, ended.slid, self.base,
                self.stops)
            self._rates_jump()
        elif ended.broke.size:             # the located instant a stuck joint breaks loose
            self._break_loose(ended.broke)
        elif ((self.stops is not None and run.resting.any())
              or (run.slip is not None and run.slip.stuck.any())):
            self._let_go()
        if held is not None:               # friction's stick, slip and reversal instants
            record_friction(self.out, self.t, held, self.model.frictions.names,
                            self.run.slip, ended.slid)

    def _impact(self, hit: np.ndarray) -> None:
        """Stops ``hit`` struck: Newton's impact law through their rows, the pose then on
        the bounds exactly (a rebound starts from a gap of zero, not -tol/2), the energy
        the impact and that move take booked as work; slow rebounds rest."""
        sysm, stops, model, base, t = self.sysm, self.stops, self.model, self.base, self.t
        self.v, self.w, lost, struck, self.run = stops.impact(
            sysm, t, self.r, self.p, self.v, self.w, hit, motion_values(model, t))
        sysm.tell(self.run)
        self.work += lost
        self.out.impacts.append(struck)
        self.run = use_rows(sysm, Structure(
            np.union1d(switched(base, stops, model, self.run).keep, model.limits.rows[hit]),
            base.redundant, base.dof, base.driven_dof, base.bad_motions))
        e0 = energy_of(sysm, t, self.r, self.p, self.v, self.w)
        # positions only: the rebound stays
        (self.r, self.p, _, _), self.run = project_run(sysm, self.run, t, self.r, self.p,
                                                       self.v, self.w)
        self.st = switched(base, stops, model, self.run)
        self.run = use_rows(sysm, self.st)
        (self.r, self.p, self.v, self.w), self.run = project_run(
            sysm, self.run, t, self.r, self.p, self.v, self.w)
        self.work += energy_of(sysm, t, self.r, self.p, self.v, self.w) - e0   # booked
        if self.run.resting.any():
            let_go, self.run = released(sysm, t, self.r, self.p, self.v, self.w, stops)
            if let_go:                     # come to rest, pulled away at once
                self.st = switched(base, stops, model, self.run)
                self.run = use_rows(sysm, self.st)
        self._rates_jump()
        if self.run.slip is not None:      # a rebound reverses the joints' slip
            vq = friction_rates(sysm, sysm.pack(self.r, self.p, self.v, self.w, 0.0))
            self.run = slipping(sysm, aim(model, self.run.slip, vq))

    def _break_loose(self, broke: np.ndarray) -> None:
        """Stuck joints ``broke`` slip from here, in the direction their load pushes."""
        lam = self.sysm.accelerations(self.t, self.r, self.p, self.v, self.w)[1]
        self.run = slipping(self.sysm, release(self.model, self.run.slip, broke, lam))
        self.st = switched(self.base, self.stops, self.model, self.run)
        self.run = use_rows(self.sysm, self.st)
        self._rates_jump()

    def _let_go(self) -> None:
        """A resting stop that pulls, a stuck joint whose load passed its limit: let go."""
        let_go, self.run = released(self.sysm, self.t, self.r, self.p, self.v, self.w,
                                    self.stops)
        if let_go:
            self.st = switched(self.base, self.stops, self.model, self.run)
            self.run = use_rows(self.sysm, self.st)
            self._rates_jump()

    def _rates_jump(self) -> None:
        """The right-hand side jumps where the next step starts (an event acted on, a
        breakpoint passed, the solves or the forces' run state changed): its first stage
        evaluated anew, and an implicit stepper's memory of the steps before forgotten
        (RadauIIA.restart)."""
        self.f_end = None
        self.fold_rates = ()              # (continued across no jump: rounded_fold's)
        restart = getattr(self.stepper, "restart", None)
        if restart is not None:
            restart()

    def _rates_at_start(self, f0: np.ndarray | None) -> None:
        """The step's start kept for ``_rounded_fold`` (the last three, while the solves
        are exact): its time, its accelerations (from its first stage f0) and its pose (a
        step taken again from the same start replaces its record)."""
        if f0 is not None and not self.run.robust:
            nb = self.model.nb
            before = tuple(x for x in self.fold_rates[-3:] if x[0] < self.t)
            self.fold_rates = (before + (
                (self.t, f0[7 * nb: 13 * nb].copy(), self.r, self.p),))[-3:]

    def _rounded_fold(self) -> None:
        """At the end of a step below SINGULAR_STEP of a frame (the one before too), in a
        closed loop whose inputs were given rounded: least-norm solves from here where the accelerations at
        its start jumped from those continued from the two step starts before
        (``rates_jumped``: the exact solves following a fold) and the rows lose rank within
        the rounding over it (``rounded_fold``): a singular position the rounding folded,
        a parallelogram read from Blender nearing its line, whose branches bend into each
        other within some 1.5e-4 rad of it (the exact solves took it onto the crossed
        one)."""
        rates = self.fold_rates
        if len(rates) < 3 or self.fold_refuted is not None:
            return
        if max(self.t - rates[2][0], rates[2][0] - rates[1][0]) >= SINGULAR_STEP * self.frame_dt:
            return                                  # (this step and the one before)
        if not rates_jumped(rates, self.fold_cw):
            return
        who = rounded_fold(self.model, self.st, rates[2][2:], self.r, self.p,
                           self.t - rates[2][0], self.frame_dt)
        if who:
            self.fold_from = ({k: getattr(self, k) for k in _CARRY}, self.out.steps)
            self.run = self.run.solving(True, rounded=True)
            self.sysm.tell(self.run)
            self._rates_jump()
            self.fold_note = len(self.passed)
            self._passage_starts(who)

    def _fold_refuted(self) -> None:
        """A position taken for one the rounding folded whose least-norm solves cannot hold
        the joints to the run's tolerance (Equations.robust_tol: the projection fails): the
        mismatch that folds it is above that, the geometry is as given (a parallelogram
        read from Blender 1e-5 m off one goes over to the crossed branch, as it did).  Exact
        solves again from where it was taken (``fold_from``: no frame stored since; else
        from the step's start), the position's note taken back, and no fold taken until
        the rows are past the rounding's share (``_after_step``)."""
        carry, steps = self.fold_from
        if carry["done"] == self.done:
            for k, x in carry.items():
                setattr(self, k, x)
            self.out.steps = steps
            if not np.array_equal(self.sysm.keep, self.st.keep):
                self.sysm.use(self.st)
        self.run = self.run.solving(False)
        self.sysm.tell(self.run)
        self._rates_jump()
        if self.fold_note is not None:
            del self.passed[self.fold_note]
            self.fold_note = None
        self.passage = None
        self.fold_refuted = self.t

    def _after_step(self) -> None:
        """The run state at the step's end: exact solves again past a singular position
        (past the rounding's share of it where the rounding folded it), least-norm ones
        from one the rounding folded (``_rounded_fold``), the torsion springs' turns, the
        contact points' touchdown speeds."""
        if not (self.run.robust or self.turns or self.contacts or self.folds):
            return
        sysm = self.sysm
        share = rounded_share(self.model, self.st.keep) if self.run.rounded else 0.0
        if self.run.robust and not near_singular(self.model, self.st, self.r, self.p, share):
            self.run = self.run.solving(False)    # past it: exact again
            sysm.tell(self.run)
            self._passage_ends()
            self._rates_jump()
        elif self.fold_refuted is not None:      # past the share: folds taken again
            if not near_singular(self.model, self.st, self.r, self.p,
                                 rounded_share(self.model, self.st.keep)):
                self.fold_refuted = None
        elif self.folds and not self.run.robust:
            self._rounded_fold()
        if len(self.run.ts_ref):          # the springs' turns at the step's end
            self.run = self.run.turned(sysm.turns(self.r, self.p))
            sysm.tell(self.run)
        if self.contacts:
            before = self.run.onset
            touched, self.run = touch(sysm, self.r, self.p, self.v, self.w)
            sysm.tell(self.run)           # a touchdown speed taken: the forces' run state
            if touched:
                self._rates_jump()        # the next step within the contact's time scale
                self.touch_by = self.t + contact_time(sysm.m.forces.contacts, before,
                                                      self.run.onset)

    def _passage_starts(self, who: tuple[str, ...]) -> None:
        """Least-norm solves from here, at a singular position of the joints ``who``: the
        position noted, and the energy balance (kinetic + potential - work, J) and kinetic
        energy (J) at its start kept for ``_passage_ends``."""
        self.passed.append((self.t, who))
        args = (self.r, self.p, self.v, self.w)
        self.passage = (self.t, energy_of(self.sysm, self.t, *args) - self.work,
                        kinetic_of(self.sysm, *args), len(self.out.impacts))

    def _passage_ends(self, rescale: bool = True) -> None:
        """Exact solves again past a singular position (or, ``rescale`` False, the run's end
        within it): the energy balance lost over the least-norm solves since
        ``_passage_starts`` kept, (t start, t end (s), lost (J), kinetic energy at the
        larger of start and end (J), restored), for the Result's note (driver.py
        DynamicRun.finish).  Where it moved by more than ``passage_share``, nothing drives
        the joints (their velocity constraints homogeneous: J v = 0) and no stop was struck
        within it (an impact's loss is not the passage's), the velocities
        are rescaled to the energy before: an ideal mechanism off a singular position by
        delta turns sharply there and keeps its energy; the least-norm solves' projections
        across that turn, too short to resolve, took it as an impact."""
        if self.passage is None:
            return
        sysm, (t0, e0, k0, struck) = self.sysm, self.passage
        self.passage = None
        args = (self.r, self.p, self.v, self.w)
        lost = e0 - (energy_of(sysm, self.t, *args) - self.work)
        k1 = kinetic_of(sysm, *args)
        scale = max(k0, k1)
        # (not across an impact: a stop's rebound loses what the balance cannot tell apart)
        restored = (rescale and abs(lost) > passage_share(self.goals.tolerance) * scale
                    and not self.model.motion_functions and k1 + lost > 0.0 and k1 > 0.0
                    and len(self.out.impacts) == struck)
        if restored:                       # (J v = 0 holds for the rescaled velocities)
            ratio = np.sqrt((k1 + lost) / k1)
            self.v, self.w = self.v * ratio, self.w * ratio
        self.passage_losses.append((t0, self.t, lost, scale, restored))
