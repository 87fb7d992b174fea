"""``Mechanism``: the builder (vocabulary/builder.py) with the analyses as convenience methods.

This is the top of the solver's layers: it compiles the builder into a frozen model, reads
the parts' placements into a state, runs an analysis (analyses/) and, where asked, writes
the new placements back.  No analysis imports this module.
"""
from __future__ import annotations

from typing import Any

from .algebra.blas import single_thread
from .analyses.start.assembly import assemble
from .analyses.posing.drag import Poser
from .analyses.run import progress_callback, requested_times, run, settings
from .analyses.equilibrium.modes import Modes, modes as _modes
from .analyses.equilibrium.statics import statics as _statics
from .analyses.checks.check import CheckReport, check as _check
from .base.errors import MechanismError, finite_number
from .model.compile import compile_model
from .model.results import Result
from .model.state import read_state, write_pose
from .study import Study, StudyResult
from .vocabulary.builder import Builder


def _time(time: Any, call: str) -> float:
    """The time (s) an analysis holds the motions at, as a finite float, or MechanismError
    naming the call (a NaN time would hold every motion at NaN)."""
    return finite_number(time, f"{call}: time (s)")


class Mechanism(Builder):
    """A mechanism described by named parts, markers, joints and motions (SI units).

    >>> m = Mechanism()
    >>> m.add_part("ground", fixed=True)
    >>> m.add_part("crank", mass=2.0, inertia=(0.01, 0.01, 0.02))
    >>> m.add_marker("O", part="ground"); m.add_marker("A", part="crank")
    >>> m.add_joint("pin", "revolute", "A", "O")
    >>> m.add_motion("drive", joint="pin", expression="2*pi*t")
    >>> m.dof        # the motion is not counted
    1
    """

    @property
    def dof(self) -> int:
        """Degrees of freedom by rank at the assembled position, motions not counted."""
        return self.check().dof

    @single_thread
    def check(self) -> CheckReport:
        """Diagnose without moving anything: DOF, redundant equations by joint, problems."""
        model = compile_model(self)
        return _check(model, read_state(model, self))

    @single_thread
    def assemble(self, time: float = 0.0) -> None:
        """Move the parts the least so that every joint and motion (at ``time``) holds."""
        time = _time(time, "assemble")
        model = compile_model(self)
        write_pose(model, self, assemble(model, read_state(model, self, time)))

    @single_thread
    def poser(self, time: float = 0.0) -> Poser:
        """A ``Poser`` for posing by hand at ``time`` (s; motions held at their values
        there): the model compiled once, the parts' present placements assembled (least
        movement); ``drag_to``, ``set_coordinate`` and ``coordinate_range`` move it with every
        joint held, ``part_poses()`` reads the pose.  This mechanism is not changed."""
        time = _time(time, "poser")
        model = compile_model(self)
        st = read_state(model, self, time)
        return Poser(model, st.r, st.p, time)

    @single_thread
    def statics(self, time: float = 0.0, update: bool = False) -> Result:
        """Static equilibrium under gravity, springs and loads (motions held at ``time``):
        a one-frame Result with the reactions there; ``update=True`` moves the parts."""
        time = _time(time, "statics")
        model = compile_model(self)
        result, rest = _statics(model, read_state(model, self, time))
        if update:
            write_pose(model, self, rest)
        return result

    @single_thread
    def modes(self, time: float = 0.0) -> Modes:
        """Natural frequencies, damping and mode shapes about the static equilibrium (found
        from the parts' present placements, motions held at ``time``, as ``statics``): a
        ``Modes``.  This mechanism is not changed."""
        time = _time(time, "modes")
        model = compile_model(self)
        return _modes(model, read_state(model, self, time))

    @single_thread
    def solve(self, duration: float | None = None, fps: float = 24.0, analysis: str = "auto",
              tolerance: float = 1e-6, method: str = "auto", progress: Any = None,
              times: Any = None, keep: Any = None, **options: Any) -> Result:
        """Assemble, then compute frames k/fps for k = 0..round(duration*fps), or the given
        output ``times`` (s, strictly increasing; the analysis starts at times[0] and
        Result.times are exactly these); returns a Result.  analysis: "auto" (kinematic when motions drive every DOF, else dynamic),
        "kinematic" or "dynamic"; tolerance: the dynamic integrator's accuracy goal; method:
        "auto", "explicit" or "implicit" (stiff springs and dampers; see
        analyses/dynamics/driver.py); progress: optional callable(frames done, frames in all)
        called after each frame, returning False to cancel (SolverCancelled, with the
        frames done in .result); keep: the quantities the Result stores beside the poses,
        None for all of them, or some of "velocities", "accelerations", "reactions",
        "efforts", "multipliers", "energy" (a long run's memory; reading one not kept
        raises MechanismError naming it)."""
        times = requested_times(duration, fps, times, "solve")
        how = settings(analysis, tolerance, method, keep, **options)
        progress = progress_callback(progress)
        model = compile_model(self)
        try:
            return run(model, read_state(model, self), times, how, progress)
        except MemoryError:
            raise MechanismError(f"solve: {len(times):,} frames of {model.nb} moving part(s) "
                                 "do not fit in memory; ask for fewer frames (a lower fps, or "
                                 "fewer times) or keep=(...) fewer quantities") from None

    def study(self, samples: Any, duration: float | None = None, fps: float = 24.0,
              times: Any = None, metrics: dict | None = None, executor: Any = None,
              batch_size: int | None = None, progress: Any = None, **options: Any) -> StudyResult:
        """A design study: solve every variant of ``samples`` (``grid({...})``,
        ``latin_hypercube({...}, n, seed)``, a dict of parameter -> values or a list of dicts;
        names like "crank.mass", "A.position.y", "spring.stiffness", "drive.omega",
        "gravity.z": solver/study/params.py) over the frames of ``duration``/``fps`` or
        ``times``; ``metrics`` {column: f(Result)}; ``executor`` (concurrent.futures or Dask)
        and ``batch_size``; other options as solve's.  Returns a StudyResult (per-variant
        Results, failures by index, the summary table).  This mechanism is not changed;
        ``Study(self, samples, metrics)`` keeps the checked variants to run later."""
        return Study(self, samples, metrics).run(duration, fps, times, executor, batch_size,
                                                 progress, **options)
