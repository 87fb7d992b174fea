"""A study's parameters written into the base's compiled model (solver/study/writes.py): for
every parameter kind the written Model equals compile_model of the variant's Builder
field by field (arrays to the last bit, the same functions), and the stacked model equals
stack_models of the compiled variants; the kinds that cannot be written say why, and the
compile-time checks still name the variant."""
from __future__ import annotations

import dataclasses
from types import MappingProxyType

import numpy as np
import pytest

from mechanisms import (PI, benchmark_chain, eccentric_cam, pendulum, quat_about, slider_crank,
                        vertical_double_pendulum)
from solver import Mechanism, MechanismError
from solver.analyses.run import settings
from solver.model.compile import compile_model
from solver.study import VariantBatch, solve_batch
from solver.study.params import make_variant, resolve_all
from solver.study.stack import _PerVariant, _PerVariantActuator, stack_models
from solver.study.writes import Writer, unwritable


def every_kind() -> Mechanism:
    """A mechanism with an item of every parameter kind that is written: parts, a distance
    joint, a spring-damper and a torsion spring with actuators, a bushing, a motion, a
    general motion, a force, joint friction, a rigid and a compliant limit, and a named
    constant "w" shared by the torsion spring's actuator and the force."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_marker("O", "ground")
    m.add_marker("R", "ground", orientation=(np.cos(0.3), 0.0, np.sin(0.3), 0.0))
    m.add_marker("G1", "ground", position=(0.0, -1.0, 0.0))
    m.add_marker("B0", "ground", position=(2.0, 0.0, 0.0))
    m.add_marker("A", "ground", position=(0.0, 0.0, -0.7))
    m.add_part("arm", mass=2.0, inertia=(0.1, 0.2, 0.25), center_of_mass=(0.5, 0.0, 0.0))
    m.add_marker("P", "arm")
    m.add_joint("pin", "revolute", "P", "O")
    m.add_torsion_spring("twist", "pin", stiffness=3.0, damping=0.1, free_angle=0.2,
                         actuator="tau * sin(w * t)", constants={"tau": 0.5, "w": 3.0})
    m.add_friction("pin: friction", "pin", static=0.3, dynamic=0.2, radius=0.01, arm=0.02,
                   bearing_length=0.05)
    m.add_limit("pin: limit", "pin", lower=-1.0, upper=1.5, restitution=0.4)
    m.add_part("slider", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.0, 0.0, -0.3))
    m.add_marker("S", "slider", orientation=(np.cos(0.3), 0.0, np.sin(0.3), 0.0))
    m.add_joint("rail", "prismatic", "S", "R")
    m.add_spring_damper("spring", "S", "A", stiffness=100.0, damping=2.0, preload=1.0,
                        actuator="f0 * t", constants={"f0": 1.0})
    m.add_limit("rail: limit", "rail", lower=-0.5, stiffness=1e4, exponent=1.5, damping=10.0)
    m.add_friction("rail: friction", "rail", static=0.2)
    m.add_motion("drive", "rail", "a * t", constants={"a": 0.1})
    m.add_part("bob", mass=0.5, inertia=(0.001, 0.002, 0.002), position=(0.0, -0.2, 0.0))
    m.add_marker("Q", "bob")
    m.add_joint("rod", "distance", "Q", "G1", length=0.8)
    m.add_part("block", mass=3.0, inertia=(0.05, 0.06, 0.07), position=(2.0, 0.0, 0.0))
    m.add_marker("K", "block")
    m.add_bushing("mount", "K", "B0", stiffness=(1e3, 2e3, 3e3, 10.0, 20.0, 30.0),
                  damping=(1.0, 2.0, 3.0, 0.1, 0.2, 0.3))
    m.add_force("push", "P", force=("F * sin(w * t)", 0.0, 0.0), constants={"F": 2.0, "w": 3.0})
    m.add_part("carrier", mass=0.4, inertia=(0.01, 0.01, 0.01), position=(0.0, 1.0, 0.0))
    m.add_marker("C", "carrier")
    m.add_marker("C0", "ground", position=(0.0, 1.0, 0.0))
    m.add_general_motion("path", "C", "C0", x="c * t", y="0.1 * c", constants={"c": 0.2})
    return m


def geared(mesh: str = "external") -> Mechanism:
    """Two gears on ground axles 0.35 m apart (pitch radii 0.1 and 0.25 m, ``mesh``), a
    rack under the pinion, a belt from the pinion to a lead screw's shaft (the shaft
    turning and its nut sliding, both on the ground: a two-joint screw) and a coupler of
    the wheel's angle and the nut's slide."""
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    along_x = quat_about("y", PI / 2)
    for name, at, joint, kind, q in (
            ("pinion", (0.0, 0.0, 0.0), "pinion_axle", "revolute", (1.0, 0.0, 0.0, 0.0)),
            ("wheel", (0.35, 0.0, 0.0), "wheel_axle", "revolute", (1.0, 0.0, 0.0, 0.0)),
            ("rack", (0.0, -0.1, 0.0), "rack_way", "prismatic", along_x),
            ("shaft", (1.0, 0.0, 0.0), "shaft_axle", "revolute", (1.0, 0.0, 0.0, 0.0)),
            ("nut", (1.0, 0.0, 0.2), "nut_way", "prismatic", (1.0, 0.0, 0.0, 0.0))):
        # built off their zero coordinates (turned 0.3 rad, slid 0.05 m): offsets not zero
        turn = quat_about("z", 0.3) if kind == "revolute" else (1.0, 0.0, 0.0, 0.0)
        slid = np.array(at) + (0.0 if kind == "revolute" else 0.05 * _axis(q))
        m.add_part(name, mass=1.0, inertia=(0.01, 0.01, 0.02), position=slid, orientation=turn)
        m.add_marker(name + "_I", name, orientation=q)
        m.add_marker(name + "_J", "ground", position=at, orientation=q)
        m.add_joint(joint, kind, name + "_I", name + "_J")
    m.add_gear("pair", "pinion_axle", "wheel_axle", radii=(0.1, 0.25), mesh=mesh)
    m.add_rack_pinion("teeth", "pinion_axle", "rack_way", 0.1)
    m.add_gear("belt", "pinion_axle", "shaft_axle", ratio=2.0, mesh="belt")
    m.add_screw("lead", "shaft_axle", 0.01, "nut_way", "left")
    m.add_coupler("link", ["wheel_axle", "nut_way"], [1.0, -20.0])
    return m


def _axis(q) -> np.ndarray:
    """The world direction of a marker's z axis with orientation ``q`` on the ground."""
    w, x, y, z = q
    return np.array([2 * (x * z + w * y), 2 * (y * z - w * x), 1 - 2 * (x * x + y * y)])


