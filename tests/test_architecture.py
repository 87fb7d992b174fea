"""The structure docs/architecture.md describes, read from the source: the solver's layers
import one way only, no module of solver/ or addon/ is part of an import loop, the solver
never imports Blender, and no module grows past 600 lines.  Imports inside functions count
(they tie modules together all the same)."""
from __future__ import annotations

import ast
import glob
import os

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# solver layers, lowest first: a module may import its own layer and the ones before it
LAYERS = ["base", "vocabulary", "model", "kernels", "algebra", "integrators", "analyses", "study",
          "mechanism", "__init__"]


def modules(pkg: str) -> dict[str, str]:
    """Dotted module name (relative to the package, e.g. 'model.compile') -> file path."""
    out = {}
    base = os.path.join(ROOT, pkg)
    for folder, _, files in os.walk(base):
        for f in files:
            if f.endswith(".py"):
                rel = os.path.relpath(os.path.join(folder, f), base)[:-3].replace(os.sep, ".")
                out[rel] = os.path.join(folder, f)
    return out


def imports(pkg: str, name: str, path: str, known: dict[str, str]) -> set[str]:
    """The package's own modules that module ``name`` imports (relative or absolute)."""
    tree = ast.parse(open(path, encoding="utf-8").read())
    here = name.split(".")
    package = here[:-1] if not name.endswith("__init__") else here[:-1]
    found: set[str] = set()

    def add(target: list[str]) -> None:
        dotted = ".".join(t for t in target if t)
        for cand in (dotted, dotted + ".__init__" if dotted else "__init__"):
            if cand in known and cand != name:
                found.add(cand)
                return

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):       # above the package (e.g. ..solver)
                    continue
                mod = base + (node.module.split(".") if node.module else [])
            elif node.module and node.module.split(".")[0] == pkg:
                mod = node.module.split(".")[1:]
            else:
                continue
            if ".".join(mod) in known or ".".join(mod) + ".__init__" in known:
                add(mod)
            for alias in node.names:          # from .pkg import module
                sub = mod + [alias.name]
                if ".".join(sub) in known:
                    add(sub)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == pkg:
                    add(parts[1:])
    return found


def graph(pkg: str) -> dict[str, set[str]]:
    known = modules(pkg)
    return {m: imports(pkg, m, p, known) for m, p in known.items()}


def cycles(g: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in g:
        if v not in index:
            visit(v)
    return out


def layer(module: str) -> int:
    head = module.split(".")[0]
    return LAYERS.index(head)


def test_the_reader_sees_imports() -> None:
    """The import reader itself: known edges of the solver are found (relative, nested and
    inside functions), so the tests below cannot pass by reading nothing."""
    g = graph("solver")
    assert "model.compile" in g["kernels.constraints"]
    assert "base.rotations" in g["kernels.constraints"]
    assert "analyses.run" in g["mechanism"]
    assert "mechanism" in g["__init__"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


@pytest.mark.parametrize("pkg", ["solver", "addon"])
def test_no_import_loops(pkg: str) -> None:
    assert cycles(graph(pkg)) == []


def test_solver_layers_import_one_way() -> None:
    """Every solver module is in a layer, and imports only its own layer or lower ones."""
    bad = []
    for mod, deps in graph("solver").items():
        assert mod.split(".")[0] in LAYERS, f"solver/{mod.replace('.', '/')}.py is in no layer"
        for d in deps:
            if layer(d) > layer(mod):
                bad.append(f"{mod} -> {d}")
    assert bad == []


def test_solver_never_imports_blender_or_the_addon() -> None:
    for mod, path in modules("solver").items():
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level else [])
            for n in names:
                assert n.split(".")[0] not in ("bpy", "mathutils", "bmesh", "addon"), (mod, n)
            if isinstance(node, ast.ImportFrom) and node.level >= 2 and node.level > mod.count(".") + 1:
                raise AssertionError(f"solver/{mod}: relative import leaves the solver package")


@pytest.mark.parametrize("pkg", ["solver", "addon", "tests", "bench", "sample_scenes"])
def test_no_module_over_600_lines(pkg: str) -> None:
    long = {m: n for m, p in modules(pkg).items() if (n := sum(1 for _ in open(p, encoding="utf-8"))) > 600}
    assert long == {}


def test_the_addon_uses_the_solvers_public_api_only() -> None:
    """Every add-on module imports the solver as ``from ..solver import ...`` (the names of
    solver/__init__.py's ``__all__``), never a submodule such as ``solver.model.compile``:
    one boundary, so the solver's inside can move without touching the add-on."""
    import solver
    bad = []
    for name, path in modules("addon").items():
        tree = ast.parse(open(path, encoding="utf-8").read())
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module:
                parts = node.module.split(".")
                if "solver" in parts and parts[-1] != "solver":
                    bad.append(f"addon.{name}: from {'.' * node.level}{node.module} import ...")
                elif parts[-1] == "solver":
                    bad += [f"addon.{name}: {a.name} is not in solver.__all__"
                            for a in node.names if a.name not in solver.__all__]
            elif isinstance(node, ast.Import):
                bad += [f"addon.{name}: import {a.name}" for a in node.names
                        if a.name.startswith("solver.")]
    assert not bad, bad


def test_not_blender_leaves_out_every_test_that_runs_blender() -> None:
    """`-m "not blender"` is documented to leave out the real-Blender tier: every test that
    takes the `blender` or `extension` fixture, whatever its file's name, is deselected."""
    import subprocess
    import sys
    tests = os.path.join(ROOT, "tests")
    uses = {}
    for path in sorted(glob.glob(os.path.join(tests, "test_*.py"))):
        if os.path.basename(path).startswith("test_addon_"):
            continue
        for node in ast.parse(open(path, encoding="utf-8").read()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_") and \
                    {a.arg for a in node.args.args} & {"blender", "extension"}:
                uses.setdefault(path, []).append(node.name)
    assert uses, "no test outside test_addon_*.py takes the blender fixture: nothing to check"
    out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-m",
                          "not blender", "-p", "no:cacheprovider", *uses], cwd=ROOT,
                         capture_output=True, text=True, timeout=300).stdout
    kept = [name for names in uses.values() for name in names if f"::{name}" in out]
    assert not kept, kept
