"""Gears (and racks) that mesh at a pitch point: which pairs do (``meshing``), the functions of
their axle joints through which their rows act there (``meshes``: CouplerPlan's
``mesh_*`` fields, kernels/constraints.py ``mesh_forces``), and the pitch point and the
force per unit multiplier at it (``pitch_geometry``, which Result also reads for the
teeth's separating force).  Generic couplers, belts and chains, and gears whose axes are
not parallel (bevel, worm) act as torques on the joint coordinates only: they have no one
contact point the solver knows.  A rack has no pressure angle here: its tooth force is
the one along its slide."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..base.einsum import einsum
from ..base.elementary import tan
from ..base.errors import MechanismError
from ..base.rotations import cross, quat_to_matrix
from ..vocabulary.joints import DOT1, DOT2
from .plans import _frozen, marker_world, row_group, world_axes


def pitch_geometry(scale: np.ndarray, sense: np.ndarray, slide: np.ndarray, helix: np.ndarray,
                   bi: np.ndarray, point: np.ndarray, bj: np.ndarray, axes: np.ndarray,
                   r: np.ndarray, A: np.ndarray) -> tuple[np.ndarray, ...]:
    """The pitch point of each meshing pair and the force per unit multiplier its row
    applies there (kernels/constraints.py ``mesh_forces``): scale (..., ng, 2) the row's
    two scales s_1, s_2; sense (..., ng, 2) each joint coordinate's sign against its
    part's own turn or slide (CouplerPlan ``mesh_sense``); slide (ng, 2) which term is a
    rack's slide; helix (ng,) tan of the helix angle (+: gear 1 right-handed);
    bi, point, bj, axes (2 ng, ...) each joint's part I and marker I on it,
    part J and marker J's axes (CouplerPlan ``mesh_*``); r (..., nb+1, 3), A (..., nb+1,
    3, 3) the bodies, ground last.  Returns, world axes: c (..., ng, 2, 3) the joints'
    marker I origins, C (..., ng, 2, 3, 3) their markers J's axes, P (..., ng, 3) the
    pitch point, arm (..., ng, 2, 3) P - c, f (..., ng, 2, 3) the force on each joint's
    part I.

    Gears: P divides the axles' distance across gear 1's axis z_1 as the pitch radii do,
    k = t_1 / (t_1 + t_2) of it from axle 1 (t_i = s_i sense_i: between the axles when
    the gears turn opposite ways, outside them when they turn the same way, an internal
    mesh).  A rack and pinion: P on the pinion's pitch circle, |r| = |s_1 / s_2| from its
    axis, across the pinion's axis z_1 and the rack's slide u, on the side where the
    pinion's rim moves as the relation moves the rack (its turn t_1 and slide t_2 of
    opposite signs: towards u x z_1).  Either lies half way between the markers along
    z_1.  An angle term's f_i = s_i / rho_i (z_i x u_i), rho_i u_i the part of P - c_i
    across z_i, gives the torque s_i about z_i of the coupler's angle term; a slide
    term's f_i = s_i u, its force, now at P; f_2 = -f_1 for a mesh.  Helical teeth add
    the thrust -tan(helix) (f_i . t_1) z_1, t_1 = z_1 x u_1 gear 1's forward tangent at P:
    the tooth's normal lies across its helix (Budynas and Nisbett 2011, sec. 13-16)."""
    c = r.take(bi, axis=-2) + (A.take(bi, axis=-3) @ point[..., None])[..., 0]
    C = A.take(bj, axis=-3) @ axes
    lead = c.shape[:-2]
    ng = c.shape[-2] // 2
    c, C = c.reshape(lead + (ng, 2, 3)), C.reshape(lead + (ng, 2, 3, 3))
    z = C[..., 2]                              # (..., ng, 2, 3): z_J (a rack's: its slide)
    z1 = z[..., 0, :]
    d = c[..., 1, :] - c[..., 0, :]
    dz = einsum("...i,...i->...", d, z1)[..., None]
    mid = c[..., 0, :] + 0.5 * dz * z1
    turn = scale * sense                       # the relation on the parts' own motions
    rack = slide[..., 1]
    sum_ = turn[..., 0] + turn[..., 1]
    k = turn[..., 0] / np.where(rack | (sum_ == 0.0), 1.0, sum_)
    gear_P = mid + k[..., None] * (d - dz * z1)
    across = cross(z[..., 1, :], z1)                                # u x z_1
    size = np.sqrt(einsum("...i,...i->...", across, across))
    side = -np.sign(turn[..., 0] * turn[..., 1]) * np.abs(scale[..., 0] / scale[..., 1])
    rack_P = mid + (side / np.maximum(size, 1e-300))[..., None] * across
    P = np.where(rack[..., None], rack_P, gear_P)
    arm = P[..., None, :] - c
    flat = arm - einsum("...i,...i->...", arm, z)[..., None] * z
    rho2 = np.maximum(einsum("...i,...i->...", flat, flat), 1e-300)
    f = np.where(slide[..., None], scale[..., None] * z,
                 (scale / rho2)[..., None] * cross(z, flat))
    t1 = cross(z1, flat[..., 0, :]) / np.sqrt(rho2[..., 0])[..., None]
    thrust = -helix[..., None] * einsum("...ti,...i->...t", f, t1)
    f = f + thrust[..., None] * z1[..., None, :]
    return c, C, P, arm, f


