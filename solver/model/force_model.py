"""The force elements of one compiled model as arrays (bodies indexed as in Model): what
kernels/forces.py evaluates.  Made once by compile_forces, read-only afterwards."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from ..base.errors import MechanismError
from ..vocabulary.joints import ANGLE
from .vector_forces import measure_plan


@dataclass
class ForceModel:
    """Arrays of the force elements for one compiled model (bodies indexed as in Model)."""
    sd_names: list[str] = field(default_factory=list)
    sd_bi: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    sd_bj: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    sd_si: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))   # point on I, body frame
    sd_sj: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    sd_k: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sd_c: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sd_L0: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sd_pre: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sd_fric: np.ndarray = field(default_factory=lambda: np.zeros(0))
    sd_act: list = field(default_factory=list)
    ts_names: list[str] = field(default_factory=list)
    ts_bi: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    ts_bj: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    ts_xi: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))   # x_I, body I frame
    ts_xj: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))   # x_J, body J frame
    ts_yj: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    ts_k: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ts_c: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ts_th0: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ts_pre: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ts_fric: np.ndarray = field(default_factory=lambda: np.zeros(0))
    ts_act: list = field(default_factory=list)
    # each torsion spring's joint-angle row in the model's rows (a limit's, friction's or
    # motion's angle row of its joint: the same markers), -1 where its joint has none
    ts_row: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    # (n,) the motion (index) that drives each torsion spring's joint angle, else -1: the
    # spring's first turn is the motion's value at the start (spring_turns)
    ts_motion: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    ld_names: list[str] = field(default_factory=list)
    ld_body: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    ld_point: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    ld_axes: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))  # marker axes, body frame
    ld_in_marker: np.ndarray = field(default_factory=lambda: np.zeros(0, bool))
    ld_funcs: list = field(default_factory=list)                          # 6 TimeFunctions each
    bu_names: list[str] = field(default_factory=list)                     # bushings
    bu_bi: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    bu_bj: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    bu_si: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))   # marker I's origin, body I
    bu_sj: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))
    bu_ai: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))  # marker axes, body frame
    bu_aj: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    bu_k: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))
    bu_c: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))
    bu_pre: np.ndarray = field(default_factory=lambda: np.zeros((0, 6)))
    vf_names: list[str] = field(default_factory=list)                     # vector forces
    vf_bi: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    vf_bj: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    vf_si: np.ndarray = field(default_factory=lambda: np.zeros((0, 3)))   # marker I's origin, body I
    vf_frame_body: np.ndarray = field(default_factory=lambda: np.zeros(0, int))
    vf_frame_axes: np.ndarray = field(default_factory=lambda: np.zeros((0, 3, 3)))
    vf_funcs: list = field(default_factory=list)       # six numbers or Expressions each
    vf_slices: list = field(default_factory=list)      # six (start, stop) into the measures each
    vf_measures: Any = None                            # vector_forces.MeasurePlan

    contacts: Any = None                    # model/contact_model.py ContactPlan, or None

    def functions(self) -> list:
        """Every user function of the loads (applied loads' components, actuators, vector
        forces' components): numbers, TimeFunctions, Expressions or None."""
        return ([f for fs in self.ld_funcs for f in fs] + list(self.sd_act) + list(self.ts_act)
                + [f for fs in self.vf_funcs for f in fs])

    @property
    def empty(self) -> bool:
        return not (self.sd_names or self.ts_names or self.ld_names or self.bu_names
                    or self.vf_names or self.contacts is not None)


def compile_forces(mech: Any, marker_body: dict, marker_point: dict, marker_axes: dict,
                   marker_world: Callable[[str], np.ndarray], contacts: Any = None,
                   rows: list[dict] | None = None) -> ForceModel:
    """ForceModel arrays from the mechanism's force elements (marker data as in Model);
    ``contacts``: the contacts' ContactPlan (model/contact_model.py), or None."""
    fm = ForceModel(contacts=contacts)
    sds = list(mech.springs.values())
    if sds:
        for sd in sds:
            check_spring_ends(sd, marker_world)
        fm.sd_names = [s.name for s in sds]
        fm.sd_bi, fm.sd_bj, fm.sd_si, fm.sd_sj = _ends(sds, marker_body, marker_point)
        fm.sd_k = np.array([s.stiffness for s in sds])
        fm.sd_c = np.array([s.damping for s in sds])
        fm.sd_L0 = np.array([np.linalg.norm(marker_world(s.marker_i) - marker_world(s.marker_j))
                             if s.free_length is None else s.free_length for s in sds])
        fm.sd_pre = np.array([s.preload for s in sds])
        fm.sd_fric = np.array([s.friction for s in sds])
        fm.sd_act = [s.actuator for s in sds]
    tss = list(mech.torsion_springs.values())
    if tss:
        mi = [mech.joints[s.joint].marker_i for s in tss]
        mj = [mech.joints[s.joint].marker_j for s in tss]
        fm.ts_names = [s.name for s in tss]
        fm.ts_bi = np.array([marker_body[m] for m in mi], dtype=int)
        fm.ts_bj = np.array([marker_body[m] for m in mj], dtype=int)
        fm.ts_xi = np.array([marker_axes[m][:, 0] for m in mi])
        fm.ts_xj = np.array([marker_axes[m][:, 0] for m in mj])
        fm.ts_yj = np.array([marker_axes[m][:, 1] for m in mj])
        fm.ts_k = np.array([s.stiffness for s in tss])
        fm.ts_c = np.array([s.damping for s in tss])
        fm.ts_th0 = np.array([s.free_angle for s in tss])
        fm.ts_pre = np.array([s.preload for s in tss])
        fm.ts_fric = np.array([s.friction for s in tss])
        fm.ts_act = [s.actuator for s in tss]
        fm.ts_row = spring_angle_rows(fm, rows or [])
        fm.ts_motion = np.array([driving_motion(mech, s.joint) for s in tss], dtype=int)
    lds = list(mech.loads.values())
    if lds:
        fm.ld_names = [ld.name for ld in lds]
        fm.ld_body = np.array([marker_body[ld.marker] for ld in lds], dtype=int)
        fm.ld_point = np.array([marker_point[ld.marker] for ld in lds], dtype=float)
        fm.ld_axes = np.array([marker_axes[ld.marker] for ld in lds], dtype=float)
        fm.ld_in_marker = np.array([ld.frame == "marker" for ld in lds], dtype=bool)
        fm.ld_funcs = [ld.force + ld.torque for ld in lds]
    bus = list(getattr(mech, "bushings", {}).values())
    if bus:
        fm.bu_names = [b.name for b in bus]
        fm.bu_bi, fm.bu_bj, fm.bu_si, fm.bu_sj = _ends(bus, marker_body, marker_point)
        fm.bu_ai = np.array([marker_axes[b.marker_i] for b in bus], dtype=float)
        fm.bu_aj = np.array([marker_axes[b.marker_j] for b in bus], dtype=float)
        fm.bu_k = np.array([b.stiffness for b in bus])
        fm.bu_c = np.array([b.damping for b in bus])
        fm.bu_pre = np.array([b.preload for b in bus])
    vfs = list(getattr(mech, "vector_forces", {}).values())
    if vfs:
        ground = sum(not p.fixed for p in mech.parts.values())      # the ground's index, nb
        _compile_vector_forces(fm, vfs, marker_body, marker_point, marker_axes, ground)
    for value in vars(fm).values():           # read-only from here on, like the Model
        if isinstance(value, np.ndarray):
            value.setflags(write=False)
    return fm


def driving_motion(mech: Any, joint: str, coordinate: str = "angle") -> int:
    """The index (in the model's motions: the joints' motions first, in order) of the
    motion that drives the joint's coordinate ("angle" or "slide"), or -1."""
    return next((k for k, mo in enumerate(mech.motions.values())
                 if mo.joint == joint and mo.coordinate == coordinate), -1)


def spring_turns(fm: ForceModel, f: np.ndarray) -> np.ndarray:
    """(..., n) the torsion springs' first turns (the angle their next angles are taken
    nearest, rad) at the motion values f (..., nmotion, 3): 0 (the angle as built is on its
    first turn), or a driven joint's motion value (a crank driven 5 + t starts at 5 rad,
    its spring wound that far, not at 5 - 2 pi)."""
    out = np.zeros(f.shape[:-2] + (len(fm.ts_names),))
    driven = np.flatnonzero(fm.ts_motion >= 0)
    if driven.size:
        out[..., driven] = f[..., fm.ts_motion[driven], 0]
    return out


def spring_angle_rows(fm: ForceModel, rows: list[dict]) -> np.ndarray:
    """(n,) for each torsion spring the index of a constraint row (compile.py's row dicts)
    that measures its joint angle: an ANGLE row between the same bodies with the same x_I,
    x_J and y_J, so that its residual is the spring's atan2 angle and its Jacobian's
    rotation block on body I the angle's gradient (kernels/constraints.py ``angle``); -1
    where there is none.  A run that evaluates the rows anyway reads the angle there
    instead of computing it a second time (kernels/forces.py ``evaluate_forces``)."""
    out = np.full(len(fm.ts_names), -1, dtype=int)
    for k in range(len(fm.ts_names)):
        for i, r in enumerate(rows):
            if (r["kind"] == ANGLE and r["bi"] == fm.ts_bi[k] and r["bj"] == fm.ts_bj[k]
                    and np.array_equal(r["ui"], fm.ts_xi[k]) and np.array_equal(r["a"], fm.ts_xj[k])
                    and np.array_equal(r["b"], fm.ts_yj[k])):
                out[k] = i
                break
    return out


def check_spring_ends(sd: Any, marker_world: Callable[[str], np.ndarray]) -> None:
    """MechanismError for spring-damper ``sd`` whose markers coincide as built (world
    points ``marker_world``, m): its force would have no direction."""
    if np.linalg.norm(marker_world(sd.marker_i) - marker_world(sd.marker_j)) < 1e-9:
        raise MechanismError(f"spring-damper {sd.name!r}: markers {sd.marker_i!r} and "
                             f"{sd.marker_j!r} coincide, so the force has no direction; "
                             "place its ends apart")


def _ends(items: list, marker_body: dict, marker_point: dict) -> tuple[np.ndarray, ...]:
    """(bodies of the markers I, of the markers J, their points in those bodies' frames) of
    force elements between two markers."""
    return (np.array([marker_body[x.marker_i] for x in items], dtype=int),
            np.array([marker_body[x.marker_j] for x in items], dtype=int),
            np.array([marker_point[x.marker_i] for x in items], dtype=float),
            np.array([marker_point[x.marker_j] for x in items], dtype=float))


def _compile_vector_forces(fm: ForceModel, vfs: list, marker_body: dict, marker_point: dict,
                           marker_axes: dict, ground: int) -> None:
    """The vector forces' arrays, and one measure plan for all their components' measures
    (each component's in a slice of it, in its expression's order); ``ground``: the ground's
    body index (the world's axes for the frame "world")."""
    fm.vf_names = [v.name for v in vfs]
    fm.vf_bi, fm.vf_bj, fm.vf_si, _ = _ends(vfs, marker_body, marker_point)
    fm.vf_frame_body = np.array([ground if v.frame == "world" else marker_body[v.frame]
                                 for v in vfs], dtype=int)
    fm.vf_frame_axes = np.array([np.eye(3) if v.frame == "world" else marker_axes[v.frame]
                                 for v in vfs], dtype=float)
    rows: list = []
    for v in vfs:
        fm.vf_funcs.append(v.components)
        cols = []
        for fn in v.components:
            used = getattr(fn, "measures", ())
            cols.append((len(rows), len(rows) + len(used)))
            rows += list(used)
        fm.vf_slices.append(tuple(cols))
    fm.vf_measures = measure_plan(rows, marker_body, marker_point, marker_axes, ground)
