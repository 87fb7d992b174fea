"""A part's mass properties in SI units in its part frame, from typed-in values or its mesh.

Blender gives lengths in Blender units (times ``scale``, metres per unit, for metres) in the
object's scaled local coordinates; the solver wants the centre of mass in the rigid part
frame (S @ c: see part_frames.py) and the inertia about it in part axes.  Inertia as six
numbers is the panel's order (Ixx, Iyy, Izz, Ixy, Ixz, Iyz), kg m^2, products of inertia
as the matrix's off-diagonal entries.
"""
from __future__ import annotations

from typing import Callable, Sequence

import numpy as np

from ...solver import MechanismError, mesh_mass_properties
from .kept import Kept, digest
from .part_frames import PartFrame


def inertia_matrix(six: Sequence[float]) -> np.ndarray:
    """(3, 3) symmetric inertia matrix of (Ixx, Iyy, Izz, Ixy, Ixz, Iyz)."""
    i = six
    return np.array([[i[0], i[3], i[4]], [i[3], i[1], i[5]], [i[4], i[5], i[2]]])


def inertia_six(inertia: np.ndarray) -> tuple[float, ...]:
    """(Ixx, Iyy, Izz, Ixy, Ixz, Iyz) of a (3, 3) inertia matrix (what the panel shows)."""
    i = inertia
    return (i[0, 0], i[1, 1], i[2, 2], i[0, 1], i[0, 2], i[1, 2])


def mass_unit_scale(system: str, scale: float) -> float:
    """kg per stored unit of a property with Blender's MASS unit (the typed-in Mass field):
    in a unit system (Metric, Imperial) Blender shows and takes such a value times
    ``scale_length`` cubed, as it scales lengths by ``scale_length`` (Blender's
    BKE_unit_value_scale; a millimetre scene's field shows a stored 1 as 1e-9 kg, and a
    typed "2 kg" is stored as 2e9); with no unit system it shows the value as stored."""
    return 1.0 if system == "NONE" else scale ** 3


def typed_in(mass: float, center_of_mass: Sequence[float], inertia: Sequence[float],
             stretch: np.ndarray, scale: float) -> dict:
    """Solver part arguments of typed-in values: ``mass`` kg (the field's stored value times
    ``mass_unit_scale``: what the field shows), ``center_of_mass`` in the object's local
    coordinates (Blender units), ``inertia`` six numbers (kg m^2, part axes)."""
    com = stretch @ np.array(center_of_mass) * scale
    return dict(mass=mass, center_of_mass=com, inertia=inertia_matrix(inertia))


def from_mesh(name: str, vertices: np.ndarray, faces: Sequence, frame: PartFrame, density: float,
              scale: float, polygon_sizes: np.ndarray | None = None) -> tuple[dict, str]:
    """(solver part arguments, mesh warning text or "") of the solid a closed mesh encloses:
    ``vertices`` (n, 3) in the object's local coordinates, ``faces`` vertex index lists (or,
    with ``polygon_sizes``, every polygon's corners one polygon after another),
    ``frame`` the part as designed (its world matrix carries the object's scale), ``density``
    kg/m^3.  MechanismError naming the part for a density not above 0, bad faces or a mesh
    without volume."""
    if not density > 0.0:                      # also NaN
        raise MechanismError(f"part {name!r}: density {density:g} kg/m^3: a density must be "
                             "above 0 (water 1000, steel 7850); set it, or type the mass in")
    try:
        mp = _solid(vertices, faces, frame.matrix, polygon_sizes)
    except ValueError as exc:
        raise MechanismError(f"part {name!r}: {exc}") from None
    mass = density * mp.volume * scale ** 3
    inertia = density * mp.inertia * scale ** 5
    com = frame.stretch @ mp.center_of_mass * scale
    warning = "; ".join(mp.warnings)
    if mass <= 0.0:
        raise MechanismError(f"part {name!r}: the mesh encloses no volume ({warning or 'flat'}); "
                             "close the mesh or type the mass properties in")
    return dict(mass=mass, center_of_mass=com, inertia=inertia), warning


def kilograms(kg: float) -> str:
    """A mass in kg, as a note writes it where the scene's Mass unit is not known."""
    return f"{kg:.4g} kg"


