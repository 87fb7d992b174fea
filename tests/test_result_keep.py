"""What a Result keeps (solve(..., keep=...)): a reduced Result's quantities equal the full
run's bit for bit (a kinematic sweep with a gear and a cam, forward dynamics resting on a
stop, an actuated general motion, a sweep with a contact), reading a quantity not kept
raises an error naming the accessor, the item and the quantity (also in the frames a cancel
hands back), a bad keep is refused, and a long run's memory falls by the arrays not kept."""
from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest

from mechanisms import driven_planar_chain, eccentric_cam
from solver import Mechanism, MechanismError, Shape, SolverCancelled, StudyError
from test_general_motions import _slider_crank
from test_limits import dropped_ball


def geared_cam() -> Mechanism:
    """The roller-follower cam (its drive turning the disc), with a wheel of twice the
    disc's pitch radius geared to the disc's axle: a coupler row and a cam joint's rows."""
    m = eccentric_cam("roller")
    m.add_part("wheel", mass=2.0, inertia=(2e-3, 2e-3, 4e-3), position=(0.3, 0.0, 0.0))
    m.add_marker("wheel_axle", "ground", position=(0.3, 0.0, 0.0))
    m.add_marker("wheel_hub", "wheel")
    m.add_joint("wheel_pin", "revolute", "wheel_hub", "wheel_axle")
    m.add_gear("mesh", "spin", "wheel_pin", radii=(0.1, 0.2))
    m.add_limit("stroke", "slide", lower=-1.0, upper=1.0)
    return m


def same(a, b) -> bool:
    """Bit for bit, through tuples and dicts of arrays, NaN where both are NaN."""
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b))
    return np.array_equal(a, b, equal_nan=True)          # (a contact point apart: NaN)


def test_a_reduced_sweep_keeps_poses_reactions_and_named_forces_bit_for_bit() -> None:
    """The reactions and efforts are formed from the same multipliers and Jacobians in both
    runs and the couplers', cams' and limits' multipliers are stored in both: no rounding
    can differ."""
    m = geared_cam()
    times = np.arange(49) / 48.0
    full = m.solve(times=times, analysis="kinematic")
    red = m.solve(times=times, analysis="kinematic", keep=("reactions", "efforts"))
    assert red.kept == {"reactions", "efforts"}
    for part in ("cam", "follower", "wheel"):
        assert same(full.position(part), red.position(part))
        assert same(full.orientation(part), red.orientation(part))
    for joint in m.joints:
        assert same(full.reaction(joint), red.reaction(joint))
        assert same(full.reaction(joint, frame="J"), red.reaction(joint, frame="J"))
    assert same(full.effort("drive"), red.effort("drive"))
    assert same(full.coupler("mesh"), red.coupler("mesh"))
    assert same(full.tooth_force("mesh"), red.tooth_force("mesh"))
    assert same(full.contact_force("contact"), red.contact_force("contact"))
    assert same(full.limit("stroke"), red.limit("stroke"))
    assert np.abs(full.coupler("mesh")).max() > 0.0 and np.abs(full.contact_force("contact")).min() > 0.0
    assert same(full.track, red.track)
    assert red._lam.shape[1] < full.multipliers.shape[1]        # the joints' rows dropped


def test_reading_what_a_result_did_not_keep_names_the_item_and_quantity() -> None:
    m = geared_cam()
    red = m.solve(duration=0.25, fps=24, analysis="kinematic", keep=())
    assert red.kept == frozenset()
    reads = {"velocity('wheel')": (lambda: red.velocity("wheel"), "velocities"),
             "angular_velocity('cam')": (lambda: red.angular_velocity("cam"), "velocities"),
             "acceleration('follower')": (lambda: red.acceleration("follower"), "velocities"),
             "angular_acceleration('cam')": (lambda: red.angular_acceleration("cam"),
                                             "accelerations"),
             "reaction('wheel_pin')": (lambda: red.reaction("wheel_pin"), "reactions"),
             "effort('drive')": (lambda: red.effort("drive"), "efforts"),
             "Result.multipliers": (lambda: red.multipliers, "multipliers"),
             "Result.energy()": (lambda: red.energy(), "energy")}
    for what, (read, quantity) in reads.items():
        with pytest.raises(MechanismError) as err:
            read()
        assert what in str(err.value) and f"{quantity!r} in keep" in str(err.value)
    with pytest.raises(MechanismError, match="unknown joint 'nowhere'"):
        red.reaction("nowhere")                  # a bad name is still said first
    assert same(red.coupler("mesh"), m.solve(duration=0.25, fps=24).coupler("mesh"))


def test_a_cancelled_reduced_run_hands_back_its_frames_as_kept() -> None:
    """The frames done before a cancel (Result.truncated) keep what the run kept."""
    m = geared_cam()
    with pytest.raises(SolverCancelled) as err:
        m.solve(duration=1.0, fps=24, keep=("reactions",), progress=lambda k, n: k < 5)
    done, full = err.value.result, m.solve(duration=1.0, fps=24)
    assert len(done) == 5 and done.kept == {"reactions"}
    assert same(done.reaction("wheel_pin"), tuple(x[:5] for x in full.reaction("wheel_pin")))
    with pytest.raises(MechanismError, match="effort\\('drive'\\) needs the efforts"):
        done.effort("drive")


