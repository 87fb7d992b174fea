"""Input checking shared by every item of the builder: numbers, vectors, unit quaternions,
inertia tensors and names, each failing with a MechanismError that names the item."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.errors import MechanismError, finite_number, shown


def vector(value: Any, n: int, what: str) -> np.ndarray:
    try:
        a = np.array(value, dtype=float).reshape(-1)
    except (TypeError, ValueError):
        raise MechanismError(f"{what} must be {n} numbers, got {value!r}") from None
    if a.size != n:
        raise MechanismError(f"{what} must be {n} numbers, got {a.size}")
    if not np.all(np.isfinite(a)):
        raise MechanismError(f"{what} has a NaN or infinite value: {shown(a)}")
    return a


number = finite_number          # a finite float, or MechanismError naming what it is


def quaternion(value: Any, what: str) -> np.ndarray:
    q = vector(value, 4, what + " (w, x, y, z)")
    n = float(np.linalg.norm(q))
    if n < 1e-12:
        raise MechanismError(f"{what} is a zero quaternion")
    if abs(n - 1.0) > 1e-3:
        raise MechanismError(f"{what} is not a unit quaternion (norm {n:.6g}); "
                             "give (w, x, y, z) with w^2 + x^2 + y^2 + z^2 = 1")
    return q / n


def inertia(value: Any, mass: float, what: str) -> np.ndarray:
    if value is None:  # a solid sphere of radius 0.1 m of the part's mass
        return np.eye(3) * 0.4 * mass * 0.01
    try:
        a = np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise MechanismError(f"{what} must be (Ixx, Iyy, Izz) or a 3x3 matrix of numbers "
                             f"(kg m^2), got {value!r}") from None
    if a.size == 3:
        a = np.diag(a.reshape(-1))
    if a.shape != (3, 3):
        raise MechanismError(f"{what} must be (Ixx, Iyy, Izz) or a 3x3 matrix, got shape {a.shape}")
    if not np.all(np.isfinite(a)):
        raise MechanismError(f"{what} has a NaN or infinite value")
    scale = float(np.max(np.abs(a))) or 1.0
    if np.max(np.abs(a - a.T)) > 1e-9 * scale:
        raise MechanismError(f"{what} is not symmetric")
    a = 0.5 * (a + a.T)
    lam = np.linalg.eigvalsh(a)
    if lam[0] <= 0.0:
        raise MechanismError(f"{what} is not positive definite (principal moments "
                             f"{shown(lam)} kg m^2: each must be above 0)")
    if lam[2] > lam[0] + lam[1] + 1e-9 * lam[2]:
        raise MechanismError(f"{what} breaks the triangle inequality: principal moments "
                             f"{shown(lam)} kg m^2 (the largest must not exceed the sum of the "
                             "others)")
    return a


def check_name(name: Any, what: str) -> str:
    if not isinstance(name, str) or not name.strip():
        raise MechanismError(f"{what} name must be a non-empty string, got {name!r}")
    return name


def nonnegative(value: Any, what: str) -> float:
    """A finite float >= 0, or MechanismError naming ``what``."""
    x = number(value, what)
    if x < 0.0:
        raise MechanismError(f"{what} must not be negative, got {x}")
    return x
