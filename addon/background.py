"""Long solves in the UI (Bake, Run Study, Bake Variant): the solver runs in a worker thread
(numpy only: the work function must not touch bpy), a timer shows its progress in the status
bar, Esc cancels (the solver's progress callback returns False), and the scene is written on
the main thread when it is done.  Headless (``bpy.app.background``) the operators run their
synchronous ``execute`` instead; modal timers do not run there."""
from __future__ import annotations

import threading
from typing import Any, Callable


# set while a synchronous run should stop: the command line's Ctrl C (cli.py); the
# synchronous Bake and Export CSV hand the solver ``until_interrupted`` as its progress
INTERRUPT = threading.Event()


def until_interrupted(done: int, total: int) -> bool:
    """A solver progress callback: False (stop: SolverCancelled) once INTERRUPT is set."""
    return not INTERRUPT.is_set()


class BackgroundRun:
    """Mixin for an operator: ``start(context, work, status)`` from ``invoke`` runs
    ``work(progress)`` in a thread (``progress(done, total)`` returns False once Esc was
    pressed) and shows ``status.format(k=done, n=total)``; when the thread ends,
    ``finished(context, error, result)`` is called on the main thread and returns the
    operator's result."""

    def start(self, context, work: Callable[[Callable[[int, int], bool]], Any], status: str):
        self._status = status
        self._done = [0, 1]
        self._cancel = False
        self._out: dict = {}

        def progress(k, n):
            self._done[:] = [k, n]
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
        wm.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        wm = context.window_manager
        if event.type == "ESC":
            self._cancel = True
        if event.type != "TIMER":
            return {"RUNNING_MODAL"}
        k, n = self._done
        wm.progress_update(int(100 * k / max(n, 1)))
        context.workspace.status_text_set(self._status.format(k=k, n=n))
        if self._thread.is_alive():
            return {"RUNNING_MODAL"}
        wm.event_timer_remove(self._timer)
        wm.progress_end()
        context.workspace.status_text_set(None)
        return self.finished(context, self._out.get("error"), self._out.get("result"))

    def finished(self, context, error, result):      # pragma: no cover - overridden
        raise NotImplementedError
