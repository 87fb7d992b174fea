"""The main job's sample scenes (sample_scenes/, README's "Two commands") baked in real
Blender: each shows what its caption says, and its physics keeps the law it illustrates."""
from __future__ import annotations

import numpy as np
import pytest
from test_addon_contact_profiles import sample


def baked_centres(bpy, names) -> np.ndarray:
    """(frames, balls, 3) m: each part's world origin at every frame of the bake."""
    scene = bpy.context.scene
    out = []
    for f in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(f)
        out.append([tuple(scene.objects[n].matrix_world.translation) for n in names])
    return np.array(out)


def test_the_ball_drop_sample_keeps_its_balls_over_the_slab(blender) -> None:
    """sample_scenes/ball_drop.py baked: a Floor is the half-space below the slab's top,
    unbounded, so a ball that slides past the slab's edge slides on over nothing, out of the
    picture (thrown with a net sideways momentum, two balls ended at x = -3.2 m and -2.3 m,
    past the slab's edge at -1 m). Every ball's centre stays over the slab at every frame;
    the thrown pair meets and bounces apart, as the caption says (the first ball's sideways
    speed turns from toward the second to away: on a frictionless floor only their contact
    can turn it; the bounce itself, 0.01 s, falls between frames, and the force plot says
    its force is zero at every frame, not zero). The floor is
    frictionless and the balls push along their line of centres, so the balls' total
    horizontal momentum stays what they were thrown with, to 1e-4 kg m/s: the baked
    float32 origins (6e-8 m over a 1/24 s frame, times about 11 kg: 2e-5 kg m/s) and the
    solver's tolerance."""
    bpy = blender
    balls = sample("ball_drop")
    balls.build()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    scene = bpy.context.scene
    names = [b[0] for b in balls.BALLS]
    radius = np.array([b[1] for b in balls.BALLS])
    p = baked_centres(bpy, names)
    slab = scene.objects["Slab"]
    half = np.array(slab.dimensions[:2]) / 2
    over = np.abs(p[:, :, :2]) <= half - radius[:, None]
    assert over.all(), [(names[b], f + scene.frame_start, tuple(p[f, b].round(3)))
                        for f, b in zip(*np.nonzero(~over.all(axis=2)))][:3]
    toward = np.sign(p[0, 1, 0] - p[0, 0, 0])
    assert toward * (p[1, 0, 0] - p[0, 0, 0]) > 0.0 and toward * (p[-1, 0, 0] - p[-2, 0, 0]) < 0.0
    plot = sample("force_plot")                  # the main job's plot: that bounce acted
    forces, _ = plot.drawn(*plot.series(scene))
    pair = next(label for label, _, _ in forces if label.startswith(f"{names[0]} on {names[1]}"))
    assert not pair.endswith("(zero)") and pair.endswith("(zero at every frame)"), pair
    mass = np.array([scene.objects[n].mechanism.computed_mass for n in names])
    thrown = mass @ np.array([b[3] for b in balls.BALLS])[:, :2]
    momentum = np.einsum("b,fbk->fk", mass, np.diff(p[:, :, :2], axis=0)) * scene.render.fps
    assert momentum == pytest.approx(np.tile(thrown, (len(momentum), 1)), abs=1e-4)



@pytest.mark.parametrize("name", ["four_bar", "slider_crank"])
def test_a_baked_loop_closes_as_closely_as_the_readme_says(blender, name: str) -> None:
    """README's opening promise, read from README itself: the solve closes the loops to 1e-9
    of the mechanism's size, and the baked keys (Blender stores them in single precision,
    6e-8 relative: a pin's two markers each placed through a float32 location and
    quaternion) to the bound README states. Each revolute pin's two markers, read back in
    world space from the baked keys at every frame of the sample, are at most that far
    apart over the largest part's size (measured: 2.3e-7 on the four-bar, 9e-8 on the
    slider-crank; 1e-9 was promised of the keys before)."""
    import os
    import re
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
        intro = " ".join(f.read().split("\n\n")[1].split())
    assert "exact to 1e-9 of the mechanism's size" in intro
    found = re.search(r"its keys hold that to Blender's single precision, within ([0-9.e-]+) "
                      r"of it", intro)
    assert found, intro
    bpy = blender
    sample(name).build()
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    scene = bpy.context.scene
    size = max(max(ob.dimensions) for ob in scene.objects if ob.mechanism.role == "PART")
    pins = [ob.mechanism for ob in scene.objects
            if ob.mechanism.role == "JOINT" and ob.mechanism.joint_kind == "REVOLUTE"]
    gap = 0.0
    for f in range(scene.frame_start, scene.frame_end + 1):
        scene.frame_set(f)
        gap = max([gap] + [(s.marker_i.matrix_world.translation -
                            s.marker_j.matrix_world.translation).length for s in pins])
    assert 0.0 < gap / size <= float(found.group(1))


@pytest.mark.parametrize("fps, step", [(24, 2), (30, 2), (60, 5)])
def test_a_preview_gif_plays_as_long_as_the_frames_it_shows(blender, tmp_path, fps, step) -> None:
    """The main job's GIF of a scene's first 3 s (common.write_gif, every ``step``-th frame
    at ``fps``), read back with Pillow: its frames' delays sum to the 3 s the scene plays,
    to 5 ms (a GIF counts hundredths of a second: half of one).  One delay for every frame
    stored 80 ms for the 83.3 ms of two frames at 24 fps: 2.88 s, 4% fast.  Two pairs of
    frames are alike, which the GIF's optimizer merges, adding their delays."""
    from PIL import Image, ImageSequence
    common = sample("common")
    count = 3 * fps // step
    images = []
    for k in range(count):             # a white square moving over black; 0 = 1, 2 = 3
        im = Image.new("RGB", (count + 4, 8))
        im.paste((255, 255, 255), (k // 2 if k < 4 else k, 2, (k // 2 if k < 4 else k) + 4, 6))
        images.append(im)
    path = str(tmp_path / "preview.gif")
    common.write_gif(path, images, step / fps)
    with Image.open(path) as gif:
        delays = [im.info["duration"] for im in ImageSequence.Iterator(gif)]
    assert len(delays) == count - 2
    assert abs(sum(delays) - 1000 * count * step / fps) <= 5.0
