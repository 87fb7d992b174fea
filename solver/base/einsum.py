"""numpy's einsum without its Python wrapper.

``np.einsum`` without ``optimize`` hands its operands to the C function ``c_einsum``
unchanged, after an array-function dispatch that walks every operand through a Python
generator: about 1 us a call, more than the products themselves on the few-element
arrays of a right-hand side, which makes a dozen such calls.  ``einsum`` here is that C
function (the same numbers bit for bit), or ``np.einsum`` where numpy does not expose it.
"""
from __future__ import annotations

import numpy as np

try:                                  # numpy 2 (and 1.26's forward-looking name)
    from numpy._core.multiarray import c_einsum as einsum
except ImportError:                   # pragma: no cover - older numpy
    try:
        from numpy.core.multiarray import c_einsum as einsum
    except ImportError:
        einsum = np.einsum

__all__ = ["einsum"]
