# SPDX-License-Identifier: GPL-3.0-or-later
"""Blender side of Mechanism Animator: a thin adapter that reads tagged objects into a
solver model (scene_reader), runs it, and writes keyframes back (bake).  The logic that
needs no Blender (F-curves, frames and times, part frames, what a bake writes) is in
``io/``, tested without Blender; the numerics live in ../solver.

The imports are inside the functions so that importing this package (and ``io/``) needs
no bpy; registration.py does the work.
"""


def register() -> None:
    from .registration import register as _register
    _register()


def unregister() -> None:
    from .registration import unregister as _unregister
    _unregister()
