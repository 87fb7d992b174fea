"""A door on a vertical hinge, opened 80 degrees, pulled shut by a closer (a torsion spring
toward -20 degrees, lightly damped) against its stop at 0 (restitution 0.2): it bounces a
few times on the stop and comes to rest held there, the stop carrying the closer's 7 N m.
The hinge is dry (Coulomb friction on a 10 mm pin, its load the hinge's reaction).  Dynamic;
the stop's and the friction's torques are baked on the hinge (limit_force, friction_force)."""
import math

import bpy
from mathutils import Matrix

from common import box, decoration, joint, marker, new_scene, stage

SECONDS = 3.0
WIDTH, THICK, HEIGHT = 0.8, 0.04, 2.0
OPEN = 80.0                          # degrees


def build() -> dict:
    new_scene(SECONDS)
    post = box("Jamb", (0.1, 0.1, 2.1), (-0.07, 0.0, 1.05), ground=True, color=(0.35, 0.3, 0.28))
    decoration("Far jamb", post, (0.1, 0.1, 2.1), (WIDTH + 0.07, 0.0, 1.05), (0.35, 0.3, 0.28))
    decoration("Header", post, (WIDTH + 0.24, 0.1, 0.1), (WIDTH / 2, 0.0, 2.15), (0.35, 0.3, 0.28))
    # the stop: a strip on the far jamb that the closing door's edge meets (it shuts toward -y)
    decoration("Stop strip", post, (0.06, 0.02, 2.1), (WIDTH - 0.01, -THICK / 2 - 0.01, 1.05),
               (0.8, 0.1, 0.1))
    door = box("Door", (WIDTH, THICK, HEIGHT), (WIDTH / 2, 0.0, HEIGHT / 2 + 0.02), density=600.0,
               color=(0.75, 0.55, 0.3))
    decoration("Handle", door, (0.12, 0.1, 0.03), (WIDTH - 0.1, 0.0, 1.0), (0.85, 0.85, 0.8))
    hinge = joint("Hinge", "REVOLUTE", marker(door, "Door.hinge", (0, 0, 1.0), "Z"),
                  marker(post, "Jamb.hinge", (0, 0, 1.0), "Z"))
    bpy.context.view_layer.update()          # open the door about the hinge (its marker turns with it)
    door.matrix_world = Matrix.Rotation(math.radians(OPEN), 4, "Z") @ door.matrix_world
    s = hinge.mechanism
    s.torsion, s.torsion_stiffness, s.torsion_damping = True, 20.0, 2.0
    s.torsion_free_angle = math.radians(-20.0)
    s.use_limit_lower, s.limit_lower_angle, s.limit_restitution = True, 0.0, 0.2
    s.use_joint_friction, s.friction_static, s.friction_dynamic = True, 0.2, 0.15
    s.friction_radius, s.friction_arm, s.friction_bearing_length = 0.01, 0.01, 1.6
    stage(target=(0.4, 0.3, 1.0), distance=4.5, elevation=25, azimuth=55)
    return {"preview_frame": 10}
