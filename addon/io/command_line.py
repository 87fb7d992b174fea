"""The arguments of the ``mechanism`` command (``blender -b -c mechanism bake in.blend -o
out.blend [--csv forces.csv] [--scene NAME ...]``; ``blender -b -c mechanism study in.blend
--vary NAME=START:STOP:COUNT [--vary ...] -o table.csv [--scene NAME]``; ``blender -b -c
mechanism mjcf in.blend -o model.xml [--scene NAME]``; ``blender -b -c mechanism import
robot.urdf|model.xml -o out.blend [--package DIR] [--floating-base]``; or ``python
addon/headless.py ...``), parsed without Blender."""
from __future__ import annotations

import argparse
import math
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class BakeCommand:
    """bake: open ``blend``, bake, save to ``output``; also write ``csv`` when given.
    ``scenes``: the names of the scenes to bake, in turn (empty: the file's active scene)."""
    blend: str
    output: str
    csv: str | None = None
    scenes: tuple[str, ...] = ()


@dataclass(frozen=True)
class StudyCommand:
    """study: open ``blend`` and solve its mechanism for every combination of the ``vary``
    values (name, values), writing the summary table to ``output`` (CSV); ``scene``: the
    scene's name (None: the file's active scene)."""
    blend: str
    output: str
    vary: tuple[tuple[str, tuple[float, ...]], ...]
    scene: str | None = None


@dataclass(frozen=True)
class MjcfCommand:
    """mjcf: open ``blend`` and write its mechanism as a MuJoCo model to ``output``;
    ``scene``: the scene's name (None: the file's active scene)."""
    blend: str
    output: str
    scene: str | None = None


@dataclass(frozen=True)
class ImportCommand:
    """import: a URDF robot (``.urdf``) or a MuJoCo model (MJCF, ``.xml``) built as a
    mechanism in a new scene (File > Import) and saved to ``output``; ``package``: the
    folder URDF package:// paths resolve against; ``floating_base``: URDF's root link free
    (MJCF says so itself, with a free joint)."""
    source: str
    output: str
    package: str | None = None
    floating_base: bool = False

    @property
    def kind(self) -> str:
        """"urdf" or "mjcf", by the file's extension (``.urdf``, else MJCF's ``.xml``)."""
        return "urdf" if self.source.lower().endswith(".urdf") else "mjcf"


