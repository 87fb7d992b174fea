"""The extension as shipped: the zip built by Blender's own packaging tool, installing it,
enable/disable, the headless bake of a saved .blend and the ``mechanism`` command.

Blender runs in subprocesses, each with a fresh BLENDER_USER_RESOURCES folder: this test
process may already have the extension enabled from the checkout under the same module name.
The scene is a driven crank: an arm whose origin is 1 BU from a revolute pin at the world
origin, driven at 2*pi*t about world z, frames 1..25 at 24 fps (one full turn).
"""
from __future__ import annotations

import csv
import glob
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HEADLESS = os.path.join(ROOT, "addon", "headless.py")
MODULE = "bl_ext.user_default.mechanism_animator"

_BPY = importlib.util.find_spec("bpy")
pytestmark = [pytest.mark.skipif(_BPY is None, reason="needs the bpy module (.ci/env installs it)"),
              pytest.mark.slow]     # Blender in subprocesses: about 40 s in all
SCRIPTS = (glob.glob(os.path.join(_BPY.submodule_search_locations[0], "*", "scripts"))[0]
           if _BPY is not None else "")
BLENDER_EXT = os.path.join(SCRIPTS, "addons_core", "bl_pkg", "cli", "blender_ext.py")
TAGS = os.path.join(SCRIPTS, "modules", "_bpy_internal", "extensions", "tags.py")

FRAMES = np.arange(1, 26)              # scene frame range 1..25
FPS = 24.0
MASS = 2.0                             # kg, arm's centre of mass at its origin
OMEGA = 2.0 * math.pi                  # rad/s, the motion 2*pi*t
G = 9.81                               # Blender's default scene gravity, -z

# -- subprocess helpers ----------------------------------------------------------------------

ENABLE = f"""
import importlib.util, json, sys
_spec = importlib.util.spec_from_file_location("ma_headless", {HEADLESS!r})
_h = importlib.util.module_from_spec(_spec); _spec.loader.exec_module(_h)
mod = _h.enable()
import bpy
"""


def run(args: list[str], cwd: str) -> subprocess.CompletedProcess:
    """``python args...`` in ``cwd`` with a fresh, private Blender user-resources folder."""
    env = dict(os.environ, BLENDER_USER_RESOURCES=tempfile.mkdtemp(prefix="ur-", dir=cwd))
    return subprocess.run([sys.executable, *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def run_script(code: str, cwd: str, *args: str) -> dict:
    """Run ``code`` (it prints ``RESULT <json>``) and return the JSON; fails on a non-zero exit."""
    p = run(["-c", code, *args], cwd)
    assert p.returncode == 0, f"exit {p.returncode}\n--stdout--\n{p.stdout}\n--stderr--\n{p.stderr}"
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert lines, p.stdout + p.stderr
    out = json.loads(lines[-1][len("RESULT "):])
    out["_stderr"] = p.stderr
    return out


def blender_ext(*args: str, cwd: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, BLENDER_EXT, *args], cwd=cwd, capture_output=True,
                          text=True, timeout=60)


def expected_files(src: str) -> set[str]:
    """What the zip must hold: the manifest, the entry point and every module of addon/ and solver/."""
    names = {"blender_manifest.toml", "__init__.py"}
    for pkg in ("addon", "solver"):
        for path in glob.glob(os.path.join(src, pkg, "**", "*.py"), recursive=True):
            names.add(os.path.relpath(path, src).replace(os.sep, "/"))
    return names


def build(src: str, out_dir: str) -> str:
    p = blender_ext("build", "--source-dir", src, "--output-dir", out_dir, f"--valid-tags={TAGS}", cwd=out_dir)
    assert p.returncode == 0, p.stdout + p.stderr
    zips = glob.glob(os.path.join(out_dir, "*.zip"))
    assert len(zips) == 1, zips
    return zips[0]


# -- 1. validate and build -------------------------------------------------------------------

@pytest.fixture(scope="module")
def work(tmp_path_factory) -> str:
    return str(tmp_path_factory.mktemp("addon_pkg"))


@pytest.fixture(scope="module")
def package(work) -> str:
    """The zip built from this checkout."""
    out = os.path.join(work, "dist")
    os.makedirs(out)
    return build(ROOT, out)


@pytest.mark.parametrize("source", ["checkout", "zip"])
def test_manifest_validates_with_tags(source: str, package: str, work: str) -> None:
    """blender_ext validate passes on the source tree and on the built zip, tags checked."""
    p = blender_ext("validate", ROOT if source == "checkout" else package, f"--valid-tags={TAGS}", cwd=work)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "FATAL" not in p.stdout + p.stderr


def test_tag_validation_is_really_on(work: str) -> None:
    """The same check rejects an unknown tag, so the passing validation above means something."""
    bad = os.path.join(work, "badtag")
    os.makedirs(bad)
    shutil.copy(os.path.join(ROOT, "__init__.py"), bad)
    with open(os.path.join(ROOT, "blender_manifest.toml")) as fh:
        text = fh.read()
    assert '"Animation"' in text
    with open(os.path.join(bad, "blender_manifest.toml"), "w") as fh:
        fh.write(text.replace('"Animation"', '"NoSuchTag"'))
    p = blender_ext("validate", bad, f"--valid-tags={TAGS}", cwd=work)
    assert p.returncode != 0 and "NoSuchTag" in p.stdout + p.stderr


def test_zip_holds_exactly_the_package(package: str) -> None:
    """Every addon/ and solver/ module is in the zip (with content) and nothing else is."""
    with zipfile.ZipFile(package) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}
        assert names == expected_files(ROOT)
        with open(os.path.join(ROOT, "solver", "model", "compile.py"), "rb") as fh:
            assert zf.read("solver/model/compile.py") == fh.read()


