"""Canonical test mechanisms, built in one place for every solver test, and closed-form
kinematics written independently of the solver (plain trigonometry, derivatives
differentiated by hand).

Builders (each returns a ``Mechanism``; names of parts, markers and joints as listed):

pendulum      one body on a ground joint "pin" (markers "O" on the ground, "P" on the part)
chain         rods end to end from the ground ("link{k}", joints "joint{k}");
              ``benchmark_chain`` is docs/benchmarks.md's chain
rail_slider   a mass on a prismatic joint "rail" with a spring-damper to a ground anchor
slider-crank  crank origin O (pivot), x axis along O->A; rod origin A, x axis along A->B;
              slider origin B.  Crank angle theta, rod angle phi (of A->B from world x).
eccentric_cam a disc cam "cam" turned by the motion "drive" on its joint "spin", and a
              "follower" on a vertical guide "slide": a roller or a flat face, cam "contact";
              ``sprung_cam`` the roller held on the freely spinning cam by a spring
four-bar      crank origin O2 = (0,0,0) angle theta2; coupler origin A angle theta3;
              rocker origin O4 = (d,0,0) angle theta4 (of O4->B from world x).

The slider-crank and the four-bar lie in the world xy plane, turn about world z, and have
their parts placed roughly (``error_deg`` / ``error_m`` off the exact pose) so that assembly
has work to do; part frames sit on joints so that ``Result.position`` and
``Result.orientation`` read the closed-form quantities directly.  Their drives are
``theta(t) = theta0 + omega t + wobble sin(omega t)``; ``crank_angle`` gives the same
function with its exact derivatives.
"""
from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from solver import Mechanism
from solver.base.curves import Curve

PI = math.pi
G = 9.81                                                     # m/s^2, the tests' gravity
Q_Z_TO_X = (math.cos(PI / 4), 0.0, math.sin(PI / 4), 0.0)    # marker z along part x
Q_Z_TO_Y = (math.cos(PI / 4), -math.sin(PI / 4), 0.0, 0.0)   # marker z along part y
AXIS_MARKER = {"x": Q_Z_TO_X, "y": Q_Z_TO_Y, "z": (1.0, 0.0, 0.0, 0.0)}   # marker z along it


# ---------------------------------------------------------------- small helpers
def quat_about(axis: str, angle: float) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation by ``angle`` about world "x", "y" or "z"."""
    q = np.zeros(4)
    q[0], q["xyz".index(axis) + 1] = math.cos(angle / 2), math.sin(angle / 2)
    return q


def quat_z(angle: float) -> np.ndarray:
    """Unit quaternion (w, x, y, z) of a rotation by ``angle`` about world z."""
    return quat_about("z", angle)


def quat_mul(p: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Hamilton product p q (apply q first), w first."""
    pw, pv, qw, qv = p[0], np.asarray(p[1:]), q[0], np.asarray(q[1:])
    return np.concatenate([[pw * qw - pv @ qv], pw * qv + qw * pv + np.cross(pv, qv)])


def planar_angle(q: np.ndarray) -> np.ndarray:
    """Angle about z of quaternions (..., 4) that rotate about z only, in (-pi, pi]."""
    q = np.asarray(q)
    return wrap(2.0 * np.arctan2(q[..., 3], q[..., 0]))


def wrap(a: np.ndarray) -> np.ndarray:
    """Angles wrapped to [-pi, pi)."""
    return (np.asarray(a) + PI) % (2 * PI) - PI


