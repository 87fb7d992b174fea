"""Plot: a Graph Editor showing one object's baked forces (a joint's, a coupler's, a
following marker's, ...), and nothing else.

``show_channels`` is the part that needs no screen: it makes the object's bake action the
one the Graph Editor shows (the object's action, or, when the bake plays on an NLA track
beneath the user's action, that strip in tweak mode), selects and unhides exactly the baked
force curves (io/plots.BAKED_PROPS) and hides the object's other curves.  The operator then
finds a Graph Editor on the screen (or splits the 3D viewport, or turns the Timeline into
one), filters it to the selected objects, selects the object alone and frames the curves.
"""
from __future__ import annotations

import bpy
from bpy.props import StringProperty

from .anim import find_channelbag, is_bake_track
from .io.plots import is_plot_channel

PLOTTED = ("JOINT", "COUPLER", "SPRING", "BUSHING", "FORCE", "CONTACT", "MARKER")


def _bake_strip(ob):
    """(track, strip) of the object's bake on an NLA track, or (None, None)."""
    ad = ob.animation_data
    for track in (ad.nla_tracks if ad is not None else ()):
        if is_bake_track(track, ob.mechanism.bake_action):
            for strip in track.strips:
                if strip.action == ob.mechanism.bake_action:
                    return track, strip
    return None, None


def plot_target(ob) -> str:
    """Why ``ob``'s forces cannot be plotted ("" when they can)."""
    if ob is None:
        return "Make a baked joint the active object"
    s = ob.mechanism
    if s.role not in PLOTTED or (s.role == "FORCE" and s.marker_j is None) or \
            (s.role == "MARKER" and s.follow is None):
        return (f"{ob.name!r} is not a joint, coupler, spring, bushing, contact or force with a "
                "Reaction, nor a marker that follows an object: its forces are not baked")
    if not s.baked or s.bake_action is None:
        return f"{ob.name!r} has no baked forces yet: Bake first"
    return ""


def show_channels(ob) -> list:
    """Make the object's baked force F-curves the ones its Graph Editor channels show:
    select and unhide them, hide and deselect its other F-curves; returns the shown
    F-curves (in the bake's order).  Enters NLA tweak mode on the bake's strip when the bake
    plays beneath an action of the user's (Clear Bake and re-bake leave it)."""
    s = ob.mechanism
    act = s.bake_action
    ad = ob.animation_data
    track, strip = _bake_strip(ob)
    if track is not None and not ad.use_tweak_mode:
        for t in ad.nla_tracks:
            t.select = t == track
            for st in t.strips:
                st.select = st == strip
        ad.nla_tracks.active = track
        ad.use_tweak_mode = True
    slot = ad.action_slot if ad.action == act else (act.slots[0] if len(act.slots) else None)
    bag = find_channelbag(act, slot)
    shown = []
    for fc in (bag.fcurves if bag is not None else ()):
        keep = is_plot_channel(fc.data_path)
        fc.hide, fc.select = not keep, keep
        if keep:
            shown.append(fc)
    return shown


def graph_area(context):
    """A Graph Editor area of the window's screen: one already there, else a new one split
    off the bottom of the largest 3D viewport, else the Timeline turned into one."""
    screen = context.window.screen
    for area in screen.areas:
        if area.type == "GRAPH_EDITOR":
            return area
    views = sorted((a for a in screen.areas if a.type == "VIEW_3D"),
                   key=lambda a: a.width * a.height, reverse=True)
    if views:
        before = set(screen.areas[:])
        view = views[0]
        region = next(r for r in view.regions if r.type == "WINDOW")
        with context.temp_override(window=context.window, screen=screen, area=view, region=region):
            bpy.ops.screen.area_split(direction="HORIZONTAL", factor=0.4)
        new = [a for a in screen.areas if a not in before]
        if new:
            new[0].type = "GRAPH_EDITOR"
            return new[0]
    for area in screen.areas:
        if area.type in ("DOPESHEET_EDITOR", "TIMELINE"):
            area.type = "GRAPH_EDITOR"
            return area
    return None


class MECHANISM_OT_plot(bpy.types.Operator):
    """Show the joint's baked reaction force and torque and its motion's effort (a coupler's
    torques and forces) in a Graph Editor, framed"""
    bl_idname = "mechanism.plot"
    bl_label = "Plot"
    bl_options = {"REGISTER"}
    name: StringProperty(name="Object", description="The joint or coupler (default: the active object)")

    @classmethod
    def poll(cls, context):
        if context.scene is None:
            return False
        objects = context.scene.objects
        if not any(ob.mechanism.baked and ob.mechanism.role in PLOTTED for ob in objects):
            if any(ob.mechanism.baked for ob in objects):
                cls.poll_message_set("the bake has no force plots (Force Plots is off): tick "
                                     "Force Plots and Bake again")
            else:
                cls.poll_message_set("Nothing is baked yet: Bake first, then plot a joint's "
                                     "forces")
            return False
        return True

    def execute(self, context):
        ob = context.scene.objects.get(self.name) if self.name else context.active_object
        if self.name and ob is None:
            self.report({"ERROR"}, f"no object {self.name!r} in the scene")
            return {"CANCELLED"}
        why = plot_target(ob)
        if why:
            self.report({"ERROR"}, why)
            return {"CANCELLED"}
        if context.window is None or context.window.screen is None:
            self.report({"ERROR"}, f"Plot needs Blender's window (none here): the forces of "
                                   f"{ob.name!r} are its custom properties, see Export CSV")
            return {"CANCELLED"}
        for o in context.selected_objects:
            o.select_set(False)
        try:
            ob.select_set(True)
        except RuntimeError:
            self.report({"ERROR"}, f"{ob.name!r} is not in the view layer: it cannot be selected")
            return {"CANCELLED"}
        context.view_layer.objects.active = ob
        shown = show_channels(ob)
        area = graph_area(context)
        if area is None:
            self.report({"ERROR"}, "no area of this screen could be made a Graph Editor")
            return {"CANCELLED"}
        space = area.spaces.active
        space.mode = "FCURVES"
        space.dopesheet.show_only_selected = True
        space.dopesheet.show_hidden = False
        region = next((r for r in area.regions if r.type == "WINDOW"), None)
        if region is not None:
            with context.temp_override(window=context.window, area=area, region=region):
                bpy.ops.graph.view_all()
        self.report({"INFO"}, f"{ob.name!r}: {len(shown)} baked curve(s) in the Graph Editor")
        return {"FINISHED"}


classes = (MECHANISM_OT_plot,)
