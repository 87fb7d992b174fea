"""The star gear train of gear_train.py driven by its teeth: the sun and the three planets
are involute spur gears (the solver's ``involute_gear``: module 10 mm, 25 degrees of
pressure angle, which a 12-tooth sun needs to be cut without undercut, 0.5 mm of
backlash), and each sun-planet mesh is a Contact between the two gears' meshes (Profile
shapes: the prisms' outlines and their 2-D distance grids) in place of a gear coupler.
The sun is driven at half a turn per second; the planets turn on their pins only as the
sun's teeth push theirs, each against a light drag (2 N m s) that keeps its flanks
touching.  The ring, an internal gear with no involute outline here, stays geared to
planet 1 by its pitch radii, with a drag of its own.

The planets start at rest: the sun's first teeth knock them up to speed, and they settle
within a third of a second; from then on they turn at -12/24 of the sun's speed on
average (the tooth ratio), moving within the backlash and the teeth's compliance as the
teeth pass.  Dynamic, to a tolerance of 1e-3: about 100 steps, 4 s of CPU, nearly all in
the three contacts (each right-hand side evaluates some 1,000 points of each pair
against the other's grid).
"""
import math
import os
import sys

import numpy as np

from common import box, contact, coupler, joint, marker, new_scene, stage
from gear_meshes import prism
from gear_train import MODULE, PIN, PLANET, RING, SUN, WIDTH, gear

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from solver import involute_gear  # noqa: E402

SECONDS = 1.0
PRESSURE_ANGLE = 25.0                  # degrees: 12 teeth are undercut below 24.1
BACKLASH = 0.0005                      # m, each gear
SPEED = "pi*t"                         # rad: the sun's drive, half a turn a second
DRAG = 2.0                             # N m s: each planet pin's and the ring's
STIFFNESS = 1e6                        # N/m: the teeth's contact (linear)
SPACING = 0.004                        # m: the profiles' contact points along the flanks


def involute_mesh(teeth: int, phase: float) -> tuple[list, list]:
    """The prism of an involute gear's outline about its centre, a tooth at ``phase``."""
    outline = involute_gear(teeth, MODULE, PRESSURE_ANGLE, backlash=BACKLASH)
    c, s = math.cos(phase), math.sin(phase)
    return prism(outline @ np.array([[c, s], [-s, c]]), WIDTH)


def drag(joint_ob) -> None:
    s = joint_ob.mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 0.0, DRAG


def build() -> dict:
    scene = new_scene(SECONDS)
    scene.mechanism.tolerance = 1e-3
    frame = box("Carrier", (0.8, 0.8, 0.02), (0.0, 0.0, -0.06), ground=True, color=(0.3, 0.3, 0.35))
    sun = gear("Sun", SUN, (0.0, 0.0, 0.0), 0.0, (0.85, 0.35, 0.1), mesh=involute_mesh(SUN, 0.0))
    ring = gear("Ring", RING, (0.0, 0.0, 0.0), 0.0, (0.2, 0.45, 0.8), internal=True)
    sun_axle = joint("Sun axle", "REVOLUTE", marker(sun, "Sun.hub", (0, 0, 0)),
                     marker(frame, "Carrier.centre", (0, 0, 0)), motion=SPEED)
    ring_axle = joint("Ring bearing", "REVOLUTE", marker(ring, "Ring.hub", (0, 0, 0)),
                      marker(frame, "Carrier.ring", (0, 0, 0)))
    drag(ring_axle)
    for k in range(3):
        psi = 2 * math.pi * k / 3
        c = (PIN * math.cos(psi), PIN * math.sin(psi), 0.0)
        phase = psi + math.pi / PLANET          # a gap towards the sun and the ring
        planet = gear(f"Planet {k + 1}", PLANET, c, phase, (0.8, 0.7, 0.2),
                      mesh=involute_mesh(PLANET, phase))
        pin = joint(f"Planet pin {k + 1}", "REVOLUTE", marker(planet, f"Planet {k + 1}.hub", c),
                    marker(frame, f"Carrier.pin{k + 1}", c))
        drag(pin)
        contact(f"Sun-planet {k + 1}", sun, planet, "PROFILE", "PROFILE",
                contact_stiffness=STIFFNESS, contact_exponent=1.0, contact_restitution=0.5,
                contact_profile_levels=1, contact_profile_spacing=SPACING)
        if k == 0:
            coupler("Planet-ring", "GEAR", [pin, ring_axle], ratio_mode="RADII",
                    radius_a=PLANET * MODULE / 2, radius_b=RING * MODULE / 2, mesh="INTERNAL")
    stage(target=(0.0, 0.0, 0.0), distance=1.5, elevation=55)
    return {"preview_frame": 20}