def test_caches_and_dev_files_stay_out(work: str) -> None:
    """A copy of the checkout littered with __pycache__, .pyc, tests, bench, scenes, a
    README and a .blend1 builds to the same file list."""
    src = os.path.join(work, "littered")
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(".venv*", ".git"), symlinks=True)
    litter = ["__pycache__/x.cpython-311.pyc", "addon/__pycache__/ui.cpython-311.pyc",
              "solver/__pycache__/model.cpython-311.pyc", "solver/stray.pyc",
              "tests/test_x.py", "bench/b.py", "sample_scenes/s.py", "README.md",
              "scene.blend1", ".hidden/x.py"]
    for rel in litter:
        os.makedirs(os.path.dirname(os.path.join(src, rel)) or src, exist_ok=True)
        with open(os.path.join(src, rel), "wb") as fh:
            fh.write(b"x")
    out = os.path.join(work, "dist_littered")
    os.makedirs(out)
    with zipfile.ZipFile(build(src, out)) as zf:
        names = {n for n in zf.namelist() if not n.endswith("/")}
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names), names
    assert names == expected_files(src)


# -- 2. install, disable, enable -------------------------------------------------------------

INSTALL = f"""
import bpy, sys, addon_utils
M = {MODULE!r}
res = {{}}
def state():
    return dict(prop=hasattr(bpy.types.Object, "mechanism"), scene_prop=hasattr(bpy.types.Scene, "mechanism"),
                op="bake" in dir(bpy.ops.mechanism), op_type=hasattr(bpy.types, "MECHANISM_OT_bake"),
                panel=hasattr(bpy.types, "VIEW3D_PT_mechanism"),
                object_panel=hasattr(bpy.types, "VIEW3D_PT_mechanism_object"),
                cli=M + ".addon.cli" in sys.modules and sys.modules[M + ".addon.cli"]._handle is not None,
                pref_count=list(bpy.context.preferences.addons.keys()).count(M))
res["params"] = sorted(bpy.ops.extensions.package_install_files.get_rna_type().properties.keys())
res["before"] = state()
res["install"] = sorted(bpy.ops.extensions.package_install_files(
    filepath=sys.argv[1], repo="user_default", enable_on_install=True))
res["file"] = sys.modules[M].__file__
res["installed"] = state()
errors = []
addon_utils.disable(M, default_set=True, handle_error=errors.append)
res["disabled"] = state()
sys.stdout.flush(); print("---ENABLE TWICE---", file=sys.stderr, flush=True)
mods = [addon_utils.enable(M, default_set=True, handle_error=errors.append) for _ in range(2)]
res["mods_ok"] = all(m is not None and m.__name__ == M for m in mods)
res["reenabled"] = state()
res["errors"] = [repr(e) for e in errors]
print("RESULT " + __import__("json").dumps(res))
"""


