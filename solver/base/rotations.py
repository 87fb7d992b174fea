"""Euler-parameter (unit quaternion) utilities, vectorized over leading axes.

Quaternions are ordered (w, x, y, z) like Blender's ``mathutils.Quaternion``; they are the
Euler parameters (e0, e1, e2, e3) of Koh's OndselSolver notes (there written E4, E1, E2, E3).  A rotation
matrix ``A`` maps body-frame components to world components: ``a = A @ a_body``.
"""
from __future__ import annotations

import numpy as np

from .elementary import arctan2
from .einsum import einsum


def _quadratic_form() -> np.ndarray:
    """(16, 9): A's entries as a quadratic form in p, A_ij = sum_ab T_ab,ij p_a p_b, from
    A = (e0^2 - e.e) I + 2 e e^T + 2 e0 [e x] (Haug eq. 6.2.26 with 2 e0^2 - 1 written
    e0^2 - e.e for a unit p)."""
    T = np.zeros((4, 4, 3, 3))
    for a in range(4):
        T[a, a] += np.eye(3) * (1.0 if a == 0 else -1.0)
    for i in range(3):
        for j in range(3):
            T[1 + i, 1 + j, i, j] += 1.0
            T[1 + j, 1 + i, i, j] += 1.0
    # [e x] = [[0, -e3, e2], [e3, 0, -e1], [-e2, e1, 0]]: entry (i, j) is sign * e_k
    for (i, j), (k, sign) in {(0, 1): (3, -1), (1, 0): (3, 1), (0, 2): (2, 1), (2, 0): (2, -1),
                              (1, 2): (1, -1), (2, 1): (1, 1)}.items():
        T[0, k, i, j] += sign
        T[k, 0, i, j] += sign
    return T.reshape(16, 9)


_Q2M = _quadratic_form()


def unit_quaternions(p: np.ndarray) -> np.ndarray:
    """p (..., 4) scaled to unit length, as every evaluation of a dynamic run's state takes
    it (its right-hand side, projections and event functions: one pose, the same bits)."""
    return p / np.sqrt((p * p) @ _ONES4)[..., None]


_ONES4 = np.ones(4)


