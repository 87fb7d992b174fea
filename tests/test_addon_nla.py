"""The user's NLA beside a bake in real Blender (scenes: blender_scenes.py): strips that
play under the bake are checked as the object's action is, and a strip being edited in
tweak mode stays as the user left it."""
from __future__ import annotations

import re

import pytest

import blender_scenes as bs


def push_down_keys(ob, path: str, index: int, values) -> str:
    """Keys of ``path``[``index``] at frames 1 and 25 (``values``), pushed down from the
    object's action onto an NLA strip ("moves"), which plays; returns the strip's name."""
    for frame, value in zip((1, 25), values):
        getattr(ob, path)[index] = value
        ob.keyframe_insert(path, index=index, frame=frame)
    getattr(ob, path)[index] = values[0]
    ad = ob.animation_data
    strip = ad.nla_tracks.new().strips.new("moves", 1, ad.action)
    strip.action_slot = ad.action_slot
    ad.action = None
    return strip.name


@pytest.mark.parametrize("who, path, index, values, said", [
    ("arm", "delta_location", 2, (0.0, 0.3),
     "part 'arm': its NLA strip 'moves' (action 'armAction') keys delta_location"),
    ("arm", "scale", 0, (1.0, 1.5), "part 'arm': its action 'armAction' keys scale[0]"),
    ("ground", "location", 0, (0.0, 0.4), "ground part 'ground': its action 'groundAction' "
     "keys location")])
def test_bake_refuses_what_the_users_nla_strips_move(blender, who, path, index, values,
                                                   said) -> None:
    """The user's animation pushed down onto an NLA strip plays as the active action's
    does: a part's delta transform keyed there adds to the bake's keys (the arm left its
    pin by 0.3 m at frame 25), a scale keyed there carries a marker away, a ground part
    keyed there leaves the parts behind; Bake refuses each by name, as for the same keys in
    the object's action, and changes nothing."""
    bpy = blender
    d = bs.pendulum(bpy)
    push_down_keys(d[who], path, index, values)
    bpy.context.scene.frame_set(1)
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=re.escape(said)):
        bpy.ops.mechanism.bake()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_bake_and_clear_leave_the_nla_strip_the_user_is_tweaking(blender) -> None:
    """The arm's scale keys pushed down onto an NLA strip that the user is editing (tweak
    mode, no action of its own besides): the bake plays (on a track above), and Clear Bake
    leaves the user where they were: still editing that strip, and once they leave it, no
    action on the arm (the strip's action not also made the active one, which would play
    it twice)."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    arm.keyframe_insert("scale", frame=1)
    arm.scale = (1.0, 0.1, 0.15)
    arm.keyframe_insert("scale", frame=25)
    ad = arm.animation_data
    strip = ad.nla_tracks.new().strips.new("stretch", 1, ad.action)
    strip.action_slot = ad.action_slot
    ad.action = None
    ad.use_tweak_mode = True
    before = bs.snapshot(bpy, display=False)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    frames, loc, _ = bs.baked_pose(arm)
    bpy.context.scene.frame_set(13)
    assert tuple(arm.location) == pytest.approx(tuple(loc[list(frames).index(13.0)]), abs=1e-6)
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert ad.use_tweak_mode
    assert not bs.differences(before, bs.snapshot(bpy, display=False))
    ad.use_tweak_mode = False
    assert ad.action is None
    assert [[st.action.name for st in t.strips] for t in ad.nla_tracks] == [[strip.action.name]]


def test_a_bake_on_an_nla_track_plays_at_the_frames_it_was_solved_for(blender) -> None:
    """The arm baked with no action of its own (the bake is its action), the user keys its
    scale at frame -5 (into the bake's action, the active one) and then gives it an action
    of their own: the next bake plays on an NLA track, and its strip must play the action's
    frame F at scene frame F, though the action's keys now begin at -5, not at the baked
    range's first frame (the strip began at frame 1 with the action's -5, so every pose
    came 6 frames late)."""
    bpy = blender
    arm = bs.pendulum(bpy)["arm"]
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    arm.keyframe_insert("scale", frame=-5)
    arm.animation_data.action = bpy.data.actions.new("mine")
    arm["glow"] = 1.0
    arm.keyframe_insert('["glow"]', frame=1)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert [t.name for t in arm.animation_data.nla_tracks] == ["Mechanism bake"]
    frames, loc, _ = bs.baked_pose(arm)
    for f in (1, 13, 25):
        bpy.context.scene.frame_set(f)
        assert tuple(arm.location) == pytest.approx(tuple(loc[list(frames).index(f)]), abs=1e-6)


def test_a_bake_track_the_user_renamed_is_still_the_bakes(blender) -> None:
    """The pendulum's arm with a scale key of the user's (so the bake plays on an NLA track
    beneath the arm's action), the bake's track renamed "sim" in the NLA editor: Clear
    Bake used to leave the renamed track behind (an empty strip, its action deleted), and
    a re-bake added a second track playing the same action.  The bake's track is known by
    its action: Clear Bake leaves the arm with no track at all and at its design, and
    re-bakes over a renamed track keep one track playing the bake."""
    import numpy as np
    bpy = blender
    d = bs.pendulum(bpy)
    arm = d["arm"]
    arm.keyframe_insert("scale", frame=1)
    ad = arm.animation_data
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    ad.nla_tracks[0].name = "sim"
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert len(ad.nla_tracks) == 0
    bpy.context.scene.frame_set(12)
    np.testing.assert_allclose(tuple(arm.matrix_world.translation), (0.5, 0.0, 0.0), atol=1e-6)
    for _ in range(2):
        assert bpy.ops.mechanism.bake() == {"FINISHED"}
        ad.nla_tracks[0].name = "sim"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert [[s.action for s in t.strips] for t in ad.nla_tracks] == [[arm.mechanism.bake_action]]
