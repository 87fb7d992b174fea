"""Finite-difference checks of every constraint primitive's Jacobian and gamma at random
poses and velocities (Haug 1989's primitives: dot-1, dot-2, at-point, distance, angle)."""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from solver import Mechanism
from solver.kernels.constraints import body_arrays, evaluate, global_jacobian
from solver.model.compile import compile_model
from solver.vocabulary.joints import ANGLE, AT, DIST, DOT1, DOT2, EULER, JOINT_ROWS
from solver.base.rotations import quat_to_matrix, rotate_world, rotvec_to_quat


def random_quat(rng: np.random.Generator) -> np.ndarray:
    q = rng.normal(size=4)
    return q / np.linalg.norm(q)


def two_body_model(kind: str, rng: np.random.Generator, ground_j: bool = False):
    """Two moving parts (or one and the ground) joined by `kind`, random markers, with a
    motion on each coordinate the kind has."""
    m = Mechanism()
    m.add_part("ground", fixed=True, position=rng.normal(size=3), orientation=random_quat(rng))
    for name in ("a", "b"):
        m.add_part(name, mass=1.0 + rng.random(), center_of_mass=rng.normal(size=3) * 0.2,
                   position=rng.normal(size=3), orientation=random_quat(rng))
    m.add_marker("I", "a", position=rng.normal(size=3) * 0.5, orientation=random_quat(rng))
    m.add_marker("J", "ground" if ground_j else "b", position=rng.normal(size=3) * 0.5,
                 orientation=random_quat(rng))
    m.add_joint("j", kind, "I", "J")
    if kind in ("revolute", "cylindrical"):
        m.add_motion("turn", "j", "0.3 + sin(2*t)")
    if kind in ("prismatic", "cylindrical"):
        m.add_motion("push", "j", "0.1*t**2", coordinate="slide")
    return compile_model(m)


def random_state(model, rng):
    nb = model.nb
    r = rng.normal(size=(nb, 3))
    p = np.array([random_quat(rng) for _ in range(nb)])
    v, w = rng.normal(size=(nb, 3)), rng.normal(size=(nb, 3))
    return r, p, v, w


def phi_at(model, r, p):
    return evaluate(model, *body_arrays(model, r, p)[:2]).phi


KINDS = list(JOINT_ROWS)


