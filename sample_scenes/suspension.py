"""A quarter-car suspension: a trailing arm on a pin, a coil-over spring-damper to the
chassis, and a bump force on the wheel at 1 s (dynamic, springs and dampers)."""
from common import box, cylinder, joint, marker, new_scene, spring, stage

SECONDS = 3.0


def build() -> dict:
    new_scene(SECONDS)
    chassis = box("Chassis", (1.0, 0.3, 0.1), (0, 0, 0.6), ground=True, color=(0.3, 0.3, 0.35))
    arm = box("Arm", (0.5, 0.06, 0.04), (0.25, 0, 0.35), density=2700, color=(0.8, 0.3, 0.1))
    wheel = cylinder("Wheel", 0.3, 0.2, (0.5, 0.2, 0.35), axis="Y", density=400, color=(0.1, 0.1, 0.1))
    joint("Arm pivot", "REVOLUTE", marker(arm, "Arm.pivot", (0, 0, 0.35), "Y"),
          marker(chassis, "Chassis.pivot", (0, 0, 0.35), "Y"))
    joint("Hub", "REVOLUTE", marker(wheel, "Wheel.hub", (0.5, 0.2, 0.35), "Y"),
          marker(arm, "Arm.hub", (0.5, 0.2, 0.35), "Y"))
    spring("Coil-over", marker(arm, "Arm.shock", (0.35, 0, 0.35)), marker(chassis, "Chassis.shock", (0.35, 0, 0.6)),
           stiffness=40000.0, damping=600.0, free_length=0.24)
    bump = bpy_force(wheel)
    stage(target=(0.25, 0, 0.4), distance=2.2, elevation=15)
    return {"preview_frame": 30, "bump": bump.name}


def bpy_force(wheel):
    """A vertical road force on the hub for 0.1 s after t = 1 s (a smooth bump)."""
    import bpy
    ob = bpy.data.objects.new("Road bump", None)
    bpy.context.scene.collection.objects.link(ob)
    s = ob.mechanism
    s.role, s.marker_i = "FORCE", bpy.data.objects["Wheel.hub"]
    s.force = "0, 0, 3000*step5(t, 1.0, 0, 1.05, 1)*step5(t, 1.1, 1, 1.15, 0)"
    return ob
