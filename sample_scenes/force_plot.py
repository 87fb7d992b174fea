"""The main job's force plot of a baked sample scene: its main baked forces and torques
(joint reactions and efforts, contact, spring, bushing, coupler and follow forces) over
time, read back from the baked custom properties' F-curves (the bake action of each joint,
coupler, spring, ... object), drawn with matplotlib (Agg; the main job's environment only,
never needed inside Blender).

Forces (N) on one axes, torques (N m) on another: the magnitude of each joint's reaction
force (the few largest), every motion's effort, a cam's contact force, a gear's tooth force
and the coupler torques, the stops' and friction's force or torque, the magnitude of each
contact's force between parts, the force that holds a following marker to its path, each
spring's tension and torsion spring's torque, each bushing's force and torque.
"""
from __future__ import annotations

import numpy as np

REACTIONS_SHOWN = 4          # the joints with the largest peak reaction force


def _curves(ob) -> dict[str, np.ndarray]:
    """Property -> (n, 2) (frame, value) keys of the object's baked custom properties."""
    act = ob.mechanism.bake_action
    if act is None or not len(act.slots):
        return {}
    out = {}
    for layer in act.layers:
        for strip in layer.strips:
            bag = strip.channelbag(act.slots[0])
            for fc in (bag.fcurves if bag is not None else ()):
                if fc.data_path.startswith('["'):
                    co = np.empty(2 * len(fc.keyframe_points), dtype=np.float32)
                    fc.keyframe_points.foreach_get("co", co)
                    out[fc.data_path[2:-2]] = co.reshape(-1, 2).astype(float)
    return out


def _slide(ob, which: str) -> bool:
    """Whether a joint's stops or friction act along its slide (N) rather than its angle."""
    s = ob.mechanism
    if s.joint_kind == "PRISMATIC":
        return True
    coordinate = s.limit_coordinate if which == "limit" else s.friction_coordinate
    return s.joint_kind == "CYLINDRICAL" and coordinate == "SLIDE"


def series(scene) -> tuple[list, list]:
    """([(label, frames, values)] in N, [...] in N m) of the scene's baked objects."""
    forces, torques, reactions = [], [], []
    for ob in scene.objects:
        if not ob.mechanism.baked or ob.mechanism.role not in ("JOINT", "COUPLER", "CONTACT",
                                                                 "MARKER", "SPRING", "BUSHING"):
            continue
        for prop, k in _curves(ob).items():
            item = (f"{ob.name}: {prop.replace('_', ' ')}", k[:, 0], k[:, 1])
            if prop == "reaction_force":
                item = (f"{ob.name}: |reaction force|", k[:, 0], k[:, 1])
                reactions.append((np.abs(k[:, 1]).max(), item))
            elif prop in ("limit_force", "friction_force"):
                (forces if _slide(ob, prop.split("_")[0]) else torques).append(item)
            elif prop in ("motion_effort", "follow_torque", "bushing_torque",
                          "torsion_spring_torque") or \
                    prop.startswith("coupler_torque"):
                torques.append(item)
            elif prop in ("motion_effort_slide", "contact_force", "tooth_force",
                          "part_contact_force", "follow_force", "bushing_force",
                          "spring_force") or \
                    prop.startswith("coupler_force"):
                forces.append(item)
    reactions.sort(key=lambda r: -r[0])
    return [r[1] for r in reactions[:REACTIONS_SHOWN]] + forces, torques


def drawn(forces: list, torques: list) -> tuple[list, list]:
    """The series as plotted: one at rounding level against the largest (a gear train at
    constant speed with no load: torques of 1e-16 N m) drawn as the zero it is, labelled
    "zero at every frame": the bake holds the values at the frames only, and a force
    shorter than a frame (two balls' 0.01 s bounce at 24 fps) may act between them."""
    peak = max([np.abs(v).max() for _, _, v in forces + torques] + [0.0])
    return tuple([(label + " (zero at every frame)", f, 0.0 * v) if np.abs(v).max() <= 1e-9 * peak
                  else (label, f, v) for label, f, v in items] for items in (forces, torques))


def plot_forces(scene, path: str, title: str) -> None:
    """Write the PNG ``path``: forces and torques of the baked ``scene`` against time (s)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fps = scene.render.fps / scene.render.fps_base
    forces, torques = drawn(*series(scene))
    panels = [(f, unit) for f, unit in ((forces, "force (N)"), (torques, "torque (N m)")) if f]
    fig, axes = plt.subplots(len(panels), 1, figsize=(6.4, 2.3 * len(panels) + 0.6), sharex=True,
                             squeeze=False)
    for ax, (items, unit) in zip(axes[:, 0], panels):
        for label, frames, values in items:
            ax.plot((frames - scene.frame_start) / fps, values, label=label, lw=1.2)
        ax.set_ylabel(unit)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, loc="best", framealpha=0.8)
    if not panels:
        axes[0, 0].text(0.5, 0.5, "no baked forces", ha="center", transform=axes[0, 0].transAxes)
    axes[-1, 0].set_xlabel("time (s)")
    axes[0, 0].set_title(f"{title}: baked forces and torques", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
