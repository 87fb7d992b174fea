"""The add-on's Blender-free logic behind the bake's results and reports: which
F-curves Plot shows (io/plots.py), what a bake keeps of the solver's Result, a part's
keys with its delta transforms taken out (io/part_frames.basis_pose), many objects' keys
at once (basis_poses) and many objects' rigid frames at once (rigid_frames).  Doubles
throughout: 1e-13."""
from __future__ import annotations

import numpy as np
import pytest

from test_io_addon import affine, driven_crank, io, rot, rotations, solver

part_frames, plots, csv_table = io("part_frames"), io("plots"), io("csv_table")


def test_plot_channels_are_the_baked_series() -> None:
    """Plot shows the F-curves of the baked custom properties but where a contact's arrow
    is drawn, and no other channel."""
    for prop in plots.PLOT_PROPS:
        assert plots.is_plot_channel(f'["{prop}"]')
    for path in ("location", "rotation_quaternion", '["glow"]', "mechanism.motion_angle",
                 '["reaction_force_x"].x', 'reaction_force', '["reaction_force_w"]',
                 '["part_contact_point_x"]'):
        assert not plots.is_plot_channel(path), path


def test_basis_pose_takes_the_delta_transforms_out() -> None:
    """An object with delta_location d and delta_rotation_quaternion p: the keys (l, q) are
    such that Blender's basis translation(l + d) @ R(p) @ R(q) @ S is the wanted world."""
    n = 4
    angles = np.linspace(0.0, 3.0, n)
    world = np.array([affine(rot("z", a) @ rot("x", 0.5 * a) @ np.diag([2.0, 0.5, 1.0]),
                             (a, 1.0, -a)) for a in angles])
    d = np.array([0.1, -0.2, 0.3])
    p = np.array([np.cos(0.4), 0.0, np.sin(0.4), 0.0])
    loc, quat = part_frames.basis_pose(world, np.eye(4), np.eye(4), (1.0, 1.0, 1.0), d, p)
    for k in range(n):
        B = affine(rotations.quat_to_matrix(p) @ rotations.quat_to_matrix(quat[k])
                   @ np.diag([2.0, 0.5, 1.0]), loc[k] + d)
        np.testing.assert_allclose(B, world[k], atol=1e-13)


def test_a_bake_reads_the_same_numbers_from_a_result_keeping_what_it_bakes() -> None:
    """Export CSV, every series a bake writes (poses, reactions, efforts, a bushing's and a
    vector force's loads), from a Result keeping only ``baked_quantities`` is the full
    Result's text for text; without bushings and vector forces no velocities are kept."""
    times = np.arange(13) / 24.0
    m = driven_crank()
    m.add_marker("tip", "crank", position=(1.0, 0, 0))
    m.add_marker("post", "ground", position=(1.0, 0, 0))
    m.add_bushing("mount", "tip", "post", stiffness=100.0, damping=2.0)
    m.add_vector_force("drag", "tip", "post", force=("-30*VX('tip', 'post')", 0, 0))
    args = (np.arange(1, 14), ["crank"], ["pin"], {"spin": ("pin", "angle")})
    more = {"bushings": ["mount"], "vector_forces": ["drag"]}
    full = csv_table.csv_rows(m.solve(times=times), *args, **more)
    kept = plots.baked_quantities(1, 1)
    assert set(kept) == {"reactions", "efforts", "velocities"}
    assert csv_table.csv_rows(m.solve(times=times, keep=kept), *args, **more) == full
    loads = np.array([row[-12:] for row in full[1:]], dtype=float)  # the bushing's, drag's
    assert np.abs(loads[:, :6]).max() > 1.0 and np.abs(loads[:, 6:]).max() > 1.0
    assert plots.baked_quantities(0, 0) == ("reactions", "efforts")
    bare = driven_crank()
    assert (csv_table.csv_rows(bare.solve(times=times, keep=plots.baked_quantities(0, 0)), *args)
            == csv_table.csv_rows(bare.solve(times=times), *args))