@pytest.fixture(scope="module")
def installed(package: str, work: str) -> dict:
    return run_script(INSTALL, work, package)


def test_install_operator_parameters(installed: dict) -> None:
    assert {"filepath", "repo", "enable_on_install"} <= set(installed["params"])


def test_zip_installs_and_registers(installed: dict) -> None:
    assert not any(installed["before"][k] for k in ("prop", "op", "panel", "cli"))
    assert installed["install"] == ["FINISHED"]
    # installed from the zip into the private user folder, not linked from the checkout
    assert installed["file"].endswith(os.path.join("user_default", "mechanism_animator", "__init__.py"))
    assert not installed["file"].startswith(ROOT)
    assert installed["installed"] == dict(prop=True, scene_prop=True, op=True, op_type=True, panel=True,
                                          object_panel=True, cli=True, pref_count=1)


def test_disable_unregisters_everything(installed: dict) -> None:
    assert installed["disabled"] == dict(prop=False, scene_prop=False, op=False, op_type=False, panel=False,
                                         object_panel=False, cli=False, pref_count=0)
    assert installed["errors"] == []


def test_enable_twice_is_harmless(installed: dict) -> None:
    assert installed["mods_ok"] and installed["errors"] == []
    assert installed["reenabled"] == installed["installed"]
    after = installed["_stderr"].split("---ENABLE TWICE---", 1)[1]
    assert "Traceback" not in after and "rror" not in after and "already registered" not in after, after


# -- 3. headless bake of a saved scene -------------------------------------------------------

MAKE_SCENES = ENABLE + """
good, bad = sys.argv[1:3]
bpy.ops.wm.read_homefile(use_factory_startup=True, use_empty=True)
sc = bpy.context.scene
sc.frame_start, sc.frame_end = 1, 25
sc.render.fps, sc.render.fps_base = 24, 1.0
def empty(name, loc=(0.0, 0.0, 0.0), parent=None):
    ob = bpy.data.objects.new(name, None)
    sc.collection.objects.link(ob)
    ob.parent = parent
    ob.location = loc
    return ob
ground = empty("Ground")
ground.mechanism.role = "PART"; ground.mechanism.ground = True
arm = empty("Arm", (1.0, 0.0, 0.0))
s = arm.mechanism
s.role = "PART"; s.mass_mode = "MANUAL"; s.mass = 2.0; s.inertia = (0.1, 0.1, 0.1, 0.0, 0.0, 0.0)
pin_i = empty("Pin I", (-1.0, 0.0, 0.0), arm); pin_i.mechanism.role = "MARKER"   # world origin
pin_j = empty("Pin J", (0.0, 0.0, 0.0), ground); pin_j.mechanism.role = "MARKER"
pin = empty("Pin")
j = pin.mechanism
j.role = "JOINT"; j.joint_kind = "REVOLUTE"; j.marker_i = pin_i; j.marker_j = pin_j
j.motion_type = "EXPRESSION"; j.motion_expression = "2*pi*t"
bpy.ops.wm.save_as_mainfile(filepath=good)
bpy.data.objects.remove(pin_i)          # the joint's marker I deleted
bpy.ops.wm.save_as_mainfile(filepath=bad)
print("RESULT " + json.dumps(dict(marker_i=str(j.marker_i))))
"""

