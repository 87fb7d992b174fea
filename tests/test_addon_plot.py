"""Plot (addon/plotting.py) in real Blender: after a bake, a joint's (a motion's, a
coupler's) baked reaction and effort F-curves are the only channels shown, selected and
unhidden, in a Graph Editor of the window's screen filtered to the selected object, which
is that joint alone.  The bpy module has a window with the Layout screen, so
the operator runs as in the UI; without a window it says so.  Scenes: blender_scenes.py."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

import blender_scenes as bs

RECKONED = ("reaction_force_x", "reaction_force_y", "reaction_force_z", "reaction_force",
            "reaction_torque_x", "reaction_torque_y", "reaction_torque_z", "reaction_torque")


def graph_editors(bpy) -> list:
    return [a for a in bpy.context.window.screen.areas if a.type == "GRAPH_EDITOR"]


def shown(bpy, ob) -> dict[str, tuple[bool, bool]]:
    """Data path -> (select, hide) of each F-curve of the action the object's Graph Editor
    channels show (its active action: in NLA tweak mode, the tweaked strip's)."""
    bag = bs.channelbag(ob)
    return {fc.data_path: (fc.select, fc.hide) for fc in bag.fcurves}


def test_plot_shows_the_joint_forces_alone(blender) -> None:
    """Slider-crank: Plot on the driven main bearing (an expression motion: the bake is the
    joint's action) shows its 8 reaction curves and the motion's effort, selected and
    visible, in a Graph Editor showing only selected objects, the joint the only one
    selected; Plot on another joint moves the selection, reusing that Graph Editor."""
    bpy = blender
    d = bs.slider_crank(bpy)
    assert not graph_editors(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    main = d["main"]
    assert bpy.ops.mechanism.plot(name=main.name) == {"FINISHED"}
    area, = graph_editors(bpy)
    assert area.spaces.active.dopesheet.show_only_selected
    assert area.spaces.active.mode == "FCURVES"
    assert list(bpy.context.selected_objects) == [main]
    assert bpy.context.view_layer.objects.active == main
    want = {f'["{p}"]' for p in RECKONED + ("motion_effort",)}
    assert shown(bpy, main) == {p: (True, False) for p in want}
    # the curves shown are the baked values
    k = bs.curve(main, '["motion_effort"]')
    assert np.abs(k[:, 1]).max() > 0.0
    big_end = d["big_end"]
    bs.select(bpy, [big_end], big_end)
    assert bpy.ops.mechanism.plot() == {"FINISHED"}       # the active object
    assert graph_editors(bpy) == [area]
    assert list(bpy.context.selected_objects) == [big_end]
    assert shown(bpy, big_end) == {f'["{p}"]': (True, False) for p in RECKONED}


def test_plot_a_keyframed_motion_then_rebake_and_clear(blender) -> None:
    """A joint whose motion is keyframed has its own action; the bake plays on an NLA track
    beneath it, which the Graph Editor shows only in tweak mode: Plot enters it on the
    bake's strip, so the channels shown are the bake's.  The user's keys are untouched;
    Bake again reads the keyframed motion as before (same keys) and Clear Bake leaves
    tweak mode and puts the user's action back."""
    bpy = blender
    d = bs.keyed_pendulum(bpy)
    pin, user, user_keys = d["pin"], d["user"], d["user_keys"]
    s = pin.mechanism
    bpy.context.scene.frame_set(1)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    effort = bs.curve(pin, '["motion_effort"]', action=s.bake_action)
    assert bpy.ops.mechanism.plot(name=pin.name) == {"FINISHED"}
    ad = pin.animation_data
    assert ad.use_tweak_mode and ad.action == s.bake_action
    want = {f'["{p}"]' for p in RECKONED + ("motion_effort",)}
    assert shown(bpy, pin) == {p: (True, False) for p in want}
    assert bs.action_keys(user) == user_keys
    assert bpy.ops.mechanism.bake() == {"FINISHED"}         # re-bake out of tweak mode
    assert not ad.use_tweak_mode and ad.action == user
    np.testing.assert_array_equal(bs.curve(pin, '["motion_effort"]', action=s.bake_action), effort)
    assert bpy.ops.mechanism.plot(name=pin.name) == {"FINISHED"}
    assert bpy.ops.mechanism.clear_bake() == {"FINISHED"}
    assert not ad.use_tweak_mode and ad.action == user and len(ad.nla_tracks) == 0
    assert bs.action_keys(user) == user_keys
    assert "motion_effort" not in pin.keys()


def test_plot_a_coupler(blender) -> None:
    """A gear coupler's baked torques and tooth force are plotted the same way."""
    bpy = blender
    d = bs.gear_pair(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    gear = d["gear"]
    assert bpy.ops.mechanism.plot(name=gear.name) == {"FINISHED"}
    flags = shown(bpy, gear)
    assert set(flags) == {'["coupler_torque_1"]', '["coupler_torque_2"]', '["tooth_force"]'}
    assert set(flags.values()) == {(True, False)}


def test_plot_is_greyed_out_before_a_bake_and_says_why(blender) -> None:
    """Before any bake the operator's poll fails with its reason; after one, an object
    whose forces are not baked (a part) is refused by name; the panels show the button."""
    bpy = blender
    d = bs.slider_crank(bpy)
    assert not bpy.ops.mechanism.plot.poll()
    with pytest.raises(RuntimeError, match="Nothing is baked yet: Bake first"):
        bpy.ops.mechanism.plot(name=d["main"].name)
    bs.select(bpy, [d["main"]], d["main"])
    assert ("operator", "mechanism.plot") in bs.panel_items(bpy, "VIEW3D_PT_mechanism_object")
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert bpy.ops.mechanism.plot.poll()
    with pytest.raises(RuntimeError, match="'crank' is not a joint, coupler, spring, bushing, contact or force with a Reaction"):
        bpy.ops.mechanism.plot(name="crank")
    with pytest.raises(RuntimeError, match="no object 'nothing'"):
        bpy.ops.mechanism.plot(name="nothing")


def test_plot_after_a_bake_without_force_plots_says_to_turn_them_on(blender) -> None:
    """Baked with Force Plots off (the parts' keys only), Plot is greyed out saying that the
    bake has no force plots and how to get them, not that nothing is baked."""
    bpy = blender
    d = bs.slider_crank(bpy)
    bpy.context.scene.mechanism.force_plots = False
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    assert not bpy.ops.mechanism.plot.poll()
    with pytest.raises(RuntimeError, match=r"the bake has no force plots \(Force Plots is "
                                           r"off\): tick Force Plots and Bake again") as err:
        bpy.ops.mechanism.plot(name=d["main"].name)
    assert "Nothing is baked" not in str(err.value)


def test_plot_without_a_window_says_so(blender) -> None:
    """No window (as in ``blender -b``, where Blender has no screen: an override to no
    window crashes the bpy module, so the operator's execute runs with the context's
    window taken away): a clear report naming the joint, and nothing is changed."""
    bpy = blender
    d = bs.slider_crank(bpy)
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    cls = bpy.types.Operator.bl_rna_get_subclass_py("MECHANISM_OT_plot")
    reports = []
    me = SimpleNamespace(name=d["main"].name, report=lambda kind, text: reports.append((kind, text)))
    ctx = SimpleNamespace(scene=bpy.context.scene, window=None, active_object=None)
    assert cls.execute(me, ctx) == {"CANCELLED"}
    (kind, text), = reports
    assert kind == {"ERROR"} and text.startswith("Plot needs Blender's window (none here): "
                                                 f"the forces of {d['main'].name!r}")
    assert not graph_editors(bpy)
