"""Run Mechanism Animator inside the ``bpy`` module from PyPI (no Blender binary).

    python addon/headless.py bake in.blend -o out.blend [--csv forces.csv]

``enable()`` does what installing does: it links this repository into the ``user_default``
extension repository of a user-resources folder and enables ``bl_ext.user_default.
mechanism_animator``.  BLENDER_USER_RESOURCES must point at that folder before bpy is
first imported; ``enable`` sets a temporary one when it is unset and bpy is not loaded.
Used by the tests and sample_scenes too.  No relative imports: this file runs as a script.
"""
from __future__ import annotations

import os
import sys
import tempfile

EXTENSION_ID = "mechanism_animator"
MODULE = f"bl_ext.user_default.{EXTENSION_ID}"
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def enable(repo_root: str = REPO_ROOT):
    """Enable the extension from ``repo_root`` (a checkout) and return its module."""
    if "bpy" not in sys.modules and not os.environ.get("BLENDER_USER_RESOURCES"):
        os.environ["BLENDER_USER_RESOURCES"] = tempfile.mkdtemp(prefix="mechanism-blender-")
    import bpy  # noqa: F401  (bpy puts addon_utils on the path)
    import addon_utils
    if MODULE in sys.modules and getattr(sys.modules[MODULE], "_enabled", False):
        return sys.modules[MODULE]
    repo_dir = bpy.utils.user_resource("EXTENSIONS", path="user_default", create=True)
    link = os.path.join(repo_dir, EXTENSION_ID)
    if not os.path.exists(link):
        os.symlink(repo_root, link, target_is_directory=True)
    errors: list[BaseException] = []
    addon_utils.modules_refresh()
    mod = addon_utils.enable(MODULE, default_set=True, handle_error=errors.append)
    if mod is None or errors:
        raise RuntimeError(f"could not enable {MODULE}: {errors}")
    mod._enabled = True
    return mod


def main(argv: list[str]) -> int:
    mod = enable()
    import importlib
    cli = importlib.import_module(f"{mod.__name__}.addon.cli")
    return cli._command(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
