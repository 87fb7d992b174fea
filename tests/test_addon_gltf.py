"""A bake goes out to other tools: the slider-crank of blender_scenes (its rod parented to
the piston, so a moving part keyed in a moving parent's space), baked, exported by
Blender's own glTF exporter (``export_scene.gltf``, animations on, .glb) and read back with
plain Python (the GLB container, the JSON, the binary buffer through accessors with numpy):
at several frames each moving part's node, composed up its glTF parents from the
animation channels' samplers, is the baked world matrix Blender evaluates, in glTF's +Y up
axes ((x, y, z) -> (x, z, -y): M_gltf = C M C^T).

Tolerance: glTF stores float32 (keys, accessors) and Blender's matrices are float32 (unit
round-off 6e-8); the compared matrices have entries of order 1 (lengths < 0.5 m) and come
from a quaternion and up to two composed transforms, so a few round-offs each: 2e-6 (30x).
"""
from __future__ import annotations

import json
import struct

import numpy as np
import pytest

import blender_scenes as bs

TOL = 2e-6
C = np.array([[1.0, 0, 0, 0], [0, 0, 1, 0], [0, -1, 0, 0], [0, 0, 0, 1]])   # Z up -> Y up
COMPONENTS = {5126: np.float32, 5123: np.uint16, 5125: np.uint32, 5121: np.uint8}
WIDTH = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4, "MAT4": 16}


def read_glb(path) -> tuple[dict, bytes]:
    """(JSON, binary chunk) of a .glb file (glTF 2.0 binary container)."""
    data = open(path, "rb").read()
    magic, version, length = struct.unpack_from("<4sII", data, 0)
    assert magic == b"glTF" and version == 2 and length == len(data)
    n, kind = struct.unpack_from("<I4s", data, 12)
    assert kind == b"JSON"
    doc = json.loads(data[20:20 + n])
    m, kind = struct.unpack_from("<I4s", data, 20 + n)
    assert kind == b"BIN\x00"
    return doc, data[28 + n:28 + n + m]


def accessor(doc: dict, blob: bytes, index: int) -> np.ndarray:
    """(count, width) float array of an accessor (tightly packed or strided)."""
    acc = doc["accessors"][index]
    view = doc["bufferViews"][acc["bufferView"]]
    dtype = np.dtype(COMPONENTS[acc["componentType"]])
    width = WIDTH[acc["type"]]
    start = view.get("byteOffset", 0) + acc.get("byteOffset", 0)
    stride = view.get("byteStride", width * dtype.itemsize)
    rows = [np.frombuffer(blob, dtype, width, start + k * stride) for k in range(acc["count"])]
    return np.array(rows, dtype=float).reshape(acc["count"], width)


def quat_matrix(q) -> np.ndarray:
    """3x3 rotation of a glTF quaternion (x, y, z, w)."""
    x, y, z, w = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
                     [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
                     [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]])


def sample(times: np.ndarray, values: np.ndarray, t: float) -> np.ndarray:
    """A LINEAR sampler at time t: the key itself where there is one (the exporter samples
    every frame), else the interpolation between equal keys (a channel it found constant)."""
    hit = np.flatnonzero(np.abs(times - t) < 1e-6)
    if hit.size:
        return values[hit[0]]
    assert np.allclose(values, values[0], atol=1e-7), "no key at t and the channel varies"
    return values[0]


def node_worlds(doc: dict, blob: bytes, t: float) -> dict[str, np.ndarray]:
    """Node name -> its 4x4 world matrix at time t: each node's TRS, animated channels of
    every animation sampled at t, composed down from the scene's roots."""
    trs = {i: {"translation": np.array(n.get("translation", (0.0, 0.0, 0.0))),
               "rotation": np.array(n.get("rotation", (0.0, 0.0, 0.0, 1.0))),
               "scale": np.array(n.get("scale", (1.0, 1.0, 1.0)))}
           for i, n in enumerate(doc["nodes"])}
    assert not any("matrix" in n for n in doc["nodes"])
    for anim in doc.get("animations", ()):
        for ch in anim["channels"]:
            s = anim["samplers"][ch["sampler"]]
            assert s.get("interpolation", "LINEAR") == "LINEAR"
            times = accessor(doc, blob, s["input"])[:, 0]
            trs[ch["target"]["node"]][ch["target"]["path"]] = sample(times, accessor(doc, blob, s["output"]), t)
    local = {}
    for i, p in trs.items():
        M = np.eye(4)
        M[:3, :3] = quat_matrix(p["rotation"]) * p["scale"]
        M[:3, 3] = p["translation"]
        local[i] = M
    out = {}

    def walk(i: int, parent: np.ndarray) -> None:
        W = parent @ local[i]
        out[doc["nodes"][i]["name"]] = W
        for c in doc["nodes"][i].get("children", ()):
            walk(c, W)

    for root in doc["scenes"][doc.get("scene", 0)]["nodes"]:
        walk(root, np.eye(4))
    return out


@pytest.mark.parametrize("fmt", ["GLB", "GLTF_SEPARATE"])
def test_gltf_export_carries_the_baked_motion(blender, tmp_path, fmt: str) -> None:
    """Every moving part's glTF node is at its baked world pose at frames 1, 5, 12, 18 and
    25; the parented rod is a child node of the piston's; the animation times are frame /
    fps as the exporter writes them."""
    bpy = blender
    d = bs.slider_crank(bpy)
    bs.parent_to(bpy, d["rod"], d["piston"])
    assert bpy.ops.mechanism.bake() == {"FINISHED"}
    path = tmp_path / ("crank.glb" if fmt == "GLB" else "crank.gltf")
    assert bpy.ops.export_scene.gltf(filepath=str(path), export_format=fmt,
                                     export_animations=True, export_yup=True) == {"FINISHED"}
    if fmt == "GLB":
        doc, blob = read_glb(path)
    else:
        doc = json.loads(path.read_text())
        blob = (tmp_path / doc["buffers"][0]["uri"]).read_bytes()
    names = [n["name"] for n in doc["nodes"]]
    piston = doc["nodes"][names.index("piston")]
    assert names.index("rod") in piston.get("children", ())
    animated = {doc["nodes"][c["target"]["node"]]["name"]
                for a in doc["animations"] for c in a["channels"]}
    assert {"crank", "rod", "piston"} <= animated
    fps = bpy.context.scene.render.fps / bpy.context.scene.render.fps_base
    for frame in (1, 5, 12, 18, 25):
        bpy.context.scene.frame_set(frame)
        worlds = node_worlds(doc, blob, frame / fps)
        for part in ("crank", "rod", "piston"):
            want = C @ np.array(bpy.data.objects[part].matrix_world) @ C.T
            np.testing.assert_allclose(worlds[part], want, rtol=0, atol=TOL,
                                       err_msg=f"frame {frame}: {part}")
    # the motion is really there: half a turn of the crank at t = 0.5 s (frame 13)
    start, half = (node_worlds(doc, blob, f / fps)["crank"][:3, 0] for f in (1, 13))
    np.testing.assert_allclose(half / np.linalg.norm(half), -start / np.linalg.norm(start), atol=1e-5)
