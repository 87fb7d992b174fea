"""Linear analysis: the natural frequencies, damping and mode shapes of a mechanism about a
static equilibrium.

About an equilibrium (q0, lambda0) the equations of motion M a = Q(q, v) - J^T lambda with
Phi(q) = 0, linearized in the motions dq = N z that keep the constraints (N a basis of the
null space of the Jacobian of the rows held, so J dq = 0 to first order), read

    M_r z'' + D_r z' + K_r z = 0,   M_r = N^T M N,  D_r = -N^T (dQ/dv) N,
                                    K_r = -N^T d(Q - J^T lambda0)/dq N

(Géradin and Rixen 2015, sec. 2.5 for the linearization about equilibrium and the modal
decomposition; the geometric stiffness d(J^T lambda0)/dq is what keeps the linearization
on the constraint surface, as in a hanging pendulum's restoring moment).  Coordinates are
each part's centre-of-mass shift and small world-axes turn, as the constraint Jacobian's
columns (Haug 1989, ch. 11), so M is each part's mass and world inertia.

The undamped modes solve K_r phi = omega^2 M_r phi (symmetric part of K_r); a damping ratio
is the modal one, phi^T D_r phi / (2 omega phi^T M_r phi), exact for one freedom and for
damping proportional to mass and stiffness, a first-order estimate otherwise; the exact
eigenvalues of the damped system (the state matrix [[0, I], [-M_r^-1 K_r, -M_r^-1 D_r]])
are given beside.  The stiffness comes from central differences of the statics' force
balance (statics_newton.Equilibrium.tangent), the damping from the force elements' exact
Jacobians (kernels/forces.py).  Stops held and joints friction holds at the equilibrium act
as joints (no mode moves them); compliant stops' and friction's damping are not included
(nor the slope of a spring's smoothed Coulomb friction, which is no damping).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...base.errors import MechanismError, finite_number
from ...base.rotations import rotate_world
from ...kernels.constraints import body_arrays
from ...kernels.forces import force_jacobians, inertia_world
from ...model.compile import Model
from ...model.state import State
from ..start.assembly import assemble_pose
from .statics import find_equilibrium

# a stiffness eigenvalue under this share of the largest counts as zero: the mode has no
# stiffness (a free motion), frequency 0
ZERO_STIFFNESS = 1e-9
# relative size of K_r's antisymmetric part above which the loads are called non-conservative
NON_CONSERVATIVE = 1e-6


@dataclass
class Modes:
    """The modes of a mechanism about an equilibrium, slowest first (k of them: its degrees
    of freedom at the pose, motions and stops held not counted).

    ``frequencies`` (k,) Hz: undamped natural frequencies; a negative value marks a mode
    that diverges (the equilibrium is unstable along it; its growth rate is 2 pi |f| 1/s).
    ``damping_ratios`` (k,): modal damping ratios (0 where a mode has no stiffness or
    diverges).  ``eigenvalues`` (2k,) complex 1/s: the damped linearized system's exact
    eigenvalues, s = -zeta omega +- i omega sqrt(1 - zeta^2) for an underdamped mode.
    ``shapes`` (k, parts, 6): each part's centre-of-mass shift (m) and small turn (rad,
    world axes), scaled so that the largest motion of any part (a turn counted times the
    part's size) is 1 m, its largest component positive.  ``parts``: the moving parts'
    names, in the shapes' order; ``time`` (s); ``stable``; ``notes``."""
    time: float
    parts: tuple[str, ...]
    frequencies: np.ndarray
    damping_ratios: np.ndarray
    eigenvalues: np.ndarray
    shapes: np.ndarray
    stable: bool
    notes: list[str] = field(default_factory=list)
    _model: Model | None = field(default=None, repr=False)
    _r: np.ndarray | None = field(default=None, repr=False)
    _p: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.frequencies)

    def _mode(self, mode: Any) -> int:
        """``mode`` as an index 0 .. len - 1 (slowest first), or MechanismError saying the
        range (never numpy's IndexError for a float, nor a negative index counted from the
        end)."""
        if isinstance(mode, bool) or not isinstance(mode, (int, np.integer)):
            raise MechanismError(f"mode must be a whole number, got {mode!r}")
        if not 0 <= mode < len(self):
            valid = f"0 to {len(self) - 1}" if len(self) else "none: the mechanism has no modes"
            raise MechanismError(f"mode {mode} out of range: there are {len(self)} modes "
                                 f"(slowest first, numbered {valid})")
        return int(mode)

    def shape(self, mode: int, part: str) -> tuple[np.ndarray, np.ndarray]:
        """(centre-of-mass shift (3,), turn (3,) world axes) of ``part`` in mode ``mode``."""
        if part not in self.parts:
            raise MechanismError(f"no moving part {part!r} (moving parts: "
                                 f"{', '.join(self.parts) or 'none'})")
        s = self.shapes[self._mode(mode), self.parts.index(part)]
        return s[:3].copy(), s[3:].copy()

    def poses(self, mode: int, amplitude: float, phases) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """The mode's oscillation for viewing: at each phase (rad) the equilibrium moved by
        amplitude sin(phase) times the shape (amplitude in m: the largest part motion), then
        closed onto every joint and motion by least movement.  Returns part -> (positions
        (n, 3) of the part frame's origin, orientations (n, 4) w x y z)."""
        mode = self._mode(mode)
        amplitude = finite_number(amplitude, "modes: amplitude (m)")
        model = self._model
        com = model.body_com
        try:
            phases = np.atleast_1d(np.asarray(phases, dtype=float)).reshape(-1)
        except (TypeError, ValueError):
            raise MechanismError(f"modes: phases must be numbers (rad), got {phases!r}") from None
        if not np.all(np.isfinite(phases)):
            raise MechanismError("modes: phases have a NaN or infinite value")
        pos = np.empty((len(phases), model.nb, 3))
        ori = np.empty((len(phases), model.nb, 4))
        shape = self.shapes[mode]
        for i, ph in enumerate(phases):
            a = amplitude * np.sin(ph)
            r = self._r + a * shape[:, :3]
            p = rotate_world(self._p, a * shape[:, 3:])
            asm = assemble_pose(model, r, p, self.time)
            A = body_arrays(model, asm.r, asm.p)[1][:model.nb]
            pos[i] = asm.r - np.einsum("bij,bj->bi", A, com)
            ori[i] = asm.p
        return {name: (pos[:, b], ori[:, b]) for b, name in enumerate(self.parts)}


