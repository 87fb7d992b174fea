"""addon/io/events.py without Blender: a dynamic run's impacts and friction events as
timeline markers (names, nearest frames, time order) and as the events CSV's rows, checked
against closed forms on a real solver run; which markers a bake may remove (only its own,
the user's never).

The mechanism: a ball dropped h = 0.5 m onto a stop (e = 0.5) on a vertical prismatic
joint, impacts at T1 (1 + 2 sum_k e^k), T1 = sqrt(2 h / g); beside it a 2 kg block at rest
on a 20 degree incline with dry friction (mu_s 0.6), pushed down the slope by 10 t N: it
sticks from the start and breaks loose at t* = m g (mu_s cos a - sin a) / 10.  The solver
locates each instant to 1e-10 s, so the nearest frame (24 fps) is the closed form's unless
an instant lies within 1e-9 s of a half frame (asserted not to)."""
from __future__ import annotations

import math

import numpy as np

from test_io_addon import driven_crank, io, solver

events, timeline = io("events"), io("timeline")
G = 9.81
H, E = 0.5, 0.5


def ball_and_block() -> "solver.Mechanism":
    a = math.radians(20.0)
    b = math.pi / 2 + a
    q = (math.cos(b / 2), 0.0, math.sin(b / 2), 0.0)
    m = solver.Mechanism(gravity=(0.0, 0.0, -G))
    m.add_part("ground", fixed=True)
    m.add_part("ball", mass=0.5, inertia=(1e-3, 1e-3, 1e-3), position=(0.0, 0.0, H))
    m.add_marker("rail", "ground")
    m.add_marker("shoe", "ball")
    m.add_joint("Drop", "prismatic", "shoe", "rail")
    m.add_limit("Drop: limit", "Drop", lower=0.0, restitution=E)
    m.add_part("block", mass=2.0, inertia=(0.01, 0.01, 0.01), position=(1.0, 0.0, 0.0))
    m.add_marker("way", "ground", position=(1.0, 0.0, 0.0), orientation=q)
    m.add_marker("pad", "block", orientation=q)
    m.add_joint("Slide", "prismatic", "pad", "way")
    m.add_friction("Slide: friction", "Slide", static=0.6, dynamic=0.5, transition_speed=1e-9)
    m.add_force("push", "pad", force=(f"10*t*{math.cos(a)}", 0.0, f"-10*t*{math.sin(a)}"))
    return m


def closed_form_instants() -> tuple[np.ndarray, float]:
    """The first three impacts' instants and the block's breakaway instant (s)."""
    T1 = math.sqrt(2.0 * H / G)
    impacts = T1 * (1.0 + 2.0 * np.concatenate([[0.0], np.cumsum(E ** np.arange(1, 3))]))
    a = math.radians(20.0)
    return impacts, 2.0 * G * (0.6 * math.cos(a) - math.sin(a)) / 10.0


def test_markers_name_each_event_at_its_nearest_frame() -> None:
    """Markers in time order: the stick at the first frame (t = 0), then the first three
    impacts and the slip, each at round(frame_start + t fps) of the closed form's instant;
    an impact's marker names its joint, a friction event's its kind and joint (the joint
    the element acts on, not the solver's item name)."""
    tl = timeline.Timeline(1, 25, 24.0)
    r = ball_and_block().solve(times=tl.times, analysis="dynamic", tolerance=1e-9)
    impacts, slip = closed_form_instants()
    assert slip < tl.duration and impacts[-1] < tl.duration
    for t in [*impacts, slip]:                  # no instant within 1e-9 s of a half frame
        assert abs((t * 24.0) % 1.0 - 0.5) > 1e-9 * 24.0
    marks = events.event_marks(r, tl.frame_of, {"Slide: friction": "Slide"})
    expected = sorted([(t, "impact: Drop") for t in impacts] + [(0.0, "stick: Slide"),
                                                                (slip, "slip: Slide")])
    assert marks[:5] == [(name, int(round(1 + t * 24.0))) for t, name in expected][:5]
    assert all(name == "impact: Drop" for name, _ in marks[5:])   # the later bounces
    assert [f for _, f in marks] == sorted(f for _, f in marks)


