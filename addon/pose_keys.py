"""The location and quaternion keys that put every moving part where the solver has it
(bake.py writes them; Assemble and Drag place one pose with the same numbers).

A long bake's poses are many (100 parts over 10,000 frames: a million 4 x 4 matrices, 128 MB
an array), so the keys are computed a block of parts at a time (``BLOCK`` poses): each
block's arrays stay small enough for the processor's caches, the memory held at once is a
block's, and the modal bake shows its progress between blocks (``pose_key_steps``)."""
from __future__ import annotations

from typing import Callable, Iterator

import numpy as np

from ..solver import MechanismError
from .background import drain
from .io.part_frames import basis_poses, conformal, corner_misfit, keyed_worlds, pose_matrices
from .scene_reader import SceneMechanism

# poses (a part at a frame) computed together: 32,768 matrices of 4 x 4 float64 are 4 MB an
# array (100 parts over 10,000 frames: 1.6 s in one block of a million, 0.9 s in blocks)
BLOCK = 32768

# how far its keys may leave a part's corners from the solved pose, relative to the part's
# reach from the world origin (at least 1 Blender unit): the keys are computed from float32
# matrices and channels, which agree to about 1e-7 of it
KEY_FIT = 1e-5


def part_above(ob):
    """The nearest part object among ``ob``'s parents, or None."""
    up = ob.parent
    while up is not None and up.mechanism.role != "PART":
        up = up.parent
    return up


def _parent_world(ob, moving: Callable[[str], np.ndarray | None],
                  sm: SceneMechanism) -> np.ndarray:
    """The world matrix a part is keyed under: (n, 4, 4) of a moving parent (its solved
    poses, ``moving(name)``, None for a part that does not move; an object other than a
    part that rides on a moving part, an Empty parented to it: that part's solved poses
    times where the object sat on it as read), (1, 4, 4) of a fixed one (a ground part as
    designed, any other object as it stood when the scene was read: ``sm.carriers``), the
    identity for none."""
    parent = ob.parent
    if parent is None:
        return np.eye(4)[None]
    world = moving(parent.name)
    if world is not None:
        return world
    if parent.name in sm.part_frames:
        return sm.part_frames[parent.name].matrix[None]
    read = sm.carriers.get(parent.name)            # as it stood when the scene was read
    if read is None:
        return np.array(parent.matrix_world, dtype=float)[None]
    above = part_above(parent)
    world = moving(above.name) if above is not None else None
    if world is not None:                          # it rides on a moving part
        return world @ (np.linalg.inv(sm.part_frames[above.name].matrix) @ read)
    return read[None]


