# SPDX-License-Identifier: GPL-3.0-or-later
"""Mechanism Animator: Blender extension entry point; the work is in addon/ and solver/.

The imports are inside the functions so that importing this package (pytest does, as the
repository root) needs neither bpy nor the add-on modules.
"""


def register() -> None:
    from .addon import register as _register
    _register()


def unregister() -> None:
    from .addon import unregister as _unregister
    _unregister()
