"""An overhead-cam valve train (kinematic): the camshaft, turned by a motion at 1 rev/s, pushes
a bucket tappet and its valve down along the valve guide through a cam joint; the valve
spring (a spring-damper, 20 kN/m, some 290 N preload) holds the tappet on the cam.  The
contact force is baked on the cam joint ("contact_force", N, in the Graph Editor).

Everything in the world xz plane, the camshaft along world y.  The cam lobe is a cyclic
NURBS curve (order 4, uniform knots) drawn round the camshaft's axis, a flat 2D profile
filled and extruded, parented to the camshaft: what is rendered is the curve the joint
follows.  Its control points lie at radius R_BASE + LIFT ((1 + cos a) / 2)^4 at 16 angles a
from the nose (up at the start: the valve is closed); the tappet's face is a straight curve
where the lobe's base circle touches it.
"""
import math

from common import box, curve, cylinder, decoration, joint, marker, new_scene, spring, stage

SECONDS = 2.0
R_BASE, LIFT, N = 0.018, 0.012, 16          # m: base radius, nose height, control points
TURN = (math.pi / 2, 0.0, 0.0)              # a curve's local xy plane onto the world xz plane
STEEL, BRASS = (0.62, 0.62, 0.66), (0.8, 0.6, 0.25)


def lobe_points() -> list:
    """The lobe's control points (x, y) in its local plane (y: up at the start)."""
    out = []
    for k in range(N):
        a = 2 * math.pi * k / N
        r = R_BASE + LIFT * ((1 + math.cos(a)) / 2) ** 4
        out.append((r * math.sin(a), r * math.cos(a)))
    return out


def base_radius() -> float:
    """Where the lobe's curve is lowest at the start: below the axis, the uniform cubic
    B-spline's point (P7 + 4 P8 + P9) / 6 of the control points round the bottom."""
    pts = lobe_points()
    return -(pts[N // 2 - 1][1] + 4 * pts[N // 2][1] + pts[N // 2 + 1][1]) / 6


def build() -> dict:
    new_scene(SECONDS)
    rb = base_radius()
    face = -rb                                          # z of the tappet's face
    head = box("Cylinder head", (0.07, 0.05, 0.03), (0.0, 0.0, -0.075), ground=True,
               color=(0.35, 0.35, 0.4))
    cam = cylinder("Camshaft", 0.011, 0.03, (0.0, 0.0, 0.0), axis="Y", color=STEEL)
    decoration("Camshaft bar", cam, (0.008, 0.08, 0.008), (0.0, 0.05, 0.0), STEEL)   # behind the lobe
    lobe = curve("Cam lobe", "NURBS", lobe_points(), cam, cyclic=True, rotation=TURN,
                 extrude=0.008, color=(0.85, 0.35, 0.1))
    tappet = cylinder("Tappet", 0.014, 0.012, (0.0, 0.0, face - 0.006), color=BRASS)
    decoration("Valve stem", tappet, (0.006, 0.006, 0.095), (0.0, 0.0, face - 0.012 - 0.0475), STEEL)
    decoration("Valve head", tappet, (0.032, 0.032, 0.004), (0.0, 0.0, face - 0.107), STEEL)
    flat = curve("Tappet face", "POLY", [(-0.014, face), (0.014, face)], tappet, rotation=TURN)
    joint("Camshaft bearing", "REVOLUTE", marker(cam, "Camshaft.axis", (0, 0, 0), "Y"),
          marker(head, "Head.camshaft", (0, 0, 0), "Y"), motion="2*pi*t")
    joint("Valve guide", "PRISMATIC", marker(tappet, "Tappet.axis", (0, 0, face), "Z"),
          marker(head, "Head.guide", (0, 0, face), "Z"))
    joint("Cam contact", "CAM", marker(tappet, "Tappet.face", (0, 0, face), "Y"),
          marker(cam, "Camshaft.lobe", (0, 0, 0), "Y"), curve=lobe, follower_curve=flat)
    spring("Valve spring", marker(tappet, "Tappet.retainer", (0, 0, face - 0.012)),
           marker(head, "Head.seat", (0, 0, -0.06)), stiffness=2.0e4, damping=5.0, free_length=0.045)
    stage(target=(0.0, 0.0, -0.04), distance=0.3, elevation=10, azimuth=-95)
    return {"preview_frame": 10}                       # 135 degrees: the nose pushing the valve open