def test_the_events_csv_has_each_impacts_speeds_and_impulse() -> None:
    """One row per impact and per friction event, in time order: an impact's instant to
    1e-8 s of the closed form (12 digits written), its speeds -sqrt(2 g h) and e times its
    opposite and its impulse m (1 + e) sqrt(2 g h) at the first, to 1e-7 (the run's
    tolerance 1e-9, 9 digits written); a friction event leaves those columns empty."""
    tl = timeline.Timeline(1, 25, 24.0)
    r = ball_and_block().solve(times=tl.times, analysis="dynamic", tolerance=1e-9)
    rows = events.event_rows(r, tl.frame_of, {"Slide: friction": "Slide"})
    assert rows[0] == list(events.EVENT_COLUMNS)
    body = rows[1:]
    assert len(body) == len(r.impacts) + len(r.friction_events)
    times = [float(row[1]) for row in body]
    assert times == sorted(times)
    hits = [row for row in body if row[2] == "impact"]
    impacts, slip = closed_form_instants()
    np.testing.assert_allclose([float(h[1]) for h in hits[:3]], impacts, rtol=0, atol=1e-8)
    first = hits[0]
    assert first[3:6] == ["Drop", "Drop: limit", "lower"]
    v = math.sqrt(2.0 * G * H)
    np.testing.assert_allclose([float(x) for x in first[6:9]], [-v, E * v, 0.5 * (1 + E) * v],
                               rtol=1e-7)
    assert int(first[0]) == events.nearest_frame(tl.frame_of(float(first[1])))
    friction = [row for row in body if row[2] != "impact"]
    assert [row[2:6] for row in friction] == [["stick", "Slide", "Slide: friction", ""],
                                             ["slip", "Slide", "Slide: friction", ""]]
    assert abs(float(friction[1][1]) - slip) < 1e-8 and friction[1][6:] == ["", "", ""]


def test_a_kinematic_run_has_no_events() -> None:
    """Without impacts or friction events: no markers, and the CSV's header alone."""
    r = driven_crank().solve(duration=1.0, fps=4)
    assert events.event_marks(r, lambda t: 1 + 4 * t, {}) == []
    assert events.event_rows(r, lambda t: 1 + 4 * t, {}) == [list(events.EVENT_COLUMNS)]


def test_nearest_frame_and_the_events_file() -> None:
    assert [events.nearest_frame(f) for f in (3.49, 3.5, 3.51, -0.5)] == [3, 4, 4, 0]
    assert events.events_path("/tmp/run.csv") == "/tmp/run_events.csv"
    assert events.events_path("/tmp/run") == "/tmp/run_events.csv"


def test_only_the_markers_a_bake_made_are_removed() -> None:
    """The scene's markers: the bake's two "impact: Drop" at frame 7 and a "stick" at 1,
    the user's own "impact: Drop" at frame 9 and "key pose" at 7, and one of the bake's the
    user moved to frame 12: only the three where the bake left them are removed, once each
    (a third identical marker at 7 stays)."""
    made = [("impact: Drop", 7), ("impact: Drop", 7), ("stick: Slide", 1), ("slip: Slide", 10)]
    recorded = events.decode_marks(events.encode_marks(made))
    assert recorded == made
    scene = [("key pose", 7), ("impact: Drop", 7), ("stick: Slide", 1), ("impact: Drop", 9),
             ("impact: Drop", 7), ("slip: Slide", 12), ("impact: Drop", 7)]
    assert events.marks_to_remove(scene, recorded) == [1, 2, 4]
    assert events.decode_marks("not json") == [] and events.decode_marks("") == []
