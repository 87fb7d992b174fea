"""One entry for a run over output frames: check the settings, assemble, find the structure,
and hand over to the kinematic sweep or forward dynamics."""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ..algebra.blas import single_thread
from ..base.errors import MechanismError, SolverCancelled, SolverError
from ..model.compile import Model
from ..model.kept import kept_quantities
from ..model.results import Result
from ..model.state import State, moved_at_origins
from .start.assembly import assemble_pose, curve_contacts, run_disagreement
from .checks.cam_check import cam_crossing
from .checks.runaway import runaway_note
from .checks.shared_reactions import shared_components, shared_note
from .contact_check import deep_frames, overlapping_contacts, record_contacts, sinking_contacts
from .dynamics.driver import dynamic_run
from .general_motions import (carry_by_actuators, check_built_angles, check_prescribed_angles,
                              check_reached_angles, dead_centre, rounded_dead_centre)
from .start.loaded_bushings import loaded_bushings
from .start.open_joints import open_joints_note
from .start.singular_start import singular_start
from .start.start_velocities import start_velocity_note
from .structure import Structure, structure
from .sweep import kinematic_sweep
from .checks.curve_ends import off_curve_error


@dataclass(frozen=True)
class Settings:
    """How to run: the analysis ("auto": kinematic when the motions drive every degree of
    freedom, else dynamic; "kinematic"; "dynamic"), the dynamic integrator's accuracy goal
    (relative: the energy and positions of a run meet it with room, analyses/dynamics/driver.py
    has the measured errors; 1e-7 and below for tighter runs) and its method ("auto",
    "explicit", "implicit"), and the quantities the Result keeps beside the poses
    (model/kept.py; all of them by default)."""
    analysis: str = "auto"
    tolerance: float = 1e-6
    method: str = "auto"
    keep: frozenset = kept_quantities(None)


def settings(analysis: str = "auto", tolerance: float = 1e-6, method: str = "auto",
             keep: Any = None, **options) -> Settings:
    """Validated Settings, or MechanismError naming the bad one."""
    if analysis not in ("auto", "kinematic", "dynamic"):
        raise MechanismError(f"analysis must be 'auto', 'kinematic' or 'dynamic', got {analysis!r}")
    if options:
        raise MechanismError(f"unknown solve option(s): {', '.join(options)}")
    if method not in ("auto", "explicit", "implicit"):
        raise MechanismError(f"method must be 'auto', 'explicit' or 'implicit', got {method!r}")
    try:
        tolerance = float(tolerance)
    except (TypeError, ValueError):
        raise MechanismError(f"tolerance must be a number, got {tolerance!r}") from None
    if not (1e-14 <= tolerance <= 1e-1):
        raise MechanismError(f"tolerance must be between 1e-14 and 0.1, got {tolerance}")
    return Settings(analysis, tolerance, method, kept_quantities(keep))


def progress_callback(progress: Any, counts: str = "frames done, frames in all") -> Any:
    """``progress`` if it is None or callable(``counts``), else MechanismError: checked
    before a run starts, not at its first frame."""
    if progress is not None and not callable(progress):
        raise MechanismError(f"progress must be a function progress({counts}) or None, "
                             f"got {progress!r}")
    return progress


def output_times(times: Any) -> np.ndarray:
    """Validated output times (s): one or more finite numbers, strictly increasing."""
    try:
        t = np.array(times, dtype=float)
    except (TypeError, ValueError):
        raise MechanismError(f"times must be numbers, got {times!r}") from None
    if t.ndim > 1:                   # (a table's rows read one after another: not times)
        raise MechanismError(f"times must be one sequence of numbers, got an array of shape "
                             f"{t.shape}")
    t = t.reshape(-1)
    if t.size == 0:
        raise MechanismError("times is empty: give at least one output time")
    if not np.all(np.isfinite(t)):
        raise MechanismError("times has a NaN or infinite value")
    if np.any(np.diff(t) <= 0.0):
        k = int(np.argmax(np.diff(t) <= 0.0))
        raise MechanismError(f"times must increase strictly: times[{k + 1}] = {t[k + 1]:g} s "
                             f"follows {t[k]:g} s")
    return t


MAX_FRAMES = 10 ** 8     # output frames a run may ask for (one part's poses: 6 GB)


