"""Shared test set-up.  Blender tests use the real ``bpy`` module: BLENDER_USER_RESOURCES
must point at a private folder before bpy is first imported, so it is set here, at
collection time; the ``blender`` fixture enables the extension once per test run (linked
from this checkout, as installing would) and gives each test an empty factory scene."""
from __future__ import annotations

import importlib.util
import os
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if "bpy" not in sys.modules:
    os.environ.setdefault("BLENDER_USER_RESOURCES", tempfile.mkdtemp(prefix="ma-test-blender-"))


def load_headless():
    """addon/headless.py as a module (it has no relative imports)."""
    spec = importlib.util.spec_from_file_location("ma_headless", os.path.join(ROOT, "addon", "headless.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def extension():
    """The enabled extension's module (bl_ext.user_default.mechanism_animator); enabling
    it again in a later test module returns the module already enabled."""
    pytest.importorskip("bpy", reason="the Blender tests need the bpy module (.ci/env installs it)")
    return load_headless().enable(ROOT)


@pytest.fixture
def blender(extension):
    """bpy with the extension enabled and an empty factory-startup scene."""
    import bpy
    bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
    return bpy


def pytest_collection_modifyitems(config, items):
    """Every test of the real-Blender tier (tests/test_addon_*.py, and any other test that
    takes the ``blender`` or ``extension`` fixture) is marked ``blender``, so
    ``-m "not blender"`` runs the solver and add-on-logic tiers alone."""
    for item in items:
        if os.path.basename(str(item.fspath)).startswith("test_addon_") or \
                {"blender", "extension"} & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.blender)


_EXIT_STATUS: list[int] = []


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    _EXIT_STATUS.append(int(exitstatus))


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config) -> None:
    """Leave the process without C exit handlers once pytest has reported, when the bpy 4.x
    module was loaded: its exit handlers can deadlock (seen with gdb after the whole
    add-on suite: the global state's destructor destroys a condition variable that its
    delayed file-close thread still waits on), so the run would never end.  bpy 5.0 exits
    cleanly and keeps its normal exit."""
    bpy = sys.modules.get("bpy")
    if bpy is None or not _EXIT_STATUS or tuple(bpy.app.version) >= (5, 0, 0):
        return
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(_EXIT_STATUS[-1])