def meshing(mech: Any, cp: Any, length_scale: float, marker_body: Any) -> bool:
    """A pair that meshes at a pitch point: a rack and pinion whose slide is across the
    pinion's axis (within a degree, as built); a gear pair with an external or internal
    mesh (a belt's or a chain's spans are not known), axes parallel within a degree and
    apart, as built, and a relation whose two turns, as the gears turn (``_senses``), are
    not equal and opposite (an internal mesh of equal radii: its pitch point off to
    infinity)."""
    if cp.kind not in ("gear", "rack-and-pinion"):
        return False
    (j1, _, s1), (j2, _, s2) = cp.terms
    if cp.kind == "rack-and-pinion":         # the slide across the pinion's axis
        z1, u = (world_axes(mech, mech.joints[j].marker_j)[:, 2] for j in (j1, j2))
        return abs(float(z1 @ u)) < math.sin(math.radians(1.0))
    if cp.mesh not in ("external", "internal"):
        return False
    _, sense = _senses(mech, cp, marker_body)
    z1, z2 = (world_axes(mech, mech.joints[j].marker_j)[:, 2] for j in (j1, j2))
    d = marker_world(mech, mech.joints[j2].marker_i) - marker_world(mech, mech.joints[j1].marker_i)
    meshes_ = (s1 * sense[0] + s2 * sense[1] != 0.0
               and abs(float(z1 @ z2)) >= math.cos(math.radians(1.0))
               and float(np.linalg.norm(d - (d @ z1) * z1)) > 1e-6 * length_scale)
    if cp.helix_angle != 0.0:
        _helical(mech, cp, meshes_)
    return meshes_


def _helical(mech: Any, cp: Any, meshes_: bool) -> None:
    """Helical teeth's thrust needs a pitch point and axles that hold it: MechanismError
    naming the gear otherwise (the thrust would be lost, or would slide the gear)."""
    what = f"gear {cp.name!r}"
    if not meshes_:
        raise MechanismError(f"{what}: helical teeth (helix_angle) need parallel axes apart "
                             "from each other, as built")
    for j, _, _ in cp.terms:
        if mech.joints[j].kind != "revolute":
            raise MechanismError(f"{what}: helical teeth push the gear along its axle: joint "
                                 f"{j!r} is {mech.joints[j].kind}, make it a revolute")


def _senses(mech: Any, cp: Any, marker_body) -> tuple[list[float], list[float]]:
    """(side, sense) of a meshing pair's two joints.  side: +1 where the gear (pinion,
    rack) is the joint's part I, -1 its part J, the other being the part both joints
    share (the housing); 0, 0 when they share none or both.  sense: the sign of the joint
    coordinate against the part's own turn about gear 1's z_J (side, or +1 without a
    housing, times the direction of the joint's z_J; a rack's and its pinion's: each
    along its own z_J), so the pitch point is placed by how the parts really move."""
    joints = [mech.joints[j] for j, _, _ in cp.terms]
    bi = [marker_body[j.marker_i] for j in joints]
    bj = [marker_body[j.marker_j] for j in joints]
    common = {bi[0], bj[0]} & {bi[1], bj[1]}
    side = [0.0, 0.0]
    if len(common) == 1:
        housing = common.pop()
        side = [1.0 if bj[i] == housing else -1.0 for i in range(2)]
    z = [world_axes(mech, j.marker_j)[:, 2] for j in joints]
    if cp.kind != "gear":                    # a rack's slide and its pinion's turn, each
        return side, [x or 1.0 for x in side]    # along its own z_J
    sense = [(side[i] or 1.0) * math.copysign(1.0, float(z[i] @ z[0])) for i in range(2)]
    return side, sense


