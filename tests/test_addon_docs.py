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
            and p.type not in ("POINTER", "COLLECTION") or p.identifier in ("marker_i", "marker_j", "curve", "follower_curve", "joint_a", "joint_b", "joint_c")}


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
