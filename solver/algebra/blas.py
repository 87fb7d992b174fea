"""numpy's own OpenBLAS, found from what numpy reports about its build, and BLAS on one
thread while the solver works.

One thread: the solver's matrices are small (tens to a few hundred rows) and it solves
thousands of them in a run; OpenBLAS's worker threads cost more than they save at that size,
and far more when the other cores are busy (measured: a 30 x 30 solve takes 11 us on one
thread and several milliseconds with two threads on a loaded 2-core machine).
``single_thread`` sets numpy's OpenBLAS to one thread for the duration of a call, then
restores it.

Found by name, never by trying names.  numpy >= 1.25 reports its BLAS build in
``numpy.show_config(mode="dicts")["Build Dependencies"]["blas"]``: the dependency's name and,
for OpenBLAS, the configuration string OpenBLAS gives of itself.  The exported names follow
from them by the rules numpy's own C code uses to call that library (``BLAS_FUNC`` and
``CBLAS_FUNC`` in numpy's npy_cblas.h, with OpenBLAS's ILP64 naming scheme):

- prefix ``scipy_`` for the scipy-openblas wheels numpy 2 bundles (their pkg-config file
  defines BLAS_SYMBOL_PREFIX=scipy_), none for other OpenBLAS builds;
- 64-bit integers (ILP64) when the configuration says ``USE64BITINT`` (numpy 2) or
  ``USE_64BITINT=1`` (numpy 1.26), and then the suffix ``64_``;
- a Fortran (LAPACK) routine is prefix + name + "_" + suffix, a C function prefix + name +
  suffix.  numpy 1.26 ("openblas64"): ``dpbsv_64_``, ``openblas_set_num_threads64_``; numpy 2
  ("scipy-openblas"): ``scipy_dpbsv_64_``, ``scipy_openblas_set_num_threads64_``.

The library is the file numpy loaded: a file named like a BLAS in numpy's wheel folder, or
a shared library mapped into this process (/proc/self/maps; elsewhere the other files of
numpy's wheel folder), opened with RTLD_NOLOAD where the platform has it (an already loaded
library, never a new one), numpy's own files first, that exports the derived
``openblas_get_config``; the configuration it returns must agree on the integer width (a
wrong width would corrupt memory).  Anything missing: None, one warning on the
``solver.algebra.blas`` logger, and the callers take their dense or unthreaded path.
"""
from __future__ import annotations

import ctypes
import functools
import logging
import os
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator

import numpy as np

log = logging.getLogger("solver.algebra.blas")    # fixed name: under "solver" in Blender too

_lock = threading.Lock()
_cache: dict[str, Any] = {}        # "openblas", "threads": looked up once per process


@dataclass(frozen=True)
class BlasBuild:
    """numpy's OpenBLAS as numpy's build reports it, and the symbol names that follow."""
    name: str           # numpy's BLAS dependency: "openblas64" (1.26), "scipy-openblas" (2.x)
    config: str         # OpenBLAS's configuration string as numpy recorded it
    prefix: str         # symbol prefix: "scipy_" or ""
    ilp64: bool         # 64-bit integer interface

    @property
    def suffix(self) -> str:
        """Symbol suffix: "64_" for ILP64 builds (OpenBLAS naming scheme), else ""."""
        return "64_" if self.ilp64 else ""

    def c_name(self, name: str) -> str:
        """Exported name of a C function (openblas_*, cblas_*)."""
        return f"{self.prefix}{name}{self.suffix}"

    def fortran_name(self, name: str) -> str:
        """Exported name of a Fortran BLAS/LAPACK routine (dpbsv)."""
        return f"{self.prefix}{name}_{self.suffix}"


def numpy_blas_report() -> dict[str, Any] | None:
    """numpy's own report of its BLAS dependency (numpy >= 1.25), or None."""
    try:
        deps = np.show_config(mode="dicts")["Build Dependencies"]
    except (TypeError, KeyError, AttributeError, ImportError):   # numpy < 1.25: no dicts
        return None
    blas = deps.get("blas")
    return dict(blas) if isinstance(blas, dict) else None