# (parameter names, two or three rows of values): every written kind of params.py's table
CASES = [
    (["arm.mass"], [[2.5], [1.5], [2.0]]),
    (["arm.inertia.xx", "arm.inertia.xy", "arm.inertia.zz"],
     [[0.12, 0.01, 0.26], [0.1, -0.02, 0.25]]),
    (["slider.velocity.x", "bob.angular_velocity.z"], [[0.3, 1.0], [-0.1, 2.0]]),
    (["gravity.z", "gravity.x"], [[-9.0, 0.1], [-10.0, 0.0]]),
    (["gravity.y", "bob.mass"], [[0.5, 0.6], [0.0, 0.4]]),
    (["rod.length"], [[0.9], [0.7], [0.8]]),
    (["spring.stiffness", "spring.damping", "spring.free_length", "spring.preload",
      "spring.friction"], [[150.0, 1.0, 0.5, 0.0, 0.1], [80.0, 3.0, 0.9, 2.0, 0.0]]),
    (["spring.f0"], [[2.0], [0.5]]),
    (["twist.stiffness", "twist.damping", "twist.free_angle", "twist.preload",
      "twist.friction"], [[4.0, 0.2, 0.1, 0.3, 0.05], [2.0, 0.0, -0.2, 0.0, 0.0]]),
    (["twist.tau"], [[0.7], [0.2]]),
    (["mount.stiffness.x", "mount.stiffness.rz", "mount.damping.y", "mount.preload.rx"],
     [[1.5e3, 40.0, 2.5, 0.1], [0.5e3, 25.0, 1.0, -0.2]]),
    (["K.position.x", "block.center_of_mass.z"], [[0.01, 0.0], [-0.02, 0.01]]),
    (["drive.a"], [[0.2], [0.05], [0.1]]),
    (["path.c"], [[0.3], [0.1]]),
    (["push.F"], [[3.0], [1.0]]),
    (["constants.w"], [[2.0], [4.0]]),
    (["pin: friction.static", "pin: friction.dynamic", "pin: friction.transition_speed",
      "pin: friction.viscous", "pin: friction.preload", "pin: friction.radius",
      "pin: friction.arm", "pin: friction.bearing_length"],
     [[0.4, 0.3, 1e-2, 0.1, 1.0, 0.02, 0.03, 0.06], [0.2, 0.1, 1e-4, 0.0, 0.0, 0.005, 0.0, 0.0]]),
    (["rail: friction.static"], [[0.3], [0.1], [0.2]]),    # (one coefficient: dynamic follows)
    (["pin: limit.lower", "pin: limit.upper", "pin: limit.restitution"],
     [[-0.5, 2.0, 0.9], [-1.2, 1.0, 0.0]]),
    (["rail: limit.lower", "rail: limit.stiffness", "rail: limit.exponent",
      "rail: limit.damping", "rail: limit.penetration"],
     [[-0.4, 2e4, 1.0, 5.0, 1e-3], [-0.6, 5e3, 2.0, 20.0, 1e-4]]),
]


