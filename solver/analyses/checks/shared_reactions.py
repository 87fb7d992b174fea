"""Which joints' reactions redundant equations leave undetermined, said once to the user.

A mechanism with redundant joint equations (a planar loop of revolute joints, two hinges
on one axis) has self-stresses: joint multipliers that load no part (structure.py
``self_stresses``). Any multiple of them can be added to the reactions without changing a
motion, so those reactions are not determined by rigid joints; every analysis reports the
least-norm ones (structure.py ``least_norm``). What is determined is the joints' combined
load on each part, e.g. the sum of two hinges' forces along their common axis.
``shared_reactions_note`` names the joints and the reaction components (world axes) that
the self-stresses move, so a user reading a reaction does not take the reported share for
the physical one.
"""
from __future__ import annotations

import numpy as np

from ...kernels.constraints import body_arrays, evaluate, global_jacobian
from ...model.compile import Model
from ...model.reactions import all_joint_reactions
from ..structure import Structure, self_stresses

_COMPONENTS = ("force along x", "force along y", "force along z",
               "torque about x", "torque about y", "torque about z")

# a self-stress moves a reaction component when it changes it by more than this share of
# its largest component: self-stresses come from a least-squares solve of a well-scaled
# kept Jacobian, exact to ~1e-12 relative; a component a self-stress really moves is of
# order one of its largest.
_MOVED = 1e-8


def shared_components(model: Model, st: Structure, r: np.ndarray, p: np.ndarray,
                      track: np.ndarray | None = None, jac: np.ndarray | None = None
                      ) -> dict[str, tuple[int, ...]]:
    """{joint: indices into (Fx, Fy, Fz, Tx, Ty, Tz)} of the reaction components (world
    axes, force and torque on part I at marker I) that the joints' self-stresses at the
    assembled pose (r, p) change, joints in the model's order; empty without redundant
    joint rows.  ``jac``: the rows' Jacobian blocks at (r, p) where the caller has them (a
    run's start: Assembly.jac), else evaluated there."""
    if not len(st.redundant):
        return {}
    if jac is None:
        jac = evaluate(model, *body_arrays(model, r, p)[:2], ref=track).jac
    J = global_jacobian(model, jac)
    keep = st.keep

    def solve_kept(F: np.ndarray) -> np.ndarray:     # J_k^T x = F for each F (k, nb, 6)
        return np.linalg.lstsq(J[keep].T, F.reshape(len(F), -1).T, rcond=None)[0].T
    N = self_stresses(model, keep, st.redundant, jac, solve_kept, J)      # (k, nc)
    mi = model.joint_marker_i
    body = np.array([model.marker_body[m] for m in mi], dtype=int)
    point = np.array([model.marker_point[m] for m in mi]).reshape(-1, 3)
    R = np.abs(all_joint_reactions(model, body, point, p, N, np.broadcast_to(jac, (len(N),)
                                                                    + jac.shape)))
    moved = (R > _MOVED * R.max(axis=(-2, -1), keepdims=True)).any(axis=0)   # (joints, 6)
    return {name: tuple(np.flatnonzero(moved[j]).tolist())
            for j, name in enumerate(model.joint_names) if moved[j].any()}


def shared_reactions_note(model: Model, st: Structure, r: np.ndarray, p: np.ndarray,
                          track: np.ndarray | None = None, where: str = "at the start") -> str:
    """One note naming the joints whose reactions are not unique and which components
    (world axes at the pose (r, p), which is ``where``), and what is determined; empty
    where every reaction is determined."""
    return shared_note(shared_components(model, st, r, p, track), len(st.redundant), where)


def shared_note(shared: dict[str, tuple[int, ...]], redundant: int,
                where: str = "at the start") -> str:
    """The note of ``shared`` (shared_components' {joint: components}) for ``redundant``
    redundant equations; empty where it is empty."""
    if not shared:
        return ""
    groups: dict[tuple[int, ...], list[str]] = {}
    for name, comps in shared.items():
        groups.setdefault(comps, []).append(repr(name))
    parts = [f"{_listed([_COMPONENTS[c] for c in comps])} of {_joints(names)}"
             for comps, names in groups.items()]
    return (f"reactions not unique ({redundant} redundant equation(s)): the "
            f"{'; the '.join(parts)} (world axes {where}) can shift among them "
            "without moving a part; only their combined load on each part is determined, "
            "and the reactions given are the least-norm share")


def study_note(shared: list[str]) -> str:
    """A design study's note on the reaction columns of the joints ``shared`` (those named
    by any variant's Result.shared_reactions): they are least-norm shares."""
    if not shared:
        return ""
    return (f"the reaction columns of {_joints([repr(n) for n in shared])} are least-norm "
            "shares: redundant equations leave part of those joints' reactions undetermined "
            "(each variant's notes say which components); only their combined load on each "
            "part is determined")


def _joints(names: list[str]) -> str:
    return ("joint " if len(names) == 1 else "joints ") + _listed(names)


def _listed(words: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
