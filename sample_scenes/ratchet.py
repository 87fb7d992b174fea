"""A ratchet: a wheel of 12 saw teeth turned clockwise (seen from the front) by a motion at
a third of a turn per second, and a pawl pivoted on the frame above it, pressed onto the
teeth by a torsion spring.  Each tooth's slope lifts the pawl, which then drops off the
tooth's radial face onto the next slope: it clicks over four teeth a second, and would
jam against a radial face if the wheel turned back.  The wheel touches through its mesh
(a Mesh shape: its distance grid of Grid Cells cells), the pawl through the capsule of
its round-ended bar (a Capsule: its nose's sphere is exact against the grid); the
contact's force on the pawl and its depth are baked on the contact object.  Dynamic (the
pawl is free), steel on steel (restitution 0.8), to a tolerance of 1e-4: a lower
restitution (more damping at each click) or a finer tolerance doubles the steps.  A Mesh pawl too (its vertices and face centres against the wheel's grid)
takes minutes to bake: its tip's few points carry a small share of the contact's
stiffness, so it sinks millimetres into the teeth unless the stiffness is raised, and the
steps shorten."""
import math

import numpy as np

from common import box, contact, joint, marker, mesh_part, new_scene, stage

SECONDS = 1.0
TEETH = 12
ROOT, TIP = 0.08, 0.10               # m: the teeth's root and tip radii
WALL = math.radians(85.0)            # a radial face's angle (from +x toward +z), as built
WHEEL_HALF, PAWL_HALF = 0.01, 0.006  # m: the wheel's half thickness (y); the pawl's (y and z)
PIVOT = (-0.075, 0.112)              # m (x, z): the pawl's pin on the frame
NOSE = (0.0, 0.0903)                 # m (x, z): its nose's centre, 1 mm above the slope below
PAWL_LENGTH = math.hypot(NOSE[0] - PIVOT[0], NOSE[1] - PIVOT[1])
PAWL_TILT = math.atan2(PIVOT[1] - NOSE[1], NOSE[0] - PIVOT[0])    # rad about +y: nose down
SPEED = "2*pi/3*t"                   # rad: the wheel's drive, clockwise seen from the front
CELLS = 64                           # the contact's grid cells (32 misreads the teeth's 10 mm)
TOLERANCE = 1e-4                     # the run's accuracy goal: 578 steps, 4 s of CPU (1e-6: 1246)


def prism(profile: list, half: float, centre: tuple) -> tuple[list, list]:
    """Vertices and faces (outward) of ``profile`` (x, z) points, counter-clockwise seen
    from -y and star-shaped about ``centre`` (x, z), extruded from y = -half to +half; each
    cap a fan of triangles about its centre."""
    n = len(profile)
    front = [(x, -half, z) for x, z in profile]
    back = [(x, half, z) for x, z in profile]
    verts = front + back + [(centre[0], -half, centre[1]), (centre[0], half, centre[1])]
    cf, cb = 2 * n, 2 * n + 1
    faces = []
    for i in range(n):
        j = (i + 1) % n
        faces.append((i, n + i, n + j, j))          # the side between profile points i, j
        faces.append((cf, i, j))                    # front cap (counter-clockwise from -y)
        faces.append((cb, n + j, n + i))            # back cap
    return verts, faces


def wheel_profile() -> list:
    """The saw teeth (x, z): from each root a slope rising counter-clockwise to the next
    tooth's tip, then a radial face straight down to that root."""
    pts = []
    for k in range(TEETH):
        root = WALL + 2.0 * math.pi * k / TEETH
        top = root + 2.0 * math.pi / TEETH
        pts.append((ROOT * math.cos(root), ROOT * math.sin(root)))
        for f in (0.25, 0.5, 0.75):                 # the slope, a straight line in r and angle
            a, r = root + f * (top - root), ROOT + f * (TIP - ROOT)
            pts.append((r * math.cos(a), r * math.sin(a)))
        pts.append((TIP * math.cos(top), TIP * math.sin(top)))
    return pts


def pawl_profile() -> list:
    """The pawl's outline (x, z) in its own axes: a bar with round ends of radius PAWL_HALF
    about (0, 0), the pivot, and (PAWL_LENGTH, 0), the nose's centre (a capsule)."""
    back = [(-PAWL_HALF * math.sin(a), PAWL_HALF * math.cos(a))
            for a in np.linspace(0.0, math.pi, 9)]
    nose = [(PAWL_LENGTH + PAWL_HALF * math.sin(a), -PAWL_HALF * math.cos(a))
            for a in np.linspace(0.0, math.pi, 9)]
    return back + nose


def build() -> dict:
    scene = new_scene(SECONDS)
    scene.mechanism.tolerance = TOLERANCE
    frame = box("Frame", (0.3, 0.01, 0.3), (0.0, 0.025, 0.03), ground=True, color=(0.3, 0.3, 0.33))
    verts, faces = prism(wheel_profile(), WHEEL_HALF, (0.0, 0.0))
    wheel = mesh_part("Wheel", verts, faces, (0.0, 0.0, 0.0), color=(0.75, 0.6, 0.25))
    verts, faces = prism(pawl_profile(), PAWL_HALF, (0.5 * PAWL_LENGTH, 0.0))
    pawl = mesh_part("Pawl", verts, faces, (PIVOT[0], 0.0, PIVOT[1]), (0.0, PAWL_TILT, 0.0),
                     color=(0.7, 0.2, 0.2))
    joint("Wheel axle", "REVOLUTE", marker(wheel, "Wheel.axle", (0, 0, 0), "Y"),
          marker(frame, "Frame.axle", (0, 0, 0), "Y"), motion=SPEED)
    pin = joint("Pawl pin", "REVOLUTE", marker(pawl, "Pawl.pin", (PIVOT[0], 0, PIVOT[1]), "Y"),
                marker(frame, "Frame.pin", (PIVOT[0], 0, PIVOT[1]), "Y"))
    s = pin.mechanism                    # turning positive about +y brings the tip down
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 0.4, 0.002
    s.torsion_free_angle = 0.4
    contact("Pawl on wheel", pawl, wheel, "CAPSULE", "MESH", contact_restitution=0.8,
            contact_cells=CELLS)
    stage(target=(-0.02, 0.0, 0.02), distance=0.7, elevation=0, azimuth=-90)
    return {"preview_frame": 20}