@pytest.mark.parametrize("ground_j", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_jacobian_matches_finite_differences(kind: str, ground_j: bool) -> None:
    rng = np.random.default_rng(zlib.crc32(f'{kind}{ground_j}'.encode()))
    model = two_body_model(kind, rng, ground_j)
    check_jacobian(model, *random_state(model, rng)[:2])
    assert model.nc >= len(JOINT_ROWS[kind])


def mixed_chain_model(rng: np.random.Generator):
    """One joint of every kind in a chain of parts (joint k between parts k and k+1), with
    motions: the rows of different primitive kinds interleave, so evaluate's grouping by
    kind and the permutation back to model order are exercised."""
    m = Mechanism()
    m.add_part("ground", fixed=True)
    for k in range(len(KINDS)):
        m.add_part(f"p{k}", mass=1.0, position=rng.normal(size=3), orientation=random_quat(rng))
    for k, kind in enumerate(KINDS):
        m.add_marker(f"I{k}", f"p{k}", position=rng.normal(size=3) * 0.5, orientation=random_quat(rng))
        m.add_marker(f"J{k}", "ground" if k == 0 else f"p{k - 1}", position=rng.normal(size=3) * 0.5,
                     orientation=random_quat(rng))
        m.add_joint(f"j{k}", kind, f"I{k}", f"J{k}", **({"length": 0.7} if kind == "distance" else {}))
        if kind in ("revolute", "cylindrical"):
            m.add_motion(f"turn{k}", f"j{k}", "0.3 + sin(2*t)")
        if kind in ("prismatic", "cylindrical"):
            m.add_motion(f"push{k}", f"j{k}", "0.1*t**2", coordinate="slide")
    return compile_model(m)


def test_mixed_rows_match_finite_differences() -> None:
    rng = np.random.default_rng(11)
    model = mixed_chain_model(rng)
    assert not model.plan.identity
    check_jacobian(model, *random_state(model, rng)[:2])
    check_gamma(model, rng)


def check_jacobian(model, r, p) -> None:
    J = global_jacobian(model, evaluate(model, *body_arrays(model, r, p)[:2]).jac)
    h = 1e-6
    Jfd = np.zeros_like(J)
    for b in range(model.nb):
        for k in range(3):
            e = np.zeros((model.nb, 3))
            e[b, k] = h
            Jfd[:, 6 * b + k] = (phi_at(model, r + e, p) - phi_at(model, r - e, p)) / (2 * h)
            Jfd[:, 6 * b + 3 + k] = (phi_at(model, r, rotate_world(p, e))
                                     - phi_at(model, r, rotate_world(p, -e))) / (2 * h)
    # central differences: truncation ~h^2 |Phi'''| ~ 1e-12, rounding ~1e-16/h ~ 1e-10
    np.testing.assert_allclose(J, Jfd, atol=1e-8)


def trajectory(model, r, p, v, w, a, alpha, t):
    """Pose at time t of bodies moving with constant (a, alpha) from (v, w): world rotation
    exp(w t + alpha t^2 / 2) p, whose angular velocity and acceleration at t = 0 are w, alpha."""
    phi = w * t + 0.5 * alpha * t * t
    q = np.array([rotvec_to_quat(x) for x in phi])
    from solver.base.rotations import quat_multiply
    return r + v * t + 0.5 * a * t * t, quat_multiply(q, p)


@pytest.mark.parametrize("ground_j", [False, True])
@pytest.mark.parametrize("kind", KINDS)
def test_gamma_matches_second_difference(kind: str, ground_j: bool) -> None:
    """d2(Phi)/dt2 along a trajectory equals J [a; alpha] + quad (so gamma = -quad)."""
    rng = np.random.default_rng(7 + zlib.crc32(f'{kind}{ground_j}'.encode()))
    check_gamma(two_body_model(kind, rng, ground_j), rng)


def check_gamma(model, rng) -> None:
    r, p, v, w = random_state(model, rng)
    a, alpha = rng.normal(size=(model.nb, 3)), rng.normal(size=(model.nb, 3))
    ev = evaluate(model, *body_arrays(model, r, p, v, w))
    J = global_jacobian(model, ev.jac)
    acc = np.concatenate([a, alpha], axis=1).reshape(-1)
    vel = np.concatenate([v, w], axis=1).reshape(-1)
    h = 1e-4
    ph = [phi_at(model, *trajectory(model, r, p, v, w, a, alpha, s)) for s in (-h, 0.0, h)]
    # angle rows jump by 2 pi across the atan2 cut: unwrap before differencing
    d1 = (ph[2] - ph[0]) / (2 * h)
    d2 = (ph[2] - 2 * ph[1] + ph[0]) / h**2
    # truncation h^2/6 |Phi'''|: ~1e-8 relative to the rates of these unit-scale random states
    np.testing.assert_allclose(J @ vel, d1, rtol=1e-5, atol=1e-6)
    # second difference: truncation h^2/12 |Phi''''| ~ 1e-8, rounding 4e-16/h^2 ~ 4e-8
    np.testing.assert_allclose(J @ acc + ev.quad, d2, rtol=1e-5, atol=2e-5)


@pytest.mark.parametrize("ground_j", [False, True])
def test_body_fixed_angle_rows_match_finite_differences(ground_j: bool) -> None:
    """A general motion's b1, b2, b3 rows (EULER) at random poses and velocities: the
    Jacobian and d2(Phi)/dt2 = J [a; alpha] + quad against differences, as every kind."""
    rng = np.random.default_rng(23 + ground_j)
    m = Mechanism()
    m.add_part("ground", fixed=True, position=rng.normal(size=3), orientation=random_quat(rng))
    for name in ("a", "b"):
        m.add_part(name, mass=1.0, center_of_mass=rng.normal(size=3) * 0.2,
                   position=rng.normal(size=3), orientation=random_quat(rng))
    m.add_marker("I", "a", position=rng.normal(size=3) * 0.5, orientation=random_quat(rng))
    m.add_marker("J", "ground" if ground_j else "b", position=rng.normal(size=3) * 0.5,
                 orientation=random_quat(rng))
    m.add_general_motion("pose", "I", "J", x="0.1*t", b1="t", b2="0.2", b3="-t")
    model = compile_model(m)
    assert np.count_nonzero(model.row_kind == EULER) == 3
    r, p = random_state(model, rng)[:2]
    check_jacobian(model, r, p)
    check_gamma(model, rng)


def test_every_primitive_kind_is_exercised() -> None:
    rng = np.random.default_rng(0)
    kinds = set()
    for kind in KINDS:
        kinds |= set(two_body_model(kind, rng).row_kind.tolist())
    assert kinds == {AT, DOT1, DOT2, DIST, ANGLE}


def test_rotation_helpers() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        q = random_quat(rng)
        A = quat_to_matrix(q)
        np.testing.assert_allclose(A @ A.T, np.eye(3), atol=1e-14)
        assert np.linalg.det(A) == pytest.approx(1.0, abs=1e-14)
        from solver.base.rotations import matrix_to_quat
        q2 = matrix_to_quat(A)
        assert min(np.linalg.norm(q2 - q), np.linalg.norm(q2 + q)) < 1e-13
    phi = np.array([0.3, -0.2, 0.5])
    R = quat_to_matrix(rotvec_to_quat(phi))
    np.testing.assert_allclose(R @ phi, phi, atol=1e-15)          # the axis is fixed
    ang = np.linalg.norm(phi)
    assert np.trace(R) == pytest.approx(1 + 2 * np.cos(ang), abs=1e-14)
    # against an independent implementation (scipy orders quaternions x, y, z, w)
    from scipy.spatial.transform import Rotation
    qs = np.array([random_quat(rng) for _ in range(7)])
    np.testing.assert_allclose(quat_to_matrix(qs), Rotation.from_quat(qs[:, [1, 2, 3, 0]]).as_matrix(),
                               atol=1e-15)


@pytest.mark.parametrize("kind", KINDS)
def test_frames_as_leading_axis_match_one_by_one(kind: str) -> None:
    """evaluate / body_arrays / global_jacobian on a stack of 5 states (the kinematic
    sweep's blocks of frames) give exactly what one state at a time gives."""
    rng = np.random.default_rng(zlib.crc32(f'stack{kind}'.encode()))
    model = two_body_model(kind, rng, ground_j=False)
    states = [random_state(model, rng) for _ in range(5)]
    stacked = [np.stack(x) for x in zip(*states)]
    ev = evaluate(model, *body_arrays(model, *stacked))
    J = global_jacobian(model, ev.jac)
    assert ev.phi.shape == (5, model.nc) and ev.jac.shape == (5, model.nc, 12)
    for f, st in enumerate(states):
        one = evaluate(model, *body_arrays(model, *st))
        np.testing.assert_allclose(ev.phi[f], one.phi, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(ev.jac[f], one.jac, rtol=1e-15, atol=1e-15)
        np.testing.assert_allclose(ev.quad[f], one.quad, rtol=1e-14, atol=1e-14)
        np.testing.assert_allclose(J[f], global_jacobian(model, one.jac), rtol=0, atol=0)


def test_cross_agrees_bit_for_bit_in_both_forms() -> None:
    """cross takes its terms in two gathers for a few rows and the components for many (a
    design study's stacks); a lone state and a stack of states get the same bits only if the
    two forms agree exactly: checked on random rows over 20 decades of magnitude and signs."""
    from solver.base.rotations import CROSS_OUTER, cross
    rng = np.random.default_rng(7)
    many = CROSS_OUTER * 4
    for _ in range(50):
        x = rng.normal(size=(many, 3)) * 10.0 ** rng.uniform(-10, 10, size=(many, 1))
        y = rng.normal(size=(many, 3)) * 10.0 ** rng.uniform(-10, 10, size=(many, 1))
        assert np.array_equal(cross(x, y), np.concatenate(
            [cross(a, b) for a, b in zip(np.split(x, many // 8), np.split(y, many // 8))]))
