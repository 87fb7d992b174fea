"""A star gear train (a planetary set with its carrier held): a driven sun, three planets on
fixed pins and an internal ring gear, all turning about world z (kinematic).

Module 10 mm: sun 12 teeth (r 60 mm), planets 24 (r 120 mm) on pins 180 mm out, ring 60
(r 300 mm = r_sun + 2 r_planet).  The sun-planet meshes are gears by teeth; planet 1 and
the ring an internal gear by pitch radii (its tooth force is baked).  Ring speed = -(12/60)
sun speed.  Planets 2 and 3 mesh with the ring too, but a coupler there would only repeat
the ring's relation to the sun through planet 1 (redundant), so they are geared to the sun
alone.  The teeth are phased to mesh: a sun tooth faces each planet, the planets a gap to
the sun and to the ring.
"""
import math

from common import box, coupler, decoration, joint, marker, mesh_part, new_scene, stage
from gear_meshes import gear_mesh

SECONDS = 2.0
MODULE, WIDTH = 0.01, 0.04
SUN, PLANET, RING = 12, 24, 60
PIN = (SUN + PLANET) * MODULE / 2                    # planet pin radius, 0.18 m


def gear(name: str, teeth: int, centre: tuple, phase: float, color: tuple, internal: bool = False,
         mesh: tuple | None = None):
    """A toothed gear part about world z at ``centre``, with a stripe on its face; its
    ``mesh`` (vertices, faces about the gear's centre, a tooth at angle ``phase``) or by
    default gear_mesh's trapezoidal teeth."""
    verts, faces = mesh or gear_mesh(teeth, MODULE, WIDTH, internal=internal, phase=phase)
    ob = mesh_part(name, verts, faces, centre, density=7800.0, color=color)
    r = teeth * MODULE / 2
    at = (centre[0] + (0.5 * r if not internal else r + 1.5 * MODULE) * math.cos(phase),
          centre[1] + (0.5 * r if not internal else r + 1.5 * MODULE) * math.sin(phase), WIDTH / 2)
    length = r if not internal else 2.5 * MODULE
    decoration(name + ".stripe", ob, (length, 0.012, 0.004), at, (0.95, 0.95, 0.9),
               rotation=(0.0, 0.0, phase))
    return ob


def build() -> dict:
    new_scene(SECONDS)
    frame = box("Carrier", (0.8, 0.8, 0.02), (0.0, 0.0, -0.06), ground=True, color=(0.3, 0.3, 0.35))
    sun = gear("Sun", SUN, (0.0, 0.0, 0.0), 0.0, (0.85, 0.35, 0.1))
    ring = gear("Ring", RING, (0.0, 0.0, 0.0), 0.0, (0.2, 0.45, 0.8), internal=True)
    sun_axle = joint("Sun axle", "REVOLUTE", marker(sun, "Sun.hub", (0, 0, 0)),
                     marker(frame, "Carrier.centre", (0, 0, 0)), motion="pi*t")
    ring_axle = joint("Ring bearing", "REVOLUTE", marker(ring, "Ring.hub", (0, 0, 0)),
                      marker(frame, "Carrier.ring", (0, 0, 0)))
    for k in range(3):
        psi = 2 * math.pi * k / 3
        c = (PIN * math.cos(psi), PIN * math.sin(psi), 0.0)
        # a gap towards the sun (psi + pi) and the ring (psi): teeth at odd multiples of pi/24
        planet = gear(f"Planet {k + 1}", PLANET, c, psi + math.pi / PLANET, (0.8, 0.7, 0.2))
        pin = joint(f"Planet pin {k + 1}", "REVOLUTE", marker(planet, f"Planet {k + 1}.hub", c),
                    marker(frame, f"Carrier.pin{k + 1}", c))
        coupler(f"Sun-planet {k + 1}", "GEAR", [sun_axle, pin], ratio_mode="TEETH",
                teeth_a=SUN, teeth_b=PLANET)
        if k == 0:
            coupler("Planet-ring", "GEAR", [pin, ring_axle], ratio_mode="RADII",
                    radius_a=PLANET * MODULE / 2, radius_b=RING * MODULE / 2, mesh="INTERNAL")
    stage(target=(0.0, 0.0, 0.0), distance=1.5, elevation=55)
    return {"preview_frame": 20}

