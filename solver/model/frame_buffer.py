"""A dynamic run's output frames gathered as they are reached and stored into its Result a
block at a time (``FrameBuffer``), and the layout of a packed frame (``FRAME``)."""
from __future__ import annotations

import numpy as np

from .results import Result
from .state import State


FRAME = 19      # a packed frame's numbers per body: r, p, v, w, a, alpha (store_packed)


class FrameBuffer:
    """A run's output frames gathered as they are reached and stored into its Result a
    block of consecutive frames at a time (``Result.store`` and ``store_energy`` on a
    slice): the reactions, the world inertias and the energies of BLOCK frames in one set
    of numpy calls instead of one set a frame (at 24 fps they cost 3-4% of a chain's run
    frame by frame).  Whoever reads or truncates the Result flushes first (``flush``).
    Its arrays are one row of a ``FrameBlock`` (a design study's variants share one, each
    run its row)."""

    BLOCK = 64                  # frames at most ...
    BLOCK_BYTES = 8 * 2 ** 20   # ... and at most this many bytes of them

    def __init__(self, out: Result, budget: int | None = None,
                 block: "FrameBlock | None" = None, row: int = 0) -> None:
        """``budget``: the bytes a block may take (BLOCK_BYTES; a study's lockstep run
        shares its budget among its variants); ``block``: the FrameBlock whose row ``row``
        holds the frames (None: one of its own)."""
        if block is None:
            block = FrameBlock([out], budget)
        self.out, self.count, self.first = out, 0, 0
        (self.t, self.state, self.lam, self.jac, self.track, self.friction, self.energy,
         self.contact) = (x[row] for x in block.arrays)

    def add(self, k: int, state: State, lam: np.ndarray, jac: np.ndarray,
            track: np.ndarray | None, spring_potential: float, power_nc: float,
            work_nc: float, friction: np.ndarray | None = None,
            contact: np.ndarray | None = None) -> None:
        """Frame k as Result.store and store_energy take it (the world inertia is made
        from the orientations when the block is stored); ``contact``: (contacts, 10) each
        contact's force and torque on part a, penetration and point (Result.contact)."""
        if self.count and k != self.first + self.count:
            self.flush()
        if not self.count:
            self.first = k
        i = self.count
        self.t[i] = state.t
        X = self.state[i]
        X[:, 0:3], X[:, 3:7], X[:, 7:10], X[:, 10:13] = state.r, state.p, state.v, state.w
        X[:, 13:16], X[:, 16:19] = state.a, state.alpha
        self.lam[i], self.jac[i] = lam, jac
        if track is not None:
            self.track[i] = track
        if friction is not None:
            self.friction[i] = friction
        if contact is not None:
            self.contact[i] = contact
        self.energy[i] = spring_potential, power_nc, work_nc
        self.count += 1
        if self.count == len(self.t):
            self.flush()

    def flush(self) -> None:
        """Store the buffered frames into the Result."""
        n = self.count
        if n:
            _store(self.out, self.first, n, self.t, self.state, self.lam, self.jac,
                   self.track, self.friction, self.energy, self.contact)
        self.count = 0


class FrameBlock:
    """The frame buffers of many runs of one model's layout (a design study's variants),
    each run's frames a row of the same arrays (R, C, ...): the variants stepping together
    store theirs with one set of numpy calls (``add_many``), each run's row stored into its
    Result when full (``flush``); a run going on alone uses its row as its FrameBuffer."""

    def __init__(self, outs: list[Result], budget: int | None = None) -> None:
        """``budget``: the bytes each run's row may take (FrameBuffer.BLOCK_BYTES)."""
        self.outs = outs
        m, R = outs[0].model, len(outs)
        nf = outs[0]._friction.shape[1]
        per = 8 * (1 + FRAME * m.nb + m.nc * (1 + m.row_width) + m.ntrack + nf + 3)
        limit = FrameBuffer.BLOCK_BYTES if budget is None else budget
        C = int(max(1, min(FrameBuffer.BLOCK, limit // per, len(outs[0].times))))
        self.arrays = (np.zeros((R, C)), np.zeros((R, C, m.nb, FRAME)),   # r p v w a alpha
                       np.zeros((R, C, m.nc)), np.zeros((R, C, m.nc, m.row_width)),
                       np.zeros((R, C, m.ntrack)), np.zeros((R, C, nf)),
                       np.zeros((R, C, 3)),          # spring potential, power, work
                       np.zeros((R, C) + outs[0]._contact.shape[1:]))   # Result.contact's
        self.count = np.zeros(R, dtype=int)   # frames held in each row (by add_many) ...
        self.first = np.zeros(R, dtype=int)   # ... from this frame on

    def add_many(self, rows: np.ndarray, k: np.ndarray, t: np.ndarray, X: np.ndarray,
                 lam: np.ndarray, jac: np.ndarray, energy: np.ndarray) -> None:
        """Frame k[j] of run rows[j] for each j (its next frame: runs with neither track,
        friction nor contacts), X (j, nb, FRAME) its r, p, v, w, a, alpha side by side,
        energy (j, 3) its spring potential, power and work; full rows stored."""
        T, S, L, J = self.arrays[:4]
        at = self.count[rows]
        self.first[rows] = np.where(at == 0, k, self.first[rows])
        T[rows, at], S[rows, at], L[rows, at], J[rows, at] = t, X, lam, jac
        self.arrays[6][rows, at] = energy
        self.count[rows] = at + 1
        for i in rows[at + 1 == len(T[0])].tolist():
            self.flush(i)

    def flush(self, i: int) -> None:
        """Store run i's frames (held by add_many) into its Result."""
        n = int(self.count[i])
        if n:
            _store(self.outs[i], int(self.first[i]), n, *(x[i] for x in self.arrays))
        self.count[i] = 0


def _store(out: Result, first: int, n: int, t, state, lam, jac, track, friction, energy,
           contact) -> None:
    """A run's first n buffered frames (frames first, first+1, ...) into its Result."""
    out.store_packed(first, t[:n], state[:n], lam[:n], jac[:n], energy[:n],
                     track[:n] if out.model.ntrack else None)
    if friction.shape[1]:
        out._friction[first: first + n] = friction[:n]
    if contact.shape[1]:
        out._contact[first: first + n] = contact[:n]