def quat_to_matrix(p: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Rotation matrices (..., 3, 3) of unit quaternions p (..., 4), w first.

    A = (2 e0^2 - 1) I + 2 (e e^T + e0 [e x])  (Haug eq. 6.2.26, Nikravesh eq. 4.38),
    evaluated as one quadratic form in p (the outer products p p^T times a constant
    matrix: three array operations for any number of quaternions).  ``out`` (..., 9): the
    matrices' entries, row by row, are written there instead (and it is returned).
    """
    p = np.asarray(p, dtype=float)
    if p.ndim > 1 and p.shape[-2] > QUATS_OUTER:   # many bodies: entry by entry
        A = np.empty(p.shape[:-1] + (3, 3))
        _entries(p, A)
        if out is None:
            return A
        out[...] = A.reshape(out.shape)
        return out
    # the outer products by einsum: half the time of a broadcast product on a study's stack
    pp = einsum("...a,...b->...ab", p, p).reshape(p.shape[:-1] + (16,))
    # numpy's einsum, not BLAS's matmul: an FMA kernel's rows depend on how many rows the
    # call has (OpenBLAS's Haswell dgemm: 3 quaternions' matrices differ in the last bit
    # from the same 3 among 4), and a right-hand side's bodies, a projection's bodies with
    # the ground and a design study's stack of them must turn alike
    if out is None:
        return einsum("...k,kj->...j", pp, _Q2M).reshape(p.shape[:-1] + (3, 3))
    if out.flags.c_contiguous:
        return einsum("...k,kj->...j", pp, _Q2M, out=out)
    # a strided out (a study's bodies without the ground's row): einsum writing there walks
    # the stack matrix by matrix, 2.4 times as long as into fresh memory and a copy
    out[...] = einsum("...k,kj->...j", pp, _Q2M)
    return out


QUATS_OUTER = 512      # bodies up to which quat_to_matrix takes the outer products (at
#                        11,000 entry by entry is 7x faster).  Counted along the bodies' axis
#                        only, never the stacked states': the two forms differ in the last bit,
#                        and a design study's variants must get the same numbers however they
#                        are batched (an executor's split, the local run)


def _entries(p: np.ndarray, A: np.ndarray) -> None:
    """A (..., 3, 3) of unit quaternions p (..., 4), Haug eq. 6.2.26 entry by entry."""
    e0, e1, e2, e3 = p[..., 0], p[..., 1], p[..., 2], p[..., 3]
    d0 = e0 * e0
    A[..., 0, 0] = 2.0 * (d0 + e1 * e1) - 1.0
    A[..., 1, 1] = 2.0 * (d0 + e2 * e2) - 1.0
    A[..., 2, 2] = 2.0 * (d0 + e3 * e3) - 1.0
    for i, j, k, s in ((0, 1, 3, -1.0), (0, 2, 2, 1.0), (1, 2, 1, -1.0)):
        # A_ij = 2 (e_i+1 e_j+1 + s e0 e_k), A_ji = 2 (e_i+1 e_j+1 - s e0 e_k)
        q, r = p[..., i + 1] * p[..., j + 1], s * (e0 * p[..., k])
        A[..., i, j] = 2.0 * (q + r)
        A[..., j, i] = 2.0 * (q - r)


def matrix_to_quat(A: np.ndarray) -> np.ndarray:
    """Unit quaternions (..., 4), w >= 0, of rotation matrices (..., 3, 3).

    Shepperd's method, vectorized: of the four candidate divisors 1 + tr, 1 + 2 A_ii - tr
    the largest is used for each matrix, so no division by a small number occurs.
    """
    A = np.asarray(A, dtype=float)
    shape = A.shape[:-2]
    R = A.reshape(-1, 3, 3)
    d0, d1, d2 = R[:, 0, 0], R[:, 1, 1], R[:, 2, 2]
    tr = d0 + d1 + d2
    # 4 q q^T entries: diagonal candidates and the antisymmetric / symmetric parts
    cand = np.stack([1 + tr, 1 + 2 * d0 - tr, 1 + 2 * d1 - tr, 1 + 2 * d2 - tr], axis=1)
    k = np.argmax(cand, axis=1)
    w4 = np.stack([cand[:, 0], R[:, 2, 1] - R[:, 1, 2], R[:, 0, 2] - R[:, 2, 0], R[:, 1, 0] - R[:, 0, 1]], 1)
    x4 = np.stack([R[:, 2, 1] - R[:, 1, 2], cand[:, 1], R[:, 0, 1] + R[:, 1, 0], R[:, 0, 2] + R[:, 2, 0]], 1)
    y4 = np.stack([R[:, 0, 2] - R[:, 2, 0], R[:, 0, 1] + R[:, 1, 0], cand[:, 2], R[:, 1, 2] + R[:, 2, 1]], 1)
    z4 = np.stack([R[:, 1, 0] - R[:, 0, 1], R[:, 0, 2] + R[:, 2, 0], R[:, 1, 2] + R[:, 2, 1], cand[:, 3]], 1)
    rows = np.stack([w4, x4, y4, z4], axis=1)              # (n, 4, 4): row i is 4 q_i q
    q = rows[np.arange(len(k)), k]                         # 4 q_k q, with q_k the largest
    q = q / np.linalg.norm(q, axis=1, keepdims=True)
    q *= np.where(q[:, :1] < 0, -1.0, 1.0)
    return q.reshape(shape + (4,))


def continuous_quats(q: np.ndarray) -> np.ndarray:
    """Quaternions (n, 4) with signs flipped so that neighbours have a positive dot product
    (q and -q are the same rotation; keyframe interpolation needs the short way)."""
    q = np.array(q, dtype=float)
    if len(q) > 1:
        s = np.sign(np.einsum("ij,ij->i", q[1:], q[:-1]))
        s[s == 0] = 1.0
        q[1:] *= np.cumprod(s)[:, None]
    return q


def quat_multiply(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product p * q (..., 4): the rotation q followed by p."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    pw, pv = p[..., :1], p[..., 1:]
    qw, qv = q[..., :1], q[..., 1:]
    w = pw * qw - np.sum(pv * qv, axis=-1, keepdims=True)
    v = pw * qv + qw * pv + cross(pv, qv)
    return np.concatenate([w, v], axis=-1)


def quat_rate(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    """dp/dt = 1/2 [0, w] * p (..., 4) for world-axes angular velocities w (..., 3)
    (the Hamilton product of (0, w) and p): (-w . e, e0 w + w x e) / 2 = G(p) w / 2 with
    G = [-e^T; e0 I - [e x]] (4 x 3), built from p by one gather and a sign."""
    G = p.take(_RATE_AT_FLAT, axis=-1).reshape(p.shape + (3,)) * _RATE_SIGN
    # (G w as products and one product with ones: the same bits for a body in a stack of
    # any size; G @ w[..., None] rounded a lone body apart from a stack of them).  The
    # bodies' rows as one matrix a state: one BLAS call a state, not one a body (a design
    # study's 100 chains of 10: 48 -> 35 us), each row's sum of three taken alike
    X = G * w[..., None, :]
    return (X.reshape(X.shape[:-3] + (-1, 3)) @ _ONES3).reshape(X.shape[:-1])


# G(p) / 2 of quat_rate: rows (-e1, -e2, -e3), (e0, e3, -e2), (-e3, e0, e1), (e2, -e1, e0)
_RATE_AT = np.array([[1, 2, 3], [0, 3, 2], [3, 0, 1], [2, 1, 0]])
_RATE_AT_FLAT = _RATE_AT.reshape(-1)
_RATE_SIGN = 0.5 * np.array([[-1.0, -1.0, -1.0], [1.0, 1.0, -1.0], [-1.0, 1.0, 1.0],
                             [1.0, -1.0, 1.0]])


def rotvec_to_quat(phi: np.ndarray) -> np.ndarray:
    """Exponential map: quaternion (..., 4) of rotation vectors phi (..., 3) (axis times angle, radians)."""
    phi = np.asarray(phi, dtype=float)
    ang = np.linalg.norm(phi, axis=-1, keepdims=True)
    half = 0.5 * ang
    # sin(half)/ang, with its Taylor series near zero
    small = ang < 1e-6
    k = np.where(small, 0.5 - ang**2 / 48.0, np.sin(half) / np.where(small, 1.0, ang))
    return np.concatenate([np.cos(half), k * phi], axis=-1)


def quat_angle(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Approximate rotation angle (rad) between unit quaternions p, q (..., 4), exact to
    first order: 2 min(|p - q|, |p + q|) (q and -q are the same rotation)."""
    d, s = p - q, p + q          # (the norms as np.linalg.norm takes them, without its wrapper)
    return 2.0 * np.minimum(np.sqrt(np.add.reduce(d * d, axis=-1)),
                            np.sqrt(np.add.reduce(s * s, axis=-1)))


def rotate_world(p: np.ndarray, phi: np.ndarray) -> np.ndarray:
    """Quaternions p (..., 4) turned further by world-axes rotation vectors phi (..., 3),
    renormalized: exp(phi) * p = cos(|phi|/2) p + sin(|phi|/2)/|phi| [0, phi] * p, the
    product [0, phi] * p = G(p) phi by quat_rate's gather (fewer calls than a general
    Hamilton product on the Newton steps' many small updates)."""
    ang = np.sqrt((phi * phi) @ _ONES3)[..., None]
    half = 0.5 * ang
    small = ang < 1e-6            # sin(half)/ang by its Taylor series near zero
    few = np.count_nonzero(small)   # (all or none of them: that form alone, the same bits;
    if few == 0:                    # a Newton's last steps are all small, its first none)
        k = np.sin(half) / ang
    elif few == small.size:
        k = 0.5 - ang * ang / 48.0
    else:
        k = np.where(small, 0.5 - ang * ang / 48.0, np.sin(half) / np.where(small, 1.0, ang))
    q = np.cos(half) * p + (2.0 * k) * quat_rate(p, phi)
    return q / np.sqrt((q * q) @ _ONES4)[..., None]


_ONES3, _ONES4 = np.ones(3), np.ones(4)


def own_loop(shape: tuple[int, ...]) -> np.ndarray:
    """An empty float array of ``shape`` that numpy 1.x's matmul does not hand to BLAS (every
    other element of a buffer twice as long: no unit stride), so that a stack of small
    products with it, or into it, runs numpy's own loop.  One BLAS call per matrix costs
    about 50 ns, numpy's loop on a 3x3 product about 15 (numpy 1.26, a study's stacks of
    1,000: 3x3 products 4x, 6x3 by 3x3 1.5x, 3x3 by 3-vectors 2x faster; the chain study
    0.91 of its time).  The loop is the same whatever the stack's size, so a lone state and a
    stack of them get the same bits, as with BLAS.  On numpy 2 (2.4 measured: the 6x3 by 3x3
    stack 15% slower through a strided buffer, the study 2% slower) a plain array."""
    if not _STRIDED_LOOP:
        return np.empty(shape)
    return np.empty(tuple(shape) + (2,))[..., 0]


_STRIDED_LOOP = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def congruence(A: np.ndarray, M: np.ndarray) -> np.ndarray:
    """A M A^T for stacks of 3x3 matrices (an inertia tensor turned to world axes), both
    products in numpy's own loop (``own_loop``: A M written to a strided buffer); matmul
    is several times faster than a three-operand einsum here."""
    AM = np.matmul(A, M, out=own_loop(np.broadcast(A, M).shape))
    return AM @ A.swapaxes(-1, -2)


def skew(v: np.ndarray) -> np.ndarray:
    """Cross-product matrices [v x] (..., 3, 3) so that skew(a) @ b == cross(a, b)."""
    v = np.asarray(v, dtype=float)
    S = np.zeros(v.shape[:-1] + (3, 3))
    S[..., 0, 1], S[..., 0, 2] = -v[..., 2], v[..., 1]
    S[..., 1, 0], S[..., 1, 2] = v[..., 2], -v[..., 0]
    S[..., 2, 0], S[..., 2, 1] = -v[..., 1], v[..., 0]
    return S


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Row-wise cross product of (..., 3) arrays (broadcast).  Up to CROSS_OUTER vectors:
    the six products a_i b_j of the three components' two terms as one product of two
    gathers (``_TERM_A``, ``_TERM_B``) and their difference, four numpy calls, bit-identical
    to a1 b2 - a2 b1 etc. and about 7x faster than np.cross on the small arrays of the
    per-step hot path (numpy's matmul, which the outer products a_i b_j times the
    Levi-Civita symbol took, costs as much as the rest together there); beyond, component
    by component (9 products over the whole arrays: at 1,000 vectors 3x faster than the
    outer products, at the (variants, frames) blocks of a design study 8x; both forms give
    the same bits)."""
    a, b = np.asarray(a), np.asarray(b)
    if max(a.size, b.size) <= 3 * CROSS_OUTER:
        terms = a.take(_TERM_A, axis=-1) * b.take(_TERM_B, axis=-1)
        return terms[..., :3] - terms[..., 3:]
    out = np.empty(np.broadcast(a, b).shape, dtype=np.promote_types(a.dtype, b.dtype))
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    np.subtract(a1 * b2, a2 * b1, out=out[..., 0])
    np.subtract(a2 * b0, a0 * b2, out=out[..., 1])
    np.subtract(a0 * b1, a1 * b0, out=out[..., 2])
    return out


CROSS_OUTER = 128      # vectors up to which cross() takes the outer products (measured)


# (a x b)_k = a_i b_j - a_j b_i for (i, j, k) = (1, 2, 0), (2, 0, 1), (0, 1, 2): the
# components of a and b in the three positive terms, then in the three negative ones
_TERM_A, _TERM_B = np.array([1, 2, 0, 2, 0, 1]), np.array([2, 0, 1, 1, 2, 0])


_NEXT, _AFTER = np.array([1, 2, 0]), np.array([2, 0, 1])


def euler_angles(xi: np.ndarray, yi: np.ndarray, xj: np.ndarray, yj: np.ndarray):
    """(..., 3) the body-fixed 1-2-3 angles (b1, b2, b3) of frame I relative to frame J
    from their x and y axes in world components (..., 3): C_J^T C_I = Rx(b1) Ry(b2) Rz(b3)
    (turn about J's x by b1, then about the new y by b2, then about the new z by b3; Adams'
    B1, B2, B3), with R = C_J^T C_I, b1 = atan2(-R12, R22), b2 = atan2(R02, cos b2),
    b3 = atan2(-R01, R00); and (...) cos b2 = |(R12, R22)| >= 0, zero at the singular
    b2 = +-pi/2, where b1 and b3 turn about one axis."""
    zi = cross(xi, yi)
    R12, R22 = np.sum(yj * zi, axis=-1), np.sum(cross(xj, yj) * zi, axis=-1)
    cb = np.hypot(R12, R22)
    b = np.stack([arctan2(-R12, R22), arctan2(np.sum(xj * zi, axis=-1), cb),
                  arctan2(-np.sum(xj * yi, axis=-1), np.sum(xj * xi, axis=-1))], axis=-1)
    return b, cb


def euler_axes(xi: np.ndarray, yi: np.ndarray, xj: np.ndarray, yj: np.ndarray,
               b: np.ndarray, cb: np.ndarray):
    """The rotation axes of the angles ``b`` (euler_angles; vectors (..., n, 3)) and their
    dual basis, each (..., 3, n, 3) (axis -3: angle k).  The relative angular velocity is
    w_I - w_J = sum_k e_k b_k' with e1 = x_J, e2 = cos b1 y_J + sin b1 z_J (the y axis after
    the first turn), e3 = z_I; so b_k' = g_k . (w_I - w_J) with g_k = e_{k+1} x e_{k+2} /
    (e1 . e2 x e3), and e1 . e2 x e3 = cos b2 (``cb``): singular at b2 = +-pi/2."""
    c1, s1 = np.cos(b[..., 0])[..., None], np.sin(b[..., 0])[..., None]
    E = np.stack([xj, c1 * yj + s1 * cross(xj, yj), cross(xi, yi)], axis=-3)
    G = cross(E[..., _NEXT, :, :], E[..., _AFTER, :, :]) / cb[..., None, :, None]
    return E, G


def joint_angle(xi: np.ndarray, xy: np.ndarray):
    """The joint angle of x_I from x_J about z_J, theta = atan2(x_I . y_J, x_I . x_J), as
    motions and torsion springs use it (docs/conventions.md), and its gradient
    g = dtheta/dpi_I = -dtheta/dpi_J in world axes; xi (..., n, 3), xy (..., 2, n, 3): x_J
    and y_J (one product each for both).  Returns (theta, g, c, s, rho, gc, gs) with
    c = x_I . x_J, s = x_I . y_J, rho = c^2 + s^2 and gc, gs their gradients in pi_I,
    which the second derivative needs."""
    x = xi[..., None, :, :]
    cs, gcs = (x * xy) @ _ONES3, cross(x, xy)           # gc, gs = d c, d s / d pi_I
    c, s, gc, gs = cs[..., 0, :], cs[..., 1, :], gcs[..., 0, :, :], gcs[..., 1, :, :]
    rho = c * c + s * s
    both = cs[..., None] * gcs[..., ::-1, :, :]             # c gs and s gc, one product
    g = (both[..., 0, :, :] - both[..., 1, :, :]) / rho[..., None]
    return arctan2(s, c), g, c, s, rho, gc, gs