INSPECT = ENABLE + """
from bpy_extras import anim_utils
bpy.ops.wm.open_mainfile(filepath=sys.argv[1])
sc = bpy.context.scene
arm, pin = bpy.data.objects["Arm"], bpy.data.objects["Pin"]
def curves(ob):
    ad = ob.animation_data
    bag = anim_utils.action_get_channelbag_for_slot(ad.action, ad.action_slot)
    return {f"{fc.data_path}[{fc.array_index}]": [list(k.co) for k in fc.keyframe_points] for fc in bag.fcurves}
res = dict(range=[sc.frame_start, sc.frame_end], action=arm.animation_data.action.name,
           rotation_mode=arm.rotation_mode, baked=arm.mechanism.baked, arm=curves(arm), pin=curves(pin),
           props=sorted(k for k in pin.keys() if k.startswith(("reaction", "motion_effort"))))
print("RESULT " + json.dumps(res))
"""

CLI = ENABLE + """
import importlib
cli = importlib.import_module(mod.__name__ + ".addon.cli")
res = dict(handle=cli._handle is not None, handle_type=type(cli._handle).__name__)
res["good"] = cli._command(["bake", sys.argv[1], "-o", sys.argv[2]])
res["bad"] = cli._command(["bake", sys.argv[3], "-o", sys.argv[4]])
print("RESULT " + json.dumps(res))
"""


@pytest.fixture(scope="module")
def scenes(work: str) -> dict[str, str]:
    paths = {k: os.path.join(work, f"{k}.blend") for k in ("in", "bad")}
    made = run_script(MAKE_SCENES, work, paths["in"], paths["bad"])
    assert made["marker_i"] == "None"
    return paths


@pytest.fixture(scope="module")
def baked(scenes: dict[str, str], work: str) -> dict:
    out, out_csv = os.path.join(work, "out.blend"), os.path.join(work, "out.csv")
    p = run([HEADLESS, "bake", scenes["in"], "-o", out, "--csv", out_csv], work)
    return dict(proc=p, blend=out, csv=out_csv)


def crank_closed_form(frames: np.ndarray) -> dict[str, np.ndarray]:
    """Arm origin on the unit circle at angle th = 2*pi*t; the pin's force on the arm is
    m * (centripetal acceleration - gravity); no torque is needed about the axis."""
    th = OMEGA * (frames - 1) / FPS
    return dict(th=th, loc=np.stack([np.cos(th), np.sin(th), 0 * th], 1),
                quat=np.stack([np.cos(th / 2), 0 * th, 0 * th, np.sin(th / 2)], 1),
                force=np.stack([-MASS * OMEGA ** 2 * np.cos(th), -MASS * OMEGA ** 2 * np.sin(th),
                                MASS * G + 0 * th], 1))


def test_headless_bake_exits_zero(baked: dict) -> None:
    p = baked["proc"]
    assert p.returncode == 0, p.stdout + p.stderr
    assert os.path.isfile(baked["blend"]) and os.path.isfile(baked["csv"])