def vary_values(text: str) -> tuple[str, tuple[float, ...]]:
    """"NAME=START:STOP:COUNT" -> (NAME, COUNT values evenly from START to STOP); the name is
    a study parameter ("Arm.mass", "Pin I.position.x"; it may hold '=' signs: the last one
    splits).  argparse.ArgumentTypeError with what is wrong."""
    name, eq, spec = text.rpartition("=")
    if not eq or not name.strip():
        raise argparse.ArgumentTypeError(f"{text!r}: give NAME=START:STOP:COUNT")
    parts = spec.split(":")
    if len(parts) != 3:
        raise argparse.ArgumentTypeError(f"{text!r}: the values are START:STOP:COUNT, got {spec!r}")
    try:
        start, stop = float(parts[0]), float(parts[1])
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: START and STOP must be numbers") from None
    try:
        count = int(parts[2])
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: COUNT must be a whole number") from None
    if not (math.isfinite(start) and math.isfinite(stop)):
        raise argparse.ArgumentTypeError(f"{text!r}: START and STOP must be finite")
    if count < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: COUNT must be at least 1, got {count}")
    if count == 1 and start != stop:
        raise argparse.ArgumentTypeError(f"{text!r}: one value from {start:g} to {stop:g}: give "
                                         "START = STOP with COUNT 1, or COUNT >= 2")
    step = (stop - start) / (count - 1) if count > 1 else 0.0
    values = tuple(start + k * step for k in range(count - 1)) + (stop,)
    return name.strip(), values


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="blender -c mechanism",
                                     description="Mechanism Animator from the command line")
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("bake", help="solve and bake the mechanism of a .blend file")
    b.add_argument("blend", help="input .blend file")
    b.add_argument("-o", "--output", required=True, help="output .blend file")
    b.add_argument("--csv", help="also write joint forces and positions to this CSV file")
    b.add_argument("--scene", action="append", default=[], metavar="NAME",
                   help="the scene to bake (default: the file's active scene); repeat to bake "
                        "several, one after another")
    st = sub.add_parser("study", help="solve the mechanism of a .blend file over a grid of "
                        "parameter values and write one summary row per variant",
                        description="Every combination of the --vary values is solved over "
                        "the scene's frames (full factorial); the CSV has the values, each "
                        "joint's peak and RMS reaction force, each motion's peak effort, each "
                        "joint's coordinate range and why a variant failed.  Values are in SI "
                        "units as the solver reads the scene (a length in Blender units "
                        "times the scene's unit scale).")
    st.add_argument("blend", help="input .blend file (not changed)")
    st.add_argument("--vary", action="append", required=True, type=vary_values,
                    metavar="NAME=START:STOP:COUNT",
                    help="a parameter and its values (e.g. Arm.mass=1:3:5, 'Pin I.position.x="
                         "-1:-0.5:3', spring.stiffness, Arm.inertia.zz, gravity.z); repeat "
                         "for more")
    st.add_argument("-o", "--output", required=True, help="the summary table (.csv)")
    st.add_argument("--scene", metavar="NAME", help="the scene whose mechanism is studied "
                    "(default: the file's active scene)")
    mj = sub.add_parser("mjcf", help="write the mechanism of a .blend file as a MuJoCo model "
                        "(MJCF), assembled at the first frame")
    mj.add_argument("blend", help="input .blend file (not changed)")
    mj.add_argument("-o", "--output", required=True, help="the MuJoCo model (.xml)")
    mj.add_argument("--scene", metavar="NAME", help="the scene whose mechanism is written "
                    "(default: the file's active scene)")
    im = sub.add_parser("import", help="build a URDF robot (.urdf) or a MuJoCo model (.xml) "
                        "as a mechanism in a new scene and save it as a .blend file")
    im.add_argument("source", help="the robot or model file (.urdf, or MJCF .xml)")
    im.add_argument("-o", "--output", required=True, help="output .blend file")
    im.add_argument("--package", help="URDF: the folder package:// mesh paths resolve against "
                    "(default: the file's folder and the one above it)")
    im.add_argument("--floating-base", action="store_true",
                    help="URDF: the root link moves freely instead of being the ground")
    return parser


def parse_command(argv: list[str]) -> BakeCommand | StudyCommand | MjcfCommand | ImportCommand | int:
    """The command ``argv`` asks for, or the exit code when there is nothing to run: 0 after
    --help, 2 after a usage error (argparse prints the usage and the error to stderr)."""
    parser = _parser()
    try:
        args = parser.parse_args(argv)
        names = [name for name, _ in getattr(args, "vary", None) or ()]
        twice = sorted({n for n in names if names.count(n) > 1})
        if twice:
            parser.error(f"--vary {twice[0]} is given more than once")
        if args.action == "bake" and args.csv and len(args.scene) > 1:
            parser.error("--csv writes the frames of one scene: give one --scene with it")
    except SystemExit as exc:
        return int(exc.code or 0)
    if args.action == "study":
        return StudyCommand(args.blend, args.output, tuple(args.vary), args.scene)
    if args.action == "mjcf":
        return MjcfCommand(args.blend, args.output, args.scene)
    if args.action == "import":
        cmd = ImportCommand(args.source, args.output, args.package, args.floating_base)
        if cmd.kind == "mjcf" and (cmd.package or cmd.floating_base):
            parser.print_usage(sys.stderr)
            print("blender -c mechanism import: error: --package and --floating-base are for a "
                  "URDF file (an MJCF model names its meshes itself and frees its base with a "
                  "free joint)", file=sys.stderr)
            return 2
        return cmd
    return BakeCommand(args.blend, args.output, args.csv, tuple(args.scene))
