"""What ``check`` and a finished run say of contacts (vocabulary/contacts.py): the pairs
whose shapes already overlap at the pose checked, each by name with its depth (a compliant
contact starts by pushing them apart with the force of that depth), and every frame's least
gap or deepest penetration per contact (``Result.interference``)."""
from __future__ import annotations

import numpy as np

from ..kernels.constraints import body_arrays
from ..kernels.contacts import contact_forces, gaps, geometry, summary_rows
from ..model.compile import Model

# an overlap deeper than this times the model's size is reported, or than the input's
# rounding where that is larger (parts designed touching, read from float32: a few unit
# round-offs of their distance from the origin, Model.input_rounding)
OVERLAP_TOL = 1e-9


def overlaps(model: Model, r: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(nct,) each contact's deepest penetration (m, 0 where apart) at the pose (r, p)."""
    cp = model.forces.contacts
    depth = np.maximum(-gaps(cp, *body_arrays(model, r, p)[:2]), 0.0)
    return np.max(np.where(cp.summed > 0.0, depth, 0.0), axis=-1)


def overlapping_contacts(model: Model, r: np.ndarray, p: np.ndarray) -> list[str]:
    """A sentence for each contact whose parts overlap at the pose (r, p) by more than
    OVERLAP_TOL of the model's size and the input's rounding."""
    if model.forces.contacts is None:
        return []
    cp = model.forces.contacts
    depth = overlaps(model, r, p)
    least = max(OVERLAP_TOL, model.input_rounding) * model.length_scale
    return [f"contact {cp.names[k]!r}: parts {cp.part_a[k]!r} and {cp.part_b[k]!r} overlap by "
            f"{depth[k]:.3g} m at this pose; the contact force pushes them apart from the start"
            for k in np.flatnonzero(depth > least)]


def record_contacts(model: Model, out, kinematic: bool) -> None:
    """Every frame's least gap per contact and where (Result.interference), from the
    stored poses as one stack; for a kinematic sweep also the contact forces (as the
    motions' efforts carried them: no touchdown speeds, the approach speed of the frame)."""
    cp = model.forces.contacts
    if cp is None or not len(out.times):
        return
    rg, A, vg, wg = body_arrays(model, out._r, out._p, *((out._v, out._w) if kinematic else ()))
    geo = geometry(cp, rg, A, cull=False)
    gap = np.where(cp.summed > 0.0, geo.gap[:, None, :], np.inf)        # (n, nct, np)
    least = np.argmin(gap, axis=-1)                                      # (n, nct)
    out._interference[..., 0] = np.take_along_axis(gap, least[..., None], -1)[..., 0]
    out._interference[..., 1:] = geo.C[np.arange(len(out.times))[:, None], least]
    if kinematic:
        out._contact[...] = summary_rows(cp, contact_forces(cp, rg, A, vg, wg), rg)
