"""Joint friction in dynamics (vocabulary/friction.py has the model; issue 13).

Slipping, an element's generalized force along its coordinate q is

    Q_q = -d (mu(|q'|) L + preload) - c q',

d the direction of slip (+-1, held through each integrator step so that the right-hand side
stays smooth within it; the instant q' reaches zero is located like an impact), L the load
from the joint's reaction (``loads``) and mu the static coefficient below the transition
speed, the dynamic one above 1.5 times it (a cubic step between).  The load depends on the
multipliers, which depend on the friction: the augmented system is solved again with the
friction of the last solve until that friction reproduces itself to 1e-12 (at most
``ITERATIONS`` times; the friction moves the reaction by a fraction of itself, so the loop
contracts fast: a pendulum's pin load does not depend on its friction at all, one solve).

Sticking: the coordinate's row is held at its value (``Slip.lock``) and its multiplier is
the friction force, -lambda along q; the joint sticks at a zero crossing of q' when
|lambda| <= mu_s L + preload, and slips again (direction sign(lambda)) when it exceeds it.
"""
from __future__ import annotations

import numpy as np

from ..base.rotations import cross
from ..kernels.constraints import row_forces, row_rates
from ..model.compile import Model

ITERATIONS = 8


def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def rates(model: Model, jac: np.ndarray, vel: np.ndarray) -> np.ndarray:
    """(..., n) the friction coordinates' rates q' from the rows' Jacobian blocks (..., nc, W)
    and body velocities vel (..., nb+1, 6) (ground last, zero)."""
    return row_rates(model, model.frictions.rows, jac, vel)


def loads(model: Model, lam: np.ndarray, jac: np.ndarray, A: np.ndarray) -> np.ndarray:
    """(..., n) each element's load L: the limit of its friction is mu L + preload (module
    docstring and vocabulary/friction.py), from its joint's reaction at marker I."""
    fp = model.frictions
    out = np.empty(lam.shape[:-1] + (len(fp.names),))
    for k, rows in enumerate(fp.joint_rows):
        g = -lam[..., rows, None] * jac[..., rows, :6]                 # on body I, about its COM
        F, Mc = g[..., :3].sum(axis=-2), g[..., 3:].sum(axis=-2)
        arm = np.einsum("...ij,j->...i", A[..., fp.bi[k], :, :], fp.point_i[k])
        M = Mc - cross(arm, F)
        z = np.einsum("...ij,j->...i", A[..., fp.bj[k], :, :], fp.axes_j[k][:, 2])
        Fz, Mz = _dot(F, z), _dot(M, z)
        Fxy = np.linalg.norm(F - Fz[..., None] * z, axis=-1)
        Mxy = np.linalg.norm(M - Mz[..., None] * z, axis=-1)
        bend = Mxy / fp.length[k] if fp.length[k] > 0.0 else 0.0 * Mxy
        if fp.is_angle[k]:
            out[..., k] = fp.radius[k] * (Fxy + bend) + fp.arm[k] * np.abs(Fz)
        else:
            out[..., k] = Fxy + bend
    return out


def coefficient(model: Model, speed: np.ndarray) -> np.ndarray:
    """mu(|q'|): static up to the transition speed, dynamic from 1.5 times it, a cubic
    step (Adams STEP) between."""
    fp = model.frictions
    s = np.clip((np.abs(speed) - fp.speed) / (0.5 * fp.speed), 0.0, 1.0)
    return fp.static + (fp.dynamic - fp.static) * s * s * (3.0 - 2.0 * s)


def slip_force(model: Model, speed: np.ndarray, load: np.ndarray, direction: np.ndarray) -> np.ndarray:
    """(..., n) Q_q of slipping elements (module docstring)."""
    fp = model.frictions
    return -direction * (coefficient(model, speed) * load + fp.preload) - fp.viscous * speed


def limit(model: Model, load: np.ndarray) -> np.ndarray:
    """The largest friction a sticking element holds: mu_s L + preload."""
    fp = model.frictions
    return fp.static * load + fp.preload


def body_forces(model: Model, Qq: np.ndarray, jac: np.ndarray, nbg: int) -> np.ndarray:
    """(..., nb+1, 6) the generalized forces Q_q grad q on the bodies (ground row last)."""
    return row_forces(model, model.frictions.rows, Qq, jac, nbg)


class Slip:
    """Run state of the friction elements: slip directions, which stick, and where."""

    def __init__(self, model: Model) -> None:
        n = len(model.frictions.names)
        self.m = model
        self.direction = np.ones(n)
        self.stuck = np.zeros(n, dtype=bool)
        self.lock = np.zeros(n)          # the held coordinate of a sticking element
        self.frozen = np.zeros(n, dtype=bool)   # a resting stop holds the coordinate

    def rows(self) -> np.ndarray:
        return self.m.frictions.rows[self.stuck]

    def free(self) -> np.ndarray:
        """Slipping elements whose speed's zero crossing is an event: not sticking, not held
        by a motion or a resting stop."""
        return ~self.stuck & ~self.frozen & ~self.m.frictions.held