def meshes(mech: Any, couplers: dict, marker_body: Any, marker_point: Any, marker_axes: Any,
           length_scale: float) -> dict:
    """The CouplerPlan's ``mesh`` fields: for each meshing gear (``meshing``) and each of
    its two joints, the functions (P_I - P_J) . x_J, . y_J, . z_J (a dot-2 group) and
    z_I . x_J, z_I . y_J (a dot-1 group), zero while a revolute holds (a cylindrical or
    prismatic joint: all but the third, which only helical teeth's thrust uses, on
    revolutes), and the joint's markers, from which the kernel finds the pitch point."""
    ks = [k for k, cp in enumerate(couplers.values())
          if meshing(mech, cp, length_scale, marker_body)]
    if not ks:
        return {}
    items = list(couplers.values())
    joints = [mech.joints[j] for k in ks for j, _, _ in items[k].terms]
    n = len(joints)                                          # 2 ng

    def each(values: list, k: int, axis: int = 0) -> np.ndarray:     # every joint's k times
        return np.repeat(values, k, axis=axis)
    bi, bj = ([marker_body[getattr(j, m)] for j in joints] for m in ("marker_i", "marker_j"))
    pi, pj = ([marker_point[getattr(j, m)] for j in joints] for m in ("marker_i", "marker_j"))
    axes_j = np.array([marker_axes[j.marker_j] for j in joints]).reshape(n, 3, 3)
    xyz_j = axes_j.transpose(0, 2, 1).reshape(3 * n, 3)               # x_J, y_J, z_J of each
    xy_j = axes_j[:, :, :2].transpose(0, 2, 1).reshape(2 * n, 3)      # x_J, y_J of each
    z_i = each([marker_axes[j.marker_i][:, 2] for j in joints], 2)
    groups = (row_group(DOT2, slice(0, 3 * n), each(bi, 3), each(bj, 3), each(bj, 3),
                        each(pi, 3), each(pj, 3), xyz_j, np.zeros((3 * n, 3)), np.zeros(3 * n)),
              row_group(DOT1, slice(3 * n, 5 * n), each(bi, 2), each(bj, 2), each(bj, 2), z_i,
                        np.zeros((2 * n, 3)), xy_j, np.zeros((2 * n, 3)), np.zeros(2 * n)))
    u = np.arange(n)
    rows = np.stack([3 * u, 3 * u + 1, 3 * u + 2, 3 * n + 2 * u, 3 * n + 2 * u + 1], -1)
    return dict(mesh=groups, mesh_coupler=_frozen(ks, int), mesh_rows=_frozen(rows, int),
                mesh_bi=_frozen(bi, int), mesh_point=_frozen(np.reshape(pi, (n, 3))),
                mesh_bj=_frozen(bj, int), mesh_axes=_frozen(axes_j),
                mesh_helix=_frozen([math.tan(items[k].helix_angle) if items[k].kind == "gear"
                                    else 0.0 for k in ks]),
                mesh_pressure=_frozen([items[k].pressure_angle if items[k].kind == "gear"
                                       else 0.0 for k in ks]),
                mesh_slide=_frozen([[False, items[k].kind != "gear"] for k in ks], bool),
                mesh_joint=_frozen([list(mech.joints).index(j.name) for j in joints], int),
                mesh_side=_frozen([x for k in ks for x in _senses(mech, items[k], marker_body)[0]]),
                mesh_sense=_frozen([x for k in ks for x in _senses(mech, items[k], marker_body)[1]]))


def stored_pitch_geometry(cp: Any, mesh: tuple, r: np.ndarray, p: np.ndarray):
    """``pitch_geometry`` at stored poses r (..., nb, 3), p (..., nb, 4) (COM positions and
    unit quaternions, the ground not among them: appended here); ``mesh``: (scales,
    senses, points, axes) as mesh_numbers gives them (a study's may vary)."""
    scale, sense, point, axes = mesh
    rg = np.concatenate([r, np.zeros(r.shape[:-2] + (1, 3))], axis=-2)
    A = np.concatenate([quat_to_matrix(p), np.broadcast_to(np.eye(3), p.shape[:-2] + (1, 3, 3))],
                       axis=-3)
    return pitch_geometry(scale, sense, cp.mesh_slide, cp.mesh_helix, cp.mesh_bi, point,
                          cp.mesh_bj, axes, rg, A)


