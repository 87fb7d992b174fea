"""A driven excavator arm: cab slewing, boom, stick and bucket on motors (kinematic),
with every motor's torque baked onto its joint."""
from common import box, joint, marker, new_scene, stage

SECONDS = 4.0


def build() -> dict:
    new_scene(SECONDS)
    base = box("Tracks", (1.6, 1.2, 0.3), (0, 0, 0.15), ground=True, color=(0.2, 0.2, 0.2))
    cab = box("Cab", (1.2, 1.0, 0.6), (0, 0, 0.6), density=800, color=(0.9, 0.7, 0.1))
    boom = box("Boom", (1.8, 0.15, 0.2), (1.2, 0, 1.0), density=2000, color=(0.9, 0.6, 0.1))
    stick = box("Stick", (1.2, 0.12, 0.15), (2.6, 0, 1.0), density=2000, color=(0.9, 0.6, 0.1))
    bucket = box("Bucket", (0.35, 0.5, 0.35), (3.3, 0, 1.0), density=1500, color=(0.4, 0.4, 0.4))
    joint("Slew", "REVOLUTE", marker(cab, "Cab.slew", (0, 0, 0.3)), marker(base, "Tracks.slew", (0, 0, 0.3)),
          motion="0.6*sin(pi*t/2)")
    joint("Boom pin", "REVOLUTE", marker(boom, "Boom.pin", (0.3, 0, 1.0), "Y"),
          marker(cab, "Cab.boom", (0.3, 0, 1.0), "Y"), motion="0.3*sin(pi*t/2)")
    joint("Stick pin", "REVOLUTE", marker(stick, "Stick.pin", (2.1, 0, 1.0), "Y"),
          marker(boom, "Boom.tip", (2.1, 0, 1.0), "Y"), motion="0.5*(1 - cos(pi*t/2))")
    joint("Bucket pin", "REVOLUTE", marker(bucket, "Bucket.pin", (3.15, 0, 1.0), "Y"),
          marker(stick, "Stick.tip", (3.15, 0, 1.0), "Y"), motion="0.8*sin(pi*t)")
    stage(target=(1.4, 0, 0.8), distance=7.0)
    return {"preview_frame": 40}
