"""What a Result stores: the quantities a caller may ask a run to keep (``solve(...,
keep=...)``), what a run's own end reads whatever was asked, and the constraint rows whose
multipliers a Result stores when not every row's is kept.

A long run's Result is mostly these arrays: for 100 driven links over 10,000 frames the
multipliers and the reactions are 46 MiB each and every other per-part array 23 MiB
(bench/bench_memory.py); a bake reads the poses, reactions and efforts only.  The poses
(centres of mass and Euler parameters), the tracked values, friction, contacts and the
multipliers of the rows read by name (couplers, cam joints, limits) are always stored."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.errors import MechanismError

# what each names: velocities (v, omega), accelerations (a, alpha), reactions (every
# joint's force and moment), efforts (motions', general motions' and actuators'), every
# constraint row's multiplier, energy (kinetic, potential, work and power)
QUANTITIES = ("velocities", "accelerations", "reactions", "efforts", "multipliers", "energy")


def kept_quantities(keep: Any) -> frozenset[str]:
    """The quantities ``keep`` names (None: all of them; one name or an iterable of names
    from QUANTITIES), or MechanismError naming a bad one."""
    if keep is None:
        return frozenset(QUANTITIES)
    names = (keep,) if isinstance(keep, str) else keep
    try:
        names = tuple(names)
    except TypeError:
        raise MechanismError(f"keep must be None or names of quantities "
                             f"({', '.join(QUANTITIES)}), got {keep!r}") from None
    for name in names:
        if name not in QUANTITIES:
            raise MechanismError(f"keep: unknown quantity {name!r}; the quantities are "
                                 f"{', '.join(QUANTITIES)} (the poses are always kept)")
    return frozenset(names)


def needed_by_run(model: Any, analysis: str) -> frozenset[str]:
    """What a run's end reads from its own Result whatever the caller keeps: an actuated
    general motion's efforts are moved onto its actuators through every row's multiplier
    (analyses/general_motions.py ``carry_by_actuators``); a kinematic sweep's contact
    forces are made from the stored velocities (analyses/contact_check.py)."""
    need = set()
    if getattr(model, "actuators", ()):
        need |= {"multipliers", "efforts"}
    if analysis == "kinematic" and model.forces.contacts is not None:
        need.add("velocities")
    return frozenset(need)


def named_rows(model: Any) -> np.ndarray:
    """The rows whose multipliers Result.coupler, tooth_force, contact_force and limit read
    (couplers' rows, cam joints' rows, limits' stop rows), in increasing order."""
    rows = [np.flatnonzero(model.row_coupler >= 0)]
    if model.curves is not None and model.curves.cam_names:
        cams = [model.joint_names.index(n) for n in model.curves.cam_names]
        rows.append(np.flatnonzero(np.isin(model.row_joint, cams)))
    if model.limits is not None:
        rows.append(np.asarray(model.limits.rows, dtype=int))
    return np.unique(np.concatenate(rows)).astype(int)


def not_kept(quantity: str, what: str) -> MechanismError:
    """The error of reading ``what`` (an accessor and the item it names) from a Result
    that did not keep ``quantity``."""
    return MechanismError(f"{what} needs the {quantity}, which this result did not keep: "
                          f"solve with {quantity!r} in keep (keep=None keeps every quantity)")
