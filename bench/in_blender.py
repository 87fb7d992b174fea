"""The extension installed in the bpy module's Blender for a benchmark (addon/headless.py):
``extension()`` enables it and gives its package (``<package>.addon``, ``<package>.solver``:
the copy Blender runs, not the repository's)."""
from __future__ import annotations

import importlib.util
import os
from types import ModuleType

HEADLESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "addon", "headless.py")


def extension() -> ModuleType:
    """Install and enable the extension headless; its package."""
    spec = importlib.util.spec_from_file_location("ma_headless", HEADLESS)
    headless = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(headless)
    return headless.enable()
