"""Part frames and pose matrices (Blender units in and out; the caller applies the unit scale).

A part's frame is its object's world matrix with the scale taken out: the linear part is
L = R @ S (polar decomposition, ``part_frame_from_matrix``), R the part axes and S the
scale and shear in them; the origin is the object's origin.  The solver moves that rigid
frame; Blender shows a solved pose as the matrix [R(q) @ S, position].  With a negative
scale the frame's axes differ from the object's rotation channel (a reflection is folded
into S), so the keys are read back from that matrix (``basis_pose``) with the
object's scale channel kept.  Markers are given to the solver in their part's frame, their
drawn z axis kept whatever their scale's signs or shear, and x squared to it
(``marker_frames``); a parented part
is keyed in its parent's space.
Each part's frame is computed once when the scene is read (``part_frame``) and passed on.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...solver import matrix_to_quat, part_frame_from_matrix, quat_to_matrix


@dataclass(frozen=True)
class PartFrame:
    """A part as designed: its world matrix and the rigid frame in it."""
    matrix: np.ndarray         # (4, 4) world matrix, Blender units, scale included
    position: np.ndarray       # (3,) frame origin in world, Blender units
    orientation: np.ndarray    # (4,) w x y z, part axes in world axes
    stretch: np.ndarray        # (3, 3) S, symmetric: matrix[:3, :3] = R(orientation) @ S

    @property
    def rotation(self) -> np.ndarray:
        """(3, 3) R: part axes (columns) in world axes."""
        return quat_to_matrix(self.orientation)


def part_frame(matrix: np.ndarray) -> PartFrame:
    """The PartFrame of an object with ``matrix_world`` = ``matrix`` (4, 4); ValueError for a
    singular or non-affine matrix (a part scaled to zero)."""
    matrix = np.asarray(matrix, dtype=float)
    position, orientation, stretch = part_frame_from_matrix(matrix)
    return PartFrame(matrix, position, orientation, stretch)


def part_frames_of(matrices: np.ndarray) -> list[PartFrame | None]:
    """``part_frame`` of each of m world matrices (m, 4, 4), the polar decompositions in
    one set of numpy calls whatever m: None where ``part_frame`` raises (a non-finite,
    non-affine or singular matrix)."""
    matrices = np.asarray(matrices, dtype=float).reshape(-1, 4, 4)
    position, orientation, stretch, valid = rigid_frames(matrices)
    return [PartFrame(m, p, q, s) if ok else None
            for m, p, q, s, ok in zip(matrices, position, orientation, stretch, valid)]


def rigid_frames(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``part_frame_from_matrix`` (solver/base/mass_properties.py) of m matrices (m, 4, 4)
    in one set of numpy calls, each row's numbers those of that matrix alone: (position
    (m, 3), orientation (m, 4) w x y z, stretch S (m, 3, 3), valid (m,)), valid False (and
    that row meaningless) where a matrix is not finite, not affine or singular.  The
    linear part L = R S by the polar decomposition of L (of -L, S negated, for a mirroring
    L, as Blender's Matrix.decompose), from the singular value decomposition L = W sig V^T:
    R = W V^T, S = V sig V^T (Higham 1986, the polar factors from the SVD)."""
    M = np.asarray(matrices, dtype=float).reshape(-1, 4, 4)
    finite = np.all(np.isfinite(M), axis=(1, 2))
    M = np.where(finite[:, None, None], M, np.eye(4))
    affine = np.all(np.abs(M[:, 3] - (0.0, 0.0, 0.0, 1.0)) <= 1e-12, axis=1)
    sv = np.linalg.svd(M[:, :3, :3], compute_uv=False)
    valid = finite & affine & (sv[:, -1] > 1e-12 * sv[:, 0])
    L = np.where(valid[:, None, None], M[:, :3, :3], np.eye(3))
    sgn = np.where(np.linalg.det(L) > 0, 1.0, -1.0)[:, None, None]
    W, sig, Vt = np.linalg.svd(sgn * L)
    S = sgn * (np.swapaxes(Vt, -1, -2) * sig[:, None, :]) @ Vt
    return (M[:, :3, 3].copy(), matrix_to_quat(W @ Vt), 0.5 * (S + np.swapaxes(S, -1, -2)),
            valid)


