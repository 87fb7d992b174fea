"""A Geneva drive: a crank turning at one turn per second indexes a 4-slot wheel a quarter
turn per crank turn, and holds it still in between.  Its pin enters a slot along the
slot's axis, turns the wheel by 90 degrees while the crank turns by 90 (180 - 360/4), and
leaves; the crank's locking disc then rides in the wheel's concave arc and keeps the
wheel from turning until the pin comes round again (Bickford 1972).

The meshes are prisms on the solver's outlines (``geneva_wheel``, ``geneva_crank``: 10 mm
thick, the centre distance 0.1 m, a pin of 8 mm radius and 0.5 mm of clearance all round).
It bakes one crank turn (dwell, index, dwell) in about 2 s.  The wheel turns free on its axle with light damping; nothing but the contacts moves it:
the pin (its own part, fixed to the crank; a Capsule, exact) against the wheel's slots (a
Profile: the wheel's outline, its 2-D distance grid), the locking disc (a Profile) against
the wheel's arcs.  Levels 1: the mechanism is planar, one row of contact points across
the thickness is enough.  Dynamic, to a tolerance of 1e-3; the wheel's angle against the
crank's, with the closed form, and the contacts' forces are plotted (<scene>_motion.png).
"""
import math
import os
import sys

import numpy as np

from common import box, contact, cylinder, decoration, joint, marker, mesh_part, new_scene, stage
from gear_meshes import prism

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from solver import geneva_crank, geneva_crank_radius, geneva_wheel  # noqa: E402

SECONDS = 1.0                           # s: one crank turn, one index
SLOTS, CENTRE = 4, 0.1                  # slots; m between the crank's and the wheel's axles
PIN, CLEARANCE, THICK = 0.008, 0.0005, 0.01      # m: the pin's radius, clearance, thickness
CRANK_RADIUS = geneva_crank_radius(SLOTS, CENTRE)  # m: the pin's circle, 70.7 mm
START = -3 * math.pi / 4                # rad: the wheel's angle, a slot waiting at 225 deg
CRANK_START = -math.pi                  # rad: the crank's angle, the pin on -x (dwelling)
SPEED = "2*pi*t"                        # rad: the crank's drive from there, a turn a second
DAMPING = 5e-3                          # N m s: the wheel axle's drag
TOLERANCE = 1e-3


def build() -> dict:
    scene = new_scene(SECONDS)
    scene.mechanism.tolerance = TOLERANCE
    frame = box("Frame", (0.3, 0.2, 0.006), (0.04, 0.0, -0.03), ground=True,
                color=(0.3, 0.3, 0.33))
    verts, faces = prism(geneva_crank(SLOTS, CENTRE, PIN, CLEARANCE), THICK)
    crank = mesh_part("Crank", verts, faces, (0.0, 0.0, 0.0), (0.0, 0.0, CRANK_START),
                      color=(0.7, 0.2, 0.2))
    at = (CRANK_RADIUS * math.cos(CRANK_START), CRANK_RADIUS * math.sin(CRANK_START), 0.0)
    pin = cylinder("Pin", PIN, THICK + 2 * PIN, at, color=(0.85, 0.85, 0.8))
    decoration("Crank.arm", crank, (CRANK_RADIUS, 0.012, 0.005),
               (0.5 * at[0], 0.5 * at[1], -0.5 * THICK - PIN + 0.0025), (0.7, 0.2, 0.2),
               rotation=(0.0, 0.0, CRANK_START))
    verts, faces = prism(geneva_wheel(SLOTS, CENTRE, PIN, CLEARANCE), THICK)
    wheel = mesh_part("Wheel", verts, faces, (CENTRE, 0.0, 0.0), (0.0, 0.0, START),
                      color=(0.2, 0.45, 0.8))
    joint("Crank axle", "REVOLUTE", marker(crank, "Crank.axle", (0, 0, 0)),
          marker(frame, "Frame.crank", (0, 0, 0)), motion=SPEED)
    joint("Pin mount", "FIXED", marker(pin, "Pin.base", at), marker(crank, "Crank.pin", at))
    axle = joint("Wheel axle", "REVOLUTE", marker(wheel, "Wheel.axle", (CENTRE, 0, 0)),
                 marker(frame, "Frame.wheel", (CENTRE, 0, 0)))
    s = axle.mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 0.0, DAMPING
    contact("Pin in slot", pin, wheel, "CAPSULE", "PROFILE", contact_stiffness=3e4,
            contact_exponent=1.0, contact_restitution=0.5, contact_profile_levels=1,
            contact_profile_spacing=0.004)
    contact("Locking arc", crank, wheel, "PROFILE", "PROFILE", contact_stiffness=3e6,
            contact_exponent=1.0, contact_restitution=0.5, contact_profile_levels=1,
            contact_profile_spacing=0.004)
    stage(target=(0.05, 0.0, 0.0), distance=0.45, elevation=60)
    return {"preview_frame": 18, "plot": plot_motion}


