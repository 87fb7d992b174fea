"""Force elements read back from a Result (Result.spring, .torsion_spring, .bushing,
.vector_force, .contact, .general_motion, .general_motion_torque): their laws evaluated at
every stored frame at once, the ground appended as the kernels take it, or their columns of
the stored arrays."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.errors import MechanismError, SolverCancelled, unknown
from ..base.rotations import euler_angles, euler_axes, quat_to_matrix
from ..vocabulary.timefunctions import derivatives_of
from .bushings import BushingState, bushing_state, one_bushing
from .springs import on_turn, spring_geometry, spring_law, torsion_geometry
from .vector_forces import vector_force_state


def with_ground(states: tuple[np.ndarray, ...]) -> tuple[np.ndarray, ...]:
    """(r, A, v, w) of every frame with the ground appended, from (r, p, v, w) (n, nb, ...)."""
    r, p, v, w = states
    n = len(r)
    ground = np.zeros((n, 1, 3))
    A = quat_to_matrix(np.concatenate([p, np.broadcast_to(np.array([1.0, 0.0, 0.0, 0.0]),
                                                            (n, 1, 4))], axis=1))
    rg, vg, wg = (np.concatenate([x, ground], axis=1) for x in (r, v, w))
    return rg, A, vg, wg


def _bushing(fm: Any, name: str, states: tuple) -> BushingState:
    """One bushing's state at every frame (the bushing axis dropped)."""
    if name not in fm.bu_names:
        raise unknown("bushing", name, fm.bu_names)
    bs = bushing_state(one_bushing(fm, fm.bu_names.index(name)), *with_ground(states))
    return bs._replace(Rj=bs.Rj[:, 0], disp=bs.disp[:, 0], load=bs.load[:, 0])


