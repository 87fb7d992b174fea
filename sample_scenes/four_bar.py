"""A crank-rocker four-bar linkage of four pins (three of its equations are redundant in a
planar linkage: Check names them, the bake goes on)."""
import math

from common import box, joint, marker, new_scene, stage

SECONDS = 2.0
A, B, C, D = 0.1, 0.35, 0.3, 0.4      # crank, coupler, rocker, ground link (m)


def link(name: str, p, q, color):
    """A bar from point p to point q in the xy plane."""
    mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2, 0.0)
    ang = math.atan2(q[1] - p[1], q[0] - p[0])
    length = math.hypot(q[0] - p[0], q[1] - p[1])
    return box(name, (length + 0.03, 0.02, 0.01), mid, rotation=(0, 0, ang), color=color)


def build() -> dict:
    new_scene(SECONDS)
    th = math.radians(60)
    pa = (A * math.cos(th), A * math.sin(th))
    dx, dy = D - pa[0], -pa[1]
    d = math.hypot(dx, dy)
    x = (d * d + B * B - C * C) / (2 * d)
    h = math.sqrt(B * B - x * x)
    pb = (pa[0] + (x * dx - h * dy) / d, pa[1] + (x * dy + h * dx) / d)
    ground = box("Frame", (D + 0.06, 0.03, 0.02), (D / 2, 0, -0.03), ground=True, color=(0.3, 0.3, 0.35))
    crank = link("Crank", (0, 0), pa, (0.8, 0.3, 0.1))
    coupler = link("Coupler", pa, pb, (0.5, 0.5, 0.55))
    rocker = link("Rocker", (D, 0), pb, (0.1, 0.4, 0.8))
    joint("Crank pivot", "REVOLUTE", marker(crank, "Crank.O", (0, 0, 0)),
          marker(ground, "Frame.O", (0, 0, 0)), motion="2*pi*t")      # angle 0 as drawn
    joint("Crank pin", "REVOLUTE", marker(coupler, "Coupler.A", (*pa, 0)), marker(crank, "Crank.A", (*pa, 0)))
    joint("Coupler pin", "REVOLUTE", marker(rocker, "Rocker.B", (*pb, 0)), marker(coupler, "Coupler.B", (*pb, 0)))
    joint("Rocker pivot", "REVOLUTE", marker(rocker, "Rocker.D", (D, 0, 0)), marker(ground, "Frame.D", (D, 0, 0)))
    stage(target=(0.2, 0.15, 0), distance=1.3, elevation=60)
    return {"preview_frame": 10}