def ideal_wheel_angle(phi: np.ndarray) -> np.ndarray:
    """rad: the wheel's angle for crank angles ``phi`` (rad, from the line of centres,
    turning positively): while the pin is in a slot (|phi| <= pi/2 - pi/n in each turn)
    the slot points at the pin, atan2(a sin phi, a cos phi - c); dwelling otherwise,
    -2 pi / n further on per index (Bickford 1972)."""
    n, a, c = SLOTS, CRANK_RADIUS, CENTRE
    turns = np.floor((phi + math.pi) / (2 * math.pi))
    local = phi - 2 * math.pi * turns
    lim = math.pi / 2 - math.pi / n
    slot = np.arctan2(a * np.sin(local), a * np.cos(local) - c) % (2 * math.pi)
    before = START - turns * 2 * math.pi / n
    during = before + slot - (math.pi + math.pi / n)
    return np.where(local < -lim, before, np.where(local > lim, before - 2 * math.pi / n,
                                                    during))


def baked_angles(scene) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(times s, crank angles rad, wheel angles rad, unwrapped) at every frame of the
    baked scene, read from the parts' world matrices."""
    crank, wheel = scene.objects["Crank"], scene.objects["Wheel"]
    fps = scene.render.fps / scene.render.fps_base
    frames = np.arange(scene.frame_start, scene.frame_end + 1)
    angles = []
    for f in frames:
        scene.frame_set(int(f))
        angles.append([math.atan2(ob.matrix_world[1][0], ob.matrix_world[0][0])
                       for ob in (crank, wheel)])
    crank_angle, wheel_angle = np.unwrap(np.array(angles), axis=0).T
    # each from its design angle at the first frame (atan2 reads -pi as +pi)
    return ((frames - scene.frame_start) / fps, crank_angle - crank_angle[0] + CRANK_START,
            wheel_angle - wheel_angle[0] + START)


def plot_motion(scene, path: str) -> None:
    """Write the PNG ``path``: the wheel's angle against time with the closed form, and the
    magnitude of each contact's force (read back from the bake)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from force_plot import series
    t, crank, wheel = baked_angles(scene)
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(6.4, 5.2), sharex=True)
    top.plot(t, np.degrees(wheel), lw=1.6, label="wheel (baked)")
    top.plot(t, np.degrees(ideal_wheel_angle(crank)), "k--", lw=0.9, label="closed form")
    top.set_ylabel("wheel angle (deg)")
    top.legend(fontsize=7)
    top.grid(True, alpha=0.3)
    fps = scene.render.fps / scene.render.fps_base
    forces, _ = series(scene)
    for label, frames, values in forces:
        if label.endswith(": part contact force"):
            bottom.plot((frames - scene.frame_start) / fps, values, lw=1.0, label=label)
    bottom.set_ylabel("contact force (N)")
    bottom.set_xlabel("time (s)")
    bottom.legend(fontsize=7)
    bottom.grid(True, alpha=0.3)
    top.set_title("Geneva drive: a quarter turn of the wheel per crank turn", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
