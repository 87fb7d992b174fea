"""A six-joint robot arm imported from robot_arm.urdf (File > Import > URDF), every joint
driven by a motion (kinematic), so each joint's baked motion effort is the torque its motor
needs to move the arm against gravity, inertia and the joints' damping."""
import os

import bpy

from common import new_scene, stage

SECONDS = 4.0
URDF = os.path.join(os.path.dirname(os.path.abspath(__file__)), "robot_arm.urdf")
# joint -> its angle (rad) as a function of t (s), inside the URDF's limits
MOTIONS = {"waist": "1.2*sin(pi*t/4)", "shoulder": "0.9*(1 - cos(pi*t/4))",
           "elbow": "1.3*sin(pi*t/8)", "wrist_roll": "pi*t/4",
           "wrist_pitch": "0.8*sin(pi*t/2)", "flange_roll": "-pi*t/2"}


def build() -> dict:
    new_scene(SECONDS)
    assert bpy.ops.mechanism.import_urdf(filepath=URDF) == {"FINISHED"}
    for name, expression in MOTIONS.items():
        s = bpy.data.objects[name].mechanism
        s.motion_type, s.motion_coordinate, s.motion_expression = "EXPRESSION", "ANGLE", expression
    stage(target=(0.2, 0, 0.45), distance=2.6)
    return {"preview_frame": 60}
