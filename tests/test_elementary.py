"""solver/base/elementary.py: exp, log, power, arctan2 and the rest give each value the same
last bit wherever numpy places the arrays, and the solver calls them only through it.

numpy 1.26 with AVX-512 picks its vectorized or its C-library loop by an overlap test that
a strided input can fail at random (the allocator decides where the output lands); the two
loops round apart for about a quarter of the inputs.  A one-element view whose stride
claims 512 bytes past it, evaluated many times between allocations, reproduces it: numpy
alone gives the other rounding for a few percent of such calls on such a machine.
Rotation matrices from quaternions, likewise, are each body's own whatever the call holds.
"""
from __future__ import annotations

import ast
import pathlib

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

from solver.base import elementary

ROOT = pathlib.Path(__file__).resolve().parents[1]
UNARY = {"exp": (-5.0, 5.0), "log": (1e-3, 10.0), "arccos": (-1.0, 1.0),
         "arcsin": (-1.0, 1.0), "arctan": (-5.0, 5.0), "tan": (-1.5, 1.5)}
BINARY = {"power": ((1e-4, 3.0), (0.5, 2.5)), "arctan2": ((-3.0, 3.0), (-3.0, 3.0))}
TRIALS = 1500


def _claiming(value: float) -> np.ndarray:
    """A one-element array whose stride claims 512 bytes beyond its element (as a
    one-element row of a transposed table may)."""
    buf = np.array([value])
    return as_strided(buf, shape=(1,), strides=(512,))


@pytest.mark.parametrize("name", sorted(UNARY))
def test_unary_functions_round_alike_wherever_the_output_lands(name: str) -> None:
    rng = np.random.default_rng(7)
    f = getattr(elementary, name)
    ufunc = getattr(np, name)
    keep = []
    for x in rng.uniform(*UNARY[name], TRIALS):
        reference = ufunc(np.array([x]))[0]          # a fresh contiguous input
        keep.append(np.empty(rng.integers(1, 8)))    # moves where the next output lands
        assert f(_claiming(x))[0] == reference, f"{name}({x!r})"


@pytest.mark.parametrize("name", sorted(BINARY))
def test_binary_functions_round_alike_wherever_the_output_lands(name: str) -> None:
    rng = np.random.default_rng(8)
    f = getattr(elementary, name)
    ufunc = getattr(np, name)
    (a0, a1), (b0, b1) = BINARY[name]
    keep = []
    for a, b in zip(rng.uniform(a0, a1, TRIALS), rng.uniform(b0, b1, TRIALS)):
        reference = ufunc(np.array([a]), np.array([b]))[0]
        keep.append(np.empty(rng.integers(1, 8)))
        assert f(_claiming(a), _claiming(b))[0] == reference, f"{name}({a!r}, {b!r})"


def test_plain_floats_and_shapes_pass_through() -> None:
    assert elementary.power(2.0, 0.5) == np.power(2.0, 0.5)
    x = np.linspace(0.1, 0.9, 12).reshape(3, 4)
    assert np.array_equal(elementary.arctan2(x, x.T.T), np.arctan2(x, x))
    assert elementary.exp(x[:, 1]).shape == (3,)


# the ufuncs that round apart on numpy's two loops; sin, cos, tanh and sqrt do not
ROUTED = {"exp", "log", "power", "arctan2", "arccos", "arcsin", "arctan", "tan"}


def test_the_solver_calls_these_functions_only_through_one_path() -> None:
    """No solver module calls numpy's own exp, log, power, arctan2, ... (a value's last bit
    would then depend on where numpy put the arrays)."""
    found = []
    for path in sorted((ROOT / "solver").rglob("*.py")):
        if path.name == "elementary.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Attribute) and node.attr in ROUTED
                    and isinstance(node.value, ast.Name) and node.value.id == "np"):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno} np.{node.attr}")
    assert not found, "use solver.base.elementary: " + ", ".join(found)


def test_a_bodys_rotation_matrix_is_its_own_whatever_the_call_holds() -> None:
    """quat_to_matrix gives a body's matrix the same bits alone, among more bodies (a
    projection's with the ground appended) and in a stack of states (a design study's):
    with OpenBLAS's FMA kernels a matrix product's rows depended on how many rows the call
    had (3 bodies' matrices differed in the last bit from the same 3 among 4), and a
    variant's run took another path than its separate run's."""
    from solver.base.rotations import quat_to_matrix, unit_quaternions
    rng = np.random.default_rng(1)
    for n in range(1, 12):
        p = unit_quaternions(rng.standard_normal((n, 4)))
        alone = quat_to_matrix(p)
        more = quat_to_matrix(np.concatenate([p, [[1.0, 0.0, 0.0, 0.0]]]))[:n]
        stack = unit_quaternions(rng.standard_normal((3, n, 4)))
        stack[1] = p
        out = np.zeros((n + 1, 9))
        quat_to_matrix(p, out=out[:n])
        assert np.array_equal(alone, more) and np.array_equal(alone, quat_to_matrix(stack)[1])
        assert np.array_equal(alone.reshape(n, 9), out[:n])