# Blender's parent types (Object.parent_type) whose parent matrix is the parent object's
# world matrix (Armature and Lattice deform meshes, but move any child as Object does), and
# those that follow the parent mesh's vertices
OBJECT_PARENTING = ("OBJECT", "ARMATURE", "LATTICE")
VERTEX_PARENTING = ("VERTEX", "VERTEX_3")


def vertex_parent_matrix(parent_type: str, parent_design: np.ndarray, parent_now: np.ndarray,
                         child_now: np.ndarray, local: np.ndarray) -> np.ndarray:
    """The (4, 4) matrix a vertex parent relation applies to its child (world = it @
    ``local``, local = matrix_parent_inverse @ matrix_basis) with the parent object's world
    matrix at ``parent_design`` instead of ``parent_now``, where Blender shows the child at
    ``child_now`` (its matrix_world).  Blender's VERTEX parent matrix is a translation to the
    vertex's world position (the parent's rotation and scale are not applied); VERTEX_3's is
    the parent's world matrix times a frame on the triangle of three vertices, in the
    parent's object space.  Both come exactly from where Blender puts the child now: the
    relation's matrix now is child_now @ local^-1, and parent_now^-1 times it is the vertex
    (or the triangle's frame) in the parent's object space, which stays there."""
    if parent_type not in VERTEX_PARENTING:
        raise ValueError(f"not a vertex parent type: {parent_type}")
    in_parent = np.linalg.inv(parent_now) @ child_now @ np.linalg.inv(local)
    if parent_type == "VERTEX_3":
        return parent_design @ in_parent
    out = np.eye(4)
    out[:, 3] = parent_design @ in_parent[:, 3]
    return out


