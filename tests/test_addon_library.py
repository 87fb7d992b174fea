"""A mechanism linked from another .blend file (File > Link) in real Blender: a bake written
to linked objects (or to library overrides of them) would be gone once the file is saved and
opened again, so Bake refuses them by name and Check warns; made local, the bake is saved.
The library is a real file written to a temporary folder.  Scenes: blender_scenes.py."""
from __future__ import annotations

import os
import re

import pytest

import blender_scenes as bs

PIN = "Revolute arm-ground"


def linked_pendulum(bpy, folder: str, override: bool = False) -> None:
    """A new file that links every object of a saved pendulum (its library, lib.blend in
    ``folder``) into its scene, as File > Link does; ``override``: library overrides of them."""
    bs.pendulum(bpy)
    library = os.path.join(folder, "lib.blend")
    bpy.ops.wm.save_as_mainfile(filepath=library)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bs.set_range(bpy)
    with bpy.data.libraries.load(library, link=True) as (source, linked):
        linked.objects = list(source.objects)
    for ob in linked.objects:
        bpy.context.scene.collection.objects.link(ob)
    if override:
        for ob in list(linked.objects):
            ob.override_create(remap_local_usages=True)
    bpy.context.scene.mechanism.tolerance = 1e-9


def reopen(bpy, path: str) -> None:
    bpy.ops.wm.save_as_mainfile(filepath=path)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    bpy.ops.wm.open_mainfile(filepath=path)


@pytest.mark.parametrize("override, said", [
    (False, "is linked from library 'lib.blend'"), (True, "is a library override")])
def test_bake_refuses_objects_not_local_to_the_file(blender, tmp_path, override, said) -> None:
    """Linked (or overridden) parts and joints: Check warns and Bake refuses, naming each
    object a bake would write to and suggesting Make Local, and nothing is changed."""
    bpy = blender
    linked_pendulum(bpy, str(tmp_path), override)
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    report = bpy.context.scene.mechanism.report
    assert f"part 'arm' {said}" in report and f"joint '{PIN}' {said}" in report
    before = bs.snapshot(bpy)
    with pytest.raises(RuntimeError, match=rf"part 'arm' {said}.*Make Local") as info:
        bpy.ops.mechanism.bake()
    assert f"joint '{PIN}' {said}" in str(info.value)
    assert not bs.differences(before, bs.snapshot(bpy))


def test_a_linked_mechanism_made_local_keeps_its_bake(blender, tmp_path) -> None:
    """Made local (Object > Relations > Make Local), the linked pendulum bakes, and the saved
    file opens baked: the flag set, the arm's and the pin's bake actions in use with the same
    keys."""
    bpy = blender
    linked_pendulum(bpy, str(tmp_path))
    scene = bpy.context.scene
    bs.select(bpy, list(scene.objects), scene.objects["arm"])
    assert bpy.ops.object.make_local(type="SELECT_OBJECT") == {"FINISHED"}
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    keys = bs.baked_pose(scene.objects["arm"])
    reopen(bpy, str(tmp_path / "scene.blend"))
    arm, pin = bpy.context.scene.objects["arm"], bpy.context.scene.objects[PIN]
    assert arm.mechanism.baked and pin.mechanism.baked
    assert arm.mechanism.bake_action.users >= 1 and pin.mechanism.bake_action.users >= 1
    for got, want in zip(bs.baked_pose(arm), keys):
        assert (got == want).all()


def test_a_mechanism_shown_by_a_collection_instance_is_named(blender, tmp_path) -> None:
    """File > Link of the pendulum's collection gives an Empty that instances it: the scene
    shows the mechanism but holds none of its objects, which Bake would read and key.
    Check and Bake say so, naming the instance and the collection (not "no moving part:
    tag objects as parts", which they are), and change nothing."""
    bpy = blender
    d = bs.pendulum(bpy)
    rig = bpy.data.collections.new("rig")
    bpy.context.scene.collection.children.link(rig)
    for ob in d.values():
        rig.objects.link(ob)
        bpy.context.scene.collection.objects.unlink(ob)
    library = os.path.join(str(tmp_path), "lib.blend")
    bpy.ops.wm.save_as_mainfile(filepath=library)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    with bpy.data.libraries.load(library, link=True) as (source, linked):
        linked.collections = ["rig"]
    instance = bpy.data.objects.new("rig instance", None)
    instance.instance_type, instance.instance_collection = "COLLECTION", linked.collections[0]
    bpy.context.scene.collection.objects.link(instance)
    said = ("'rig instance' instances collection 'rig', whose part 'arm' is not in the scene, "
            "and a bake reads and keys the scene's objects: link the collection into the scene")
    before = bs.snapshot(bpy)
    for op in (bpy.ops.mechanism.check, bpy.ops.mechanism.bake):
        with pytest.raises(RuntimeError, match=re.escape(said)):
            op()
    assert not bs.differences(before, bs.snapshot(bpy))


def test_an_appended_mechanism_s_missing_constant_says_where_constants_live(blender,
                                                                           tmp_path) -> None:
    """The slider-crank driven by "w*t", w a Constant of its scene, appended into a new file
    (File > Append of its objects: a scene's Constants do not come with them): Check names
    the motion and the name, and now also says to add it under Constants (it listed only
    the names allowed, none of them w, as for a typing mistake)."""
    bpy = blender
    d = bs.slider_crank(bpy)
    c = bpy.context.scene.mechanism.constants.add()
    c.name, c.value = "w", 6.0
    d["main"].mechanism.motion_expression = "w*t"
    assert bpy.ops.mechanism.check() == {"FINISHED"}
    library = str(tmp_path / "crank.blend")
    bpy.ops.wm.save_as_mainfile(filepath=library)
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    with bpy.data.libraries.load(library, link=False) as (source, appended):
        appended.objects = list(source.objects)
    for ob in appended.objects:
        bpy.context.scene.collection.objects.link(ob)
    with pytest.raises(RuntimeError, match=r"motion 'Revolute crank-block: motion': expression "
                       r"'w\*t' uses a name that is not allowed: 'w'.*add 'w' under Constants"):
        bpy.ops.mechanism.check()
