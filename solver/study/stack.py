"""Many variants' models as one: ``stack_models`` puts the numbers that differ
between the compiled models of a study's variants (masses, inertias, marker points, spring
rates, gravity, the couplers' and curve joints' numbers) on a leading variant axis, so that
the kernels, force elements and J M^-1 J^T solves, which carry leading axes through, give
every variant's equations in one set of numpy calls; motions, loads and actuators whose
functions differ become per-variant functions (``_PerVariant``, ``_PerVariantActuator``);
``take_variants`` picks some variants of a stack.  Used by the lockstep run (lockstep.py) and the sweep of variants (engine.py,
analyses/sweep/)."""
from __future__ import annotations

import dataclasses

import numpy as np

from ..model.compile import Model
from ..model.state import State

_SHARED_OK = ("marker_body", "marker_point", "marker_axes", "fixed_parts", "length_scale",
              "motion_functions", "body_rounding")


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return np.shape(a) == np.shape(b) and bool(np.array_equal(a, b))
    if isinstance(a, (tuple, list)) and isinstance(b, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    try:                 # (objects that hold arrays, e.g. curves: the same objects only)
        return bool(a == b)
    except (ValueError, TypeError):
        return False


def _stack_fields(objs: list, skip: tuple = (), axes: int = 0) -> dict | None:
    """{field: stacked array (V, 1 x axes, ...)} for the float array fields that differ
    between the dataclasses ``objs``; None if another field differs (not the same
    topology)."""
    out = {}
    for f in dataclasses.fields(objs[0]):
        if f.name in skip:
            continue
        vals = [getattr(o, f.name) for o in objs]
        a0 = vals[0]
        if all(v is a0 for v in vals):
            continue
        x = None
        if isinstance(a0, np.ndarray) and a0.dtype.kind in "biuf" and all(
                isinstance(v, np.ndarray) and v.dtype == a0.dtype and v.shape == a0.shape
                for v in vals):      # numbers: compared at once (as _same, NaN differs)
            x = np.stack(vals)
            if bool((x == a0).all()):
                continue
        elif all(_same(a0, v) for v in vals[1:]):
            continue
        if x is not None and a0.dtype.kind == "f":
            out[f.name] = x.reshape(x.shape[:1] + (1,) * axes + x.shape[1:])
        else:
            return None
    return out


def _stack_groups(lists: list, axes: int) -> tuple | None:
    """The RowGroups of each model's list (the same groups in the same order), each with
    the numbers that differ stacked (_stack_fields); None if anything else differs."""
    out = []
    for gs in zip(*lists):
        g = _stack_fields(list(gs), axes=axes)
        if g is None:
            return None
        out.append(dataclasses.replace(gs[0], **g))
    return tuple(out)


def _same_functions(lists: list[list]) -> bool:
    """Every list holds the same functions in the same places: the same objects, or the
    same expression with the same constants (what pickles them)."""
    def key(fn):
        if fn is None:
            return None
        try:
            return repr(fn.__reduce__())
        except TypeError:          # a Python callable: the same object only
            return id(fn)
    first = [key(fn) for fn in lists[0]]
    return all(len(fs) == len(first) and all(f is g or key(f) == k
                                             for f, g, k in zip(fs, lists[0], first))
               for fs in lists[1:])


def stack_models(models: list[Model], axes: int = 0, motions: bool = True,
                 switched: bool = False) -> Model | None:
    """One Model whose numbers that differ between ``models`` carry a leading variant axis
    (V, ...), for the equations of all variants at once (``axes`` more axes of length one
    after it: (V, 1, ...) broadcasts against states (V, frames, ...)); None when they differ
    in anything but numbers, or have features the batched run leaves to separate runs.
    Motions and applied loads whose functions differ between the variants (a motion's or a
    load's constant varied) get one ``_PerVariant`` function each, which evaluates every
    variant's own at its own time (the lockstep run's times: one per variant; a sweep's one
    time for all, ``value``), and such actuators one ``_PerVariantActuator`` each (each
    variant's own at its own state); ``motions`` False: the motions left as the first's (a
    sweep tabulates each variant's own).  Couplers and curve joints are stacked too: their
    tracked values (turns, contact parameters) are run state each caller carries for each
    variant.  ``switched``: stops and friction too (a sweep's: no events; the lockstep
    runs' compliant stops), their numbers stacked, each stop the same kind (rigid or
    compliant) in every variant."""
    m0 = models[0]
    if not switched and any(m.limits is not None or m.frictions is not None for m in models):
        return None
    if any(any((getattr(m, f) is None) != (getattr(m0, f) is None) for m in models)
           for f in ("couplers", "curves", "limits", "frictions")):
        return None
    contacts = None
    if any(m.forces.contacts is not None for m in models):
        contacts = _stack_contacts([m.forces.contacts for m in models], axes)
        if contacts is None:
            return None
    same_loads = _same_functions([[f for fs in m.forces.ld_funcs for f in fs] for m in models])
    acts = [list(m.forces.sd_act) + list(m.forces.ts_act) for m in models]
    same_acts = _same_functions(acts)
    if any((a is None) != (b is None) for fs in acts[1:] for a, b in zip(fs, acts[0])):
        return None          # an element with an actuator in some variants only
    fm0 = m0.forces
    top = _stack_fields(models, ("plan", "forces", "couplers", "curves", "limits", "frictions")
                        + _SHARED_OK, axes)
    forces = _stack_fields([m.forces for m in models],
                           ("sd_act", "ts_act", "ld_funcs", "contacts"), axes)
    if top is None or forces is None:
        return None
    groups = _stack_groups([m.plan.groups for m in models], axes)
    vecs = _stack_fields([m.plan for m in models], ("groups",), axes)   # the turned vectors
    if groups is None or vecs is None:
        return None
    plan = dataclasses.replace(m0.plan, groups=groups, **vecs)
    # the plans of couplers (coordinate rows, q0, scales; the pitch radii are the Results'
    # own models'), curve joints (marker frames; the curves shared), stops (bounds, laws:
    # each the same kind in every variant) and friction (coefficients, levers, markers)
    for name, skip in (("couplers", ("coords", "mesh", "radii")), ("curves", ()), ("limits", ()),
                       ("frictions", ())):
        if getattr(m0, name) is None:
            continue
        plans = [getattr(m, name) for m in models]
        fields = _stack_fields(plans, skip, axes)
        if name == "couplers" and fields is not None:
            coords = _stack_groups([cp.coords for cp in plans], axes)
            mesh = _stack_groups([cp.mesh for cp in plans], axes)
            if any(len(cp.mesh) != len(plans[0].mesh) for cp in plans):
                mesh = None
            fields = (None if coords is None or mesh is None
                      else dict(fields, coords=coords, mesh=mesh))
        if name == "limits" and any(not np.array_equal(lm.compliant, plans[0].compliant)
                                    for lm in plans):
            fields = None
        if fields is None:
            return None
        top[name] = dataclasses.replace(plans[0], **fields)
    fm = dataclasses.replace(fm0, **forces, **({} if contacts is None else
                                                {"contacts": contacts}))
    if not same_acts:                   # each variant's own actuator at its own state
        def own(kind: str) -> list:
            return [None if a is None else _PerVariantActuator(
                [getattr(m.forces, kind)[i] for m in models])
                for i, a in enumerate(getattr(fm0, kind))]
        fm = dataclasses.replace(fm, sd_act=own("sd_act"), ts_act=own("ts_act"))
    if not same_loads:                  # each variant's own force at its own time
        fm = dataclasses.replace(fm, ld_funcs=[
            [_PerVariant([m.forces.ld_funcs[i][j] for m in models], axes)
             for j in range(len(fs))] for i, fs in enumerate(fm0.ld_funcs)])
    if motions and not _same_functions([m.motion_functions for m in models]):
        top["motion_functions"] = tuple(_PerVariant([m.motion_functions[i] for m in models])
                                        for i in range(len(m0.motion_functions)))
    return dataclasses.replace(m0, plan=plan, forces=fm, **top)


# a contact plan's numbers a study may vary (the force law's, per point)
_CONTACT_LAW = ("law", "stiffness", "exponent", "damping", "static", "dynamic", "slip_speed")


def _stack_contacts(plans: list, axes: int):
    """The contact plans of the variants as one, their force laws' numbers stacked; None
    unless all else (points, shapes, grids) is the same in every variant."""
    if any(p is None for p in plans):
        return None
    # (the points' clusters follow from their points and reach, compared with the rest)
    fields = _stack_fields(plans, ("grids", "profiles", "clusters"), axes)
    if fields is None or set(fields) - set(_CONTACT_LAW):
        return None
    for name in ("grids", "profiles"):
        sets = [getattr(p, name) for p in plans]
        if any((s is None) != (sets[0] is None) for s in sets):
            return None
        if sets[0] is not None and _stack_fields(sets) != {}:
            return None
    return dataclasses.replace(plans[0], **fields)


class _PerVariant:
    """One motion, or one component of an applied load, of a stacked model whose function
    differs between the variants (a constant varied): table(t) with one time per variant,
    t (V,), evaluates each variant's own function at its own time (equal functions once
    for all that share them), values(t) its value alone (a load's); value(t), one time for
    all (a sweep's frame), each variant's own value there, shaped (V, 1 x axes) as the
    stacked model's numbers are."""

    def __init__(self, functions: list, axes: int = 0) -> None:
        self.functions, self.axes = functions, axes
        keys: dict = {}
        for v, fn in enumerate(functions):
            keys.setdefault(id(fn), []).append(v)
        self.groups = [(functions[vs[0]], np.array(vs)) for vs in keys.values()]

    def value(self, t: float) -> np.ndarray:
        out = np.empty(len(self.functions))
        for fn, vs in self.groups:
            out[vs] = fn.value(t)
        return out.reshape((-1,) + (1,) * self.axes)

    def values(self, ts: np.ndarray) -> np.ndarray:
        """(V,): variant v's function's value at ts[v] (TimeFunction.values)."""
        return self._each(ts, lambda fn, t: fn.values(t), ())

    def table(self, ts: np.ndarray) -> np.ndarray:
        """(V, 3): f, df/dt, d2f/dt2 of variant v's function at ts[v]."""
        return self._each(ts, lambda fn, t: fn.table(t), (3,))

    def _each(self, ts: np.ndarray, get, tail: tuple) -> np.ndarray:
        ts = np.asarray(ts, dtype=float).reshape(-1)
        if len(ts) != len(self.functions):
            raise ValueError("a per-variant function needs one time per variant")
        out = np.empty((len(ts),) + tail)
        for fn, vs in self.groups:
            out[vs] = get(fn, ts[vs])
        return out


class _PerVariantActuator:
    """One actuator of a stacked model whose function differs between the variants (its
    constant varied): ``each(n)`` the n functions of a stack of n states, one per variant
    in order (kernels/forces.py _law: the lockstep run's states, one per variant, or a
    sweep's frame of all variants, (V, 1))."""

    def __init__(self, functions: list) -> None:
        self.functions = functions

    def each(self, n: int) -> list:
        if n != len(self.functions):
            raise ValueError("a per-variant actuator needs one state per variant")
        return self.functions


def take_variants(stacked: Model, base: Model, idx: np.ndarray, own: bool = False) -> Model:
    """The model of variants ``idx`` (repeats allowed) of ``stacked``, a stack_models of
    models whose first is ``base``: its stacked numbers taken along the variant axis, the
    shared ones as they are (a stacked field is a new array, a shared one ``base``'s
    own).  For its constraint rows (a sweep's Newton) the force elements' per-variant
    functions stay the whole stack's; ``own``: they and the motions' are taken too (each
    of the variants ``idx`` its own: a lockstep call on some variants, lockstep.py)."""
    def pick(obj, ref, skip=()):
        ch = {f.name: getattr(obj, f.name)[idx] for f in dataclasses.fields(obj)
              if f.name not in skip and isinstance(getattr(obj, f.name), np.ndarray)
              and getattr(obj, f.name) is not getattr(ref, f.name)}
        return dataclasses.replace(obj, **ch) if ch else obj

    def pick_groups(gs, gs0):
        return tuple(pick(g, g0) for g, g0 in zip(gs, gs0))

    plan = dataclasses.replace(pick(stacked.plan, base.plan, ("groups",)),
                               groups=pick_groups(stacked.plan.groups, base.plan.groups))
    more = {}
    if stacked.couplers is not None:
        cp, cp0 = stacked.couplers, base.couplers
        more["couplers"] = dataclasses.replace(pick(cp, cp0, ("coords", "mesh")),
                                               coords=pick_groups(cp.coords, cp0.coords),
                                               mesh=pick_groups(cp.mesh, cp0.mesh))
    if stacked.curves is not None:
        more["curves"] = pick(stacked.curves, base.curves)
    for name in ("frictions", "limits"):
        if getattr(stacked, name) is not None:
            more[name] = pick(getattr(stacked, name), getattr(base, name))
    forces = pick(stacked.forces, base.forces)
    if own:
        more.update(_own_functions(stacked, forces, idx))
        forces = more.pop("forces")
    if stacked.forces.contacts is not None:
        forces = dataclasses.replace(forces, contacts=pick(stacked.forces.contacts,
                                                           base.forces.contacts))
    return dataclasses.replace(pick(stacked, base, ("plan", "forces", "couplers", "curves",
                                                    "frictions", "limits")),
                               plan=plan, forces=forces, **more)



def _own_functions(stacked: Model, forces, idx: np.ndarray) -> dict:
    """{"forces": ``forces`` with its per-variant loads and actuators those of the variants
    ``idx``, "motion_functions" likewise (if per-variant)}: take_variants' ``own``."""
    def take(fn):
        if isinstance(fn, _PerVariant):
            return _PerVariant([fn.functions[v] for v in idx.tolist()], fn.axes)
        if isinstance(fn, _PerVariantActuator):
            return _PerVariantActuator([fn.functions[v] for v in idx.tolist()])
        return fn
    fm = stacked.forces
    ch = {}
    if any(isinstance(f, _PerVariant) for fs in fm.ld_funcs for f in fs):
        ch["ld_funcs"] = [[take(f) for f in fs] for fs in fm.ld_funcs]
    for kind in ("sd_act", "ts_act"):
        if any(isinstance(a, _PerVariantActuator) for a in getattr(fm, kind)):
            ch[kind] = [take(a) for a in getattr(fm, kind)]
    out = {"forces": dataclasses.replace(forces, **ch) if ch else forces}
    if any(isinstance(fn, _PerVariant) for fn in stacked.motion_functions):
        out["motion_functions"] = tuple(take(fn) for fn in stacked.motion_functions)
    return out
