"""Headless use for render pipelines.

Blender command line (the extension enabled):
    blender -b -c mechanism bake in.blend -o out.blend [--csv forces.csv]
Python (``bpy`` from PyPI, the extension enabled; see addon/headless.py):
    bake_file("in.blend", "out.blend")
"""
from __future__ import annotations

import os
import sys

import bpy

from .io.command_line import parse_command

_handle = None


def bake_file(in_path: str, out_path: str, csv_path: str | None = None) -> int:
    """Open ``in_path``, bake its mechanism, save to ``out_path``; 0 on success, 1 on a
    failure (the reason goes to stderr)."""
    bpy.ops.wm.open_mainfile(filepath=in_path)
    try:
        bpy.ops.mechanism.bake()
        if csv_path:      # a relative path on the command line is from the working folder
            bpy.ops.mechanism.export_csv(filepath=os.path.abspath(csv_path))
    except RuntimeError as exc:       # an operator that reported an error
        print(f"mechanism bake failed: {exc}", file=sys.stderr)
        return 1
    bpy.ops.wm.save_as_mainfile(filepath=out_path, copy=False)
    print(f"mechanism: baked {in_path} -> {out_path}")
    return 0


def _command(argv: list[str]) -> int:
    """The ``mechanism`` command: its exit code (see io/command_line.py)."""
    cmd = parse_command(argv)
    if isinstance(cmd, int):
        return cmd
    return bake_file(cmd.blend, cmd.output, cmd.csv)


def register() -> None:
    global _handle
    if _handle is None:
        _handle = bpy.utils.register_cli_command("mechanism", _command)


def unregister() -> None:
    global _handle
    if _handle is not None:
        bpy.utils.unregister_cli_command(_handle)
        _handle = None
