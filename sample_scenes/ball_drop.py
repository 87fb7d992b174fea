"""Three steel balls dropped onto a ground slab, two thrown toward each other: they bounce
on the floor (each ball's Sphere on the slab's Floor, restitution 0.7) and off each other
(Sphere on Sphere, restitution 0.9).  A Floor is the half-space below the slab's top,
unbounded: the pair is thrown with next to no net sideways momentum (red 0.6 m/s, blue 0.6 x
(5/7)^3 = 0.22 m/s back), so that after their bounce they slide apart slowly enough to stay
over the slab for the 2 s, as the picture shows.  Each contact's force on its first ball
is baked on the contact object (part_contact_force_*, part_contact_penetration).  Dynamic; the
contacts keep the default stiffness (a contact lasting 0.01 s) and no friction, which
would make the bake several times longer (its regularization below 0.01 m/s of slip is
stiff: short explicit steps while a ball rolls)."""
import itertools

from common import box, contact, new_scene, sphere, stage

SECONDS = 2.0
BALLS = (("Red ball", 0.05, (-0.3, 0.0, 0.30), (0.6, 0.0, 0.0), (0.8, 0.15, 0.1)),
         ("Blue ball", 0.07, (0.3, 0.0, 0.30), (-0.22, 0.0, 0.0), (0.15, 0.3, 0.8)),
         ("Gold ball", 0.04, (0.0, -0.25, 0.9), (0.0, 0.0, 0.0), (0.85, 0.65, 0.15)))


def build() -> dict:
    new_scene(SECONDS)
    slab = box("Slab", (2.0, 1.0, 0.1), (0.0, 0.0, -0.05), ground=True, color=(0.35, 0.35, 0.38))
    balls = []
    for name, radius, at, velocity, color in BALLS:
        ball = sphere(name, radius, at, color=color)
        ball.mechanism.initial_velocity = velocity
        balls.append(ball)
        contact(f"{name} on slab", ball, slab, "SPHERE", "FLOOR", contact_restitution=0.7)
    for a, b in itertools.combinations(balls, 2):
        contact(f"{a.name} on {b.name}", a, b, "SPHERE", "SPHERE", contact_restitution=0.9)
    stage(target=(0.0, 0.0, 0.25), distance=3.0, elevation=15, azimuth=-80)
    return {"preview_frame": 14}