def test_a_bad_keep_is_refused_naming_it() -> None:
    m = geared_cam()
    with pytest.raises(MechanismError, match="unknown quantity 'forces'.*reactions"):
        m.solve(duration=0.1, keep=("reactions", "forces"))
    with pytest.raises(MechanismError, match="keep must be None or names"):
        m.solve(duration=0.1, keep=3)
    assert m.solve(duration=0.1, analysis="kinematic", keep="reactions").kept == {"reactions"}
    with pytest.raises(StudyError, match="keep is an option of solve"):
        m.study({"wheel.mass": [1.0, 2.0]}, duration=0.1, keep=("reactions",))


def test_a_dynamic_run_keeping_its_energy_matches_the_full_run() -> None:
    """Forward dynamics (frames stored a block at a time): the energy of a reduced run is
    made from the velocities of each stored block although they are not kept; the stop's
    force (a limit row's multiplier) and the poses are the full run's, bit for bit."""
    m = dropped_ball(h=0.05, e=0.3)
    times = np.arange(25) / 24.0
    full = m.solve(times=times, analysis="dynamic")
    red = m.solve(times=times, analysis="dynamic", keep=("energy",))
    assert red.kept == {"energy"} and red.rest_from == full.rest_from
    assert same(full.energy(), red.energy()) and same(full.limit("floor"), red.limit("floor"))
    assert same(full.position("ball"), red.position("ball"))
    assert full.limit("floor")[-1] == pytest.approx(0.5 * 9.81, rel=1e-9)   # resting: m g
    with pytest.raises(MechanismError, match="velocity\\('ball'\\) needs the velocities"):
        red.velocity("ball")


def test_what_a_run_reads_at_its_end_is_kept_whatever_was_asked() -> None:
    """An actuated general motion's efforts are moved onto its actuators through every
    row's multiplier; a kinematic contact's forces come from the velocities."""
    arm = _slider_crank(actuators=("pin",))
    full = arm.solve(duration=0.5, fps=24)
    red = arm.solve(duration=0.5, fps=24, keep=("reactions",))
    assert red.kept == {"reactions", "multipliers", "efforts"}
    assert same(full.actuator_efforts("stroke"), red.actuator_efforts("stroke"))
    assert same(full.reaction("wrist"), red.reaction("wrist"))
    m = Mechanism(gravity=(0.0, 0.0, -9.81))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=1.0, inertia=(1e-3,) * 3, position=(0.0, 0.0, 0.2))
    m.add_marker("rail", "ground"); m.add_marker("shoe", "ball")
    m.add_joint("drop", "prismatic", "shoe", "rail")
    m.add_motion("lower", "drop", "0.2 - 0.2*t")
    m.add_contact("touch", "ball", "ground", Shape.sphere(0.1), Shape.half_space())
    full = m.solve(duration=1.0, fps=24)
    red = m.solve(duration=1.0, fps=24, keep=())
    assert red.kept == {"velocities"} and same(full.contact("touch"), red.contact("touch"))
    assert full.contact("touch")["penetration"][-1] == pytest.approx(0.1, rel=1e-9)


def peak_bytes(m: Mechanism, times: np.ndarray, **keep) -> tuple[float, object]:
    """The largest traced allocation while solving, and the Result."""
    tracemalloc.start()
    try:
        r = m.solve(times=times, analysis="kinematic", **keep)
        return tracemalloc.get_traced_memory()[1], r
    finally:
        tracemalloc.stop()


def test_a_long_bake_holds_only_what_it_keeps() -> None:
    """20 driven links over 2,000 frames: the Result keeping reactions and efforts holds
    exactly 8 bytes a frame for each pose number (7 a link), reaction component (6 a joint)
    and effort (1 a motion) beside the times and tracked values; the solve's peak falls by
    at least 90% of the arrays dropped (velocities 6, accelerations 6 and multipliers 6 a
    link a frame, energy 4 a frame: the full run fills each of them; the rest of the peak,
    the sweep's block workspace, is the same in both runs, up to the allocator's slack)."""
    n, frames = 20, 2000
    m, times = driven_planar_chain(n), np.arange(frames) / 24.0
    full_peak, full = peak_bytes(m, times)
    red_peak, red = peak_bytes(m, times, keep=("reactions", "efforts"))
    held = sum(x.nbytes for x in vars(red).values()      # (not the joints' marker points)
               if isinstance(x, np.ndarray) and x.shape[:1] == (frames,))
    assert held == 8 * frames * (7 * n + 6 * n + n + 1)       # + the times
    dropped = 8 * frames * (6 * n + 6 * n + 6 * n + 4)        # v w, a alpha, lambda, energy
    assert full_peak - red_peak >= 0.9 * dropped
    assert same(full.reaction(f"pin{n - 1}"), red.reaction(f"pin{n - 1}"))
