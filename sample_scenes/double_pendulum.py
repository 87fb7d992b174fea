"""Two bars on pins released horizontal: the classic chaotic double pendulum."""
from common import box, joint, marker, new_scene, stage

SECONDS = 4.0


def build() -> dict:
    new_scene(SECONDS)
    post = box("Post", (0.1, 0.1, 0.6), (0, 0.1, -0.3), ground=True, color=(0.3, 0.3, 0.35))
    upper = box("Upper", (0.6, 0.04, 0.04), (0.3, 0, 0), color=(0.8, 0.3, 0.1))
    lower = box("Lower", (0.5, 0.04, 0.04), (0.85, 0.05, 0), color=(0.1, 0.4, 0.8))
    joint("Shoulder", "REVOLUTE", marker(upper, "Upper.pin", (0, 0, 0), "Y"),
          marker(post, "Post.pin", (0, 0, 0), "Y"))
    joint("Elbow", "REVOLUTE", marker(lower, "Lower.pin", (0.6, 0.05, 0), "Y"),
          marker(upper, "Upper.tip", (0.6, 0.05, 0), "Y"))
    stage(target=(0.2, 0, -0.5), distance=4.0)
    return {"preview_frame": 30}