def test_basis_poses_of_several_objects_are_each_ones_own() -> None:
    """Three objects keyed at once (io/part_frames.basis_poses): one with a moving parent,
    one under a fixed parent with a negative scale, one with delta transforms; each one's
    keys are the basis_pose of it alone, bit for bit (an object's keys do not depend on the
    others), and put it at its world matrices (Blender's basis under its parent, 1e-13);
    quaternion signs are continuous along each object's frames, not across objects."""
    n = 5
    angles = np.linspace(0.0, 6.0, n)              # over a turn: signs must be kept continuous
    world = np.array([[affine(rot("z", s * a) @ rot("y", 0.3 * a) @ np.diag(scale), (a, s, -a))
                       for a in angles] for s, scale in ((1.0, (1.0, 1.0, 1.0)),
                                                       (-0.5, (-2.0, 1.0, 1.0)),
                                                       (2.0, (1.0, 0.5, 1.0)))])
    parent = np.stack([np.array([affine(rot("x", a), (0.0, a, 0.0)) for a in angles]),
                       np.broadcast_to(affine(rot("y", 0.7), (1.0, 2.0, 3.0)), (n, 4, 4)),
                       np.broadcast_to(np.eye(4), (n, 4, 4))])
    inverse = np.stack([affine(rot("z", 0.2), (0.1, 0.0, 0.0)), np.eye(4), np.eye(4)])
    signs = np.array([[1.0, 1.0, 1.0], [-1.0, 1.0, 1.0], [1.0, 1.0, 1.0]])
    shift = np.array([[0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.1, -0.2, 0.3]])
    turn = np.array([[1.0, 0.0, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0],
                     [np.cos(0.4), 0.0, np.sin(0.4), 0.0]])
    loc, quat = part_frames.basis_poses(world, parent, inverse, signs, shift, turn)
    for k in range(3):
        fixed = parent[k, 0] if k else parent[k]
        one = part_frames.basis_pose(world[k], fixed, inverse[k], signs[k], shift[k], turn[k])
        assert loc[k].tobytes() == one[0].tobytes() and quat[k].tobytes() == one[1].tobytes()
        assert np.all(np.sum(quat[k, 1:] * quat[k, :-1], axis=1) > 0)
        for f in range(n):
            basis = affine(rotations.quat_to_matrix(turn[k]) @ rotations.quat_to_matrix(quat[k, f])
                           @ np.diag(np.linalg.norm(world[k, f, :3, :3], axis=0) * signs[k]),
                           loc[k, f] + shift[k])
            np.testing.assert_allclose(parent[k, f] @ inverse[k] @ basis, world[k, f], atol=1e-13)


def test_rigid_frames_of_many_matrices_are_each_ones_own() -> None:
    """World matrices of every kind a scene holds (rotated and moved, scaled unevenly,
    mirrored, sheared, the identity) and four that are refused (a zero scale, a
    non-affine bottom row, a NaN, an infinity): rigid_frames gives each valid one the
    solver's part_frame_from_matrix of it alone, bit for bit, and flags exactly the
    refused ones, which part_frame_from_matrix raises on."""
    shear = np.eye(4)
    shear[0, 1] = 0.3
    good = [affine(rot("z", 0.7) @ rot("x", -1.2), (1.0, -2.0, 0.5)),
            affine(rot("y", 2.9) @ np.diag([2.0, 0.5, 1.5]), (0.0, 3.0, 0.0)),
            affine(rot("x", 0.4) @ np.diag([-1.0, 1.0, 1.0]), (0.2, 0.0, -0.1)),
            affine(rot("z", -0.3), (0.0, 0.0, 0.0)) @ shear, np.eye(4)]
    zero, tilted, nan, inf = (affine(np.diag([1.0, 0.0, 1.0]), (0.0, 0.0, 0.0)), np.eye(4),
                              np.eye(4), np.eye(4))
    tilted[3, 0] = 1e-3
    nan[0, 3] = np.nan
    inf[1, 1] = np.inf
    matrices = np.array([good[0], zero, good[1], tilted, good[2], nan, good[3], inf, good[4]])
    position, orientation, stretch, valid = part_frames.rigid_frames(matrices)
    assert valid.tolist() == [True, False, True, False, True, False, True, False, True]
    for k, M in enumerate(matrices):
        if not valid[k]:
            with pytest.raises(ValueError):
                solver.part_frame_from_matrix(M)
            continue
        want = solver.part_frame_from_matrix(M)
        for got, one in zip((position[k], orientation[k], stretch[k]), want):
            assert got.tobytes() == np.asarray(one, dtype=float).tobytes()


@pytest.mark.parametrize("drive", ["slide", "lined up"])
def test_a_sweeps_note_of_a_singular_frame_names_the_scene_frame(drive: str) -> None:
    """A sweep's note of the frame it passed on a motion's dead centre (solver frame 24 of a
    slide-driven slider-crank) or on joints lined up (a parallelogram, solver frame 12)
    reads, in a bake of scene frames 1 on, as scene frame 25 or 13: the add-on maps a
    "(frame k)" mention (timeline.with_scene_frame).  Written "frame 24 (t = 1 s) lies
    on ...", the note kept the solver's count from 0, one frame early in the scene."""
    from test_singular_positions import parallelograms, slide_driven_slider_crank
    if drive == "slide":
        res, k = slide_driven_slider_crank("0.4 - 0.05*(t - 1)**2", 0.35).solve(2.0, 24), 24
    else:
        m = parallelograms(1, 30.0)
        m.add_motion("turn", "pivot0", "pi/2 + pi*t")
        res, k = m.solve(1.0, 24), 12
    frames = io("timeline").Timeline(1, len(res.times), 24.0).frames
    note, = [n for n in res.notes if f"t = {res.times[k]:g} s" in n]
    shown = io("timeline").with_scene_frame(note, frames)
    assert f"(frame {k + 1})" in shown and f"frame {k}" not in shown, shown
