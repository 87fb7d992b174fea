"""A one-cylinder engine: crank, connecting rod and piston driven at 1 rev/s (kinematic),
with the main-bearing reaction and the crank torque plotted on the joints."""
from common import box, cylinder, joint, marker, new_scene, stage

SECONDS = 2.0
R, L = 0.1, 0.3            # crank throw and rod length, m


def build() -> dict:
    new_scene(SECONDS)
    block = box("Block", (0.1, 0.1, 0.3), (0, 0, -0.2), ground=True, color=(0.3, 0.3, 0.35))
    crank = box("Crank", (R + 0.04, 0.03, 0.02), (R / 2, 0, 0.02), color=(0.8, 0.3, 0.1))
    rod = box("Rod", (L + 0.03, 0.02, 0.015), (R + L / 2, 0, 0.045), color=(0.5, 0.5, 0.55))
    piston = cylinder("Piston", 0.04, 0.06, (R + L, 0, 0.045), axis="X", color=(0.1, 0.4, 0.8))
    joint("Main bearing", "REVOLUTE", marker(crank, "Crank.main", (0, 0, 0)),
          marker(block, "Block.main", (0, 0, 0)), motion="2*pi*t")
    joint("Big end", "REVOLUTE", marker(rod, "Rod.big", (R, 0, 0)), marker(crank, "Crank.pin", (R, 0, 0)))
    # the gudgeon pin as an in-line joint: with the prismatic bore no equation is redundant
    joint("Small end", "IN_LINE", marker(piston, "Piston.pin", (R + L, 0, 0)),
          marker(rod, "Rod.small", (R + L, 0, 0)))
    joint("Bore", "PRISMATIC", marker(piston, "Piston.axis", (R + L, 0, 0), "X"),
          marker(block, "Block.bore", (R + L, 0, 0), "X"))
    stage(target=(0.2, 0, 0), distance=1.2, elevation=50)
    return {"preview_frame": 5}