def pitch_radii(cp: Any, mesh: tuple, r: np.ndarray, p: np.ndarray) -> np.ndarray:
    """(..., ng) gear 1's pitch radius (m) of each meshing pair at the stored poses (r, p):
    the distance of its pitch point (where the relation's ratio divides the centre
    distance) from gear 1's axle, across the axle (a gear given by teeth or a ratio has no
    radii of its own: these are its radii as built)."""
    _, C, _, arm, _ = stored_pitch_geometry(cp, mesh, r, p)
    z1, a = C[..., 0, :, 2], arm[..., 0, :]
    across = a - np.einsum("...i,...i->...", a, z1)[..., None] * z1
    return np.linalg.norm(across, axis=-1)


def mesh_numbers(model: Any) -> tuple | None:
    """The numbers of a model's meshing gears that ``separation`` reads and a design
    study's variants may change: each pair's two scales and senses (ng, 2), its axles'
    marker I points (2 ng, 3) and markers J's axes (2 ng, 3, 3) (CouplerPlan ``mesh_*``); None
    without meshing gears."""
    cp = model.couplers
    if cp is None or not cp.mesh:
        return None
    return (cp.scale[cp.mesh_coupler, :2], cp.mesh_sense.reshape(-1, 2), cp.mesh_point,
            cp.mesh_axes)


def separation(model: Any, mesh: tuple, r: np.ndarray, p: np.ndarray,
                lam: np.ndarray) -> np.ndarray:
    """(..., joints, 6) what the teeth's separating force adds to the axle joints'
    reactions (force and moment on part I at marker I, world axes).  A meshing gear's row
    carries the tangential tooth force F_t at the pitch point (kernels/constraints.py
    ``mesh_forces``); the tooth force along the line of action also has the radial part
    |F_t| tan(pressure angle) (Budynas and Nisbett 2011, sec. 13-14), which pushes the
    teeth apart whichever way the load goes: a pinion or external gear towards its own
    axle, an internal gear's rim outwards (a rack: no pressure angle, nothing added).  Whichever flank carries it, it does no work
    while the joints hold the centre distance, so it changes only the reactions of the two
    axle joints: each holds its gear against it (the housing, the part both joints share,
    takes the pair, which cancels there).  ``mesh``: ``mesh_numbers`` (or a stack's, with
    a variant axis)."""
    cp = model.couplers
    scale, sense = mesh[:2]
    c, C, P, arm, f = stored_pitch_geometry(cp, mesh, r, p)
    rows = np.array([np.flatnonzero(model.row_coupler == k)[0] for k in cp.mesh_coupler])
    z1 = C[..., 0, :, 2]
    tangential = f[..., 0, :] - np.einsum("...i,...i->...", f[..., 0, :], z1)[..., None] * z1
    F = np.abs(lam[..., rows]) * np.linalg.norm(tangential, axis=-1) * tan(cp.mesh_pressure)
    d = c[..., 1, :] - c[..., 0, :]
    across = d - np.einsum("...i,...i->...", d, z1)[..., None] * z1
    e = across / np.maximum(np.linalg.norm(across, axis=-1), 1e-300)[..., None]
    turn = scale * sense
    total = turn[..., 0] + turn[..., 1]
    k = turn[..., 0] / np.where(total == 0.0, 1.0, total)
    h1 = -(np.sign(k * (1.0 - k)) * F)[..., None] * e        # on gear 1: apart from gear 2
    hold = -cp.mesh_side.reshape(-1, 2)[..., None] * np.stack([h1, -h1], axis=-2)
    add = np.concatenate([hold, cross(arm, hold)], axis=-1)
    out = np.zeros(add.shape[:-3] + (len(model.joint_names), 6))
    np.add.at(np.moveaxis(out, -2, 0), cp.mesh_joint,
              np.moveaxis(add.reshape(add.shape[:-3] + (-1, 6)), -2, 0))
    return out