def test_baked_file_has_keyframes_and_reactions(baked: dict, work: str) -> None:
    assert baked["proc"].returncode == 0, baked["proc"].stderr
    got = run_script(INSPECT, work, baked["blend"])
    assert got["range"] == [1, 25] and got["action"] == "MA bake Arm"
    assert got["rotation_mode"] == "QUATERNION" and got["baked"]
    want = crank_closed_form(FRAMES)
    arm = {k: np.array(v) for k, v in got["arm"].items()}
    assert sorted(arm) == sorted([f"location[{i}]" for i in range(3)] +
                                 [f"rotation_quaternion[{i}]" for i in range(4)])
    for k, v in arm.items():
        np.testing.assert_array_equal(v[:, 0], FRAMES)        # a key on every frame
    # float32 keyframes of values <= 1: ~1e-7; the kinematic solve is ~1e-12
    loc = np.stack([arm[f"location[{i}]"][:, 1] for i in range(3)], 1)
    np.testing.assert_allclose(loc, want["loc"], atol=1e-6)
    quat = np.stack([arm[f"rotation_quaternion[{i}]"][:, 1] for i in range(4)], 1)
    np.testing.assert_allclose(quat, want["quat"], atol=1e-6)
    assert set(got["props"]) == {"reaction_force_x", "reaction_force_y", "reaction_force_z", "reaction_force",
                                 "reaction_torque_x", "reaction_torque_y", "reaction_torque_z",
                                 "reaction_torque", "motion_effort"}
    pin = {k: np.array(v) for k, v in got["pin"].items()}
    assert sorted(pin) == sorted(f'["{p}"][0]' for p in got["props"])
    for v in pin.values():
        np.testing.assert_array_equal(v[:, 0], FRAMES)
    # forces ~80 N stored as float32 (~5e-6 N); accelerations solved to ~1e-9 relative
    force = np.stack([pin[f'["reaction_force_{c}"][0]'][:, 1] for c in "xyz"], 1)
    np.testing.assert_allclose(force, want["force"], atol=1e-4)
    np.testing.assert_allclose(pin['["reaction_force"][0]'][:, 1], np.linalg.norm(want["force"], axis=1), atol=1e-4)
    # constant speed, centre of mass on the circle, gravity parallel to the axis: no drive torque
    np.testing.assert_allclose(pin['["motion_effort"][0]'][:, 1], 0.0, atol=1e-6)


def test_csv_has_a_row_per_frame(baked: dict) -> None:
    assert baked["proc"].returncode == 0, baked["proc"].stderr
    with open(baked["csv"], newline="") as fh:
        rows = list(csv.reader(fh))
    header, data = rows[0], np.array(rows[1:], dtype=float)
    assert header[:2] == ["frame", "time_s"] and len(data) == len(FRAMES)
    col = {h: data[:, i] for i, h in enumerate(header)}
    np.testing.assert_array_equal(col["frame"], FRAMES)
    want = crank_closed_form(FRAMES)
    # written with 9 significant digits: <= 5e-9 relative
    np.testing.assert_allclose(col["time_s"], (FRAMES - 1) / FPS, rtol=1e-8)
    np.testing.assert_allclose(col["Arm x_m"], want["loc"][:, 0], atol=1e-8)
    np.testing.assert_allclose(col["Arm y_m"], want["loc"][:, 1], atol=1e-8)
    np.testing.assert_allclose(col["Pin Fx_N"], want["force"][:, 0], rtol=1e-7, atol=1e-6)
    np.testing.assert_allclose(col["Pin Fz_N"], want["force"][:, 2], rtol=1e-7)


def test_headless_bake_of_an_invalid_mechanism_fails(scenes: dict[str, str], work: str) -> None:
    out, out_csv = os.path.join(work, "bad_out.blend"), os.path.join(work, "bad_out.csv")
    p = run([HEADLESS, "bake", scenes["bad"], "-o", out, "--csv", out_csv], work)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "joint 'Pin': marker I is not set" in p.stderr
    assert not os.path.exists(out) and not os.path.exists(out_csv)


# -- 4. the `blender -c mechanism` command ---------------------------------------------------

def test_cli_command_registered_and_bakes(scenes: dict[str, str], work: str) -> None:
    out, bad_out = os.path.join(work, "cli_out.blend"), os.path.join(work, "cli_bad.blend")
    got = run_script(CLI, work, scenes["in"], out, scenes["bad"], bad_out)
    assert got["handle"], got
    assert got["good"] == 0 and os.path.isfile(out)
    assert got["bad"] == 1 and not os.path.exists(bad_out)
    assert "marker I is not set" in got["_stderr"]
