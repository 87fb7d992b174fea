"""The one seam through which a study's variants are solved: ``solve_batch(batch, times, how)``.

A batch is the study's base mechanism and a block of parameter rows (``VariantBatch``: plain,
picklable data, no closures), so the local run and every executor (threads, processes, a Dask
cluster) call the same function with the same arguments and get the same numbers.  Here each
variant is a copy of the base with its values set (study/params.py), its model written into
the base's, compiled once (study/writes.py; compiled per variant where its parameters cannot
be written, and when it runs alone), and run by the existing analyses: forward dynamics of all variants together in one lockstep run
(study/lockstep.py: every array with a variant axis, each variant with its own steps, equal to
its separate run), everything else one variant after the other (analyses/run.py, as
Mechanism.solve does); a variant that fails (assembly cannot close a loop, a lock-up, any
error) becomes an Outcome with its reason while the rest of the batch goes on.

The batched runs take the variants whose models differ only in numbers and in the
functions of their motions, loads and actuators (study/stack.py ``stack_models``): forward
dynamics in one lockstep loop (study/lockstep.py; stiff variants by Radau IIA over the variant
axis, the others by the explicit method, each group its own run), kinematic sweeps in blocks
of (variants, frames) by the one sweep, analyses/sweep/, over a variant axis (one mechanism
its case of one variant); couplers and
curve joints included, each variant's tracked values its own; stops and friction in sweeps
(no events there); in the lockstep dynamics each variant runs the single run's own stages
(analyses/dynamics/driver.py DynamicRun), events included: rigid stops' impacts and rests
in the explicit run, compliant stops in both, contacts' touchdowns, joint friction's slip,
stick and breaking loose (the explicit run; stiff variants with friction go one by one).
The contract stays: one Outcome per variant, in the batch's order, with a Result (or a
failure reason) per variant.
"""
from __future__ import annotations

import functools
import time as _time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..algebra.blas import single_thread
from ..analyses.dynamics.driver import choose_method
from ..analyses.dynamics.equations import Equations
from ..analyses.run import Settings, finish, prepare, run, run_from
from ..analyses.sweep import VariantAxis, sweep_variants
from ..analyses.structure import Structure
from ..base.errors import ExpressionError, MechanismError, SolverCancelled, SolverError
from ..model.compile import Model, compile_model
from ..model.results import Result
from ..model.state import State, read_state
from ..vocabulary.builder import Builder
from .lockstep import batch_dynamics, batch_implicit
from .params import Parameter, make_variant, resolve_all
from .stack import stack_models, take_variants
from .writes import Writer, unwritable


@dataclass(frozen=True)
class VariantBatch:
    """Variants ``indices`` of a study: ``base`` with ``names[j]`` set to ``values[r, j]`` for
    the r-th of them."""
    base: Builder
    names: tuple[str, ...]
    values: np.ndarray              # (len(indices), len(names))
    indices: tuple[int, ...]

    @property
    def params(self) -> list[Parameter]:
        return resolve_all(self.base, self.names)

    def __len__(self) -> int:
        return len(self.indices)


@dataclass
class Outcome:
    """One variant's run: its Result, or ``failure`` (the reason, "<error type>: <message>");
    ``seconds``: the wall time it took; ``note``: what the study's user should know about
    how it ran (StudyResult.notes)."""
    index: int
    result: Result | None
    failure: str | None = None
    seconds: float = 0.0
    note: str | None = None


# what a batched run may meet and hand to the variants alone, who then say which and where
# (a motion undefined at some time, a lock-up); anything else is a defect of the batched
# run, and the variants that then ran alone carry a note saying so
_FORESEEN = (MechanismError, SolverError, ExpressionError, np.linalg.LinAlgError, ArithmeticError)


def solve_variant(builder: Builder, times: np.ndarray, how: Settings) -> Result:
    """Compile, read the placements and run: what Mechanism.solve does with validated times."""
    model = compile_model(builder)
    return run(model, read_state(model, builder), times, how, None)


