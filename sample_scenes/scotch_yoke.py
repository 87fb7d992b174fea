"""A Scotch yoke (kinematic): a crank disc turned at 1 rev/s carries a pin that runs in the
yoke's vertical slot, so the yoke and its rod slide back and forth along x in simple
harmonic motion, x = R cos(theta).  The slot is a curve object (a straight Bezier, drawn as
a dark groove) parented to the yoke: a Point on Curve joint keeps the pin on it.

The mechanism in the world xz plane, the crank turning about world y.
"""
from common import box, curve, cylinder, decoration, joint, marker, new_scene, stage

SECONDS = 2.0
R, HALF = 0.05, 0.085                   # crank radius; half the slot's length, m
STEEL, DARK = (0.62, 0.62, 0.66), (0.05, 0.05, 0.06)


def build() -> dict:
    new_scene(SECONDS)
    frame = box("Frame", (0.55, 0.01, 0.22), (0.15, 0.045, 0.0), ground=True, color=(0.3, 0.3, 0.35))
    decoration("Rod guide", frame, (0.06, 0.03, 0.03), (0.36, 0.0, 0.0), (0.4, 0.4, 0.45))
    crank = cylinder("Crank", 0.075, 0.01, (0.0, 0.03, 0.0), axis="Y", color=(0.85, 0.35, 0.1))
    decoration("Crank pin", crank, (0.012, 0.045, 0.012), (R, 0.01, 0.0), STEEL)
    yoke = box("Yoke", (0.04, 0.008, 0.2), (R, 0.014, 0.0), color=(0.2, 0.45, 0.8))
    decoration("Yoke rod", yoke, (0.34, 0.014, 0.014), (R + 0.19, 0.014, 0.0), STEEL)
    a, b = (R, 0.0, -HALF), (R, 0.0, HALF)
    third = (0.0, 0.0, 2 * HALF / 3)
    left = [tuple(p - d for p, d in zip(q, third)) for q in (a, b)]
    right = [tuple(p + d for p, d in zip(q, third)) for q in (a, b)]
    slot = curve("Slot", "BEZIER", [a, b], yoke, handles=(left, right), bevel=0.007, color=DARK)
    joint("Crank bearing", "REVOLUTE", marker(crank, "Crank.axis", (0, 0, 0), "Y"),
          marker(frame, "Frame.crank", (0, 0, 0), "Y"), motion="2*pi*t")
    joint("Yoke guide", "PRISMATIC", marker(yoke, "Yoke.axis", (R, 0, 0), "X"),
          marker(frame, "Frame.guide", (R, 0, 0), "X"))
    joint("Pin in slot", "POINT_ON_CURVE", marker(crank, "Crank.pin", (R, 0, 0), "Y"),
          marker(yoke, "Yoke.slot", (R, 0, 0), "Y"), curve=slot)
    stage(target=(0.1, 0.0, 0.0), distance=0.7, elevation=12, azimuth=-95)
    return {"preview_frame": 4}
