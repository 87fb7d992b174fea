"""The one seam through which a study's variants are solved: ``solve_batch(batch, times, how)``.

A batch is the study's base mechanism and a block of parameter rows (``VariantBatch``: plain,
picklable data, no closures), so the local run and every executor (threads, processes, a Dask
cluster) call the same function with the same arguments and get the same numbers.  Here each
variant is a copy of the base with its values set (study/params.py), compiled and run by the
existing analyses (analyses/run.py, as Mechanism.solve does), one after the other; a variant
that fails (assembly cannot close a loop, a lock-up, any error) becomes an Outcome with its
reason while the rest of the batch goes on.

A vectorized engine (every array with a variant axis) replaces the body of ``solve_batch``:
all variants of a batch share the base's topology, and ``VariantBatch.params`` says which
item fields differ, so the base can be compiled once and only those arrays given a variant
axis.  It must keep the contract: one Outcome per variant, in the batch's order, with a
Result (or a failure reason) per variant.
"""
from __future__ import annotations

import time as _time
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..analyses.run import Settings, run
from ..model.compile import compile_model
from ..model.results import Result
from ..model.state import read_state
from ..vocabulary.builder import Builder
from .params import Parameter, make_variant, resolve_all


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
    ``seconds``: the wall time it took."""
    index: int
    result: Result | None
    failure: str | None = None
    seconds: float = 0.0


def solve_variant(builder: Builder, times: np.ndarray, how: Settings) -> Result:
    """Compile, read the placements and run: what Mechanism.solve does with validated times."""
    model = compile_model(builder)
    return run(model, read_state(model, builder), times, how, None)


def solve_batch(batch: VariantBatch, times: np.ndarray, how: Settings,
                progress: Callable[[int], Any] | None = None) -> list[Outcome]:
    """Every variant of ``batch`` over ``times`` with the settings ``how``: one Outcome per
    variant, in order.  ``progress(variants done)``, after each variant (the local run
    passes it; an executor's workers get None), returning False stops the batch early."""
    out: list[Outcome] = []
    params = batch.params
    for k, (index, row) in enumerate(zip(batch.indices, batch.values)):
        start = _time.perf_counter()
        try:
            result, failure = solve_variant(make_variant(batch.base, params, row, index),
                                            times, how), None
        except Exception as exc:        # noqa: BLE001 - any failure is this variant's alone
            result, failure = None, f"{type(exc).__name__}: {exc}"
        out.append(Outcome(index, result, failure, _time.perf_counter() - start))
        if progress is not None and progress(k + 1) is False:
            break
    return out