def crank_angle(t: np.ndarray, omega: float = 2 * PI, theta0: float = 0.0,
                wobble: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """theta, dtheta/dt, d2theta/dt2 of theta0 + omega t + wobble sin(omega t)."""
    t = np.asarray(t, dtype=float)
    s, c = np.sin(omega * t), np.cos(omega * t)
    return (theta0 + omega * t + wobble * s, omega + wobble * omega * c,
            -wobble * omega * omega * s)


def drive_expression(omega: float, theta0: float, wobble: float) -> str:
    """The solver expression string of ``crank_angle``."""
    expr = f"{theta0!r} + {omega!r}*t"
    return expr + (f" + {wobble!r}*sin({omega!r}*t)" if wobble else "")


def _rough(mech: Mechanism, name: str, pos: np.ndarray, angle: float, k: int,
           error_deg: float, error_m: float, **kw) -> None:
    """Add a part placed at (pos, Rz(angle)) plus a deterministic error that differs per k:
    about error_deg of turn about z, half that of tilt about x, error_m of shift."""
    e = math.radians(error_deg)
    sgn = (1.0, -1.0, 0.7, -0.6)[k % 4]
    tilt = np.array([math.cos(0.25 * e * sgn), math.sin(0.25 * e * sgn), 0.0, 0.0])
    q = quat_mul(quat_z(angle + e * sgn), tilt)
    shift = error_m * np.array([sgn, -0.8 * sgn, 0.5])
    mech.add_part(name, position=np.asarray(pos, float) + shift, orientation=q, **kw)


def rod_inertia(mass: float, length: float, radius: float = 0.01) -> tuple[float, float, float]:
    """Central inertia of a solid cylinder along part x: (axial, transverse, transverse)."""
    transverse = mass * (3 * radius * radius + length * length) / 12
    return (0.5 * mass * radius * radius, transverse, transverse)


# ---------------------------------------------------------------- pendulum
def pendulum(kind: str = "revolute", axis="z", angle: float = 0.0, *, part: str = "bob",
             mass: float = 1.0, inertia=(4e-5, 4e-5, 4e-5), center_of_mass=(1.0, 0.0, 0.0),
             gravity=(0.0, 0.0, -G), pivot=(0.0, 0.0, 0.0), pin=(0.0, 0.0, 0.0),
             pin_axes=None, **part_kw) -> Mechanism:
    """One body (``part``) on a ground joint "pin" of ``kind``: marker "O" on the ground at
    ``pivot``, marker "P" on the part at ``pin`` (part frame), both with z along the hinge.

    ``axis`` "x", "y" or "z" is the world hinge axis (marker axes AXIS_MARKER); a quaternion
    gives the ground marker's axes directly.  Marker P has the ground marker's axes in the
    part frame unless ``pin_axes`` says otherwise, so with a named axis the joint angle is
    the part's turn about it, and ``angle`` is the turn it is built at (its orientation,
    unless ``orientation`` is given).  ``part_kw``: position (default 0, on the pin when pin
    and pivot are 0; anything off is left to assembly or statics), orientation, velocity,
    angular_velocity.  Defaults: the bob of test_dynamics_pendulum_energy's period test, 1 kg,
    centre of mass 1 m along part x, central inertia 4e-5 kg m^2; gravity -z."""
    if isinstance(axis, str):
        part_kw.setdefault("orientation", quat_about(axis, angle))
        axis = AXIS_MARKER[axis]
    m = Mechanism(gravity=gravity)
    m.add_part("ground", fixed=True)
    m.add_part(part, mass=mass, inertia=inertia, center_of_mass=center_of_mass, **part_kw)
    m.add_marker("O", "ground", position=pivot, orientation=axis)
    m.add_marker("P", part, position=pin, orientation=axis if pin_axes is None else pin_axes)
    m.add_joint("pin", kind, "P", "O")
    return m


# ---------------------------------------------------------------- chain
def chain(angles, lengths=1.0, masses=1.0, inertia=None, kind: str = "spherical",
          axis: str = "z", gravity=(0.0, 0.0, -G)) -> Mechanism:
    """Rods end to end from ground marker "O" at the origin, at rest.  Link k ("link{k}",
    ``lengths[k]`` m, ``masses[k]`` kg, centre of mass at its middle) has its part frame on
    its near end (marker "link{k}_top"), x along the rod turned ``angles[k]`` about world
    ``axis`` ("z": in the horizontal plane from +x towards +y; "y": in the xz plane from +x
    towards -z), and marker "link{k}_end" on its far end; joint "joint{k}" (``kind``) holds
    its near end to the previous far end (to O for k = 0); every marker's z is along
    ``axis``.  ``inertia``: central (axial, transverse, transverse), the same for every
    link; default ``rod_inertia`` of each link's mass and length."""
    if axis not in ("y", "z"):
        raise ValueError(f"chain: axis must be 'y' or 'z', got {axis!r}")
    n = len(angles)
    lengths, masses = np.broadcast_to(lengths, n), np.broadcast_to(masses, n)
    q_marker = AXIS_MARKER[axis]
    m = Mechanism(gravity=gravity)
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground", orientation=q_marker)
    top, upper = np.zeros(3), "O"
    for k, (a, length, mass) in enumerate(zip(angles, lengths, masses)):
        name = f"link{k}"
        m.add_part(name, mass=mass, center_of_mass=(length / 2, 0, 0), position=top,
                   inertia=rod_inertia(mass, length) if inertia is None else inertia,
                   orientation=quat_about(axis, a))
        m.add_marker(f"{name}_top", name, orientation=q_marker)
        m.add_marker(f"{name}_end", name, position=(length, 0, 0), orientation=q_marker)
        m.add_joint(f"joint{k}", kind, f"{name}_top", upper)
        c, s = math.cos(a), math.sin(a)
        top = top + length * np.array([c, s, 0.0] if axis == "z" else [c, 0.0, -s])
        upper = f"{name}_end"
    return m


def benchmark_chain(n: int = 5, gravity=(0.0, 0.0, -G)) -> Mechanism:
    """docs/benchmarks.md "chain": n rods (1 m, 1 kg, I 5e-5 / 0.0833583 kg m^2) on
    spherical joints, link k yawed k (pi/2)/n: a horizontal quarter arc."""
    return chain([k * (PI / 2) / n for k in range(n)], inertia=(5e-5, 0.0833583, 0.0833583),
                 gravity=gravity)



def driven_planar_chain(n: int) -> Mechanism:
    """n unit links (1 kg) end to end along x, each on a revolute joint about world z
    driven as 0.3 sin(2 pi t + k) rad (joint k, relative to the link before)."""
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_marker("origin", "ground")
    for k in range(n):
        m.add_part(f"link{k}", mass=1.0, inertia=(5e-5, 0.0833583, 0.0833583),
                   center_of_mass=(0.5, 0, 0), position=(k, 0, 0))
        m.add_marker(f"near{k}", f"link{k}")
        m.add_marker(f"far{k}", f"link{k}", position=(1, 0, 0))
        m.add_joint(f"pin{k}", "revolute", f"near{k}", "origin" if k == 0 else f"far{k - 1}")
        m.add_motion(f"drive{k}", f"pin{k}", f"0.3*sin(2*pi*t + {k})")
    return m

# ---------------------------------------------------------------- mass on a rail
def driven_wheel(expression: str, constants: dict | None = None, *, part: str = "wheel",
                 joint: str = "axle", motion: str = "spin", inertia=(0.1, 0.1, 0.1),
                 gravity=(0.0, 0.0, 0.0)) -> Mechanism:
    """A 1 kg part on a revolute joint about world z at the origin (markers "O" on the
    ground, "hub" on the part), turned by a motion ``expression`` (rad) with ``constants``."""
    m = Mechanism(gravity=gravity)
    m.add_part("ground", fixed=True)
    m.add_part(part, mass=1.0, inertia=inertia)
    m.add_marker("O", "ground")
    m.add_marker("hub", part)
    m.add_joint(joint, "revolute", "hub", "O")
    m.add_motion(motion, joint, expression, constants=constants or {})
    return m


def rail_slider(axis="x", *, part: str = "slider", mass: float = 1.0, inertia=None,
                position=(0.0, 0.0, 0.0), velocity=(0.0, 0.0, 0.0), rail=(0.0, 0.0, 0.0),
                anchor=None, spring: str | None = "spring", gravity=(0.0, 0.0, -G),
                mech: Mechanism | None = None, **spring_kw) -> Mechanism:
    """A mass (``part``) on a prismatic joint "rail": ground marker "R" at ``rail`` and the
    part's marker "S" at its origin, both with z along ``axis`` (world "x", "y", "z" or a
    marker quaternion), so the slide is the part's offset along it.  A spring-damper named
    ``spring`` (``spring_kw``: add_spring_damper's stiffness, damping, free_length, preload,
    actuator) pulls S towards ground marker "A" at ``anchor``, or towards R when anchor is
    None; ``spring=None``: no spring.  Added to ``mech`` when given (its gravity stays),
    else to a new mechanism with a "ground"."""
    q = AXIS_MARKER[axis] if isinstance(axis, str) else axis
    if mech is None:
        mech = Mechanism(gravity=gravity)
        mech.add_part("ground", fixed=True)
    mech.add_part(part, mass=mass, inertia=inertia, position=position, velocity=velocity)
    mech.add_marker("R", "ground", position=rail, orientation=q)
    mech.add_marker("S", part, orientation=q)
    mech.add_joint("rail", "prismatic", "S", "R")
    if spring is not None:
        if anchor is not None:
            mech.add_marker("A", "ground", position=anchor)
        mech.add_spring_damper(spring, "S", "R" if anchor is None else "A", **spring_kw)
    return mech


# ---------------------------------------------------------------- slider-crank
class SliderCrankState(NamedTuple):
    """Closed-form slider-crank kinematics (arrays over time)."""
    x: np.ndarray       # slider position along world x, m
    v: np.ndarray       # dx/dt, m/s
    a: np.ndarray       # d2x/dt2, m/s^2
    phi: np.ndarray     # rod angle (A->B from world x), rad
    dphi: np.ndarray    # rad/s
    ddphi: np.ndarray   # rad/s^2


def slider_crank_closed_form(theta: np.ndarray, dtheta: np.ndarray, ddtheta: np.ndarray,
                             r: float = 0.1, l: float = 0.3, offset: float = 0.0
                             ) -> SliderCrankState:
    """Slider-crank with pivot O at the origin and the slider pin B on the line y = e.

    A = r (cos th, sin th); B = (x, e); |B - A| = l.  With s = r sin th - e, c = r cos th and
    D = sqrt(l^2 - s^2) (= l cos phi > 0, the slider on the +x side of A):
        x     = c + D
        x'    = dx/dth   = -r sin th - s c / D                 (s' = c, c' = -r sin th,
        x''   = d2x/dth2 = -c - (c^2 - s r sin th)/D - s^2 c^2 / D^3      D' = -s c / D)
        phi   = atan2(e - r sin th, D);  phi' = -c / D;  phi'' = r sin th / D - s c^2 / D^3
    and in time (chain rule): v = x' th_dot, a = x'' th_dot^2 + x' th_ddot (same for phi).
    """
    th, w, al = (np.asarray(z, dtype=float) for z in (theta, dtheta, ddtheta))
    sn, c = r * np.sin(th), r * np.cos(th)
    s = sn - offset
    D = np.sqrt(l * l - s * s)
    x = c + D
    x1 = -sn - s * c / D
    x2 = -c - (c * c - s * sn) / D - s * s * c * c / D ** 3
    phi = np.arctan2(-s, D)
    p1 = -c / D
    p2 = sn / D - s * c * c / D ** 3
    return SliderCrankState(x, x1 * w, x2 * w * w + x1 * al, phi, p1 * w, p2 * w * w + p1 * al)


SLIDER_CRANK_VARIANTS = {
    # crank pivot, crank-rod, rod-slider (wrist), slider-ground; equations 5+5+5+5 = 20 on
    # 18 coordinates with 1 dof: 3 redundant (the planar rows are repeated).
    "RRRP": ("revolute", "revolute", "revolute", "prismatic"),
    # 5+3+4+5 = 17: no redundancy (universal at the wrist stops the rod spinning on A-B).
    "RSUP": ("revolute", "spherical", "universal", "prismatic"),
    # 5+5+2+5 = 17: no redundancy (the rod pin B on the slider's vertical axis).
    "RRLP": ("revolute", "revolute", "in-line", "prismatic"),
    # 5+5+3+5 = 18: 1 redundant (a ball at the wrist; the two pins already keep the plane).
    "RRSP": ("revolute", "revolute", "spherical", "prismatic"),
}


def slider_crank(r: float = 0.1, l: float = 0.3, omega: float = 2 * PI, offset: float = 0.0,
                 theta0: float = 0.0, wobble: float = 0.0, variant: str = "RRRP",
                 drive: str | None = None, place_theta: float | None = None,
                 error_deg: float = 2.0, error_m: float = 0.005,
                 masses: tuple[float, float, float] = (1.0, 1.0, 1.0),
                 flywheel: tuple[float, float] | None = None) -> Mechanism:
    """Slider-crank in the xy plane: crank O->A (length r) pinned to ground at the origin
    about world z and driven by ``drive`` (default ``drive_expression(omega, theta0,
    wobble)``) through motion "drive" on joint "crank_pin"; rod A->B (length l); slider B
    on the line y = offset along world x (joint "slide", slide = x).  ``variant`` picks the
    joints (see SLIDER_CRANK_VARIANTS).  Parts are placed at crank angle ``place_theta``
    (default theta0) with the given placement error; ``masses`` of crank, rod, slider (kg;
    inertias the solver's default).  ``flywheel`` (inertia kg m^2, spin rad/s): no motion,
    the crank a flywheel of that inertia spinning at that rate about z (dynamics)."""
    kinds = SLIDER_CRANK_VARIANTS[variant]
    th = theta0 if place_theta is None else place_theta
    st = slider_crank_closed_form(th, 0.0, 0.0, r, l, offset)
    m = Mechanism()
    m.add_part("ground", fixed=True)
    spin = {} if flywheel is None else dict(inertia=(flywheel[0],) * 3,
                                            angular_velocity=(0.0, 0.0, flywheel[1]))
    _rough(m, "crank", (0, 0, 0), th, 0, error_deg, error_m, mass=masses[0], **spin)
    _rough(m, "rod", (r * math.cos(th), r * math.sin(th), 0), float(st.phi), 1,
           error_deg, error_m, mass=masses[1])
    _rough(m, "slider", (float(st.x), offset, 0), 0.0, 2, error_deg, error_m, mass=masses[2])
    m.add_marker("O", "ground")
    m.add_marker("rail", "ground", position=(0, offset, 0), orientation=Q_Z_TO_X)
    m.add_marker("crank_O", "crank")
    m.add_marker("crank_A", "crank", position=(r, 0, 0))
    m.add_marker("rod_A", "rod")
    # universal: the rod's cross axis is its in-plane normal (part y), slider's is world z
    m.add_marker("rod_B", "rod", position=(l, 0, 0),
                 orientation=Q_Z_TO_Y if kinds[2] == "universal" else (1, 0, 0, 0))
    m.add_marker("slider_B", "slider")
    m.add_marker("slider_rail", "slider", orientation=Q_Z_TO_X)
    m.add_joint("crank_pin", kinds[0], "crank_O", "O")
    m.add_joint("crank_rod", kinds[1], "rod_A", "crank_A")
    m.add_joint("wrist", kinds[2], "rod_B", "slider_B")
    m.add_joint("slide", kinds[3], "slider_rail", "rail")
    if flywheel is None:
        m.add_motion("drive", "crank_pin", drive or drive_expression(omega, theta0, wobble))
    return m


# ---------------------------------------------------------------- four-bar
class FourBarState(NamedTuple):
    """Closed-form four-bar kinematics (arrays over time), angles from world x."""
    theta3: np.ndarray
    theta4: np.ndarray
    omega3: np.ndarray
    omega4: np.ndarray
    alpha3: np.ndarray
    alpha4: np.ndarray


def four_bar_angles(theta2: np.ndarray, a: float, b: float, c: float, d: float,
                    branch: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """(theta3, theta4) of the loop a e^{i th2} + b e^{i th3} = d + c e^{i th4}.

    Eliminating th3 (|B - A| = b) gives P cos th4 + Q sin th4 + R = 0 with
    P = 2c(d - a cos th2), Q = -2ac sin th2, R = a^2 + c^2 + d^2 - b^2 - 2ad cos th2; divided
    by 2ac this is Freudenstein's K1 cos th4 - K2 cos th2 + K3 = cos(th2 - th4) with K1 = d/a,
    K2 = d/c, K3 = (a^2 - b^2 + c^2 + d^2)/(2ac).  So th4 = atan2(Q, P) + branch
    acos(-R / sqrt(P^2 + Q^2)).  branch = +1 is the open circuit (sin(th4 - th3) > 0: O2, A,
    B, O4 a convex, counter-clockwise quadrilateral), -1 the crossed one.
    """
    th2 = np.asarray(theta2, dtype=float)
    P = 2 * c * (d - a * np.cos(th2))
    Q = -2 * a * c * np.sin(th2)
    R = a * a + c * c + d * d - b * b - 2 * a * d * np.cos(th2)
    th4 = np.arctan2(Q, P) + branch * np.arccos(-R / np.hypot(P, Q))
    th3 = np.arctan2(c * np.sin(th4) - a * np.sin(th2), d + c * np.cos(th4) - a * np.cos(th2))
    return wrap(th3), wrap(th4)


def four_bar_closed_form(theta2: np.ndarray, omega2: np.ndarray, alpha2: np.ndarray,
                         a: float, b: float, c: float, d: float, branch: int = 1
                         ) -> FourBarState:
    """Angles, angular velocities and accelerations of coupler (3) and rocker (4).

    Differentiating the loop once: i a w2 e2 + i b w3 e3 - i c w4 e4 = 0 (ek = e^{i thk});
    times e^{-i th3} (resp. e^{-i th4}), real part:
        w4 = a w2 sin(th2 - th3) / (c sin(th4 - th3))
        w3 = a w2 sin(th4 - th2) / (b sin(th3 - th4))
    Twice: (i a al2 - a w2^2) e2 + (i b al3 - b w3^2) e3 - (i c al4 - c w4^2) e4 = 0; same trick:
        al4 = [a al2 sin(2-3) + a w2^2 cos(2-3) + b w3^2 - c w4^2 cos(4-3)] / (c sin(4-3))
        al3 = [-a al2 sin(2-4) - a w2^2 cos(2-4) - b w3^2 cos(3-4) + c w4^2] / (b sin(3-4))
    where (i-j) means th_i - th_j.
    """
    th2, w2, al2 = (np.asarray(z, dtype=float) for z in (theta2, omega2, alpha2))
    th3, th4 = four_bar_angles(th2, a, b, c, d, branch)
    s23, c23 = np.sin(th2 - th3), np.cos(th2 - th3)
    s24, c24 = np.sin(th2 - th4), np.cos(th2 - th4)
    s43, c43 = np.sin(th4 - th3), np.cos(th4 - th3)
    w4 = a * w2 * s23 / (c * s43)
    w3 = -a * w2 * s24 / (b * -s43)              # sin(th4 - th2) / sin(th3 - th4)
    al4 = (a * al2 * s23 + a * w2 ** 2 * c23 + b * w3 ** 2 - c * w4 ** 2 * c43) / (c * s43)
    al3 = (-a * al2 * s24 - a * w2 ** 2 * c24 - b * w3 ** 2 * c43 + c * w4 ** 2) / (b * -s43)
    # (cos(th3 - th4) = c43; sin(th3 - th4) = -s43)
    return FourBarState(th3, th4, w3, w4, al3, al4)


def four_bar(a: float = 0.4, b: float = 1.0, c: float = 0.8, d: float = 1.0,
             theta2_0: float = 0.0, branch: int = 1, omega: float = 2 * PI,
             wobble: float = 0.0, drive: str | None = None, place_theta: float | None = None,
             error_deg: float = 2.0, error_m: float = 0.01, driven: bool = True) -> Mechanism:
    """Planar four-bar of four revolutes about world z: ground O2 = (0,0,0) to O4 = (d,0,0),
    crank "crank" (a) driven by motion "drive" on joint "pivot2" (default theta2_0 + omega t
    + wobble sin(omega t); no motion when not ``driven``), coupler "coupler" (b), rocker
    "rocker" (c) on joint "pivot4".  Parts are placed on ``branch`` (+1 open, -1 crossed)
    at crank angle ``place_theta`` (default theta2_0) with the given placement error.
    Defaults: a Grashof crank-rocker (s + l = 1.4 <= p + q = 1.8, shortest link the crank),
    unit scale (m)."""
    th2 = theta2_0 if place_theta is None else place_theta
    th3, th4 = (float(z) for z in four_bar_angles(th2, a, b, c, d, branch))
    m = Mechanism()
    m.add_part("ground", fixed=True)
    _rough(m, "crank", (0, 0, 0), th2, 0, error_deg, error_m, mass=1.0)
    _rough(m, "coupler", (a * math.cos(th2), a * math.sin(th2), 0), th3, 1,
           error_deg, error_m, mass=1.0)
    _rough(m, "rocker", (d, 0, 0), th4, 2, error_deg, error_m, mass=1.0)
    m.add_marker("O2", "ground")
    m.add_marker("O4", "ground", position=(d, 0, 0))
    m.add_marker("crank_O2", "crank")
    m.add_marker("crank_A", "crank", position=(a, 0, 0))
    m.add_marker("coupler_A", "coupler")
    m.add_marker("coupler_B", "coupler", position=(b, 0, 0))
    m.add_marker("rocker_O4", "rocker")
    m.add_marker("rocker_B", "rocker", position=(c, 0, 0))
    m.add_joint("pivot2", "revolute", "crank_O2", "O2")
    m.add_joint("pin_A", "revolute", "coupler_A", "crank_A")
    m.add_joint("pin_B", "revolute", "coupler_B", "rocker_B")
    m.add_joint("pivot4", "revolute", "rocker_O4", "O4")
    if driven:
        m.add_motion("drive", "pivot2", drive or drive_expression(omega, theta2_0, wobble))
    return m


# ---------------------------------------------------------------- joint closure
_AT_POINT = {"fixed", "revolute", "spherical", "universal"}
_ON_AXIS = {"prismatic", "cylindrical", "in-line"}
_PARALLEL = {"fixed", "revolute", "prismatic", "cylindrical", "parallel-axes", "planar"}


def joint_gaps(mech: Mechanism, result) -> dict[str, float]:
    """Largest violation over all frames of each joint's geometric condition, read from the
    markers' world frames (``result.marker_frame``): origin gap (m) for point joints,
    distance of I's origin from J's z axis (m) for axis joints, |z_I x z_J| for parallel
    axes, |z_I . z_J| for universal/perpendicular, |x_I . y_J| for fixed/prismatic."""
    out = {}
    for name, jt in mech.joints.items():
        oi, Ci = result.marker_frame(jt.marker_i)
        oj, Cj = result.marker_frame(jt.marker_j)
        d, zi, zj = oi - oj, Ci[:, :, 2], Cj[:, :, 2]
        gaps = [0.0]
        if jt.kind in _AT_POINT:
            gaps.append(np.linalg.norm(d, axis=1).max())
        if jt.kind in _ON_AXIS:
            gaps.append(np.linalg.norm(np.cross(d, zj), axis=1).max())
        if jt.kind in _PARALLEL:
            gaps.append(np.linalg.norm(np.cross(zi, zj), axis=1).max())
        if jt.kind in ("universal", "perpendicular"):
            gaps.append(np.abs(np.einsum("ni,ni->n", zi, zj)).max())
        if jt.kind in ("fixed", "prismatic"):
            gaps.append(np.abs(np.einsum("ni,ni->n", Ci[:, :, 0], Cj[:, :, 1])).max())
        if jt.kind in ("planar", "in-plane"):
            gaps.append(np.abs(np.einsum("ni,ni->n", d, zj)).max())
        out[name] = float(max(gaps))
    return out


_Z_ALONG_Y = (math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0)   # marker z along world y


def eccentric_cam(follower: str, omega: float = 4 * math.pi, Rc: float = 0.05, e: float = 0.015,
                  rho: float = 0.01, mass: float = 0.3, gravity: float = G) -> Mechanism:
    """A disc of radius Rc, its centre e from the axle (at theta = 0 on the cam's x), turned
    by a motion at omega; a follower on a vertical guide through the axle: a roller of
    radius rho or a flat face (a horizontal segment), its marker at the roller's centre or
    on the face."""
    m = Mechanism(gravity=(0.0, -gravity, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("cam", mass=1.0, inertia=(1e-3, 1e-3, 2e-3))
    m.add_marker("axle", "ground")
    m.add_marker("hub", "cam")
    m.add_joint("spin", "revolute", "hub", "axle")
    m.add_motion("drive", "spin", f"{omega} * t")
    y0 = math.sqrt((Rc + rho) ** 2 - e * e) if follower == "roller" else Rc
    m.add_part("follower", mass=mass, inertia=(1e-4, 1e-4, 1e-4), position=(0.0, y0, 0.0))
    m.add_marker("guide", "ground", orientation=_Z_ALONG_Y)
    m.add_marker("stem", "follower", orientation=_Z_ALONG_Y)
    m.add_joint("slide", "prismatic", "stem", "guide")
    m.add_marker("face", "follower")
    m.add_marker("disc", "cam")
    shape = (Curve.circle(rho, name="roller") if follower == "roller"
             else Curve.from_points([(-0.08, 0.0), (0.0, 0.0), (0.08, 0.0)], closed=False, name="face"))
    m.add_cam("contact", "face", shape, "disc", Curve.circle(Rc, center=(e, 0.0, 0.0), name="disc"))
    return m


def sprung_cam(omega: float = 20.0) -> Mechanism:
    """eccentric_cam's roller follower with no motion: the cam spins freely at omega rad/s
    and a spring-damper "sp" (3e4 N/m, 300 N s/m) from the follower's "top" to the ground's
    "hook" holds the roller on it (forward dynamics)."""
    m = eccentric_cam("roller")
    del m.motions["drive"]
    m.parts["cam"].angular_velocity[:] = (0.0, 0.0, omega)
    m.add_marker("top", "follower", position=(0.0, 0.05, 0.0))
    m.add_marker("hook", "ground", position=(0.0, 0.2, 0.0))
    m.add_spring_damper("sp", "top", "hook", stiffness=3e4, damping=300.0, free_length=0.2)
    return m


def vertical_double_pendulum() -> Mechanism:
    """A double pendulum of 1 m links (1 kg, centres of mass at their middles) hanging in
    the vertical xy plane (gravity along -y) from the ground's origin: pins "p1" (link "a"
    on the ground at "o") and "p2" (link "b" on "a" at its far end), about z."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("a", mass=1.0, center_of_mass=(0.5, 0, 0), inertia=(0.01, 0.09, 0.09))
    m.add_part("b", mass=1.0, center_of_mass=(1.5, 0, 0), inertia=(0.01, 0.09, 0.09))
    m.add_marker("o", "ground")
    m.add_marker("a0", "a")
    m.add_marker("a1", "a", position=(1.0, 0.0, 0.0))
    m.add_marker("b0", "b", position=(1.0, 0.0, 0.0))
    m.add_joint("p1", "revolute", "a0", "o")
    m.add_joint("p2", "revolute", "b0", "a1")
    return m


def incline(alpha_deg: float, mu_s: float, mu_d: float, press: float = 0.0) -> Mechanism:
    """A 2 kg block on a prismatic joint down an incline of alpha (the slide's z axis points
    down-slope in the world xz plane), dry friction on the slide; ``press`` N pushes it onto
    the incline (along the incline's inward normal)."""
    a = math.radians(alpha_deg)
    b = math.pi / 2 + a                      # turns z to (cos a, 0, -sin a): down the slope
    q = (math.cos(b / 2), 0.0, math.sin(b / 2), 0.0)
    m = Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("block", mass=2.0, inertia=(0.01, 0.01, 0.01))
    m.add_marker("way", "ground", orientation=q)
    m.add_marker("shoe", "block", orientation=q)
    m.add_joint("slide", "prismatic", "shoe", "way")
    m.add_friction("dry", "slide", static=mu_s, dynamic=mu_d, transition_speed=1e-9)
    if press:
        m.add_force("press", "shoe", force=(-press * math.sin(a), 0.0, -press * math.cos(a)))
    return m


def dry_pendulum(th0: float, length: float, mu_s: float, mu_d: float, radius: float,
                 transition_speed: float | None = None) -> Mechanism:
    """A 1 kg point bob (inertia 1e-6 kg m^2) on a massless rod of ``length`` m from a pin
    at the origin, released at rest at th0 rad from the bottom (gravity -y); the pin dry,
    its transition speed the default 1e-3 rad/s unless given."""
    m = Mechanism(gravity=(0.0, -G, 0.0))
    m.add_part("ground", fixed=True)
    m.add_part("bob", mass=1.0, inertia=(1e-6, 1e-6, 1e-6),
               center_of_mass=(length * math.sin(th0), -length * math.cos(th0), 0.0))
    m.add_marker("o", "ground")
    m.add_marker("h", "bob")
    m.add_joint("pin", "revolute", "h", "o")
    m.add_friction("bearing", "pin", static=mu_s, dynamic=mu_d, radius=radius,
                   transition_speed=transition_speed)
    return m


# ---------------------------------------------------------------- force Jacobians
def force_jacobians_and_differences(mech: Mechanism, t: float = 0.0, seed: int = 3):
    """(K, C) of kernels/forces.py ``force_jacobians`` at the mechanism's placements with
    random velocities, and the same by central differences (steps 1e-6) of ``total_forces``
    in each part's shift, small world turn, velocity and angular velocity."""
    from solver.base.rotations import rotate_world
    from solver.kernels.constraints import body_arrays
    from solver.kernels.forces import force_jacobians, total_forces
    from solver.model.compile import compile_model
    from solver.model.state import read_state
    model = compile_model(mech)
    st = read_state(model, mech)
    nb = model.nb
    rng = np.random.default_rng(seed)
    v, w = rng.normal(size=(2, nb, 3))
    ts = np.zeros(len(model.forces.ts_names))

    def Q(r, p, v, w):
        return total_forces(model, t, *body_arrays(model, r, p, v, w), ts)[0].ravel()

    K, C = force_jacobians(model, t, *body_arrays(model, st.r, st.p, v, w), ts)
    h = 1e-6
    Kfd, Cfd = np.zeros_like(K), np.zeros_like(C)
    for c in range(6 * nb):
        b, k = divmod(c, 6)
        e = np.zeros((nb, 3))
        e[b, k % 3] = h
        if k < 3:
            Kfd[:, c] = (Q(st.r + e, st.p, v, w) - Q(st.r - e, st.p, v, w)) / (2 * h)
            Cfd[:, c] = (Q(st.r, st.p, v + e, w) - Q(st.r, st.p, v - e, w)) / (2 * h)
        else:
            Kfd[:, c] = (Q(st.r, rotate_world(st.p, e), v, w)
                         - Q(st.r, rotate_world(st.p, -e), v, w)) / (2 * h)
            Cfd[:, c] = (Q(st.r, st.p, v, w + e) - Q(st.r, st.p, v, w - e)) / (2 * h)
    return (K, C), (Kfd, Cfd)


def four_bar_pins(a: float, b: float, c: float, d: float, phi: float):
    """A planar four-bar's pins (arrays (3,), m): crank a about the origin at ``phi`` (rad)
    to pin A, follower c about O4 = (d, 0, 0), coupler b from A to pin B on the left of
    A -> O4 (the branch with B above the line from A to O4)."""
    A = a * np.array([np.cos(phi), np.sin(phi), 0.0])
    O4 = np.array([d, 0.0, 0.0])
    span = np.linalg.norm(O4 - A)
    ex = (O4 - A) / span
    along = (b * b - c * c + span * span) / (2 * span)
    B = A + along * ex + np.sqrt(b * b - along * along) * np.array([-ex[1], ex[0], 0.0])
    return A, O4, B