def blas_build(report: dict[str, Any] | None) -> BlasBuild | None:
    """The names numpy's report implies, or None when it reports no OpenBLAS."""
    if not report or not report.get("found", False):
        return None
    name = str(report.get("name", ""))
    if "openblas" not in name.lower():
        return None
    config = str(report.get("openblas configuration", ""))
    words = config.split()
    ilp64 = "USE64BITINT" in words or "USE_64BITINT=1" in words
    prefix = "scipy_" if name.lower().startswith("scipy-openblas") else ""
    return BlasBuild(name, config, prefix, ilp64)


@dataclass
class OpenBLAS:
    """numpy's loaded OpenBLAS: its file, the names numpy's build implies, and functions
    looked up by exactly those names."""
    build: BlasBuild
    path: str
    lib: Any                       # ctypes.CDLL
    config: str                    # the library's own openblas_get_config()
    _symbols: dict[str, Any] = field(default_factory=dict, repr=False)

    def function(self, name: str, fortran: bool) -> tuple[Any, str] | None:
        """(ctypes function, exported name) of ``name`` (e.g. "dpbsv", fortran=True), or
        None when the library does not export the name numpy's build implies."""
        symbol = self.build.fortran_name(name) if fortran else self.build.c_name(name)
        if symbol not in self._symbols:
            fn = getattr(self.lib, symbol, None)
            self._symbols[symbol] = None if fn is None else (fn, symbol)
        return self._symbols[symbol]

    def describe(self, symbol: str) -> str:
        """"<library file> (<symbol>)", for reports."""
        return f"{os.path.basename(self.path)} ({symbol})"


def _numpy_folders() -> list[str]:
    """Folders where numpy's wheels keep the libraries they bundle (auditwheel, delvewheel:
    numpy.libs; older auditwheel: numpy/.libs; delocate on macOS: numpy/.dylibs)."""
    base = os.path.dirname(os.path.realpath(np.__file__))
    return [os.path.normpath(os.path.join(base, "..", "numpy.libs")),
            os.path.join(base, ".libs"), os.path.join(base, ".dylibs")]


def _loaded_libraries() -> list[str]:
    """Shared libraries mapped into this process (Linux), in map order, as mapped (not
    resolved); [] elsewhere."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    paths: dict[str, None] = {}
    for line in lines:
        parts = line.split(maxsplit=5)
        if len(parts) == 6 and parts[5].startswith("/") and ".so" in os.path.basename(parts[5]):
            paths[parts[5]] = None
    return list(paths)


def _candidates() -> Iterator[str]:
    """Library files numpy may have loaded its BLAS from, resolved (realpath) one by one as
    they are reached: the files named like a BLAS in numpy's own folders first (the file a
    wheel's numpy loads, found without reading the process's map: Blender's maps over a
    hundred libraries, 1.5 ms to read), then the mapped libraries named like a BLAS (their
    resolving all took 5-8 ms), then the others, each group numpy's own folders first."""
    folders = _numpy_folders()
    seen: set[str] = set()
    for d in folders:
        if os.path.isdir(d):
            for f in sorted(os.listdir(d)):
                if "blas" in f.lower():
                    seen.add(os.path.join(d, f))
                    yield os.path.join(d, f)
    mapped = _loaded_libraries()
    if not mapped:
        for d in folders:
            if os.path.isdir(d):
                yield from sorted(p for p in (os.path.join(d, f) for f in os.listdir(d))
                                  if p not in seen)
        return
    blas_named = [p for p in mapped if "blas" in os.path.basename(p).lower()]
    others = [p for p in mapped if "blas" not in os.path.basename(p).lower()]
    for group in (blas_named, others):
        resolved = list(dict.fromkeys(os.path.realpath(p) for p in group))
        for path in ([p for p in resolved if os.path.dirname(p) in folders]
                     + [p for p in resolved if os.path.dirname(p) not in folders]):
            if path not in seen:
                seen.add(path)
                yield path


