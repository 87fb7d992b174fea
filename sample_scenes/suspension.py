"""A quarter-car suspension: a trailing arm held to the chassis by two rubber bushings (its
pivot), a coil-over spring-damper to the chassis, and a bump force on the wheel at 1 s
(dynamic, springs, dampers and bushings)."""
from common import box, cylinder, joint, marker, new_scene, spring, stage

SECONDS = 3.0


def build() -> dict:
    new_scene(SECONDS)
    chassis = box("Chassis", (1.0, 0.3, 0.1), (0, 0, 0.6), ground=True, color=(0.3, 0.3, 0.35))
    arm = box("Arm", (0.5, 0.06, 0.04), (0.25, 0, 0.35), density=2700, color=(0.8, 0.3, 0.1))
    wheel = cylinder("Wheel", 0.3, 0.2, (0.5, 0.2, 0.35), axis="Y", density=400, color=(0.1, 0.1, 0.1))
    for side, y in (("front", -0.12), ("rear", 0.12)):     # two bushings along the pivot axis
        pivot_bushing(f"Arm bushing {side}", marker(arm, f"Arm.{side}", (0, y, 0.35), "Y"),
                      marker(chassis, f"Chassis.{side}", (0, y, 0.35), "Y"))
    joint("Hub", "REVOLUTE", marker(wheel, "Wheel.hub", (0.5, 0.2, 0.35), "Y"),
          marker(arm, "Arm.hub", (0.5, 0.2, 0.35), "Y"))
    spring("Coil-over", marker(arm, "Arm.shock", (0.35, 0, 0.35)), marker(chassis, "Chassis.shock", (0.35, 0, 0.6)),
           stiffness=40000.0, damping=600.0, free_length=0.24)
    bump = bpy_force(wheel)
    stage(target=(0.25, 0, 0.4), distance=2.2, elevation=15)
    return {"preview_frame": 30, "bump": bump.name}


def pivot_bushing(name: str, marker_i, marker_j):
    """A rubber pivot bushing (axes: marker J's, z along the pivot): stiff across the
    axis (2 MN/m) and along it (0.5 MN/m), soft about it (the arm swings), its two bushings'
    spread resisting the arm's tilt; damping a fifth of critical on the arm's bounce."""
    import bpy
    ob = bpy.data.objects.new(name, None)
    bpy.context.scene.collection.objects.link(ob)
    s = ob.mechanism
    s.role, s.marker_i, s.marker_j = "BUSHING", marker_i, marker_j
    s.bushing_stiffness = (2e6, 2e6, 5e5)
    s.bushing_rotational_stiffness = (500.0, 500.0, 20.0)
    s.bushing_damping = (2000.0, 2000.0, 500.0)
    s.bushing_rotational_damping = (5.0, 5.0, 0.5)
    return ob


def bpy_force(wheel):
    """A vertical road force on the hub for 0.1 s after t = 1 s (a smooth bump)."""
    import bpy
    ob = bpy.data.objects.new("Road bump", None)
    bpy.context.scene.collection.objects.link(ob)
    s = ob.mechanism
    s.role, s.marker_i = "FORCE", bpy.data.objects["Wheel.hub"]
    s.force = "0, 0, 3000*step5(t, 1.0, 0, 1.05, 1)*step5(t, 1.1, 1, 1.15, 0)"
    return ob
