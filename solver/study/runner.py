"""``Study``: a mechanism, its variants and the functions of their results; ``run`` solves
every variant, here or on an executor, and returns a StudyResult."""
from __future__ import annotations

import concurrent.futures as cf
import copy
import math
import os
from typing import Any, Callable

import numpy as np

from ..algebra.blas import single_thread
from ..analyses.run import Settings, progress_callback, requested_times, settings
from ..base.errors import MechanismError, SolverCancelled, StudyError
from ..model.compile import compile_model
from ..model.results import Result
from ..vocabulary.builder import Builder
from .engine import Outcome, VariantBatch, solve_batch
from .params import make_variant, resolve_all
from .samples import Samples, as_samples
from .table import StudyResult, columns, variant_index


class Study:
    """Variants of one mechanism, all of the same topology, and what to read from each.

    ``mechanism``: a Mechanism (or Builder), copied at once (later changes to it do not
    reach the study, and the study never changes it).  ``samples``: ``grid({...})``,
    ``latin_hypercube({...}, n, seed)``, a dict of parameter -> values (a grid) or a list of
    dicts, one per variant; parameter names as in study/params.py ("crank.mass",
    "A.position.y", "spring1.stiffness", "drive.omega", "gravity.z").  ``metrics``: {column
    name: f(Result) -> float}, extra columns of the summary.  Every name and every variant's
    values are checked here, before anything runs (StudyError naming the variant and the
    parameter)."""

    def __init__(self, mechanism: Builder, samples: Any,
                 metrics: dict[str, Callable[[Any], Any]] | None = None) -> None:
        if not isinstance(mechanism, Builder):
            raise StudyError(f"a study needs a Mechanism, got {type(mechanism).__name__}")
        self.base = copy.deepcopy(mechanism)
        self.samples: Samples = as_samples(samples)
        self.params = resolve_all(self.base, self.samples.names)
        metrics = dict(metrics or {})
        for name, fn in metrics.items():
            if not isinstance(name, str) or not callable(fn):
                raise StudyError(f"metrics maps column names to functions of a Result; "
                                 f"{name!r} -> {fn!r} is not one")
        self.metrics = metrics
        columns(self.base, self.samples, metrics)       # no two columns of one name
        for i, row in enumerate(self.samples.values):
            make_variant(self.base, self.params, row, i, shared=True)

    def __len__(self) -> int:
        return len(self.samples)

    @property
    def variants(self) -> list[dict[str, float]]:
        """One dict per variant: parameter name -> value."""
        return self.samples.rows()

    def variant(self, i: int) -> Builder:
        """Variant i's mechanism (a new copy: solve it, change it, as any Mechanism)."""
        i = variant_index(i, len(self))
        return make_variant(self.base, self.params, self.samples.values[i], i)

    def _result_bytes(self, frames: int) -> int | None:
        """The bytes every variant's Result over ``frames`` output frames holds together (a
        study keeps each Result whole for its metrics), or None where neither the base nor
        the first variant compiles (each variant then says why it fails)."""
        try:
            model = compile_model(self.base)
        except MechanismError:
            try:
                model = compile_model(make_variant(self.base, self.params,
                                                   self.samples.values[0], 0, shared=True))
            except MechanismError:
                return None
        one = Result(model, np.zeros(1), "dynamic")
        per_frame = sum(getattr(one, f).nbytes for f in Result._FRAME_FIELDS
                        if getattr(one, f) is not None)
        return len(self) * int(frames) * per_frame

    def _check_memory(self, times: np.ndarray) -> None:
        """StudyError, before anything runs, when the variants' Results over ``times`` would
        not fit in this machine's memory: a study too large is said with its size, not met
        as numpy's MemoryError hours into the run."""
        total = physical_memory()
        need = None if total is None else self._result_bytes(len(times))
        if need is not None and need > total:
            raise StudyError(
                f"{len(self):,} variants of {len(times):,} frames each: their Results would "
                f"hold {need / 1e9:,.3g} GB, more than this machine's memory "
                f"({total / 1e9:,.3g} GB); study fewer variants or fewer frames (a lower fps, "
                "a shorter duration)")

    def run(self, duration: float | None = None, fps: float = 24.0, times: Any = None,
            executor: Any = None, batch_size: int | None = None,
            progress: Callable[[int, int], Any] | None = None, analysis: str = "auto",
            tolerance: float = 1e-6, method: str = "auto", **options: Any) -> StudyResult:
        """Solve every variant over frames k/fps up to ``duration`` or the given ``times``
        (as Mechanism.solve, with its analysis, tolerance and method) and return a
        StudyResult.  ``executor``: anything with ``submit(fn, *args)`` (a
        concurrent.futures executor, a Dask client or ``client.get_executor()``): the variants
        go to it in batches of ``batch_size`` (default: one batch per worker), each batch
        one call of engine.solve_batch with the base mechanism and its rows of values; None
        solves them here, one batch of ``batch_size`` (default all) after the other.  The
        numbers are the same either way.  ``progress(variants done, variants in all)``,
        after each variant here or each batch on an executor, returning False cancels
        (SolverCancelled with .result: the StudyResult so far, the rest failed as not run)."""
        times = requested_times(duration, fps, times, "a study's run")
        if "keep" in options:       # a metric may read any quantity of a variant's Result
            raise StudyError("keep is an option of solve, not of a study: a study's Results "
                             "keep every quantity for its metrics")
        how = settings(analysis, tolerance, method, **options)
        try:
            progress = progress_callback(progress, "variants done, variants in all")
        except MechanismError as exc:
            raise StudyError(str(exc)) from None
        _check_executor(executor)
        n = len(self)
        self._check_memory(times)
        if batch_size is None:
            size = n if executor is None else math.ceil(n / _workers(executor))
        elif isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) \
                or batch_size < 1:
            raise StudyError(f"batch_size must be a whole number >= 1, got {batch_size!r}")
        else:
            size = int(batch_size)
        batches = [VariantBatch(self.base, self.samples.names, self.samples.values[k:k + size],
                                tuple(range(k, min(k + size, n)))) for k in range(0, n, size)]
        if executor is None:
            outcomes, cancelled = _local(batches, times, how, progress, n)
        else:
            outcomes, cancelled = _on_executor(executor, batches, times, how, progress, n)
        done = {o.index for o in outcomes}
        outcomes += [Outcome(i, None, "not run: the study was cancelled")
                     for i in range(n) if i not in done]
        out = StudyResult(self.samples, outcomes, self.base, self.metrics, times)
        if cancelled:
            raise SolverCancelled(f"study cancelled after {len(done)} of {n} variants",
                                  None, (), out)
        return out