def solve_batch(batch: VariantBatch, times: np.ndarray, how: Settings,
                progress: Callable[[int], Any] | None = None) -> list[Outcome]:
    """Every variant of ``batch`` over ``times`` with the settings ``how``: one Outcome per
    variant, in order.  ``progress(variants done)``, after each variant (the local run
    passes it; an executor's workers get None), returning False stops the batch early.

    Variants that can run together (the same analysis from the same kept rows;
    study/lockstep.py: forward dynamics, in lockstep; analyses/sweep/: kinematic sweeps,
    in blocks of (variants, frames)) run as one group, each such group in turn; the rest,
    and any variant a group hands back, one by one from the model and start already made
    for it."""
    out: dict[int, Outcome] = {}
    prepared: dict[int, tuple] = {}     # (model, Start) of a variant to run alone
    notes: dict[int, str] = {}          # why variants that could run as one did not
    made = _prepared(batch, times, how, out)
    if made is not None:
        idx, models, begun, stack = made
        for group in _groups(begun):
            if len(group) < 2:
                prepared[idx[group[0]]] = (models[group[0]], begun[group[0]])
                continue
            cancelled = _run_group([idx[g] for g in group], [models[g] for g in group],
                                   [begun[g] for g in group], stack, times, how, progress,
                                   out, prepared, notes)
            if cancelled:
                return [out[i] for i in batch.indices if i in out]
    params = batch.params
    for index, row in zip(batch.indices, batch.values):
        if index in out:
            continue
        start = _time.perf_counter()
        if index in prepared:
            m, b = prepared[index]
            out[index] = _finished(index, lambda: single_thread(run_from)(m, b, times, how),
                                   None, start)
        else:
            out[index] = _finished(index, lambda: solve_variant(
                make_variant(batch.base, params, row, index, shared=True), times, how), None,
                start)
        if progress is not None and progress(len(out)) is False:
            break
    for i, note in notes.items():
        if i in out:
            out[i].note = note
    return [out[i] for i in batch.indices if i in out]


def _run_group(idx: list[int], models: list[Model], begun: list, stack: Callable,
               times: np.ndarray, how: Settings, progress, out: dict, prepared: dict,
               notes: dict) -> bool:
    """The variants ``idx`` (their models and Starts ``begun``, one analysis from the same
    kept rows) run as one: their Outcomes into ``out``; a variant the run hands back into
    ``prepared`` (it runs alone), with a note in ``notes`` where the run stopped on a
    defect of its own.  True when the study was cancelled (the Outcomes of the variants
    finished before are kept)."""
    start = _time.perf_counter()
    states = [b.state for b in begun]
    failed = len(out)                 # variants that failed or finished already count as done
    report = None if progress is None else (lambda k: progress(failed + k))
    try:
        if begun[0].analysis == "dynamic":
            results = single_thread(_dynamics)(models, begun[0].structure, states, times,
                                               how, report, stack)
        else:
            results = single_thread(_sweeps)(models, begun[0].structure, states, times,
                                             report, stack)
    except SolverCancelled as exc:     # (the groups a dynamic run finished before: kept)
        for i, m, b, r in zip(idx, models, begun, getattr(exc, "finished", None) or ()):
            if r is not None:
                out[i] = _finished(i, lambda: finish(m, b, r), None)
        return True
    except Exception as exc:    # noqa: BLE001 - e.g. a motion undefined at some time:
        results = None          # the variants alone say which and where
        if not isinstance(exc, _FORESEEN):
            for i in idx:
                notes[i] = (f"{len(idx)} variants ({idx[0]} to {idx[-1]}) ran one by one: "
                            f"their batched run stopped on {type(exc).__name__}: {exc} (a "
                            "defect of the batched run, please report it; each variant's "
                            "result is its separate run's)")
    each = (_time.perf_counter() - start) / len(idx)
    for i, m, b, r in zip(idx, models, begun, results or [None] * len(idx)):
        if r is not None:
            out[i] = _finished(i, lambda: finish(m, b, r), each)
        else:                      # it left the batch: alone, as prepared
            prepared[i] = (m, b)
    return progress is not None and results is not None and progress(len(out)) is False


def _groups(begun: list) -> list[list[int]]:
    """The positions of ``begun`` (Starts) grouped by what lets variants run as one: the
    same analysis from the same kept rows (a variant starting with a stop resting, say,
    keeps other rows), in the order each group first appears."""
    groups: dict[tuple, list[int]] = {}
    for k, b in enumerate(begun):
        groups.setdefault((b.analysis, b.structure.keep.tobytes()), []).append(k)
    return list(groups.values())