def mesh_note(name: str, warning: str, mass: float,
              mass_text: Callable[[float], str] = kilograms) -> str:
    """What Check and Bake say about a part whose mesh has problems (``warning`` from
    ``from_mesh``): the part, what is wrong and the mass used (kg, written by ``mass_text``
    in the scene's Mass unit, as the Mass field shows it).  An open, non-manifold
    or inconsistently oriented mesh gives the divergence-theorem mass of the faces it has,
    not the solid's; inside-out normals alone are flipped, and a shell lying on another
    left out: the mass is right; shells overlapping say their own remedy."""
    unclosed = any(w.startswith(("open", "non-manifold", "inconsistent"))
                   for w in warning.split("; "))
    fix = "" if not unclosed else (" (of the faces there are, not of a solid: close the mesh, "
                                   "or type the mass in)")
    return f"part {name!r}: {warning}; mass used {mass_text(mass)}{fix}"


# the densities of solids: from aerogels (about 1 kg/m^3) to osmium, the densest element
# (22,590 kg/m^3); past them a density is a typing or unit slip (1e39 typed for 1e3, g/cm^3
# for kg/m^3 read a thousand times too light): warned of, not refused
DENSITY_RANGE = (1.0, 3.0e4)          # kg/m^3
# a part's mass below a microgram or above a billion kilograms (a large ship is 1e8 kg) is
# a slip too: the integrator would still run, on numbers nobody meant
MASS_RANGE = (1e-9, 1e9)              # kg


def implausible_note(name: str, mass: float, density: float | None = None,
                     mass_text: Callable[[float], str] = kilograms) -> str | None:
    """What Check and Bake say of part ``name`` whose ``density`` (kg/m^3, when its mass
    is from its mesh) or ``mass`` (kg) is outside what a solid part can be (DENSITY_RANGE,
    MASS_RANGE): the part, the value, the mass it gives (``mass_text``: in the scene's
    Mass unit) and the field to check; None for plausible values."""
    if density is not None and not DENSITY_RANGE[0] <= density <= DENSITY_RANGE[1]:
        than = ("denser than any solid (osmium, the densest, 22,590 kg/m^3)"
                if density > DENSITY_RANGE[1] else
                "lighter than any solid (aerogels, the lightest, about 1 kg/m^3)")
        return (f"part {name!r}: density {density:.4g} kg/m^3 is {than}: the part weighs "
                f"{mass_text(mass)}; check its Density (kg/m^3: water 1000, aluminium 2700, "
                "steel 7850)")
    if not MASS_RANGE[0] <= mass <= MASS_RANGE[1]:
        size = "above a billion kg" if mass > MASS_RANGE[1] else "below a microgram"
        return (f"part {name!r}: mass {mass_text(mass)} is {size}: check its Mass (and the "
                "scene's unit scale, which scales a typed mass)")
    return None


# the unit-density solids of the meshes read last, by their vertices, faces and placement:
# reading a scene again (a slider's first change after an edit elsewhere, a re-bake after
# another part moved) finds a mesh it has read as it was, without its thousands of faces
# summed again (a 32,768-face part: 60 ms)
SOLIDS_KEPT = 16
_solids = Kept(SOLIDS_KEPT)


def _solid(vertices, faces, matrix, polygon_sizes):
    """mesh_mass_properties at unit density of the mesh (its MassProperties), the one kept
    for the same numbers if read before (the newest SOLIDS_KEPT kept)."""
    def make():
        return mesh_mass_properties(vertices, faces, density=1.0, matrix=matrix,
                                    polygon_sizes=polygon_sizes)
    given = (vertices, faces, matrix) + (() if polygon_sizes is None else (polygon_sizes,))
    try:
        arrays = [np.asarray(x) for x in given]
    except ValueError:                                # (a ragged list of faces: no key)
        return make()
    if any(a.dtype == object for a in arrays):
        return make()
    return _solids.get(digest(*arrays), make)


def in_polygon_order(starts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Indices into a mesh's loops that list each polygon's corners one polygon after
    another: polygon i's are starts[i] .. starts[i] + sizes[i] - 1 (Blender keeps them in
    this order; a mesh whose loops are not is read right too)."""
    offsets = np.cumsum(sizes) - sizes
    return np.repeat(np.asarray(starts) - offsets, sizes) + np.arange(int(np.sum(sizes)))