def _local(batches: list[VariantBatch], times: np.ndarray, how: Settings,
           progress: Any, n: int) -> tuple[list[Outcome], bool]:
    """Each batch through solve_batch here, in order."""
    outcomes: list[Outcome] = []
    for batch in batches:
        before = len(outcomes)
        stopped: list[bool] = []        # a False from progress, even after a batch's last variant

        def report(k: int, before: int = before) -> Any:
            ok = progress(before + k, n)
            if ok is False:
                stopped.append(True)
            return ok
        got = solve_batch(batch, times, how, None if progress is None else report)
        outcomes += got
        if stopped or len(got) < len(batch):
            return outcomes, True
    return outcomes, False


@single_thread      # one BLAS thread while threads of this process solve variants side by side
def _on_executor(executor: Any, batches: list[VariantBatch], times: np.ndarray, how: Settings,
                 progress: Any, n: int) -> tuple[list[Outcome], bool]:
    """Each batch submitted to ``executor`` as solve_batch(batch, times, how), gathered in
    order; a batch whose call failed (a worker lost, arguments that would not pickle) gives
    each of its variants that reason."""
    futures = [executor.submit(solve_batch, b, times, how) for b in batches]
    pending = dict(zip(futures, batches))
    results: dict[Any, list[Outcome]] = {}
    done = 0
    cancelled = False
    order = cf.as_completed(futures) if all(isinstance(f, cf.Future) for f in futures) else futures
    for f in order:
        batch = pending[f]
        try:
            results[f] = list(f.result())
        except Exception as exc:        # noqa: BLE001 - the batch's variants failed with it
            reason = f"{type(exc).__name__}: {exc} (batch of variants {batch.indices[0]} to " \
                     f"{batch.indices[-1]})"
            results[f] = [Outcome(i, None, reason) for i in batch.indices]
        done += len(batch)
        if progress is not None and progress(done, n) is False:
            cancelled = True
            for g in futures:
                if g not in results:
                    g.cancel()
            break
    return [o for f in futures if f in results for o in results[f]], cancelled


def physical_memory() -> int | None:
    """This machine's physical memory in bytes (POSIX sysconf), None where it cannot be
    read."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return None


def _check_executor(executor: Any) -> None:
    """StudyError unless ``executor`` is None or has a callable ``submit``: checked before
    any variant is sent, not as an AttributeError halfway."""
    if executor is not None and not callable(getattr(executor, "submit", None)):
        raise StudyError(f"executor must have submit(fn, *args) (a concurrent.futures executor, "
                         f"a Dask client or client.get_executor()), got {executor!r}")


def _workers(executor: Any) -> int:
    """How many workers an executor has: a concurrent.futures pool's max_workers, a Dask
    client's (or its executor's) threads, else this machine's CPU count."""
    n = getattr(executor, "_max_workers", None)
    if isinstance(n, int) and n > 0:
        return n
    client = getattr(executor, "_client", executor)
    nthreads = getattr(client, "nthreads", None)
    if callable(nthreads):
        try:
            total = sum(nthreads().values())
            if total > 0:
                return int(total)
        except Exception:               # noqa: BLE001 - not a Dask client after all
            pass
    return os.cpu_count() or 1
