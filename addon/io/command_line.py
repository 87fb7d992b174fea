"""The arguments of the ``mechanism`` command (``blender -b -c mechanism bake in.blend -o
out.blend [--csv forces.csv]``, or ``python addon/headless.py ...``), parsed without Blender."""
from __future__ import annotations

import argparse
from dataclasses import dataclass


@dataclass(frozen=True)
class BakeCommand:
    """bake: open ``blend``, bake, save to ``output``; also write ``csv`` when given."""
    blend: str
    output: str
    csv: str | None = None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="blender -c mechanism",
                                     description="Mechanism Animator from the command line")
    sub = parser.add_subparsers(dest="action", required=True)
    b = sub.add_parser("bake", help="solve and bake the mechanism of a .blend file")
    b.add_argument("blend", help="input .blend file")
    b.add_argument("-o", "--output", required=True, help="output .blend file")
    b.add_argument("--csv", help="also write joint forces and positions to this CSV file")
    return parser


def parse_command(argv: list[str]) -> BakeCommand | int:
    """The command ``argv`` asks for, or the exit code when there is nothing to run: 0 after
    --help, 2 after a usage error (argparse prints the usage and the error to stderr)."""
    try:
        args = _parser().parse_args(argv)
    except SystemExit as exc:
        return int(exc.code or 0)
    return BakeCommand(args.blend, args.output, args.csv)
