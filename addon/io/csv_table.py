"""The rows Export CSV writes: one per frame with the frame number, time (s), every moving
part's frame origin (m, world) and quaternion (w x y z), every joint's reaction force and
torque (N, N m; on part I at marker I, world axes) and its angle or slide (a revolute's
"<joint> angle_rad", a prismatic's "<joint> slide_m", a cylindrical's both: x_I from x_J
about z_J with its turns kept, I's origin from J's along z_J), every motion's effort (N m
or N, "<joint> motion_effort_Nm", as the bake's property, or "motion_effort_slide_N") and every
coupler's baked series (io/plots.py: "<coupler> coupler_torque_1_Nm", "... tooth_force_N") and
every cam's contact force ("<cam> contact_force_N"), every joint's stops' force and (dynamic
runs) its friction ("<joint> limit_force_Nm", "<joint> friction_force_N" on a slide, a
ball's "<joint> friction_torque_x_Nm" ... in world axes), every following marker's force
("<marker> follow_force_x_N" ... and its magnitude "follow_force_N", along the axes it
follows in) and torque where it turns ("<marker> follow_torque_x_Nm" ...), and each of
its actuators' effort along the joint's coordinate ("<joint> actuator_effort_N" on a slide,
"_Nm" on an angle).
Numbers are written with 9 significant digits.  ``export_path`` says where: a path relative
to the .blend file needs the file saved."""
from __future__ import annotations

import csv
import os
from typing import Any, Callable, Mapping, Sequence

import numpy as np

from ...solver import JOINT_COORDINATES, MechanismError, SolverCancelled, joint_coordinate
from .plots import EFFORT_PROPS, actuator_plots, coupler_plots, follow_plots, friction_series

PART_COLUMNS = ("x_m", "y_m", "z_m", "qw", "qx", "qy", "qz")
JOINT_COLUMNS = ("Fx_N", "Fy_N", "Fz_N", "Tx_Nm", "Ty_Nm", "Tz_Nm")
BUSHING_COLUMNS = tuple(f"bushing_{c}" for c in JOINT_COLUMNS)
FORCE_COLUMNS = tuple(f"applied_{c}" for c in JOINT_COLUMNS)
NUMBER = "%.9g"          # every number's text: 9 significant digits
ROW_BLOCK = 200          # rows formatted and written between two progress reports
CONTACT_COLUMNS = ("part_contact_Fx_N", "part_contact_Fy_N", "part_contact_Fz_N",
                   "part_contact_penetration_m", "contact_gap_m")


def csv_rows(result, frames: np.ndarray, *names: Any, **named: Any) -> list[list[str]]:
    """Header and one row of text per result row: ``csv_table``'s (the same arguments),
    each number as ``write_table`` writes it."""
    header, values = csv_table(result, frames, *names, **named)
    return [header] + [[NUMBER % x for x in row] for row in values.tolist()]


def csv_table(result, frames: np.ndarray, parts: Sequence[str], joints: Sequence[str],
              motions: Mapping[str, tuple[str, str]], couplers: Mapping[str, Any] | None = None,
              cams: Sequence[str] = (), limits: Mapping[str, tuple[str, str]] | None = None,
              frictions: Mapping[str, tuple[str, str]] | None = None,
              bushings: Sequence[str] = (), vector_forces: Sequence[str] = (),
              contacts: Sequence[str] = (), follows: Mapping[str, str] | None = None,
              actuators: Mapping[str, Sequence[tuple[str, str, str]]] | None = None,
              springs: Sequence[str] = (), torsions: Mapping[str, str] | None = None
              ) -> tuple[list[str], np.ndarray]:
    """The header and the numbers (one row per result row, one column per header's name;
    row k is scene frame ``frames[k]``);
    ``motions``: motion name -> (joint name, "angle" | "slide"), its effort written under
    its joint as the bake's property ("<joint> motion_effort_Nm", "... motion_effort_slide_N");
    ``couplers``: coupler name -> its io.couplers.CouplerCall; ``cams``: cam joint names;
    ``limits``, ``frictions``: item name -> (joint name, "angle" | "slide"); ``bushings``:
    their names (the load on marker I's part, world axes); ``vector_forces``: the forces with
    a Reaction marker (their load on their marker's part, world axes); ``contacts``: the
    contacts between parts (the force on part A, world axes, the deepest penetration and the
    least gap); ``follows``: general motion -> its following marker; ``actuators``: general
    motion -> [(joint, "angle" | "slide", the solver's label)]; ``springs``: the
    spring-dampers (tension N, positive pulling, and length m); ``torsions``: torsion spring
    -> its joint (torque N m, positive resisting the angle)."""
    header = ["frame", "time_s"]
    cols = [frames, result.times]
    for name in parts:
        header += [f"{name} {c}" for c in PART_COLUMNS]
        cols += list(result.position(name).T) + list(result.orientation(name).T)
    kinds = dict(zip(result.model.joint_names, result.model.joint_kind))
    for name in joints:
        F, T = result.reaction(name)
        header += [f"{name} {c}" for c in JOINT_COLUMNS]
        cols += list(F.T) + list(T.T)
        for coord in JOINT_COORDINATES.get(kinds.get(name), ()):
            header.append(f"{name} {coord}_{'rad' if coord == 'angle' else 'm'}")
            cols.append(joint_coordinate(result, name, coord))
    for name, (joint, coord) in motions.items():
        header.append(f"{joint} {EFFORT_PROPS[coord]}_{'Nm' if coord == 'angle' else 'N'}")
        cols.append(result.effort(name))
    for name in cams:
        header.append(f"{name} contact_force_N")
        cols.append(result.contact_force(name))
    for name, (joint, coord) in (limits or {}).items():
        header.append(f"{joint} limit_force_{'Nm' if coord == 'angle' else 'N'}")
        cols.append(result.limit(name))
    for name, (joint, coord) in (frictions or {}).items() if result.analysis == "dynamic" else ():
        for prop, values in friction_series(result, name, joint).items():
            header.append(f"{joint} {prop}_{'N' if coord == 'slide' else 'Nm'}")
            cols.append(values)
    for name, joint in (torsions or {}).items():
        header.append(f"{joint} torsion_spring_torque_Nm")
        cols.append(result.torsion_spring(name))
    for name in springs:
        header += [f"{name} spring_force_N", f"{name} spring_length_m"]
        cols += [result.spring(name), result.spring_length(name)]
    for name in bushings:
        F, T = result.bushing(name)
        header += [f"{name} {c}" for c in BUSHING_COLUMNS]
        cols += list(F.T) + list(T.T)
    for name in vector_forces:
        F, T = result.vector_force(name)
        header += [f"{name} {c}" for c in FORCE_COLUMNS]
        cols += list(F.T) + list(T.T)
    for name in contacts:
        hit = result.contact(name)
        header += [f"{name} {c}" for c in CONTACT_COLUMNS]
        cols += list(hit["force"].T) + [hit["penetration"], result.interference(name)["gap"]]
    for name, series in coupler_plots(result, couplers or {}).items():
        for prop, values in series.items():
            header.append(f"{name} {prop}_{'Nm' if 'torque' in prop else 'N'}")
            cols.append(values)
    for name, series in follow_plots(result, follows or {}).items():
        for prop, values in series.items():
            header.append(f"{name} {prop}_{'Nm' if 'torque' in prop else 'N'}")
            cols.append(values)
    for joint, series in actuator_plots(result, actuators or {}).items():
        for prop, values in series.items():
            header.append(f"{joint} actuator_effort_{'N' if prop.endswith('slide') else 'Nm'}")
            cols.append(values)
    return header, np.array(cols, dtype=float).T