def _key(fn):
    """A function as study/stack.py compares them: its pickled form, or itself."""
    if fn is None:
        return None
    try:
        return repr(fn.__reduce__())
    except TypeError:
        return id(fn)


def assert_same(a, b, where: str = "model") -> None:
    """``a`` and ``b`` equal field by field: arrays of one dtype and shape to the last bit,
    functions the same expression with the same constants (or the same object)."""
    if isinstance(a, (_PerVariant, _PerVariantActuator)):
        assert type(a) is type(b), where
        assert getattr(a, "axes", None) == getattr(b, "axes", None), where
        assert_same(list(a.functions), list(b.functions), where + ".functions")
    elif dataclasses.is_dataclass(a) and not isinstance(a, type):
        assert type(a) is type(b), where
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name), f"{where}.{f.name}")
    elif isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        assert isinstance(a, np.ndarray) and isinstance(b, np.ndarray), where
        assert a.dtype == b.dtype and a.shape == b.shape, where
        assert a.tobytes() == b.tobytes(), where
    elif isinstance(a, (dict, MappingProxyType)):
        assert list(a) == list(b), where
        for k in a:
            assert_same(a[k], b[k], f"{where}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), where
        for k, (x, y) in enumerate(zip(a, b)):
            assert_same(x, y, f"{where}[{k}]")
    elif callable(a) or hasattr(a, "__reduce__") and not isinstance(
            a, (int, float, str, bool, slice, type(None))):
        assert a is b or _key(a) == _key(b), where
    else:
        assert type(a) is type(b) and a == b, where


def _variants(mech, names, rows):
    params = resolve_all(mech, names)
    writer = Writer(mech, compile_model(mech), params)
    builders = [make_variant(mech, params, row, i, shared=True) for i, row in enumerate(rows)]
    return writer, builders


def linkage(variant: str = "RRRP", float32: bool = False) -> Mechanism:
    """tests/mechanisms.slider_crank (``variant``) with a bob on a distance joint of the
    length as built (none given) and a ram driven along a slide (a motion's dot-2 row);
    ``float32``: read as Blender gives it (input_precision: a rounding gap that grows with
    the markers' reach)."""
    m = slider_crank(variant=variant)
    if float32:
        m.input_precision = 2.0 ** -24
    m.add_part("bob", mass=0.5, inertia=(0.001, 0.001, 0.001), position=(0.0, -0.5, 0.2))
    m.add_marker("bob_D", "bob", position=(0.02, 0.01, 0.0))
    m.add_marker("hook", "ground", position=(0.0, -0.1, 0.2))
    m.add_joint("cord", "distance", "bob_D", "hook")
    m.add_part("ram", mass=1.0, inertia=(0.01, 0.01, 0.01), position=(0.0, 0.3, 0.0))
    m.add_marker("ram_I", "ram", position=(0.01, 0.0, 0.02))
    m.add_marker("ram_J", "ground", position=(0.01, 0.3, 0.02))
    m.add_joint("ram_way", "prismatic", "ram_I", "ram_J")
    m.add_motion("push", "ram_way", "0.1 * t", coordinate="slide")
    m.add_marker("bob_E", "bob", position=(-0.02, 0.0, 0.01))
    m.add_spring_damper("tie", "bob_E", "hook", stiffness=50.0, damping=1.0)
    m.add_spring_damper("band", "bob_E", "ram_I", stiffness=20.0, free_length=0.7)
    m.add_force("kick", "bob_E", force=(0.0, 0.0, 1.0))
    m.add_bushing("pad", "bob_E", "ram_I", stiffness=(10.0,) * 6)
    return m


LINKAGE = [
    (["crank_A.position.x", "rod_B.position.x"], [[0.08, 0.25], [0.12, 0.35], [0.1, 0.3]]),
    (["rod_A.position.y", "slider_B.position.z"], [[0.001, 0.0], [0.0, -0.002]]),
    (["bob_D.position.x", "bob_D.position.z"], [[0.05, 0.0], [-0.03, 0.01]]),
    (["ram_I.position.z", "crank_A.position.x"], [[0.03, 0.09], [0.0, 0.11]]),
    (["rod.center_of_mass.x", "rod.center_of_mass.y"], [[0.1, 0.01], [0.2, -0.01]]),
    (["bob_E.position.x", "ram_I.position.y"], [[0.03, 0.01], [-0.01, -0.02]]),
    (["cord.length", "bob_D.position.x", "tie.free_length", "bob_E.position.z"],
     [[0.5, 0.03, 0.2, 0.02], [0.6, -0.01, 0.3, 0.0]]),
    (["hook.position.x", "O.position.y", "ram_J.position.z"], [[0.02, 0.0, 0.03],
                                                              [-0.01, 0.001, 0.01]]),
    (["bob.center_of_mass.x"], [[0.02], [-0.03]]),
    (["bob.center_of_mass.z", "ram.center_of_mass.x", "bob.mass"],
     [[0.05, 0.02, 0.6], [-0.05, 0.0, 0.4]]),
]

def cams() -> Mechanism:
    """tests/mechanisms.eccentric_cam's roller follower with a point on a curve too: the
    follower's marker "pin" on a circle about the cam's marker "ring"."""
    from solver.base.curves import Curve
    m = eccentric_cam("roller")
    m.add_marker("pin", "follower", position=(0.0, -0.03, 0.0))
    m.add_marker("ring", "cam", position=(0.0, 0.01, 0.0))
    m.add_point_on_curve("track", "pin", "ring", Curve.circle(0.03))
    return m


CAMS = [
    (["disc.position.x"], [[0.002], [0.004], [0.0]]),
    (["face.position.y", "follower.mass"], [[0.001, 0.4], [-0.001, 0.2]]),
    (["pin.position.x", "ring.position.y"], [[0.002, 0.012], [-0.001, 0.008]]),
    (["cam.center_of_mass.x"], [[0.001], [-0.002]]),
]
MOVED_MARKERS = [
    (["A.position.y", "G1.position.x"], [[0.01, 0.02], [-0.02, 0.0]]),
    (["R.position.z", "B0.position.y"], [[0.01, 0.02], [-0.01, 0.0]]),
    (["P.position.y"], [[0.01], [-0.02]]),
    (["S.position.x", "C.position.z"], [[0.01, 0.02], [-0.01, 0.0]]),
    (["arm.center_of_mass.y", "slider.center_of_mass.x"], [[0.02, 0.01], [-0.01, 0.0]]),
]


# the bob's marker moved out beyond every other point: the rounding gap of float32 input
# grows with that reach (compile.py island_rounding)
FARTHEST = [(["bob_D.position.y", "crank_A.position.x"], [[-0.3, 0.08], [-0.2, 0.12]])]


GEARED = [
    (["pair.ratio"], [[2.0], [3.0], [2.5]]),
    (["belt.ratio", "teeth.pitch_radius"], [[1.5, 0.12], [3.0, -0.08]]),
    (["lead.pitch", "link.scale2"], [[0.02, -10.0], [0.005, 5.0]]),
    (["link.scale1", "pair.ratio", "lead.pitch"], [[2.0, 2.0, 0.01], [-1.0, 2.5, 0.03]]),
]


@pytest.mark.parametrize("names, rows, make",
                         [c + (every_kind,) for c in CASES] + [c + (geared,) for c in GEARED]
                         + [c + (linkage,) for c in LINKAGE]
                         + [c + (lambda: linkage("RSUP", float32=True),) for c in FARTHEST]
                         + [c + (cams,) for c in CAMS] + [c + (every_kind,) for c in MOVED_MARKERS],
                         ids=[c[0][0] for c in CASES + GEARED + LINKAGE] + ["RSUP, float32"]
                         + [c[0][0] for c in CAMS + MOVED_MARKERS])
def test_written_model_equals_the_compiled_variant(names, rows, make):
    mech = make()
    assert unwritable(mech, resolve_all(mech, names)) is None
    writer, builders = _variants(mech, names, rows)
    written = [writer.model(b) for b in builders]
    compiled = [compile_model(b) for b in builders]
    for w, c in zip(written, compiled):
        assert w is not None
        assert_same(w, c)
    # the stacked model, for the lockstep run (switched: its compliant stops) and for the
    # sweep (a frame axis, the motions each variant's own)
    for how in (dict(switched=True), dict(axes=1, motions=False, switched=True),
                dict(switched=False)):
        ref = stack_models(compiled, **how)
        got = writer.stack(written, **how)
        assert (got is None) == (ref is None), how
        if ref is not None:
            assert_same(got, ref, f"stack{how}")
    # a group that loses variants, and a Radau step's stages (each variant s times)
    for pick in ([1, 0], [0, 0, 0, 1, 1, 1]):
        ref = stack_models([compiled[i] for i in pick], switched=True)
        assert_same(writer.stack([written[i] for i in pick], switched=True), ref, str(pick))


def test_masses_of_a_chain_stack_as_the_compiled_variants():
    """The study of bench/bench_study.py's chain (every link's mass), without stops or
    friction: the lockstep run's stack."""
    mech = benchmark_chain(5)
    names = [f"{p}.mass" for p, it in mech.parts.items() if not it.fixed]
    rows = np.random.default_rng(1).uniform(0.8, 1.2, (4, len(names)))
    writer, builders = _variants(mech, names, rows)
    written = [writer.model(b) for b in builders]
    compiled = [compile_model(b) for b in builders]
    for w, c in zip(written, compiled):
        assert_same(w, c)
    assert_same(writer.stack(written), stack_models(compiled))


def test_a_mass_that_moves_the_length_scale_is_compiled():
    """A point-like bob whose radius of gyration sqrt(tr I / 2m) sets the model's length
    scale (its marker arm is 0.1 m, the radius 0.5 m at 1 kg): a lighter bob's scale is
    larger, so its model is compiled, not written; a mass that keeps the radius below the
    arm is written and equals the compiled one."""
    mech = pendulum(center_of_mass=(0.1, 0.0, 0.0), inertia=(0.2, 0.2, 0.1))
    assert compile_model(mech).length_scale == pytest.approx(0.5)
    writer, (light, heavy) = _variants(mech, ["bob.mass"], [[0.5], [30.0]])
    assert writer.model(light) is None
    assert compile_model(light).length_scale == pytest.approx(0.5 * 2 ** 0.5)
    mech2 = pendulum(center_of_mass=(1.0, 0.0, 0.0), inertia=(0.2, 0.2, 0.1))
    writer2, (v,) = _variants(mech2, ["bob.mass"], [[0.2]])
    assert writer2.model(v) is None            # 1.12 m > the 1 m arm: the scale moves
    writer3, (v3,) = _variants(mech2, ["bob.mass"], [[3.0]])
    assert_same(writer3.model(v3), compile_model(v3))


def test_a_marker_arm_that_moves_the_length_scale_is_compiled():
    """A pendulum whose pin marker's arm from the centre of mass (1 m) is its length scale:
    the pin moved 0.5 m out makes the scale 1.5 m, so that variant is compiled; moved on a
    lighter pendulum of a longer spread it is written and equals the compiled one."""
    mech = pendulum()
    assert compile_model(mech).length_scale == pytest.approx(1.0)
    writer, (out,) = _variants(mech, ["P.position.x"], [[-0.5]])
    assert compile_model(out).length_scale == pytest.approx(1.5)
    assert writer.model(out) is None
    wide = pendulum(pivot=(0.0, 0.0, 0.0), center_of_mass=(0.2, 0.0, 0.0))
    wide.add_marker("far", "ground", position=(3.0, 0.0, 0.0))
    writer, (near,) = _variants(wide, ["P.position.x"], [[0.1]])
    assert_same(writer.model(near), compile_model(near))


def test_a_centre_of_mass_that_moves_the_spread_is_compiled():
    """The length scale is the spread of the ground points and the centres of mass joined
    (2 m along y here, a spring to a ground point; the pin's arm 0.1 m): the centre of mass
    moved to the other side of the pin keeps the arm but widens the spread to 2.1 m, so
    that variant is compiled; moved inside the spread it is written and equals the
    compiled one."""
    mech = pendulum(center_of_mass=(0.0, 0.1, 0.0))
    mech.add_marker("far", "ground", position=(0.0, 2.0, 0.0))
    mech.add_spring_damper("tether", "P", "far", stiffness=10.0)
    assert compile_model(mech).length_scale == pytest.approx(2.0)
    writer, (out, inside) = _variants(mech, ["bob.center_of_mass.y"], [[-0.1], [0.3]])
    assert compile_model(out).length_scale == pytest.approx(2.1)
    assert writer.model(out) is None
    assert_same(writer.model(inside), compile_model(inside))


def test_a_ground_marker_that_moves_the_spread_is_compiled():
    """The ground points' spread is the pendulum's length scale (the pivot and a ground
    marker 2 m apart along y): that marker moved out to 2.5 m is compiled, moved 0.5 m
    across (the spread kept) written."""
    mech = pendulum(center_of_mass=(0.0, 0.1, 0.0))
    mech.add_marker("far", "ground", position=(0.0, 2.0, 0.0))
    mech.add_spring_damper("tether", "P", "far", stiffness=10.0)
    writer, (out, inside) = _variants(mech, ["far.position.x", "far.position.y"],
                                      [[0.0, 2.5], [0.5, 2.0]])
    assert compile_model(out).length_scale == pytest.approx(2.5)
    assert writer.model(out) is None
    assert_same(writer.model(inside), compile_model(inside))
    # a marker on a fixed part placed off the origin and turned: its world point
    mech.add_part("bracket", fixed=True, position=(0.3, 0.5, 0.1),
                  orientation=quat_about("z", 0.7))
    mech.add_marker("eye", "bracket", position=(0.1, 0.0, 0.0))
    mech.add_spring_damper("strap", "P", "eye", stiffness=5.0)
    writer, moved = _variants(mech, ["eye.position.x", "eye.position.z"],
                              [[0.2, 0.0], [0.05, 0.1]])
    for v in moved:
        assert_same(writer.model(v), compile_model(v))


def test_a_gear_ratio_that_moves_its_pitch_point_is_compiled():
    """An internal gear of equal radii has its pitch point at infinity: it meshes at none,
    so its mesh rows go; that variant is compiled, the others written."""
    mech = geared("internal")
    writer, (same, other) = _variants(mech, ["pair.ratio"], [[1.0], [2.0]])
    assert 0 not in compile_model(same).couplers.mesh_coupler      # "pair" is coupler 0
    assert 0 in compile_model(other).couplers.mesh_coupler
    assert writer.model(same) is None
    assert_same(writer.model(other), compile_model(other))


def _with_vector_force() -> Mechanism:
    m = every_kind()
    m.add_vector_force("pull", "Q", "G1", force=("c * t", 0.0, 0.0), constants={"c": 1.0})
    return m


@pytest.mark.parametrize("names, make", [(["bob.center_of_mass.x"], _with_vector_force),
                                         (["Q.position.y"], _with_vector_force),
                                         (["pinion.center_of_mass.x"], geared),
                                         (["nut_I.position.x"], geared),
                                         (["pull.c"], _with_vector_force)])
def test_kinds_that_are_not_written_say_why(names, make):
    mech = make()
    why = unwritable(mech, resolve_all(mech, names))
    assert why is not None and why.startswith(names[0] + ": ")


def _actuated_arm() -> Mechanism:
    """A two-link arm whose tip is driven along x and y by a general motion carried by its
    two revolute joints (actuators): Model.actuators holds the joints' coordinate rows."""
    m = Mechanism(gravity=(0.0, -9.81, 0.0))
    m.add_part("base", fixed=True)
    m.add_part("upper", mass=1.0, center_of_mass=(0.25, 0.0, 0.0))
    m.add_part("fore", mass=0.5, center_of_mass=(0.2, 0.0, 0.0), position=(0.5, 0.0, 0.0))
    m.add_marker("o", "base")
    m.add_marker("u0", "upper")
    m.add_marker("u1", "upper", position=(0.5, 0.0, 0.0))
    m.add_marker("f0", "fore")
    m.add_marker("tip", "fore", position=(0.4, 0.0, 0.0))
    m.add_joint("shoulder", "revolute", "u0", "o")
    m.add_joint("elbow", "revolute", "f0", "u1")
    m.add_general_motion("path", "tip", "o", x="0.6 + 0.1*t", y="0.2",
                         actuators=("shoulder", "elbow"))
    return m


def test_an_actuated_general_motion_is_written_and_its_joints_markers_are_not():
    """A mass is written (the actuators' rows, built from the joints' markers, stay the
    base's, as compile_model makes them: assert_same compares Model.actuators too); a marker
    of an actuator joint can move those rows (a slide's row takes its markers' points),
    which the writer does not follow: such a study is compiled per variant."""
    mech = _actuated_arm()
    writer, variants = _variants(mech, ["fore.mass"], [[0.5], [0.8]])
    for v in variants:
        assert_same(writer.model(v), compile_model(v))
    why = unwritable(mech, resolve_all(mech, ["u1.position.x"]))
    assert why is not None and "actuators" in why


def test_a_mechanism_with_contacts_is_compiled_per_variant():
    """A contact's stiffness is derived from its parts' masses: such a study is not
    written, and each variant's Result carries its own compiled model."""
    from solver.vocabulary.contacts import Shape
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=1.0, inertia=(4e-4, 4e-4, 4e-4), position=(0.0, 0.0, 0.2))
    m.add_contact("hit", "ball", "ground", Shape.sphere(0.05), Shape.half_space())
    assert unwritable(m, resolve_all(m, ["ball.mass"])) is not None
    times = np.linspace(0.0, 0.3, 4)
    batch = VariantBatch(m, ("ball.mass",), np.array([[1.0], [2.0]]), (0, 1))
    out = solve_batch(batch, times, settings())
    for o, mass in zip(out, (1.0, 2.0)):
        alone = make_variant(m, resolve_all(m, ["ball.mass"]), [mass], o.index)
        assert o.result is not None and o.failure is None
        assert compile_model(alone).forces.contacts is not None
        assert_same(o.result.model, compile_model(alone))


