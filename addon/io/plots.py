"""What a bake animates on each joint object: its reaction and its motions' efforts, as
custom-property series (one value per frame) for the Graph Editor.

Reaction (the solver's convention, design.md): force and torque the joint applies to part I
at marker I's origin, world axes, N and N m; each as x, y, z components and the magnitude.
Effort: the force or torque a motion applies along its coordinate (N m for an angle, N for
a slide), on the joint that motion drives.
"""
from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np

REACTION_PROPS = ("reaction_force_x", "reaction_force_y", "reaction_force_z", "reaction_force",
                  "reaction_torque_x", "reaction_torque_y", "reaction_torque_z", "reaction_torque")
EFFORT_PROPS = {"angle": "motion_effort", "slide": "motion_effort_slide"}
BAKED_PROPS = REACTION_PROPS + tuple(EFFORT_PROPS.values())


def reaction_series(force: np.ndarray, torque: np.ndarray) -> dict[str, np.ndarray]:
    """REACTION_PROPS -> (n,) values of a reaction ``force`` and ``torque`` (n, 3)."""
    F, T = force, torque
    return dict(zip(REACTION_PROPS, (F[:, 0], F[:, 1], F[:, 2], np.linalg.norm(F, axis=1),
                                     T[:, 0], T[:, 1], T[:, 2], np.linalg.norm(T, axis=1))))


def joint_plots(result, joints: Sequence[str], motions: Mapping[str, tuple[str, str]]
                ) -> dict[str, dict[str, np.ndarray]]:
    """Joint name -> {property -> (n,) values} from a solver Result: the reaction series,
    then the effort of each motion on it.  ``motions``: motion name -> (joint name,
    "angle" | "slide")."""
    efforts: dict[str, dict[str, np.ndarray]] = {}
    for name, (joint, coord) in motions.items():
        efforts.setdefault(joint, {})[EFFORT_PROPS[coord]] = result.effort(name)
    return {joint: {**reaction_series(*result.reaction(joint)), **efforts.get(joint, {})}
            for joint in joints}
