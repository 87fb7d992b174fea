"""Bushings loaded at the start: a bushing's load is zero (but for its preload) only where
its two markers coincide in position and axes (model/bushings.py, as Adams' BUSHING, whose
preload fields are the load at zero displacement: it has no free length), so one whose
markers start apart or turned pushes its parts from the first instant.  That may be meant
(a mount built already sagging), or a marker placed a little off; ``loaded_bushings`` says
which it is at the start, with the load, so that neither passes unseen."""
from __future__ import annotations

import numpy as np

from ...base.errors import shown
from ...kernels.constraints import body_arrays
from ...model.bushings import bushing_state
from ...model.compile import Model
from .open_joints import OPEN_SHARE


def loaded_bushings(model: Model, r: np.ndarray, p: np.ndarray) -> list[str]:
    """A sentence for each bushing whose marker I starts more than OPEN_SHARE of its
    mechanism's size (Model.size_of its two parts) from marker J, or turned more than OPEN_SHARE rad from it, at the pose
    (r, p): the bushing, the distance (m) and turn (deg), and the load that start gives,
    -K_t d (N) where apart and -K_r theta (N m) where turned, on marker I's part in marker
    J's axes (its preload and damping aside)."""
    fm = model.forces
    if not len(fm.bu_names):
        return []
    rg, A = body_arrays(model, r, p)[:2]
    still = np.zeros_like(rg)
    disp = bushing_state(fm, rg, A, still, still).disp
    notes = []
    for k, name in enumerate(fm.bu_names):
        d, theta = disp[k, :3], disp[k, 3:]
        size = float(model.size_of([fm.bu_bi[k], fm.bu_bj[k]]))    # its mechanism's, m
        apart = float(np.linalg.norm(d)) > OPEN_SHARE * size
        turned = float(np.linalg.norm(theta)) > OPEN_SHARE
        if not (apart or turned):
            continue
        by = ([f"{np.linalg.norm(d):.3g} m apart"] if apart else []) + (
            [f"turned {np.degrees(np.linalg.norm(theta)):.3g} deg"] if turned else [])
        # (0.0 - x, not -x: no -0 in the message)
        load = ([f"force {shown(0.0 - fm.bu_k[k, :3] * d)} N"] if apart else []) + (
            [f"torque {shown(0.0 - fm.bu_k[k, 3:] * theta)} N m"] if turned else [])
        notes.append(f"bushing {name!r}: its markers start {' and '.join(by)}, so it starts "
                     f"loaded: {' and '.join(load)} on marker I's part, in marker J's axes, "
                     "besides any preload (its load is zero where the markers coincide in "
                     "position and axes: place marker I on marker J to start it unloaded)")
    return notes