def write_table(path: str, header: list[str], values: np.ndarray,
                progress: Callable[[int, int], bool] | None = None) -> None:
    """Write ``header`` and the rows of ``values`` as a CSV file at ``path`` (absolute), the
    numbers with 9 significant digits, as ``write_rows`` writes (the same bytes, the rows
    formatted a block at a time: 10,000 frames of 1,000 columns in some 4 s rather than
    9); ``progress(rows written, rows)`` after each block of ROW_BLOCK rows, and when it
    returns False the file is left as it was and SolverCancelled raised."""
    line = ",".join([NUMBER] * values.shape[1]) + "\r\n"    # csv.writer's line end

    def write(fh) -> None:
        csv.writer(fh).writerow(header)
        for start in range(0, len(values), ROW_BLOCK):
            block = values[start:start + ROW_BLOCK].tolist()
            fh.write("".join([line % tuple(row) for row in block]))
            if progress is not None and not progress(start + len(block), len(values)):
                raise SolverCancelled(f"stopped at row {start + len(block)} of "
                                      f"{len(values)}: nothing was written")
    _replaced(path, write)


def write_rows(path: str, rows: list[list[str]]) -> None:
    """Write ``rows`` as a CSV file at ``path`` (absolute); as ``_replaced`` does."""
    _replaced(path, lambda fh: csv.writer(fh).writerows(rows))


def _replaced(path: str, write: Callable) -> None:
    """``write(file)`` into a file beside ``path`` under a temporary name, then renamed over
    it, so a write that fails or is cancelled leaves a file already there as it was;
    MechanismError naming the file or its folder for a path that cannot be written (never a
    bare "[Errno 2] ...")."""
    existing_folder(path)
    temporary = f"{path}.{os.getpid()}.part"
    try:
        with open(temporary, "w", newline="", encoding="utf-8") as fh:
            write(fh)
        os.replace(temporary, path)
    except BaseException as exc:
        if os.path.exists(temporary):
            os.remove(temporary)
        if isinstance(exc, OSError):
            raise MechanismError(f"cannot write {path!r}: {exc.strerror or exc}") from None
        raise


def existing_folder(path: str) -> str:
    """``path`` (an absolute file path) when its folder exists and it is not itself a
    folder; MechanismError naming what is missing otherwise (checked before a solve, so a
    long solve is not lost to a typo in the folder's name)."""
    folder = os.path.dirname(path)
    if not os.path.isdir(folder):
        raise MechanismError(f"the folder {folder!r} does not exist: create it, or pick a file "
                             "in an existing folder")
    if os.path.isdir(path):
        raise MechanismError(f"{path!r} is a folder: give a file name in it, e.g. "
                             f"{os.path.join(path, 'mechanism.csv')!r}")
    return path


def export_path(path: str, blend_file: str) -> str:
    """The absolute file Export CSV writes: ``path`` as typed, a relative one ("//name",
    Blender's mark, or plain) taken from the folder of ``blend_file`` (bpy.data.filepath).
    MechanismError when the path is relative and the .blend file is not saved: it would land
    in whatever folder Blender was started from.  The messages leave the command's name to
    the operator that reports them (Export CSV, Export Study CSV)."""
    if not path.strip():
        raise MechanismError("give the CSV file's path")
    rest = path[2:] if path.startswith("//") else path
    if os.path.isabs(rest) and not path.startswith("//"):
        return os.path.normpath(path)
    if not blend_file:
        raise MechanismError(f"{path!r} is relative to the .blend file, which is not "
                             "saved: save the file first, or give an absolute path")
    return os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(blend_file)), rest))
