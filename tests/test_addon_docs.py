"""docs/blender.md names every operator of the extension and every field of its panels, so
the guide cannot fall behind the sidebar."""
from __future__ import annotations

import os

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Settings the panels never show (the bake's bookkeeping, list indices, cached readings).
HIDDEN = {"Baked", "Computed Mass", "Computed Inertia", "Computed With Density", "Mesh Warning",
          "Table", "Variant", "Last Check", "Slider Joint"}


def shown_fields(settings) -> set[str]:
    """The UI names of a property group's settings: those given a name of their own (the
    bookkeeping ones keep their identifier as name)."""
    return {p.name for p in settings.bl_rna.properties
            if p.identifier not in ("rna_type", "name") and p.name != p.identifier
            and p.type not in ("POINTER", "COLLECTION") or p.identifier in ("marker_i", "marker_j", "curve", "follower_curve", "joint_a", "joint_b", "joint_c",
                                                         "follow", "follow_relative_to")}


def test_the_guide_names_every_operator_and_field(blender) -> None:
    bpy = blender
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = " ".join(f.read().replace("**", "").split())     # a name may wrap a line
    missing = [f"operator {op.get_rna_type().name!r}"
               for op in (getattr(bpy.ops.mechanism, n) for n in dir(bpy.ops.mechanism))
               if op.get_rna_type().name not in guide]
    ob = bpy.data.objects.new("probe", None)
    for settings in (ob.mechanism, bpy.context.scene.mechanism, bpy.context.scene.mechanism.study):
        missing += [f"field {name!r}" for name in sorted(shown_fields(settings) - HIDDEN)
                    if name not in guide]
    assert not missing, f"not in docs/blender.md: {missing}"


def test_the_guide_names_what_a_bake_writes_on_a_joint(blender) -> None:
    """The first mechanism of README and blender.md, built through the operators as written
    (two cubes tagged Part, the ground ticked, Connect at the cursor with its axis, Check,
    Bake, then a motion): Check says one freedom, and every custom property the bake puts
    on the joint is named in the guide."""
    bpy = blender
    bpy.ops.mesh.primitive_cube_add(size=1, location=(0, 0, -1))
    ground = bpy.context.active_object
    bpy.ops.mesh.primitive_cube_add(size=1, location=(1, 0, 0))
    arm = bpy.context.active_object
    for ob in (ground, arm):
        ob.select_set(True)
    assert bpy.ops.mechanism.set_role(role="PART") == {"FINISHED"}
    ground.mechanism.ground = True
    bpy.context.scene.cursor.location = (0.5, 0, 0)
    bpy.context.view_layer.objects.active = arm
    assert bpy.ops.mechanism.connect(kind="REVOLUTE", axis="Y") == {"FINISHED"}
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    assert bpy.context.scene.mechanism.report.startswith("degrees of freedom: 1")
    joint = next(ob for ob in bpy.data.objects if ob.mechanism.role == "JOINT")
    joint.mechanism.motion_type = "EXPRESSION"
    joint.mechanism.motion_expression = "2*pi*t"
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    with open(os.path.join(ROOT, "docs", "blender.md"), encoding="utf-8") as f:
        guide = f.read()
    written = [k for k in joint.keys() if not k.startswith("_")]
    assert "motion_effort" in written and "reaction_force" in written
    named = lambda k: k in guide or any(k == f"{stem}_{c}" and f"{stem}_x/_y/_z" in guide   # noqa: E731
                                        for stem in (k.rsplit("_", 1)[0],) for c in "xyz")
    assert all(named(k) for k in written), [k for k in written if not named(k)]
