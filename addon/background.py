"""Long solves in the UI (Bake, Run Study, Bake Variant): the solver runs in a worker thread
(numpy only: the work function must not touch bpy), a timer shows its progress in the status
bar, Esc cancels (the solver's progress callback returns False), and the scene is written on
the main thread when it is done, in slices between the timer's ticks when the operator
writes it step by step (a bake's keys: 100 parts over 10,000 frames take seconds to write),
so that the status bar keeps showing how far it is.  Headless (``bpy.app.background``) the
operators run their synchronous ``execute`` instead; modal timers do not run there."""
from __future__ import annotations

import threading
import time
from typing import Any, Callable, Iterator


# set while a synchronous run should stop: the command line's Ctrl C (cli.py); the
# synchronous Bake and Export CSV hand the solver ``until_interrupted`` as its progress
INTERRUPT = threading.Event()


# the main thread's time writing the scene between two redraws of the status bar, s
WRITE_SLICE = 0.1
# the status while the scene is written: the solve is done, so Esc no longer cancels
WRITING = "{what}: writing the results, {p}% (Esc no longer cancels)"


def until_interrupted(done: int, total: int) -> bool:
    """A solver progress callback: False (stop: SolverCancelled) once INTERRUPT is set."""
    return not INTERRUPT.is_set()


def drain(steps: Iterator) -> Any:
    """Run a step-by-step piece of work (a generator, as ``BackgroundRun.finished`` may
    return) to its end at once, for the synchronous operators and scripts; its return
    value."""
    while True:
        try:
            next(steps)
        except StopIteration as done:
            return done.value


def counted(steps: Iterator[int], before: int, total: int) -> Iterator[tuple[int, int]]:
    """``steps`` (yielding how many of its items are done) as part of a larger piece of
    work: yields (``before`` + done, ``total``); returns its return value."""
    while True:
        try:
            done = next(steps)
        except StopIteration as end:
            return end.value
        yield before + done, total


class BackgroundRun:
    """Mixin for an operator: ``start(context, work, status)`` from ``invoke`` runs
    ``work(progress)`` in a thread (``progress(done, total)`` returns False once Esc was
    pressed) and shows ``status.format(k=done, n=total, p=percent done)``; when the thread ends,
    ``finished(context, error, result)`` is called on the main thread and returns the
    operator's result, or an iterator that writes the scene a step at a time, yielding
    (steps done, steps in all), whose return value is the operator's result: it runs in
    slices of WRITE_SLICE s, the status bar showing the share done between them
    (``WRITING``, ``what`` the status's part before its first colon).  ``shown``: the
    status last shown."""

    def start(self, context, work: Callable[[Callable[[int, int], bool]], Any], status: str):
        self.launch(context, work, status)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def launch(self, context, work: Callable[[Callable[[int, int], bool]], Any],
               status: str) -> None:
        """``start`` but for the modal handler: the worker thread, the timer, the progress."""
        self._status = status
        self._counts = [0, 1]
        self._cancel = False
        self._out: dict = {}
        self._writing: Iterator | None = None
        self.shown = ""

        def progress(k, n):
            self._counts[:] = [k, n]
            return not self._cancel

        def run():
            try:
                self._out["result"] = work(progress)
            except Exception as exc:    # noqa: BLE001 - reported on the main thread
                self._out["error"] = exc

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        wm = context.window_manager
        self._timer = wm.event_timer_add(0.1, window=context.window)
        wm.progress_begin(0, 100)

    def modal(self, context, event):
        if event.type == "ESC" and self._writing is None:
            self._cancel = True
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        if self._writing is None:
            k, n = self._counts
            self._show(context, k, n, self._status.format(k=k, n=n, p=int(100 * k / max(n, 1))))
            if self._thread.is_alive():
                return {"RUNNING_MODAL"}
            try:
                out = self.finished(context, self._out.get("error"), self._out.get("result"))
            except BaseException:
                self._end(context)
                raise
            if isinstance(out, (set, frozenset)):
                self._end(context)
                return out
            self._writing = out
        return self._write(context)

    def _write(self, context):
        """One slice of the scene's writing (``finished``'s iterator): its steps until
        WRITE_SLICE s have passed, then the share done in the status bar."""
        until = time.perf_counter() + WRITE_SLICE
        k, n = 0, 1
        try:
            while True:
                k, n = next(self._writing)
                if time.perf_counter() >= until:
                    break
        except StopIteration as done:
            self._end(context)
            return done.value
        except BaseException:
            self._end(context)
            raise
        what = self._status.split(":")[0]
        self._show(context, k, n, WRITING.format(what=what, p=int(100 * k / max(n, 1))))
        return {"RUNNING_MODAL"}

    def _show(self, context, k: int, n: int, text: str) -> None:
        context.window_manager.progress_update(int(100 * k / max(n, 1)))
        context.workspace.status_text_set(text)
        self.shown = text

    def _end(self, context) -> None:
        wm = context.window_manager
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)

    def finished(self, context, error, result):      # pragma: no cover - overridden
        raise NotImplementedError
