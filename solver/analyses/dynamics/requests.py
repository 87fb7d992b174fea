"""What a dynamic run's stages ask for: the calls that cost most, as Requests a driver
makes (``drive``: a single run makes each call itself; a design study's lockstep run,
study/lockstep.py, makes the calls of one kind of all its variants together)."""
from __future__ import annotations

from typing import Any, Callable, Generator, NamedTuple


class Request(NamedTuple):
    """What a run's stage asks for at a yield (``DynamicRun.frames``): ``fn(*args)``, one of
    the calls that cost most ("rhs" a right-hand side, "rate" the equations' fastest rate,
    "step" a trial step, "project" a step end's projection, "frame" an output frame's
    evaluation).  A single run makes the call (``drive``); a design study's lockstep run
    (study/lockstep.py) makes the calls of one kind of all its variants together."""
    kind: str
    fn: Callable
    args: tuple


Requests = Generator[Request, Any, Any]


def drive(run: Requests) -> Any:
    """Run a generator of Requests to its end, making each call itself (an exception the
    call raises is raised in the generator where it asked, as if the stage had made the
    call); returns what the generator returns."""
    try:
        ask = next(run)
        while True:
            try:
                answer = ask.fn(*ask.args)
            except Exception as exc:        # noqa: BLE001 - the stage's own handlers decide
                ask = run.throw(exc)
            else:
                ask = run.send(answer)
    except StopIteration as stop:
        return stop.value