def modes(model: Model, state: State) -> Modes:
    """The modes about the static equilibrium found from the state's pose (motions held at
    the state's time; statics.py's equilibrium, stops and friction included)."""
    time = float(state.t)
    found = find_equilibrium(model, state)
    r, p, lam, _, J = found.x
    eqm = found.run.eqm
    notes = list(found.notes)
    T = eqm.tangent(r, p, lam, None, central=True)
    zero = np.zeros((model.nb, 3))
    rg, A, vg, wg = body_arrays(model, r, p, zero, zero)
    _, dQdv = force_jacobians(model, time, rg, A, vg, wg, eqm.ts_ref, coulomb=False)
    N = _free_motions(J[eqm.keep], eqm.rs[eqm.keep], eqm.cw)
    M = _mass_matrix(model, A[:model.nb])
    Mr, Kr, Dr = N.T @ M @ N, -N.T @ T @ N, -N.T @ dQdv @ N
    freq, zeta, shapes, stable = _undamped(Mr, Kr, Dr, N, eqm.cw, model.nb, notes)
    if not stable:
        notes.append("the equilibrium is unstable: the modes with negative frequency "
                     "diverge from it")
    parts = tuple(model.body_part[:model.nb])
    return Modes(time, parts, freq, zeta, _eigenvalues(Mr, Kr, Dr), shapes, stable, notes,
                 model, r, p)


