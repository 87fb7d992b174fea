"""What ``check`` and a finished run say of contacts (vocabulary/contacts.py): the pairs
whose shapes already overlap at the pose checked, each by name with its depth (a compliant
contact starts by pushing them apart with the force of that depth), and every frame's least
gap or deepest penetration per contact (``Result.interference``)."""
from __future__ import annotations

import numpy as np

from ..kernels.constraints import body_arrays
from ..kernels.contacts import contact_forces, gaps, geometry, summary_rows
from ..model.compile import Model

# an overlap deeper than this times its contact's mechanism's size is reported, or than the
# input's rounding where that is larger (parts designed touching, read from float32: a few unit
# round-offs of their distance from the origin, Model.body_rounding)
OVERLAP_TOL = 1e-9


def overlaps(model: Model, r: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(nct,) each contact's deepest penetration (m, 0 where apart) at the pose (r, p)."""
    cp = model.forces.contacts
    depth = np.maximum(-gaps(cp, *body_arrays(model, r, p)[:2]), 0.0)
    return np.max(np.where(cp.summed > 0.0, depth, 0.0), axis=-1)


def overlapping_contacts(model: Model, r: np.ndarray, p: np.ndarray) -> list[str]:
    """A sentence for each contact whose parts overlap at the pose (r, p) by more than
    overlap_tolerance."""
    if model.forces.contacts is None:
        return []
    cp = model.forces.contacts
    depth = overlaps(model, r, p)
    least = overlap_tolerance(model)
    return [f"contact {cp.names[k]!r}: parts {cp.part_a[k]!r} and {cp.part_b[k]!r} overlap by "
            f"{depth[k]:.3g} m at this pose; the contact force pushes them apart from the start"
            for k in np.flatnonzero(depth > least)]


def overlap_tolerance(model: Model) -> np.ndarray:
    """(nct,) m: the least overlap of each contact's parts noted, OVERLAP_TOL of the size of
    the mechanism its parts are in (Model.size_of: a 20 m pole beside it, joined to nothing
    of it, does not hide a small one's overlap), or the input's rounding (absolute, of its
    parts' mechanisms' reach: Model.body_rounding times their size) where that is larger."""
    cp = model.forces.contacts
    ends = np.stack([cp.body_a, cp.body_b], axis=-1)
    own = model.size_of(ends)
    rounded = np.append(np.asarray(model.body_rounding) * np.asarray(model.body_size), 0.0)
    return np.maximum(OVERLAP_TOL * own, rounded[ends].max(axis=-1))


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


def sinking_contacts(model: Model) -> list[str]:
    """A sentence for each contact too soft, or with a shape too small, to carry the weight
    of the lighter of its moving parts: that weight W presses it (W / K)^(1/n) deep (K the
    contact's whole stiffness, N/m^n), deeper than half the least extent of its thinner
    shape (Shape.thickness: a sphere's radius, half a plate's thickness), so the part sinks
    through that shape's middle, and a plate is passed through.  None without gravity."""
    cp = model.forces.contacts
    g = float(np.linalg.norm(model.gravity))
    if cp is None or g == 0.0:
        return []
    K = cp.summed @ cp.stiffness                      # (nct,) each contact's K
    n = cp.exponent[np.argmax(cp.summed, axis=1)]
    ends = np.stack([cp.body_a, cp.body_b], axis=1)       # a fixed part's index is nb
    mass = np.append(model.body_mass, np.inf)[ends]         # (nct, 2) kg
    weight = g * mass.min(axis=1)
    sink = (weight / K) ** (1.0 / n)
    half = 0.5 * cp.thickness.min(axis=1)
    return [f"contact {cp.names[k]!r}: the weight of part {_lighter(cp, mass, k)!r} "
            f"({weight[k]:.3g} N) presses it {sink[k]:.3g} m deep (stiffness {K[k]:.3g} "
            f"N/m^{n[k]:g}), more than half its thinner shape's least extent "
            f"({half[k]:.3g} m): the part sinks through that shape's middle and passes "
            f"through a thin one; give a stiffer contact or a larger shape"
            for k in np.flatnonzero(sink > half)]


def _lighter(cp, mass: np.ndarray, k: int) -> str:
    """The name of contact k's lighter moving part."""
    return cp.part_a[k] if mass[k, 0] <= mass[k, 1] else cp.part_b[k]


def deep_frames(model: Model, out) -> list[str]:
    """A sentence for each contact whose penetration at some stored frame exceeds half the
    least extent of its thinner shape: from there the two shapes' distances point the
    wrong way (a ball past a plate's middle is pushed out through its far face), so the
    result is not a contact's.  Named with the first such frame's time and depth."""
    cp = model.forces.contacts
    if cp is None or not len(out.times):
        return []
    depth = -out._interference[..., 0]                      # (n, nct)
    half = 0.5 * cp.thickness.min(axis=1)
    notes = []
    for k in np.flatnonzero(np.any(depth > half, axis=0)):
        i = int(np.argmax(depth[:, k] > half[k]))
        notes.append(f"contact {cp.names[k]!r}: parts {cp.part_a[k]!r} and {cp.part_b[k]!r} "
                     f"overlap by {depth[i, k]:.3g} m at t = {out.times[i]:.6g} s, more than "
                     f"half the least extent of the thinner shape ({half[k]:.3g} m): "
                     f"from there the contact pushes them through each other")
    return notes