def frame_times(duration: float, fps: float) -> np.ndarray:
    """Output times k/fps for k = 0..round(duration*fps), or MechanismError (a duration
    above 0 under half a frame, whose run would keep the start alone, among them)."""
    try:
        duration, fps = float(duration), float(fps)
    except (TypeError, ValueError):
        raise MechanismError("duration and fps must be numbers") from None
    if not (np.isfinite(duration) and duration >= 0.0):
        raise MechanismError(f"duration must be a finite number >= 0, got {duration}")
    if not (np.isfinite(fps) and fps > 0.0):
        raise MechanismError(f"fps must be a positive number, got {fps}")
    count = round(duration * fps) + 1
    if duration > 0.0 and count == 1:       # under half a frame: only the start would be kept
        raise MechanismError(f"a duration of {duration:g} s at {fps:g} fps ends before the first "
                             f"frame after the start (1/{fps:g} s): the run would keep t = 0 "
                             f"alone; ask for at least {1.0 / duration:.3g} fps, or give the "
                             "times")
    if count > MAX_FRAMES:
        raise MechanismError(f"a duration of {duration:g} s at {fps:g} fps is {count:,} frames: "
                             f"at most {MAX_FRAMES:,} (their poses alone would not fit in "
                             "memory); ask for a lower fps or a shorter duration")
    return np.arange(count) / fps


def requested_times(duration: Any, fps: Any, times: Any, what: str = "solve") -> np.ndarray:
    """The output times of a call given a duration (with fps) or times, never both;
    MechanismError naming ``what`` needs them otherwise."""
    if times is None:
        if duration is None:
            raise MechanismError(f"{what} needs a duration (with fps) or output times")
        return frame_times(duration, fps)
    if duration is not None:
        raise MechanismError("give either duration (with fps) or times, not both")
    return output_times(times)


@dataclass(frozen=True)
class Start:
    """What a run starts from (``prepare``): the assembled state at times[0], the structure
    there, the analysis chosen, the assembly's notes and its note of joints open where the
    parts were built (open_joints.py)."""
    state: State
    structure: Structure
    analysis: str
    notes: tuple[str, ...]
    opened: str | None = None
    jac: np.ndarray | None = None      # the rows' Jacobian blocks at the start (Assembly.jac)


def prepare(model: Model, state: State, times: np.ndarray, how: Settings = Settings()) -> Start:
    """Assemble the state at times[0] (its pose and velocities are the start), find the
    structure there and choose the analysis; SolverError for over-driving motions or a
    kinematic analysis of a mechanism with free degrees of freedom."""
    t0 = float(times[0])
    check_prescribed_angles(model, times)
    check_built_angles(model, state.p, t0)
    asm = assemble_pose(model, state.r, state.p, t0, ref=state.track)
    start = moved_at_origins(model, replace(state, t=t0), asm.r, asm.p, asm.track)
    st = asm.structure or structure(model, start.r, start.p, ref=start.track, jac=asm.jac)
    lined_up, joints = singular_start(model, st, start.r, start.p, t0, start.track, asm.jac)
    if lined_up:
        raise SolverError(lined_up, t0, joints)
    if st.bad_motions:
        centre = dead_centre(model, tuple(st.bad_motions), start.r, start.p, t0, start.track)
        if centre:
            raise SolverError(centre, t0, tuple(st.bad_motions))
        raise SolverError(f"the motions over-drive the mechanism: motion {st.bad_motions[0]!r} "
                          "drives a coordinate that the joints and the other motions already "
                          "fix; remove it or free its joint", t0, tuple(st.bad_motions))
    centre, bad = rounded_dead_centre(model, st.bad_motions, start.r, start.p, t0, start.track)
    if centre:
        raise SolverError(centre, t0, bad)
    analysis = how.analysis
    if analysis == "auto":
        analysis = "kinematic" if st.driven_dof == 0 else "dynamic"
    if analysis == "kinematic" and st.driven_dof > 0:
        raise SolverError(f"kinematic analysis needs every degree of freedom driven: "
                          f"{st.driven_dof} remain (add motions or use analysis='dynamic')", t0)
    return Start(start, st, analysis, tuple(asm.notes), open_joints_note(model, state, start),
                 asm.jac)


