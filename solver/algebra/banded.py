"""Symmetric positive definite solves with a narrow band: S = J M^-1 J^T of a chain or of a
mechanism whose rows are ordered well is banded, and a banded Cholesky factorization costs
O(n kd^2) instead of O(n^3) (LAPACK dpbsv, Golub and Van Loan 4.3.5).

The rows are reordered once (reverse Cuthill-McKee on S's pattern) to make the band
narrow.  dpbsv comes from the LAPACK inside numpy's own OpenBLAS, called through ctypes
under the one name numpy's build implies (``blas.py``; nothing extra is installed).  Where
numpy has no such library, or the band is wide, the dense numpy solve is used (the missing
library is logged once on the ``solver.algebra`` loggers), so results never depend on which
path ran; ``banded_solver()`` and ``BandedSPD.route`` say which one does.
"""
from __future__ import annotations

import ctypes
import logging
from collections import deque
from dataclasses import dataclass
from typing import Any

import numpy as np

from .blas import numpy_openblas

log = logging.getLogger("solver.algebra.banded")   # fixed name: under "solver" in Blender too

_cache: dict[str, Any] = {}
MIN_BANDED = 24      # up to this many rows a dense solve is as fast
# numpy's C bincount without its array-function dispatch (a Python call, about 1 us, on
# every right-hand side's solve)
_bincount = getattr(np.bincount, "_implementation", np.bincount)


def lapack_dpbsv() -> tuple[Any, Any, str] | None:
    """(function, Fortran integer type, description) of LAPACK's dpbsv in numpy's OpenBLAS,
    or None (logged once: large mechanisms then use dense solves)."""
    lib = numpy_openblas()
    if "dpbsv" not in _cache or _cache["lib"] is not lib:   # again only after blas.forget()
        found = None if lib is None else lib.function("dpbsv", fortran=True)
        if found is not None:
            fn, symbol = found
            fn.restype = None
            itype = ctypes.c_int64 if lib.build.ilp64 else ctypes.c_int32
            _cache["dpbsv"] = (fn, itype, f"lapack dpbsv via {lib.describe(symbol)}")
        else:
            _cache["dpbsv"] = None
            if lib is not None:
                log.warning("%s does not export %s: large mechanisms use dense solves",
                            lib.path, lib.build.fortran_name("dpbsv"))
        _cache["lib"] = lib
    return _cache["dpbsv"]


def lapack_routine(name: str) -> Any | None:
    """LAPACK routine ``name`` (e.g. "dpbtrf") of numpy's OpenBLAS as a ctypes function, or
    None where numpy has no such library or it does not export the name."""
    lib = numpy_openblas()
    key = "routine " + name
    if key not in _cache or _cache.get(key + " lib") is not lib:
        found = None if lib is None else lib.function(name, fortran=True)
        if found is not None:
            found[0].restype = None
        _cache[key], _cache[key + " lib"] = None if found is None else found[0], lib
    return _cache[key]


def band_cholesky(ab: np.ndarray) -> np.ndarray | None:
    """The lower Cholesky factor of a symmetric positive definite band matrix G, in the same
    storage as its input ``ab`` (n, kd+1): ab[j, d] = G[j+d, j] (LAPACK's lower band, column
    by column; zero past the end).  None when there is no LAPACK or G is not positive
    definite (dpbsv on a zero right-hand side: its factorization is the answer)."""
    found = lapack_dpbsv()
    n, kd1 = ab.shape
    if found is None or n == 0:
        return None
    fn, itype, _ = found
    L = np.array(ab, dtype=float, order="C")
    x, info = np.zeros(n), itype(0)
    dp = ctypes.POINTER(ctypes.c_double)
    fn(ctypes.c_char_p(b"L"), ctypes.byref(itype(n)), ctypes.byref(itype(kd1 - 1)),
       ctypes.byref(itype(1)), L.ctypes.data_as(dp), ctypes.byref(itype(kd1)),
       x.ctypes.data_as(dp), ctypes.byref(itype(n)), ctypes.byref(info), ctypes.c_size_t(1))
    return L if info.value == 0 else None


