"""Degrees of freedom and redundancy at an assembled pose (rank of the scaled Jacobian), and
check(): the diagnosis the user reads before an analysis."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..algebra.blas import single_thread
from ..algebra.rank import independent_rows, row_owner
from ..base.errors import SolverError
from ..kernels.constraints import body_arrays, evaluate, global_jacobian
from ..model.compile import Model
from ..model.state import State
from .assembly import assemble_state


@dataclass
class CheckReport:
    """What check() found: DOF by rank (without and with motions), redundant equations by
    joint, problems that stop an analysis, and notes."""
    dof: int
    driven_dof: int
    redundant: dict[str, list[str]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    assembled: bool = True

    @property
    def ok(self) -> bool:
        return not self.problems

    def __str__(self) -> str:
        lines = [f"degrees of freedom: {self.dof} ({self.driven_dof} after motions)"]
        for j, eqs in self.redundant.items():
            lines.append(f"redundant in joint {j!r}: {len(eqs)} equation(s): {', '.join(eqs)}")
        lines += [f"problem: {p}" for p in self.problems] + [f"note: {n}" for n in self.notes]
        return "\n".join(lines)


@dataclass
class Structure:
    """Row selection at an assembled pose: joint rows kept, motion rows, dof."""
    keep: np.ndarray            # independent rows (joints then motions)
    redundant: np.ndarray       # joint rows dropped as redundant
    dof: int
    driven_dof: int
    bad_motions: list[str]


def structure(model: Model, r: np.ndarray, p: np.ndarray) -> Structure:
    """Independent rows at an assembled pose: joints first, then motions."""
    ev = evaluate(model, *body_arrays(model, r, p)[:2])
    J = global_jacobian(model, ev.jac)
    jrows = np.flatnonzero(model.row_joint >= 0)
    mrows = np.flatnonzero(model.row_motion >= 0)
    kj = independent_rows(model, J, jrows)
    kall = independent_rows(model, J, np.concatenate([kj, mrows]))
    bad = [model.motion_names[model.row_motion[k]] for k in mrows if k not in set(kall)]
    return Structure(kall, np.setdiff1d(jrows, kj), 6 * model.nb - len(kj),
                     6 * model.nb - len(kall), bad)


@single_thread
def check(model: Model, state: State) -> CheckReport:
    """Assemble the state's pose at its time (the state is not changed), then count
    freedoms and name redundant equations; never raises for a mechanism that fails to
    assemble (that is reported as a problem)."""
    r, p = state.r, state.p
    problems, notes, assembled = [], [], True
    try:
        r, p = assemble_state(model, r, p, float(state.t))
    except SolverError as exc:
        problems.append(str(exc))
        assembled = False
    st = structure(model, r, p)
    redundant: dict[str, list[str]] = {}
    for k in st.redundant:
        redundant.setdefault(row_owner(model, k), []).append(model.row_label[k].split(": ", 1)[1])
    for mn in st.bad_motions:
        problems.append(f"motion {mn!r} drives a coordinate that the joints and other motions "
                        "already fix (redundant or conflicting motion)")
    if redundant:
        notes.append(f"{len(st.redundant)} redundant equation(s) removed; reactions in joints "
                     f"{', '.join(map(repr, redundant))} are not unique: the least-norm "
                     "multipliers are reported")
    if st.driven_dof > 0:
        notes.append(f"{st.driven_dof} degree(s) of freedom are not driven by motions: "
                     "a dynamic analysis is needed")
    return CheckReport(st.dof, st.driven_dof, redundant, problems, notes, assembled)