def part_pose_keys(sm: SceneMechanism, result, placing: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """(location (P, n, 3), quaternion (P, n, 4)) keys of every moving part of ``sm.parts``
    at its solved world matrices, its scale channel kept (negative scale: see
    io/part_frames.basis_pose).  MechanismError naming the part when they cannot place one
    there (``_refuse_misfit``; ``placing``: one pose placed by hand, its scale channel as it
    is).  ``pose_key_steps`` run to its end."""
    return drain(pose_key_steps(sm, result, placing))


def pose_key_steps(sm: SceneMechanism, result,
                   placing: bool = False) -> Iterator[int]:
    """``part_pose_keys`` a block of parts at a time (``BLOCK`` poses; the parts under a
    moving parent and those under a fixed one or none each in one set of numpy calls):
    yields the number of parts done after each block and returns (location, quaternion)."""
    parts = sm.parts
    n = len(result.times)
    index = {ob.name: k for k, ob in enumerate(parts)}
    stretch = np.stack([sm.part_frames[ob.name].stretch for ob in parts])

    def worlds(rows) -> np.ndarray:
        """(len(rows), n, 4, 4) world matrices of the parts ``rows`` at the solved poses."""
        return pose_matrices(np.stack([result.position(parts[k].name) for k in rows]),
                             np.stack([result.orientation(parts[k].name) for k in rows]),
                             stretch[rows][:, None], sm.scale)

    def moving(name: str) -> np.ndarray | None:
        return worlds([index[name]])[0] if name in index else None

    inverse = np.stack([np.array(ob.matrix_parent_inverse, dtype=float) if ob.parent is not None
                        else np.eye(4) for ob in parts])
    shift = np.array([tuple(ob.delta_location) for ob in parts], dtype=float)
    turn = np.array([tuple(ob.delta_rotation_quaternion) for ob in parts], dtype=float)
    own = np.array([tuple(ob.scale) for ob in parts], dtype=float) * \
        np.array([tuple(ob.delta_scale) for ob in parts], dtype=float)     # scale channel
    signs = np.sign(own)
    corners = np.array([[tuple(c) for c in ob.bound_box] for ob in parts], dtype=float)
    loc = np.empty((len(parts), n, 3))
    quat = np.empty((len(parts), n, 4))
    misfit = np.zeros((len(parts), n))
    first = np.empty((len(parts), 4, 4))          # every part's world at the first pose
    size = max(1, BLOCK // max(n, 1))
    for start in range(0, len(parts), size):
        block = np.arange(start, min(start + size, len(parts)))
        world = worlds(block)
        first[block] = world[:, 0]
        parent = [_parent_world(parts[k], moving, sm) for k in block]
        for length in {len(p) for p in parent}:      # fixed parents (1 pose), moving ones (n)
            mine = np.array([i for i, p in enumerate(parent) if len(p) == length])
            rows, at = block[mine], world[mine]
            above = np.stack([parent[i] for i in mine])
            loc[rows], quat[rows] = basis_poses(at, above, inverse[rows], signs[rows],
                                                shift[rows], turn[rows])
            # the scale the pose asks of the basis (its axes' lengths): the keys keep the
            # scale channel, whose own keys may stretch the part as the user means them to,
            # so only what no scale and rotation make (a basis sheared by its parent) is a
            # misfit; a parent that turns and scales alike in every direction (or none)
            # shears nothing
            frame = above @ inverse[rows][:, None]
            sheared = ~conformal(frame[..., :3, :3])
            if sheared.any():
                rows, frame, at = rows[sheared], frame[sheared], at[sheared]
                basis = np.linalg.inv(frame) @ at
                scales = np.linalg.norm(basis[..., :3, :3], axis=-2) * signs[rows][:, None]
                if placing:       # one pose placed by hand: the scale channel stays as it is
                    scales = np.broadcast_to(own[rows][:, None], scales.shape)
                keyed = keyed_worlds(frame, np.broadcast_to(np.eye(4), (len(rows), 4, 4)),
                                     loc[rows], quat[rows], scales, shift[rows], turn[rows])
                misfit[rows] = corner_misfit(at, keyed, corners[rows])
        yield int(block[-1]) + 1
    _refuse_misfit(sm, result, misfit, first, corners, placing)
    return loc, quat


def _refuse_misfit(sm: SceneMechanism, result, misfit: np.ndarray, first: np.ndarray,
                   corners: np.ndarray, placing: bool) -> None:
    """MechanismError naming the first part, and the first frame, whose keys (location,
    rotation, its scale kept, under its parent) cannot put it where the solver has it
    (``misfit`` (P, n): io/part_frames.corner_misfit; ``first`` (P, 4, 4): each part's
    world matrix at the first pose): inside a parent scaled unequally along its axes (or
    sheared) a part that turns changes shape, which no key can undo."""
    at = np.einsum("pij,pcj->pci", first[:, :3, :3], corners) + first[:, None, :3, 3]
    reach = np.maximum(np.linalg.norm(at, axis=-1).max(axis=-1), 1.0)
    bad = misfit > KEY_FIT * reach[:, None]
    if not bad.any():
        return
    k, i = np.argwhere(bad)[0]
    ob = sm.parts[k]
    if placing:
        where, what = "the pose", "its location and rotation"
    else:
        frame = sm.timeline.frames_of(result.times)[i]
        where = f"frame {frame:g}" if float(frame).is_integer() else f"frame {frame:.3g}"
        what = "its keys"
    parent = ob.parent
    cause = (f"its parent {parent.name!r} (or one above it) is scaled unequally along its axes, "
             "so the part changes shape as it turns in it: apply the parent's scale (Ctrl A > "
             "Scale) or clear the parent keeping the transform (Alt P)" if parent is not None
             else "a location, rotation and scale cannot make its pose")
    raise MechanismError(f"part {ob.name!r}: {what} cannot put it where the solver has it "
                         f"at {where} (its corners {misfit[k, i] * sm.scale:.3g} m off): {cause}")


class OnePose:
    """One solved pose (``pose(name)``: position (3,) m, quaternion (4,)) read as a Result
    of a single frame, for ``part_pose_keys``."""

    times = np.zeros(1)

    def __init__(self, pose) -> None:
        self._pose = pose

    def position(self, name: str) -> np.ndarray:
        return np.asarray(self._pose(name)[0], dtype=float)[None]

    def orientation(self, name: str) -> np.ndarray:
        return np.asarray(self._pose(name)[1], dtype=float)[None]
