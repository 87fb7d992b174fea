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
    frame by frame).  Whoever reads or truncates the Result flushes first (``flush``)."""

    BLOCK = 64                  # frames at most ...
    BLOCK_BYTES = 8 * 2 ** 20   # ... and at most this many bytes of them

    def __init__(self, out: Result, budget: int | None = None) -> None:
        """``budget``: the bytes a block may take (BLOCK_BYTES; a study's lockstep run
        shares its budget among its variants)."""
        m = out.model
        self.out, self.count, self.first = out, 0, 0
        nf = out._friction.shape[1]
        per = 8 * (1 + FRAME * m.nb + m.nc * (1 + m.row_width) + m.ntrack + nf + 3)
        limit = self.BLOCK_BYTES if budget is None else budget
        C = int(max(1, min(self.BLOCK, limit // per, len(out.times))))
        self.t = np.zeros(C)
        self.state = np.zeros((C, m.nb, FRAME))           # r, p, v, w, a, alpha
        self.lam = np.zeros((C, m.nc))
        self.jac = np.zeros((C, m.nc, m.row_width))
        self.track = np.zeros((C, m.ntrack))
        self.friction = np.zeros((C, nf))
        self.energy = np.zeros((C, 3))                     # spring potential, power, work
        self.contact = np.zeros((C,) + out._contact.shape[1:])   # Result.contact's numbers

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
        if not n:
            return
        out = self.out
        out.store_packed(self.first, self.t[:n], self.state[:n], self.lam[:n], self.jac[:n],
                         self.energy[:n], self.track[:n] if out.model.ntrack else None)
        if self.friction.shape[1]:
            out._friction[self.first: self.first + n] = self.friction[:n]
        if self.contact.shape[1]:
            out._contact[self.first: self.first + n] = self.contact[:n]
        self.count = 0