def _dynamics(models: list[Model], st: Structure, states: list[State], times: np.ndarray,
              how: Settings, progress: Callable[[int], Any] | None = None,
              stack: Callable[..., Model | None] = stack_models) -> list[Result | None] | None:
    """Forward dynamics of the variants together: each takes the method its separate run
    takes (analyses/dynamics/driver.py ``choose_method``: the implicit one where its force elements
    make it stiff), the explicit ones in one lockstep run (study/lockstep.py), the stiff ones
    in another (study/lockstep.py ``batch_implicit``), two or more a group (one runs alone).  Their
    Results, None where a variant runs alone; None when no group ran together.  ``stack``:
    how the groups' models are stacked (stack_models, or a study's Writer.stack)."""
    t0 = float(times[0])
    stiff = [choose_method(lambda m=m: Equations(m, st), t0, s.r, s.p, s.v, s.w, how.method,
                           m) == "implicit" for m, s in zip(models, states)]
    out: list[Result | None] = [None] * len(models)
    ran, done = False, 0
    for implicit in (False, True):
        idx = [i for i, x in enumerate(stiff) if x == implicit]
        if len(idx) < 2:
            continue
        report = None if progress is None else (lambda k, d=done: progress(d + k))
        args = ([models[i] for i in idx], st, [states[i] for i in idx], times, how.tolerance)
        try:
            got = (batch_implicit(*args, report, stack) if implicit
                   else batch_dynamics(*args, how.method, report, stack))
        except SolverCancelled as exc:    # what the group before finished is not lost
            exc.finished = out
            raise
        if got is not None:
            ran, done = True, done + len(idx)
            for i, res in zip(idx, got):
                out[i] = res
    return out if ran else None


def _sweeps(models: list[Model], st: Structure, states: list[State], times: np.ndarray,
            progress: Callable[[int], Any] | None = None,
            stack: Callable[..., Model | None] = stack_models) -> list[Result | None] | None:
    """Kinematic sweeps of the variants as one (analyses/sweep ``sweep_variants``), their
    models stacked by ``stack`` (study/stack.py ``stack_models``, or a study's
    Writer.stack) with a frame axis; None when they do not stack."""
    by = functools.partial(stack, axes=1, motions=False, switched=True)
    return sweep_variants(models, st, states, times, VariantAxis(by, take_variants), progress)


def _finished(index: int, fn: Callable[[], Result], seconds: float | None,
              start: float = 0.0) -> Outcome:
    """fn()'s Result as variant ``index``'s Outcome, or its failure (any error is this
    variant's alone)."""
    try:
        result, failure = fn(), None
    except Exception as exc:        # noqa: BLE001 - any failure is this variant's alone
        result, failure = None, f"{type(exc).__name__}: {exc}"
    took = seconds if seconds is not None else _time.perf_counter() - start
    return Outcome(index, result, failure, took)


def _prepared(batch: VariantBatch, times: np.ndarray, how: Settings, out: dict):
    """(indices, models, Starts, stack) of the batch's variants, each made through the
    Builder (its validation), its model written into the base's compiled one (study/
    writes.py) or compiled where the parameters cannot be written, its start assembled and
    its analysis chosen; ``stack`` the function that stacks their models.  A variant that
    fails here (a loop that does not close) gets its Outcome in ``out`` now; None when
    none is made."""
    params = batch.params
    writer = _writer(batch.base, params) if len(batch) > 1 else None
    idx, models, begun = [], [], []
    for index, row in zip(batch.indices, batch.values):
        start = _time.perf_counter()
        try:
            builder = make_variant(batch.base, params, row, index, shared=True)
            model = writer.model(builder) if writer is not None else None
            if model is None:
                model = compile_model(builder)
            b = single_thread(prepare)(model, read_state(model, builder), times, how)
        except Exception as exc:    # noqa: BLE001 - any failure is this variant's alone
            out[index] = Outcome(index, None, f"{type(exc).__name__}: {exc}",
                                 _time.perf_counter() - start)
            continue
        idx.append(index)
        models.append(model)
        begun.append(b)
    if not idx:
        return None
    return idx, models, begun, (writer.stack if writer is not None else stack_models)


def _writer(base: Builder, params: list[Parameter]) -> Writer | None:
    """The study's Writer over the base compiled once, or None where its parameters cannot
    be written (study/writes.py ``unwritable``) or the base does not compile (each variant
    is then compiled, and says what is wrong with it)."""
    if unwritable(base, params) is not None:
        return None
    try:
        return Writer(base, compile_model(base), params)
    except MechanismError:
        return None