def _free_motions(Jk: np.ndarray, rs: np.ndarray, cw: np.ndarray) -> np.ndarray:
    """A basis (n, d) of the motions dq with J_k dq = 0: the null space of the scaled
    Jacobian (rows in residual units, turns times the part's size), so lengths and angles
    compare; columns in the unscaled coordinates."""
    n = Jk.shape[1]
    if not Jk.size:
        return np.eye(n)
    Js = Jk * rs[:, None] / cw[None, :]
    _, s, vt = np.linalg.svd(Js)
    rank = int(np.sum(s > 1e-9 * s.max())) if s.size else 0
    return vt[rank:].T / cw[:, None]


def _mass_matrix(model: Model, A: np.ndarray) -> np.ndarray:
    """M (6 nb, 6 nb): each part's mass on its centre-of-mass shift and its world inertia
    on its turn."""
    nb = model.nb
    M = np.zeros((nb, 6, nb, 6))
    idx = np.arange(nb)
    M[idx, :3, idx, :3] = model.body_mass[:, None, None] * np.eye(3)
    M[idx, 3:, idx, 3:] = inertia_world(model, A)
    return M.reshape(6 * nb, 6 * nb)


def _undamped(Mr, Kr, Dr, N, cw, nb: int, notes: list):
    """(frequencies Hz, modal damping ratios, shapes (d, nb, 6), stable) of K phi = w^2 M phi."""
    d = Mr.shape[0]
    if d == 0:
        return np.zeros(0), np.zeros(0), np.zeros((0, nb, 6)), True
    Ks = 0.5 * (Kr + Kr.T)
    big = float(np.abs(Ks).max(initial=0.0))
    if np.abs(Kr - Kr.T).max(initial=0.0) > NON_CONSERVATIVE * max(big, 1e-300):
        notes.append("the loads are not conservative (the stiffness is not symmetric): the "
                     "frequencies are those of its symmetric part; the eigenvalues are exact")
    L = np.linalg.cholesky(0.5 * (Mr + Mr.T))
    Li = np.linalg.inv(L)
    w2, U = np.linalg.eigh(Li @ Ks @ Li.T)
    Phi = Li.T @ U                                   # M-orthonormal: Phi^T M Phi = I
    scale = max(float(np.abs(w2).max(initial=0.0)), 1e-300)
    w2 = np.where(np.abs(w2) <= ZERO_STIFFNESS * scale, 0.0, w2)
    omega = np.sqrt(np.abs(w2))
    freq = np.sign(w2) * omega / (2.0 * np.pi)
    modal_c = np.einsum("im,ij,jm->m", Phi, Dr, Phi)
    zeta = np.where(w2 > 0.0, modal_c / (2.0 * np.where(w2 > 0.0, omega, 1.0)), 0.0)
    if np.any(w2 == 0.0):
        notes.append(f"{int(np.sum(w2 == 0.0))} mode(s) have no stiffness (the mechanism is "
                     "free to move along them): frequency 0")
    shapes = (N @ Phi).T.reshape(d, nb, 6)
    sized = shapes * cw.reshape(nb, 6)               # turns times the part's size
    big_at = np.abs(sized.reshape(d, -1)).argmax(axis=1)
    peak = sized.reshape(d, -1)[np.arange(d), big_at]
    shapes = shapes / peak[:, None, None]
    return freq, zeta, shapes, bool(np.all(w2 >= 0.0))


def _eigenvalues(Mr, Kr, Dr) -> np.ndarray:
    """The exact eigenvalues (2d,) of M z'' + D z' + K z = 0, slowest first."""
    d = Mr.shape[0]
    if d == 0:
        return np.zeros(0, complex)
    Mi = np.linalg.inv(Mr)
    S = np.block([[np.zeros((d, d)), np.eye(d)], [-Mi @ Kr, -Mi @ Dr]])
    ev = np.linalg.eigvals(S)
    return ev[np.lexsort((ev.imag, np.abs(ev)))]
