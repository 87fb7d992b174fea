"""Rack-and-pinion steering (kinematic): the steering column's pinion, turned by a motion,
drives the rack along its housing (a rack-and-pinion coupler, pitch radius 15 mm); tie rods
(a ball joint at the rack, a universal joint at the steering arm: the rod cannot spin about
itself) turn the two wheel knuckles about their kingpins.

Top view, metres: the rack along world x at the origin, the pinion above it turning about
world -y (so that a positive angle moves the rack along +x: s = r theta); tie rods from
the rack's ends at x = +-0.30 to the arms' ends at x = +-0.55; kingpins at x = +-0.62,
y = 0.12, vertical; wheels on the knuckles.
"""
import math

from common import (box, coupler, cylinder, decoration, joint, marker, mesh_part, new_scene,
                    stage)
from gear_meshes import gear_mesh

SECONDS = 2.0
PINION_TEETH, MODULE = 10, 0.003                 # pitch radius 15 mm
R = PINION_TEETH * MODULE / 2
DARK, STEEL, RED = (0.15, 0.15, 0.17), (0.6, 0.6, 0.65), (0.8, 0.25, 0.1)


def side(sign: int, crossmember, rack, label: str) -> None:
    """One side's tie rod and knuckle (wheel), x mirrored by ``sign``."""
    end, arm, king = (sign * 0.30, 0.0, 0.0), (sign * 0.55, 0.0, 0.0), (sign * 0.62, 0.12, 0.0)
    rod = box(f"{label} tie rod", (0.25, 0.012, 0.012), (sign * 0.425, 0.0, 0.0), color=STEEL)
    knuckle = cylinder(f"{label} wheel", 0.16, 0.09, (sign * 0.72, 0.12, 0.0), axis="X",
                       density=600.0, color=DARK)
    decoration(f"{label} steering arm", knuckle, (0.16, 0.02, 0.02), (sign * 0.585, 0.06, 0.0),
               STEEL, rotation=(0.0, 0.0, sign * math.atan2(0.12, 0.07)))
    decoration(f"{label} hub", knuckle, (0.1, 0.06, 0.06), (sign * 0.77, 0.12, 0.0), RED)
    joint(f"{label} kingpin", "REVOLUTE", marker(knuckle, f"{label} wheel.kingpin", king),
          marker(crossmember, f"Crossmember.{label}", king))
    joint(f"{label} inner ball", "SPHERICAL", marker(rod, f"{label} tie rod.inner", end),
          marker(rack, f"Rack.{label}", end))
    # the cross pins: the rod's along y (across it), the arm's vertical
    joint(f"{label} outer joint", "UNIVERSAL", marker(rod, f"{label} tie rod.outer", arm, "Y"),
          marker(knuckle, f"{label} wheel.arm", arm))


def build() -> dict:
    new_scene(SECONDS)
    cross = box("Crossmember", (1.1, 0.06, 0.04), (0.0, 0.12, -0.12), ground=True, color=(0.3, 0.3, 0.35))
    for x in (-0.13, 0.13):                        # the housing's two sleeves: scenery
        sleeve = box(f"Housing {'left' if x < 0 else 'right'}", (0.2, 0.04, 0.04), (x, 0.0, 0.0),
                     color=(0.45, 0.45, 0.5))
        sleeve.mechanism.role = "NONE"
    rack = box("Rack", (0.62, 0.02, 0.02), (0.0, 0.0, 0.0), color=STEEL)
    verts, faces = gear_mesh(PINION_TEETH, MODULE, 0.02)
    pinion = mesh_part("Pinion", verts, faces, (0.0, 0.0, 0.01 + R), rotation=(math.pi / 2, 0.0, 0.0),
                       color=RED)
    decoration("Steering column", pinion, (0.012, 0.5, 0.012), (0.0, -0.26, 0.01 + R), STEEL)
    for tilt in (0.0, math.pi / 2):                # the steering wheel's two spokes
        decoration("Steering wheel", pinion, (0.36, 0.02, 0.04), (0.0, -0.52, 0.01 + R), DARK,
                   rotation=(0.0, tilt, 0.0))
    column = joint("Column", "REVOLUTE", marker(pinion, "Pinion.axis", (0, 0, 0.01 + R), "-Y"),
                   marker(cross, "Crossmember.column", (0, 0, 0.01 + R), "-Y"), motion="2.2*sin(pi*t)")
    slide = joint("Rack slide", "PRISMATIC", marker(rack, "Rack.axis", (0, 0, 0), "X"),
                  marker(cross, "Crossmember.rack", (0, 0, 0), "X"))
    coupler("Rack and pinion", "RACK_PINION", [column, slide], pitch_radius=R)
    side(-1, cross, rack, "Left")
    side(1, cross, rack, "Right")
    stage(target=(0.0, -0.12, 0.0), distance=2.8, elevation=55, azimuth=-90)
    return {"preview_frame": 13}