def finish(model: Model, begun: Start, out: Result) -> Result:
    """The checks and notes every run ends with: curve contacts off their curves, the
    assembly's notes, imperfect geometry that shows only in motion, contacts overlapping at
    the start; a general motion's angles at their singular pose, its efforts moved onto its
    actuators."""
    check_reached_angles(model, out)
    carry_by_actuators(model, begun.structure.keep, out)
    if model.curves is not None:
        _curve_checks(model, out)
    record_contacts(model, out, out.analysis == "kinematic")
    out.notes[:0] = list(begun.notes) + ([begun.opened] if begun.opened else [])
    if not begun.notes:
        note = run_disagreement(model, begun.structure, out.times, out._r, out._p, out.track)
        if note:
            out.notes.insert(0, note)
    # parts that start inside each other are pushed apart at once: say so (as check() does)
    out.notes += overlapping_contacts(model, begun.state.r, begun.state.p)
    out.notes += loaded_bushings(model, begun.state.r, begun.state.p)   # (as check() does)
    if out.analysis != "kinematic":     # (a sweep's motions may drive parts through)
        out.notes += sinking_contacts(model) + deep_frames(model, out)
        away = runaway_note(model, out.times, out._r)
        out.notes += [away] if away else []
    out.shared_reactions = shared_components(model, begun.structure, begun.state.r,
                                             begun.state.p, begun.state.track, begun.jac)
    shared = shared_note(out.shared_reactions, len(begun.structure.redundant))
    if shared and {"reactions", "multipliers"} & out.kept:    # what they would misread
        out.notes.append(shared)
    given = start_velocity_note(model, begun.structure, begun.state, out.analysis)
    if given:
        out.notes.append(given)
    return out


@single_thread
def run(model: Model, state: State, times: np.ndarray, how: Settings = Settings(),
        progress=None) -> Result:
    """Assemble the state at times[0] (its pose and velocities are the start), choose the
    analysis and compute every output time; returns a Result with one frame per time."""
    return run_from(model, prepare(model, state, times, how), times, how, progress)


def run_from(model: Model, begun: Start, times: np.ndarray, how: Settings = Settings(),
             progress=None) -> Result:
    """run() from what ``prepare`` gave (a design study prepares its variants together and
    runs alone the ones that leave the batched run)."""
    try:
        if begun.analysis == "dynamic":
            out = dynamic_run(model, begun.structure, begun.state, times, how.tolerance,
                              how.method, progress, how.keep)
        else:
            out = kinematic_sweep(model, begun.structure, begun.state, times, progress, how.keep)
    except SolverError as exc:           # a cam whose curves cut into each other before it
        if (model.curves is not None and not isinstance(exc, SolverCancelled)
                and exc.result is not None and len(exc.result.times)):
            _cam_checks(model, exc.result, exc)
        raise
    return finish(model, begun, out)


def _curve_checks(model: Model, out: Result) -> None:
    """A point that ran off the end of its open curve stops the run there (SolverError
    naming the joint, the time and the frame, with the frames before), and so does a cam
    whose curves cut into each other (cam_check.py: the follower passed through the cam);
    a cam contact that would have to pull is noted with the time and force (the result
    holds the curves together, as a bilateral joint would)."""
    cp = model.curves
    for name, k, curve in curve_contacts(model):
        off = ~curve.inside(out.track[:, k])
        if off.any():
            f = int(np.argmax(off))
            raise off_curve_error(name, curve, float(out.times[f]), f, out)
    _cam_checks(model, out)
    for name in cp.cam_names:
        force = out.contact_force(name)
        if len(force) and force.min() < -1e-9 * max(float(np.abs(force).max()), 1e-300):
            f = int(np.argmin(force))
            first_pull = int(np.argmax(force < 0.0))
            out.notes.append(f"cam {name!r}: the contact would have to pull from t = "
                             f"{out.times[first_pull]:.6g} s (frame {first_pull}); the largest pull "
                             f"is {-force[f]:.4g} N at t = {out.times[f]:.6g} s: the follower would "
                             "lift off (a stiffer spring or a lower speed keeps it on); the "
                             "result holds the curves together")


def _cam_checks(model: Model, out: Result, cause: SolverError | None = None) -> None:
    """SolverError at the first frame where a cam's curves cut into each other
    (cam_check.py), with the frames before; ``cause``: the failure of a run that stopped
    later (a dynamic run whose steps collapse where the cam's common normal ends), which
    this explains."""
    for name in model.curves.cam_names:
        crossing = cam_crossing(model, out, name)
        if crossing is None:
            continue
        f, depth = crossing
        t = float(out.times[f])
        raise SolverError(f"cam {name!r}: its curves cut into each other by {depth:.3g} m at "
                          f"t = {t:.6g} s (frame {f}): they would touch at another point "
                          "too (a flank concave more tightly than the follower is curved, "
                          "which the follower bridges or passes through), and the joint "
                          "holds one common normal only; make the cam's concave flanks "
                          "gentler or the follower smaller", t, (name,),
                          out.truncated(f)) from cause
