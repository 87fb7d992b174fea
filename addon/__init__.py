# SPDX-License-Identifier: GPL-3.0-or-later
"""Blender side of Mechanism Animator: a thin adapter that reads tagged objects into a
solver model (scene_reader), runs it, and writes keyframes back (bake).  bpy only here;
the numerics live in ../solver."""
from __future__ import annotations

import bpy

from . import cli, draw, operators, properties, ui

_classes = properties.classes + operators.classes + ui.classes
_register, _unregister = bpy.utils.register_classes_factory(_classes)


def register() -> None:
    _register()
    properties.register_properties()
    draw.register()
    cli.register()


def unregister() -> None:
    cli.unregister()
    draw.unregister()
    properties.unregister_properties()
    _unregister()