def bushing_load(fm: Any, name: str, frame: str, states: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(force, torque) (n, 3) of bushing ``name`` on part I, world axes or ``frame="J"``."""
    bs = _bushing(fm, name, states)
    load = bs.load
    if frame == "J":
        return load[:, :3].copy(), load[:, 3:].copy()
    if frame != "world":
        raise MechanismError(f"bushing {name!r}: frame must be 'world' or 'J', got {frame!r}")
    return (bs.Rj @ load[:, :3, None])[..., 0], (bs.Rj @ load[:, 3:, None])[..., 0]


def bushing_displacement(fm: Any, name: str, states: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(d, theta) (n, 3) of bushing ``name``, marker J's axes."""
    d = _bushing(fm, name, states).disp
    return d[:, :3].copy(), d[:, 3:].copy()


def spring_readout(fm: Any, name: str, times: np.ndarray, states: tuple
                   ) -> tuple[np.ndarray, np.ndarray]:
    """(tension f (n,) N, length l (n,) m) of spring-damper ``name`` at every frame: its
    law (model/springs.py) at the stored states and times, as the run evaluated it."""
    if name not in fm.sd_names:
        raise MechanismError(f"unknown spring-damper {name!r} (spring-dampers: "
                             f"{', '.join(fm.sd_names) or 'none'})")
    k = fm.sd_names.index(name)
    _, _, L, _, Ld = spring_geometry(fm, *with_ground(states))
    L, Ld = L[:, k:k + 1], Ld[:, k:k + 1]
    f = spring_law("spring-damper", [name], fm.sd_k[k], fm.sd_L0[k], fm.sd_pre[k], fm.sd_c[k],
                   fm.sd_fric[k], [fm.sd_act[k]], times, L, Ld)[2]
    return f[:, 0], L[:, 0].copy()


def torsion_readout(model: Any, name: str, times: np.ndarray, states: tuple, rates: bool,
                    first: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(torque T (n,) N m, angle theta (n,) rad) of torsion spring ``name`` at every frame,
    its law (model/springs.py) at the stored states and times.  The angle keeps its turns
    as the run does: a driven joint's on the turn of its motion's value at that time (the
    run's own reference), any other's first on the turn nearest zero (the run's first
    turn) or nearest ``first`` (each spring's angle at the first frame as the analysis took
    it: Result.spring_turns), each next on the turn nearest the one before plus the change
    its rate gives by the trapezoidal rule (``rates`` False, a Result without velocities:
    the one before)."""
    fm = model.forces
    if name not in fm.ts_names:
        raise MechanismError(f"unknown torsion spring {name!r} (torsion springs: "
                             f"{', '.join(fm.ts_names) or 'none'})")
    k = fm.ts_names.index(name)
    _, A, _, wg = with_ground(states)
    angle = torsion_geometry(fm, A, 0.0)[3]
    raw, g = angle[0][:, k], angle[1][:, k]
    rate = np.einsum("ni,ni->n", wg[:, fm.ts_bi[k]] - wg[:, fm.ts_bj[k]], g)
    if fm.ts_motion[k] >= 0:
        th = on_turn(raw, derivatives_of(model.motion_functions, times)[:, fm.ts_motion[k], 0])
    else:
        change = 0.5 * np.diff(times) * (rate[:-1] + rate[1:]) if rates else 0.0
        turns = np.rint((change - np.diff(raw)) / (2.0 * np.pi))
        start = 0.0 if first is None else on_turn(raw[0], first[k]) - raw[0]
        th = raw + start + 2.0 * np.pi * np.concatenate([[0.0], np.cumsum(turns)])
    T = spring_law("torsion spring", [name], fm.ts_k[k], fm.ts_th0[k], fm.ts_pre[k],
                   fm.ts_c[k], fm.ts_fric[k], [fm.ts_act[k]], times, th[:, None],
                   rate[:, None])[2]
    return T[:, 0], th


def vector_force_load(fm: Any, name: str, times: np.ndarray, states: tuple
                      ) -> tuple[np.ndarray, np.ndarray]:
    """(force, torque) (n, 3) of vector force ``name`` on part I, world axes."""
    if name not in fm.vf_names:
        raise unknown("vector force", name, fm.vf_names)
    k = fm.vf_names.index(name)
    vs = vector_force_state(fm, times, *with_ground(states))
    return vs.F[:, k].copy(), vs.T[:, k].copy()


def contact_index(model: Any, name: str) -> int:
    """The column of contact ``name`` in a Result's contact arrays."""
    cp = model.forces.contacts
    if cp is None or name not in cp.names:
        raise unknown("contact", name, cp and cp.names)
    return cp.names.index(name)


def _general_motions(model: Any) -> list[str]:
    """The names of the model's general motions, in order."""
    return [g[0] for g in model.general_motions]


def general_motion_load(model: Any, effort: np.ndarray, name: str) -> np.ndarray:
    """(n, 3) the efforts of general motion ``name``'s directions x, y, z (0 where free),
    from a Result's efforts (n, motions)."""
    motion_names = model.motion_names
    cols = [motion_names.index(f"{name}.{a}") if f"{name}.{a}" in motion_names else -1
            for a in "xyz"]
    if name not in _general_motions(model):     # (one of angles only holds no direction)
        raise unknown("general motion", name, _general_motions(model))
    out = np.zeros((len(effort), 3))
    for k, c in enumerate(cols):
        if c >= 0:
            out[:, k] = effort[:, c]
    return out


def general_motion_torque(result: Any, name: str) -> np.ndarray:
    """(n, 3) N m, in marker J's axes: the torque that general motion ``name``'s angle rows
    put on marker I's part.  Angle b_k's effort tau_k (Result.effort, N m) is the torque
    conjugate to b_k: a virtual rotation delta pi of I (world axes) turns b_k by g_k .
    delta pi (base/rotations.py ``euler_axes``), so the torque is sum_k tau_k g_k."""
    model = result.model
    names = model.motion_names
    given = [(k, names.index(f"{name}.{a}")) for k, a in enumerate(("b1", "b2", "b3"))
             if f"{name}.{a}" in names]
    if not given and not any(f"{name}.{a}" in names for a in "xyz"):
        raise unknown("general motion", name, _general_motions(model))
    tau = np.zeros((len(result), 3))
    if not given:
        return tau
    marker_i, marker_j = next(g[1:3] for g in model.general_motions if g[0] == name)
    _, Ci = result.marker_frame(marker_i)
    _, Cj = result.marker_frame(marker_j)
    xi, yi, xj, yj = (C[:, None, :, k] for C, k in ((Ci, 0), (Ci, 1), (Cj, 0), (Cj, 1)))
    b, cb = euler_angles(xi, yi, xj, yj)
    G = euler_axes(xi, yi, xj, yj, b, cb)[1][:, :, 0, :]                # (n, 3 angles, 3)
    for k, col in given:
        tau += result._effort[:, col, None] * G[:, k]
    return np.einsum("nki,nk->ni", Cj, tau)


def actuator_efforts(result: Any, name: str) -> dict[str, np.ndarray]:
    """{actuator label: (n,) effort} of general motion ``name``'s actuators, from a Result's
    actuator columns (general motions and their actuators in order)."""
    at = 0
    for gm, _, _, labels in result.model.general_motions:
        if gm == name:
            return {lab: result._actuator[:, at + k].copy() for k, lab in enumerate(labels)}
        at += len(labels)
    raise unknown("general motion", name, _general_motions(result.model))


def report_progress(progress: Any, k: int, n: int, result: Any,
                    before: Any = None) -> None:
    """Call progress(frames done, frames in all); a False answer cancels the analysis
    (``before()`` first: frames still buffered go into the result, FrameBuffer.flush)."""
    if progress is not None and progress(k + 1, n) is False:
        if before is not None:
            before()
        t = float(result.times[k])
        raise SolverCancelled(f"cancelled at t = {t:.6g} s (frame {k})", t, (), result.truncated(k + 1))
