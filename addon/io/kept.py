"""What the add-on made from a mesh's numbers, kept for the same numbers read again: a
contact side's Shape and distance grid (seconds to build), Auto's prism answer, a part's
solid (its faces summed): Check, Bake, a slider's first change and a re-bake read the same
meshes, and each is made once while they stay the same."""
from __future__ import annotations

import hashlib
from typing import Any, Callable

import numpy as np

_MISSING = object()


class Kept:
    """The values made for the last ``size`` keys asked for (the newest last)."""

    def __init__(self, size: int) -> None:
        self.size = size
        self._values: dict = {}

    def get(self, key: Any, make: Callable[[], Any]) -> Any:
        """The value kept for ``key``, else ``make()``, kept."""
        value = self._values.pop(key, _MISSING)
        if value is _MISSING:
            value = make()
        self._values[key] = value
        while len(self._values) > self.size:
            self._values.pop(next(iter(self._values)))
        return value

    def clear(self) -> None:
        self._values.clear()


def digest(*arrays: np.ndarray) -> bytes:
    """A key for numbers: each array's dtype, shape and bytes, hashed (BLAKE2b)."""
    h = hashlib.blake2b(digest_size=20)
    for a in arrays:
        a = np.ascontiguousarray(a)
        h.update(f"{a.dtype.str}{a.shape};".encode())
        h.update(a.tobytes())
    return h.digest()
