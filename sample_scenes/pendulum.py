"""A 1 m steel bar swinging on a pin from horizontal: a dynamic run under gravity."""
from common import box, joint, marker, new_scene, stage

SECONDS = 3.0


def build() -> dict:
    new_scene(SECONDS)
    post = box("Post", (0.1, 0.1, 0.6), (0, 0.08, -0.3), ground=True, color=(0.3, 0.3, 0.35))
    bar = box("Bar", (1.0, 0.04, 0.04), (0.5, 0, 0), color=(0.8, 0.3, 0.1))
    joint("Pin", "REVOLUTE", marker(bar, "Bar.pin", (0, 0, 0), "Y"), marker(post, "Post.pin", (0, 0, 0), "Y"))
    stage(target=(0.2, 0, -0.4), distance=3.2)
    return {"preview_frame": 18}
