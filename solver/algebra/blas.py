"""Keep numpy's BLAS on one thread while the solver works.

The solver's matrices are small (tens to a few hundred rows) and it solves thousands of them
in a run; OpenBLAS's worker threads cost more than they save at that size, and far more
when the other cores are busy (measured: a 30 x 30 solve takes 11 us on one thread and
several milliseconds with two threads on a loaded 2-core machine).  ``single_thread()``
finds the OpenBLAS that numpy loaded and sets its thread count to 1 for the duration of
a call, then restores it.  Where no OpenBLAS is found (another BLAS) it does nothing.
"""
from __future__ import annotations

import ctypes
import functools
import glob
import os
import threading
from typing import Any, Callable

import numpy as np

_lock = threading.Lock()
_lib: Any = False          # numpy's OpenBLAS (ctypes.CDLL); False: not looked up; None: none
_api: tuple[Any, Any] | None | bool = False     # False: not looked up yet; None: not found


def openblas_library() -> Any:
    """The OpenBLAS shared library that numpy loaded (ctypes.CDLL), or None."""
    global _lib
    if _lib is not False:
        return _lib
    base = os.path.dirname(np.__file__)
    candidates = []
    for d in (os.path.join(base, "..", "numpy.libs"), os.path.join(base, ".libs"),
              os.path.join(base, ".dylibs"), os.path.join(base, "..", "numpy", ".libs")):
        candidates += glob.glob(os.path.join(d, "*openblas*"))
    _lib = None
    for path in candidates:
        try:
            _lib = ctypes.CDLL(path)
            break
        except OSError:
            continue
    return _lib


def _openblas() -> tuple[Any, Any] | None:
    """(set_num_threads, get_num_threads) of numpy's OpenBLAS, or None."""
    global _api
    if _api is not False:
        return _api
    _api = None
    lib = openblas_library()
    if lib is None:
        return None
    for suffix in ("64_", "", "_64"):
        for prefix in ("openblas", "scipy_openblas"):
            setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
            getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
            if setter is not None and getter is not None:
                getter.restype = ctypes.c_int
                _api = (setter, getter)
                return _api
    return _api


def single_thread(fn: Callable) -> Callable:
    """Decorator: run ``fn`` with numpy's BLAS on one thread (restored afterwards)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        api = _openblas()
        if api is None:
            return fn(*args, **kwargs)
        setter, getter = api
        with _lock:
            before = int(getter())
            setter(1)
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                setter(before)
    return wrapper
