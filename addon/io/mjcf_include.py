"""MJCF ``<include file>`` elements expanded without Blender: each is replaced by the
children of the ``<mujoco>`` root of the file it names, found beside the file that
includes it or beside the main model (MuJoCo's XML reference, "include"); nested includes
are expanded in turn and a file that includes itself is refused.  Elements from an
included file keep their lines in that file.  Errors are ``UrdfError`` (the XML layer's
error, with the line of the ``<include>``), which the MJCF reader names as its own.
"""
from __future__ import annotations

import os

from .urdf import Element, UrdfError, parse_xml


def with_includes(root: Element, folders: list[str], seen: frozenset = frozenset()) -> Element:
    """``root`` with every ``<include>`` in it replaced by what the file holds; ``folders``
    are searched in order for the file named (the including file's first)."""
    children: list[Element] = []
    for c in root.children:
        if c.tag == "include":
            children += included(c, folders, seen)
        else:
            children.append(with_includes(c, folders, seen))
    return Element(root.tag, root.attrib, root.line, children)


def included(e: Element, folders: list[str], seen: frozenset) -> list[Element]:
    """The children of the ``<mujoco>`` root of the file ``e`` names, expanded."""
    name = e.attrib.get("file")
    if not name:
        raise UrdfError("<include> needs the attribute 'file'", e.line)
    found = [os.path.join(f, name) for f in folders if os.path.isfile(os.path.join(f, name))]
    if not found:
        raise UrdfError(f"<include file={name!r}>: no such file (looked in "
                        f"{', '.join(dict.fromkeys(folders))})", e.line)
    path = os.path.realpath(found[0])
    if path in seen:
        raise UrdfError(f"<include file={name!r}> includes itself", e.line)
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        root = parse_xml(text)
    except UrdfError as exc:
        raise UrdfError(f"<include file={name!r}>: {exc}", e.line) from None
    if root.tag != "mujoco":
        raise UrdfError(f"<include file={name!r}>: its root is <{root.tag}>, not <mujoco>", e.line)
    return with_includes(root, [os.path.dirname(path)] + folders, seen | {path}).children
