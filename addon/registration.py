# SPDX-License-Identifier: GPL-3.0-or-later
"""Register and unregister the add-on's classes, properties, viewport overlay and command."""
from __future__ import annotations

import bpy

from . import (cli, drag, draw, export_csv, mjcf_io, modes, operators, plotting, properties,
               scene_cache, study, study_ops, study_ui, ui, urdf_import)

_classes = (properties.classes + operators.classes + export_csv.classes + drag.classes
            + plotting.classes + study_ops.classes + ui.classes + study_ui.classes + modes.classes
            + urdf_import.classes + mjcf_io.classes)
_register, _unregister = bpy.utils.register_classes_factory(_classes)


def register() -> None:
    _register()
    properties.register_properties()
    draw.register()
    drag.register_keymap()
    scene_cache.register()
    study.register()
    cli.register()
    urdf_import.register()
    mjcf_io.register()


def unregister() -> None:
    mjcf_io.unregister()
    urdf_import.unregister()
    cli.unregister()
    study.unregister()
    scene_cache.unregister()
    drag.unregister_keymap()
    draw.unregister()
    properties.unregister_properties()
    _unregister()