def _open_loaded(path: str) -> Any:
    """ctypes handle of an already loaded library (never loads a new one where the platform
    can say so), or None."""
    mode = getattr(os, "RTLD_NOLOAD", 0) | getattr(os, "RTLD_NOW", 0)
    try:
        return ctypes.CDLL(path, mode=mode) if mode else ctypes.CDLL(path)
    except OSError:
        return None


def _locate(build: BlasBuild | None) -> OpenBLAS | None:
    """numpy's OpenBLAS for this build report, or None (with the reason logged)."""
    if build is None:
        rep = numpy_blas_report()
        what = "no BLAS report (numpy < 1.25)" if rep is None else f"BLAS {rep.get('name')!r}"
        log.warning("numpy %s reports %s, not OpenBLAS: no banded LAPACK, BLAS threads "
                    "left as they are", np.__version__, what)
        return None
    symbol = build.c_name("openblas_get_config")
    for path in _candidates():
        lib = _open_loaded(path)
        fn = None if lib is None else getattr(lib, symbol, None)
        if fn is None:
            continue
        fn.restype = ctypes.c_char_p
        config = (fn() or b"").decode("ascii", "replace")
        if ("USE64BITINT" in config.split()) != build.ilp64:
            log.warning("%s exports %s but its configuration %r disagrees with numpy's %r on the "
                        "integer width: not used", path, symbol, config, build.config)
            return None
        log.info("numpy %s's BLAS %r: %s (%s)", np.__version__, build.name, path, config)
        return OpenBLAS(build, path, lib, config)
    log.warning("numpy %s reports BLAS %r (%s) but no loaded library exports %s: no banded "
                "LAPACK, BLAS threads left as they are", np.__version__, build.name, build.config,
                symbol)
    return None


def numpy_openblas() -> OpenBLAS | None:
    """numpy's OpenBLAS (looked up once per process), or None where numpy has none."""
    with _lock:
        if "openblas" not in _cache:
            _cache["openblas"] = _locate(blas_build(numpy_blas_report()))
        return _cache["openblas"]


def forget() -> None:
    """Drop what was looked up (the next use looks again); for tests."""
    with _lock:
        _cache.clear()


def _thread_api() -> tuple[Any, Any, str] | None:
    """(set_num_threads, get_num_threads, description) of numpy's OpenBLAS, or None."""
    if "threads" in _cache:
        return _cache["threads"]
    lib = numpy_openblas()
    api = None
    if lib is not None:
        setter = lib.function("openblas_set_num_threads", fortran=False)
        getter = lib.function("openblas_get_num_threads", fortran=False)
        if setter is None or getter is None:
            log.warning("%s lacks %s or %s: BLAS threads left as they are", lib.path,
                        lib.build.c_name("openblas_set_num_threads"),
                        lib.build.c_name("openblas_get_num_threads"))
        else:
            setter[0].restype, setter[0].argtypes = None, [ctypes.c_int]
            getter[0].restype, getter[0].argtypes = ctypes.c_int, []
            api = (setter[0], getter[0], f"openblas_set_num_threads via {lib.describe(setter[1])}")
    _cache["threads"] = api
    return api


def thread_control() -> str | None:
    """How ``single_thread`` sets BLAS threads: "openblas_set_num_threads via <library>
    (<symbol>)", or None where it cannot (then it does nothing)."""
    api = _thread_api()
    return None if api is None else api[2]


def single_thread(fn: Callable) -> Callable:
    """Decorator: run ``fn`` with numpy's BLAS on one thread (restored afterwards)."""
    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        api = _thread_api()
        if api is None:
            return fn(*args, **kwargs)
        setter, getter, _ = api
        with _lock:
            before = int(getter())
            setter(1)
        try:
            return fn(*args, **kwargs)
        finally:
            with _lock:
                setter(before)
    return wrapper