def marker_frames(matrices: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(origins (m, 3), orientations (m, 4) w x y z, valid (m,)) of m markers' world
    matrices (m, 4, 4), in one set of numpy calls: the right-handed frame whose z axis (the
    joint axis) is the z arrow Blender draws and whose x axis (an angle's zero) is the drawn
    x turned the least to be square to it, y = z x x, the scale dropped.  For a matrix
    without shear (a turn and a scale, its signs any) these are the drawn axes themselves:
    a mirrored marker (a negative scale on one or three axes, its own or a parent's) keeps
    its drawn z and x, where a polar decomposition would turn all three round.  A sheared
    matrix (a marker turned on a part scaled unequally since) draws axes that are not square
    to one another: the polar factor, the turn before the stretch, would put the joint's
    axis off the drawn arrow (18 deg for a marker turned 45 deg on a part stretched twice
    along it).  valid as rigid_frames' (a non-finite, non-affine or singular matrix)."""
    M = np.array(matrices, dtype=float).reshape(-1, 4, 4)
    _, _, _, valid = rigid_frames(M)
    L = np.where(valid[:, None, None], M[:, :3, :3], np.eye(3))
    z = L[:, :, 2] / np.linalg.norm(L[:, :, 2], axis=-1, keepdims=True)
    x = L[:, :, 0] - np.einsum("mi,mi->m", L[:, :, 0], z)[:, None] * z
    x /= np.linalg.norm(x, axis=-1, keepdims=True)
    R = np.stack([x, np.cross(z, x), z], axis=-1)
    return M[:, :3, 3].copy(), matrix_to_quat(R), valid


def drift(worlds: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(distances (n,), angles (n,) rad) of the frames that n world matrices (n, 4, 4) draw
    (``marker_frames``: the scale dropped, a mirrored matrix's drawn z and x kept) from the
    first one's: how far each origin is from the first and how far its axes are turned
    from the first's (the angle of the relative rotation, 2 acos |q0 . qk|)."""
    position, orientation, _ = marker_frames(worlds)
    dot = np.abs(orientation @ orientation[0])
    return (np.linalg.norm(position - position[0], axis=-1),
            2.0 * np.arccos(np.clip(dot, 0.0, 1.0)))


def marker_frame(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``marker_frames`` of one world matrix (4, 4): (origin (3,), orientation (4,) w x y
    z); ValueError for a non-finite, non-affine or singular matrix (a scale of zero)."""
    position, orientation, valid = marker_frames(matrix)
    if not valid[0]:
        raise ValueError("a marker's matrix is singular (a scale of zero) or not affine")
    return position[0], orientation[0]


def marker_pose(part: PartFrame, world: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(position (3,) in Blender units, orientation (4,) w x y z) of a marker in its part's
    frame, from the marker's world matrix ``world`` with the part as designed (its parent
    relation applied to the part's design matrix, not an animated pose); the marker's own
    scale is dropped (``marker_frame``: its drawn z and x axes kept)."""
    pm, qm = marker_frame(world)
    return marker_in_part(part, pm, qm)


def marker_in_part(part: PartFrame, position: np.ndarray,
                   orientation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``marker_pose`` of a marker whose world frame is already known: its origin
    ``position`` (3,) and axes ``orientation`` (4,) w x y z, in world (marker_frames)."""
    Rp = part.rotation
    return Rp.T @ (position - part.position), matrix_to_quat(Rp.T @ quat_to_matrix(orientation))


def pose_matrices(position: np.ndarray, orientation: np.ndarray, stretch: np.ndarray,
                  scale: float) -> np.ndarray:
    """World matrices (..., 4, 4) in Blender units of a part at solver poses: ``position``
    (..., 3) in metres (divided by ``scale``, metres per Blender unit), ``orientation``
    (..., 4) w x y z, and the part's ``stretch`` S put back: [R(q) @ S, position / scale]."""
    position = np.asarray(position, dtype=float)
    W = np.zeros(position.shape[:-1] + (4, 4))
    W[..., :3, :3] = quat_to_matrix(orientation) @ stretch
    W[..., :3, 3] = position / scale
    W[..., 3, 3] = 1.0
    return W


def basis_pose(world: np.ndarray, parent_world: np.ndarray, parent_inverse: np.ndarray,
               scale_signs=(1.0, 1.0, 1.0), delta_location=(0.0, 0.0, 0.0),
               delta_quaternion=(1.0, 0.0, 0.0, 0.0)) -> tuple[np.ndarray, np.ndarray]:
    """(location (n, 3), quaternion (n, 4)) keys that put an object at the world matrices
    ``world`` (n, 4, 4): matrix_basis = (parent_world @ parent_inverse)^-1 @ world, with
    ``parent_world`` (n, 4, 4) for a moving parent or (4, 4) for a fixed one (the identity,
    and ``parent_inverse`` too, for an object without a parent).  The object keeps its scale
    channel s, so the basis's axes are R(q) @ diag(s): the rotation is the axes normalised and
    multiplied by ``scale_signs`` = sign(s) (3,), which takes a negative scale's reflection (or
    half turn) back out of the rotation; quaternion signs are kept continuous from frame to
    frame.  The object's delta transforms are taken out of the keys (Blender's basis is
    translation(location + delta_location) @ R(delta_quaternion) @ R(q) @ scale, in the
    quaternion rotation mode a bake sets), so that they are not applied twice.  One object
    of ``basis_poses``."""
    parent_world = np.asarray(parent_world, dtype=float)
    parent = parent_world[None] if parent_world.ndim == 3 else parent_world[None, None]
    loc, quat = basis_poses(np.asarray(world, dtype=float)[None], parent,
                            np.asarray(parent_inverse, dtype=float)[None],
                            np.asarray(scale_signs, dtype=float)[None],
                            np.asarray(delta_location, dtype=float)[None],
                            np.asarray(delta_quaternion, dtype=float)[None])
    return loc[0], quat[0]


def basis_poses(world: np.ndarray, parent_world: np.ndarray, parent_inverse: np.ndarray,
                scale_signs: np.ndarray, delta_location: np.ndarray,
                delta_quaternion: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``basis_pose`` of m objects at once, one set of numpy calls whatever m: ``world``
    (m, n, 4, 4), ``parent_world`` (m, n, 4, 4) for moving parents or (m, 1, 4, 4) for
    fixed ones, ``parent_inverse`` (m, 4, 4), ``scale_signs`` and ``delta_location``
    (m, 3), ``delta_quaternion`` (m, 4); returns location (m, n, 3) and quaternion
    (m, n, 4), each object's signs continuous over its n frames."""
    P = parent_world @ parent_inverse[:, None]
    B = np.linalg.inv(P) @ world
    R = B[..., :3, :3] / np.linalg.norm(B[..., :3, :3], axis=-2, keepdims=True)
    R = R * scale_signs[:, None, None, :]
    dq = delta_quaternion / np.linalg.norm(delta_quaternion, axis=-1, keepdims=True)
    R = np.swapaxes(quat_to_matrix(dq), -1, -2)[:, None] @ R
    return B[..., :3, 3] - delta_location[:, None], _continuous(matrix_to_quat(R))


def keyed_worlds(parent_world: np.ndarray, parent_inverse: np.ndarray, loc: np.ndarray,
                 quat: np.ndarray, scales: np.ndarray, delta_location: np.ndarray,
                 delta_quaternion: np.ndarray) -> np.ndarray:
    """The world matrices (m, n, 4, 4) Blender shows for m objects keyed at ``loc`` (m, n, 3)
    and ``quat`` (m, n, 4) w x y z in quaternion mode: parent_world (m, n or 1, 4, 4) @
    parent_inverse (m, 4, 4) @ its basis, translation(loc + delta_location) @
    R(delta_quaternion) @ R(quat) @ diag(scales), ``scales`` (m, n, 3) the scale channel
    times the delta scale at each pose.  What ``basis_poses``' keys give back, to check
    that they reach the poses asked for."""
    m, n = quat.shape[:2]
    dq = delta_quaternion / np.linalg.norm(delta_quaternion, axis=-1, keepdims=True)
    q = quat / np.linalg.norm(quat, axis=-1, keepdims=True)
    B = np.zeros((m, n, 4, 4))
    B[..., :3, :3] = (quat_to_matrix(dq)[:, None] @ quat_to_matrix(q)) * scales[..., None, :]
    B[..., :3, 3] = loc + delta_location[:, None]
    B[..., 3, 3] = 1.0
    return parent_world @ parent_inverse[:, None] @ B


def conformal(L: np.ndarray, tol: float = 1e-9) -> np.ndarray:
    """(m,) whether each object's linear maps L (m, n, 3, 3) turn and scale alike in every
    direction at every pose (L^T L a multiple of the identity, to ``tol`` of it): a part
    under such a parent keeps its shape as it turns, so its keys place it exactly."""
    G = np.swapaxes(L, -1, -2) @ L
    size = np.trace(G, axis1=-2, axis2=-1)[..., None, None] / 3.0
    off = np.abs(G - size * np.eye(3)).max(axis=(-2, -1))
    return np.all(off <= tol * size[..., 0, 0], axis=-1)


def corner_misfit(world: np.ndarray, keyed: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """(m, n) how far (Blender units) the farthest of each object's ``corners`` (m, c, 3,
    in its own coordinates: its bounding box) lies from where ``world`` (m, n, 4, 4) puts
    it when ``keyed`` (m, n, 4, 4) places the object instead."""
    d = (keyed - world)[..., :3, :]
    c = np.concatenate([corners, np.ones(corners.shape[:2] + (1,))], axis=-1)
    return np.linalg.norm(np.einsum("mnij,mcj->mnci", d, c), axis=-1).max(axis=-1)


def _continuous(q: np.ndarray) -> np.ndarray:
    """Quaternions (m, n, 4) with signs flipped so that neighbours along n have a positive
    dot product (continuous_quats of each of the m rows)."""
    if q.shape[1] > 1:
        s = np.sign(np.einsum("...ij,...ij->...i", q[:, 1:], q[:, :-1]))
        s[s == 0] = 1.0
        q[:, 1:] *= np.cumprod(s, axis=1)[..., None]
    return q
