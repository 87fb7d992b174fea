"""check(): the diagnosis the user reads before an analysis: degrees of freedom, redundant
equations by joint, redundant equations that disagree (imperfect CAD geometry), motions
that over-drive the mechanism, and why a mechanism does not assemble."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ...algebra.blas import single_thread
from ...algebra.rank import row_owner
from ...base.errors import SolverError
from ...model.compile import Model
from ...model.state import State
from ..start.assembly import assemble_pose
from ..contact_check import overlapping_contacts, sinking_contacts
from ..dynamics.stops import check_start
from ..general_motions import dead_centre, rounded_dead_centre
from ..limit_turns import pose_turns
from ..start.loaded_bushings import loaded_bushings
from ..start.open_joints import open_joints_note
from ..start.singular_start import singular_start
from ..structure import structure
from .shared_reactions import shared_reactions_note


@dataclass
class CheckReport:
    """What check() found: DOF by rank (without and with motions), redundant equations by
    joint, problems that stop an analysis, notes, and ``opened``: the joints open where the
    parts were built and how far the assembly moved them (open_joints.py; None: none)."""
    dof: int
    driven_dof: int
    redundant: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    assembled: bool = True
    opened: str | None = None
    owners: dict[str, str] = field(default_factory=dict)   # a redundant row's owner -> kind

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        lines = [f"degrees of freedom: {self.dof} ({self.driven_dof} after motions)"]
        for j, eqs in self.redundant.items():
            lines.append(f"redundant in {self.owners.get(j, 'joint')} {j!r}: {len(eqs)} "
                         f"equation(s): {', '.join(eqs)}")
        lines += [f"problem: {p}" for p in self.problems] + [f"note: {n}" for n in self.notes]
        lines += [f"note: {self.opened}"] if self.opened else []
        return "\n".join(lines)


@single_thread
def check(model: Model, state: State) -> CheckReport:
    """Assemble the state's pose at its time (the state is not changed), then count
    freedoms and name redundant equations; never raises for a mechanism that fails to
    assemble (that is reported as a problem)."""
    r, p = state.r, state.p
    problems, notes, assembled, st, opened = [], [], True, None, None
    try:
        asm = assemble_pose(model, r, p, float(state.t))
        r, p, st = asm.r, asm.p, asm.structure
        notes += list(asm.notes) + loaded_bushings(model, r, p)
        opened = open_joints_note(model, state, state.moved(r, p, asm.track))
    except SolverError as exc:
        problems.append(str(exc))
        assembled = False
    if assembled:              # a start past a stop: a run or statics would refuse it
        try:
            t = float(state.t)
            check_start(model, r, p, t, pose_turns(model, r, p, t, asm.track))
        except SolverError as exc:
            problems.append(str(exc))
    st = st or structure(model, r, p)
    if assembled:
        lined_up = singular_start(model, st, r, p, float(state.t), asm.track, asm.jac)[0]
        if lined_up:
            problems.append(lined_up)
    redundant: dict[str, list[str]] = {}
    owners: dict[str, str] = {}
    for k in st.redundant:
        redundant.setdefault(row_owner(model, k), []).append(model.row_label[k].split(": ", 1)[1])
        owners[row_owner(model, k)] = _owner_kind(model, k)
    centre = _dead_centre(model, tuple(st.bad_motions), r, p, float(state.t)) \
        if st.bad_motions else ""
    if assembled and not centre:     # a dead centre but for the inputs' rounding (float32)
        centre = rounded_dead_centre(model, st.bad_motions, r, p, float(state.t), asm.track)[0]
    if centre and centre not in problems:
        problems.append(centre)
    for mn in st.bad_motions:
        if not any(mn in prob for prob in problems):
            problems.append(f"motion {mn!r} drives a coordinate that the joints and other motions "
                            "already fix (redundant or conflicting motion)")
    if redundant:
        # the lines above name each redundant equation; a note adds what they mean
        others = {name: kind for name, kind in owners.items() if kind != "joint"}
        if others:
            notes.append(f"reactions in {_named(others)} are not unique (redundant "
                         "equations): the least-norm multipliers are reported")
        shared = shared_reactions_note(model, st, r, p, asm.track if assembled else None,
                                       "at the pose checked")
        notes += [shared] if shared else []
    cp = model.couplers
    for k, name in enumerate(cp.names if cp is not None else ()):
        row = int(np.flatnonzero(model.row_coupler == k)[0])
        tied = ", ".join(map(repr, cp.coupled[k]))
        notes.append(f"{cp.kinds[k]} {name!r} ties joint(s) {tied}: "
                     + ("removes 1 degree of freedom" if row in set(st.keep) else
                        "removes nothing (its relation already holds: redundant)"))
    if not model.fixed_parts:
        notes.append("no part is fixed: the mechanism moves as a whole (under gravity it "
                     "falls); if a part should stand still, fix it (fixed=True; in Blender, "
                     "tick Ground)")
    notes += overlapping_contacts(model, r, p)
    notes += sinking_contacts(model)
    if st.driven_dof > 0 and not centre:      # at a dead centre the count is the pose's
        notes.append(f"{st.driven_dof} degree(s) of freedom are not driven by motions: "
                     "a dynamic analysis is needed")
    return CheckReport(st.dof, st.driven_dof, redundant, problems, notes, assembled, opened,
                       owners)


def _owner_kind(model: Model, k: int) -> str:
    """What row k belongs to (algebra/rank.py ``row_owner`` names it): a joint, a
    coupler, a limit, a friction element or a motion."""
    for kind, owner in (("joint", model.row_joint), ("coupler", model.row_coupler),
                        ("limit", model.row_limit), ("friction", model.row_friction)):
        if owner[k] >= 0:
            return kind
    return "motion"


def _named(owners: dict[str, str]) -> str:
    """The owners of redundant rows by kind: "joints 'a', 'b' and coupler 'c'"."""
    kinds: dict[str, list[str]] = {}
    for name, kind in owners.items():
        kinds.setdefault(kind, []).append(repr(name))
    return " and ".join(f"{kind}{'s' if kind == 'joint' or len(names) > 1 else ''} "
                        f"{', '.join(names)}" for kind, names in kinds.items())


def _dead_centre(model: Model, bad_motions: tuple, r: np.ndarray, p: np.ndarray,
                 t: float) -> str:
    """``dead_centre`` at the pose checked, which need not be assembled (the assembly may
    have failed on that dead centre); empty where the joints cannot be brought onto it."""
    try:
        return dead_centre(model, bad_motions, r, p, t)
    except SolverError:
        return ""