def test_spring_ends_moved_together_are_refused_as_compiled():
    """compile_forces' check that a spring-damper's ends are apart applies to a written
    marker: the same error, naming the spring."""
    mech = linkage()
    names = ["bob_E.position.x", "bob_E.position.y", "bob_E.position.z"]
    writer, (apart, together) = _variants(mech, names, [[0.0, 0.1, 0.0], [0.0, 0.4, 0.0]])
    assert_same(writer.model(apart), compile_model(apart))
    with pytest.raises(MechanismError) as compiled:
        compile_model(together)
    with pytest.raises(MechanismError) as written:
        writer.model(together)
    assert str(written.value) == str(compiled.value)
    assert "spring-damper 'tie'" in str(written.value)


def test_a_zero_length_distance_joint_is_named_with_its_variant():
    """compile_model's check of a distance joint's length (zero next to the model's size)
    still refuses the variant, naming the joint, while the other variants run."""
    mech = every_kind()
    mech.motions.clear()
    mech.general_motions.clear()
    batch = VariantBatch(mech, ("rod.length",), np.array([[0.8], [1e-12], [0.9]]), (0, 1, 2))
    out = solve_batch(batch, np.linspace(0.0, 0.05, 3), settings(analysis="dynamic"))
    assert out[1].result is None
    assert "joint 'rod': distance joint with zero length" in out[1].failure
    assert out[0].result is not None and out[2].result is not None


def test_a_motions_constant_keeps_the_breakpoints_it_was_given():
    """A double pendulum whose first pin is driven by "w * t" with a breakpoint given at
    0.123 s (a dynamic run ends a step there): a study of drive.w re-added the motion
    without it, so every variant, the base's own value too, stepped otherwise (14 steps
    against 16) and differed from the mechanism built by hand from the last bits on.  Now
    each variant is its by-hand mechanism's run to the last bit, its steps the same."""
    def driven(w: float) -> Mechanism:
        m = vertical_double_pendulum()
        m.add_motion("drive", "p1", "w * t", constants={"w": w}, breakpoints=[0.123])
        return m
    levels = [1.0, 2.0]
    res = driven(1.0).study({"drive.w": levels}, duration=0.5, fps=24)
    assert res.failures == {}
    for i, w in enumerate(levels):
        got, alone = res.result(i), driven(w).solve(duration=0.5, fps=24)
        assert got.analysis == "dynamic" and got.steps == alone.steps
        for name in ("_r", "_p", "_v", "_w", "_lam"):
            assert np.array_equal(getattr(got, name), getattr(alone, name)), (w, name)