def banded_solver() -> str | None:
    """Which banded Cholesky runs for narrow bands: "lapack dpbsv via <library> (<symbol>)",
    or None when there is none and every J M^-1 J^T solve is dense."""
    found = lapack_dpbsv()
    return None if found is None else found[2]


def reverse_cuthill_mckee(n: int, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
    """A permutation of 0..n-1 that keeps the nonzeros (rows, cols) near the diagonal: a
    breadth-first search from each unvisited vertex of least degree, neighbours visited by
    increasing degree (then index), reversed (Cuthill & McKee 1969; George 1971)."""
    degree, neighbours = _adjacency(n, np.asarray(rows, dtype=int), np.asarray(cols, dtype=int))
    seen = np.zeros(n, dtype=bool)
    order: list[int] = []
    for start in np.argsort(degree, kind="stable").tolist():
        if seen[start]:
            continue
        seen[start] = True
        queue = deque([start])
        while queue:
            v = queue.popleft()
            order.append(v)
            for u in neighbours[v]:
                if not seen[u]:
                    seen[u] = True
                    queue.append(u)
    return np.array(order[::-1], dtype=int)


def _adjacency(n: int, rows: np.ndarray, cols: np.ndarray) -> tuple[np.ndarray, list[list[int]]]:
    """Each vertex's degree (n,) and its neighbours in visiting order (by degree, then
    index) of the graph whose edges are the off-diagonal nonzeros (rows, cols)."""
    off = rows != cols
    v, u = np.concatenate([rows[off], cols[off]]), np.concatenate([cols[off], rows[off]])
    edges = np.unique(v * max(n, 1) + u)
    v, u = edges // max(n, 1), edges % max(n, 1)
    degree = np.bincount(v, minlength=n)
    near = u[np.lexsort((u, degree[u], v))].tolist()
    ends = np.cumsum(degree).tolist()
    return degree, [near[e - d: e] for e, d in zip(ends, degree.tolist())]


@dataclass(frozen=True)
class BandFactors:
    """The lower Cholesky factors of K systems of one pattern, stacked as the block-diagonal
    system LAPACK's band storage holds them: ``ab`` (K, (kd+1) n), system k's columns
    after system k-1's; ``ok`` (K,) False where a system is not positive definite (its
    factor is then the identity's, so that no other system's solve reads it)."""
    ab: np.ndarray
    ok: np.ndarray

    def take(self, m: int) -> "BandFactors":
        """The first m systems."""
        return BandFactors(self.ab[:m], self.ok[:m])


class BandedSPD:
    """Solver for S x = b with S given by values at a fixed pattern (rows, cols), both
    triangles present, as ``Schur.matrix`` produces them."""

    def __init__(self, n: int, rows: np.ndarray, cols: np.ndarray) -> None:
        self.n = n
        perm = reverse_cuthill_mckee(n, rows, cols) if n else np.zeros(0, int)
        inv = np.empty(n, dtype=int)
        inv[perm] = np.arange(n)
        self.perm, self.inv = perm, inv
        pr, pc = inv[rows], inv[cols]
        self.kd = int(np.max(np.abs(pr - pc), initial=0))
        lower = pr >= pc
        self.lower = lower
        # column-major band storage AB(kd+1, n), AB[i - j, j] = S[i, j] for i >= j
        self.index = (pr - pc)[lower] + pc[lower] * (self.kd + 1)
        self.lower_at = np.flatnonzero(lower)
        self.lapack = lapack_dpbsv()
        self.banded = self.lapack is not None and n > MIN_BANDED and (self.kd + 1) * 4 < n
        if self.banded:     # the band and right-hand side buffers and dpbsv's arguments, once
            itype = self.lapack[1]
            self._ab = np.empty((self.kd + 1) * n)
            self._x = np.empty(n)
            self._info = itype(0)
            self._args = self._dpbsv_args(self._ab, self._x, n, self._info)
        self._stacks: dict[int, tuple] = {}
        self.stacked = self.banded and None not in (lapack_routine("dpbtrf"),
                                                     lapack_routine("dpbtrs"))
        if self.stacked:
            self._layers = band_layers(self.index, self.lower_at)

    def _dpbsv_args(self, ab: np.ndarray, x: np.ndarray, n: int, info) -> tuple:
        itype = self.lapack[1]
        dp = ctypes.POINTER(ctypes.c_double)
        return (ctypes.c_char_p(b"L"), ctypes.byref(itype(n)), ctypes.byref(itype(self.kd)),
                ctypes.byref(itype(1)), ab.ctypes.data_as(dp), ctypes.byref(itype(self.kd + 1)),
                x.ctypes.data_as(dp), ctypes.byref(itype(n)), ctypes.byref(info), ctypes.c_size_t(1))

    def solve_many(self, vals: np.ndarray, b: np.ndarray) -> np.ndarray:
        """x (K, n) with S_k x_k = b_k for K systems of this pattern (vals (K, pairs)): one
        dpbsv on the block-diagonal system of all K, whose band is as narrow as one's (the
        blocks do not couple), so a stack of small systems (a design study's variants) costs
        one LAPACK call.  LinAlgError names the first system that is not positive definite."""
        K, n, kd = len(b), self.n, self.kd
        if K not in self._stacks:
            ab, x, info = np.empty((kd + 1) * n * K), np.empty(n * K), self.lapack[1](0)
            at = (self.index[None, :] + (kd + 1) * n * np.arange(K)[:, None]).reshape(-1)
            self._stacks[K] = (ab, x, info, at, self._dpbsv_args(ab, x, n * K, info))
        ab, x, info, at, args = self._stacks[K]
        ab[:] = np.bincount(at, weights=vals[:, self.lower_at].reshape(-1), minlength=len(ab))
        x[:] = b[:, self.perm].reshape(-1)
        self.lapack[0](*args)
        if info.value != 0:
            raise np.linalg.LinAlgError(f"constraint matrix {(info.value - 1) // n} of the stack "
                                        f"not positive definite (dpbsv info {info.value})")
        return x.reshape(K, n)[:, self.inv]

    def factor_many(self, vals: np.ndarray) -> BandFactors:
        """Cholesky factors of K systems of this pattern (vals (K, pairs)): one dpbtrf on their
        block-diagonal system, whose band is as narrow as one's.  A system that is not
        positive definite stops dpbtrf: it is marked, replaced by the identity, and the
        systems from the first one not yet known good are put in again and factored anew
        (a blocked dpbtrf may have left the ones just before it unfinished).  Needs
        ``stacked``."""
        ab = self._band(vals)
        ok = np.ones(len(vals), dtype=bool)
        first = 0                   # the systems before it are known good
        while True:
            info = self._dpbtrf(ab[first:])
            if info == 0:
                break
            bad = first + (info - 1) // self.n
            ok[bad] = False
            ab[first:] = self._band(vals[first:], ~ok[first:])
        return BandFactors(ab, ok)

    def _band(self, vals: np.ndarray, identity: np.ndarray | None = None) -> np.ndarray:
        """(K, (kd+1) n) the systems' lower bands in LAPACK's storage from their values at
        the pattern (vals (K, pairs)), by a precomputed gather per layer of repeated pairs
        (``band_layers``: summed in the pairs' order, as np.bincount sums them); the
        systems ``identity`` (K,) replaced by the identity."""
        ab = np.zeros((len(vals), (self.kd + 1) * self.n))
        for j, (at, src) in enumerate(self._layers):
            if j == 0:
                ab[:, at] = vals[:, src]
            else:
                ab[:, at] += vals[:, src]
        if identity is not None and identity.any():
            ab[identity] = 0.0
            ab[np.flatnonzero(identity)[:, None], np.arange(0, ab.shape[1], self.kd + 1)] = 1.0
        return ab

    def _dpbtrf(self, ab: np.ndarray) -> int:
        """Factor the block-diagonal band system ``ab`` (K, (kd+1) n) in place; LAPACK's info
        (0, or the first column whose pivot is not positive)."""
        itype = self.lapack[1]
        dp, info = ctypes.POINTER(ctypes.c_double), itype(0)
        lapack_routine("dpbtrf")(
            ctypes.c_char_p(b"L"), ctypes.byref(itype(ab.size // (self.kd + 1))),
            ctypes.byref(itype(self.kd)), ab.ctypes.data_as(dp), ctypes.byref(itype(self.kd + 1)),
            ctypes.byref(info), ctypes.c_size_t(1))
        return int(info.value)

    def solve_factored(self, fac: BandFactors, b: np.ndarray) -> np.ndarray:
        """x with S_k x_k = b_k for each system k of ``fac`` (b (..., K, n): leading axes
        are more right-hand sides of each system), by one dpbtrs; NaN for a system that is
        not positive definite.  A system whose solution is not finite would spread NaN
        into the next one through their zero coupling: the systems are then solved one by
        one."""
        K, n = len(fac.ok), self.n
        lead = b.shape[:-2]
        x = np.ascontiguousarray(b.take(self.perm, axis=-1))
        self._dpbtrs(fac.ab, x, n * K, int(np.prod(lead, dtype=int)))
        x = x.take(self.inv, axis=-1)
        x[..., ~fac.ok, :] = np.nan
        finite = np.isfinite(x).reshape(-1, K, n).all(axis=(0, 2))
        if np.count_nonzero(finite | ~fac.ok) < K:
            for k in np.flatnonzero(fac.ok):
                xk = np.ascontiguousarray(b[..., k, :].take(self.perm, axis=-1))
                self._dpbtrs(fac.ab[k], xk, n, int(np.prod(lead, dtype=int)))
                x[..., k, :] = xk.take(self.inv, axis=-1)
        return x

    def _dpbtrs(self, ab: np.ndarray, x: np.ndarray, rows: int, nrhs: int) -> None:
        """x (nrhs right-hand sides of ``rows`` entries each, C order) overwritten by the
        solution of the factored band system ``ab``."""
        itype = self.lapack[1]
        dp, info = ctypes.POINTER(ctypes.c_double), itype(0)
        lapack_routine("dpbtrs")(
            ctypes.c_char_p(b"L"), ctypes.byref(itype(rows)), ctypes.byref(itype(self.kd)),
            ctypes.byref(itype(nrhs)), ab.ctypes.data_as(dp), ctypes.byref(itype(self.kd + 1)),
            x.ctypes.data_as(dp), ctypes.byref(itype(rows)), ctypes.byref(info), ctypes.c_size_t(1))

    @property
    def route(self) -> str:
        """Which solve ``solve`` runs: the banded solver's description, or "dense"."""
        return self.lapack[2] if self.banded else "dense"

    def solve(self, vals: np.ndarray, S: np.ndarray, b: np.ndarray) -> np.ndarray:
        """x with S x = b; ``vals`` are S's entries at the pattern (dense S for the fallback).
        Raises LinAlgError when S is not positive definite (a singular constraint set)."""
        if not self.banded:
            return np.linalg.solve(S, b)
        self._ab[:] = _bincount(self.index, weights=vals.take(self.lower_at), minlength=len(self._ab))
        b.take(self.perm, out=self._x)
        self.lapack[0](*self._args)
        if self._info.value != 0:
            raise np.linalg.LinAlgError(f"constraint matrix not positive definite (dpbsv info {self._info.value})")
        return self._x.take(self.inv)


def band_layers(index: np.ndarray, lower_at: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """How the pattern's values reach the band: layers of (band positions, value indices),
    the first with each position's first value, the next its second (pairs of rows that
    share two bodies repeat) and so on, each in the pairs' order (as np.bincount adds
    them).  ``index``: each lower pair's band position, ``lower_at``: its value's index."""
    order = np.argsort(index, kind="stable")
    pos, first, count = np.unique(index[order], return_index=True, return_counts=True)
    return [(pos[count > j], lower_at[order[first[count > j] + j]])
            for j in range(int(count.max(initial=0)))]
