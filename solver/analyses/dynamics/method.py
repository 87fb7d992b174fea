"""Which integrator a dynamic run takes: the explicit Dormand-Prince pairs unless the force
elements make the constrained system stiff, and a forced explicit run refused where its
stability alone would ask for more steps than a run should take."""
from __future__ import annotations

from typing import Any

from ...base.errors import SolverError
from ...integrators.implicit import stiffness_rate

STIFF_RATE = 300.0           # 1/s: above it "auto" takes the implicit method
EXPLICIT_STABILITY = 6.0     # h |lambda| Dormand-Prince 8(5,3) stays stable within
EXPLICIT_STEP_LIMIT = 2e4    # stability-bound steps a forced explicit run may need


def choose_method(sysm: Any, t: float, r, p, v, w, method: str, model: Any = None,
                  span: float = 0.0) -> str:
    """"explicit" unless the force elements make the constrained system stiff: its fastest
    rate under their stiffness and damping (``stiffness_rate``, the largest |lambda| of the
    linearized constrained motion) exceeds STIFF_RATE 1/s, above which Dormand-Prince
    8(5,3)'s stability (h |lambda| up to about 6) would hold its step under 0.02 s, about
    the accuracy step of an ordinary mechanism at the default tolerance.  ``sysm``: the
    run's Equations, or a function making them for ``model`` (a study's variants).

    ``method`` "explicit" forced on a run of ``span`` seconds whose rate would take more
    than EXPLICIT_STEP_LIMIT steps for stability alone (a damper overdamped a millionfold:
    steps of 3 us, minutes a frame) is a SolverError naming the force elements and the
    steps, not a run that seems to hang."""
    if method not in ("auto", "explicit"):
        return method
    mdl = sysm.m if model is None else model
    if mdl.forces.empty or (method == "explicit" and span <= 0.0):
        return "explicit" if method == "auto" else method
    eq = sysm if model is None else sysm()
    rate = stiffness_rate(eq, t, r, p, v, w)
    if method == "auto":
        return "implicit" if rate > STIFF_RATE else "explicit"
    refuse_explicit(mdl, rate, span, t)
    return method


def refuse_explicit(model: Any, rate: float, span: float, t: float) -> None:
    """SolverError when the explicit method's stability bound h <= EXPLICIT_STABILITY / rate
    (rate 1/s) asks for more than EXPLICIT_STEP_LIMIT steps over ``span`` seconds."""
    steps = rate * span / EXPLICIT_STABILITY
    if not steps > EXPLICIT_STEP_LIMIT:
        return
    fm = model.forces
    names = list(fm.sd_names) + list(fm.ts_names) + list(fm.bu_names) + list(fm.vf_names)
    items = ", ".join(repr(n) for n in names[:6]) + (", ..." if len(names) > 6 else "")
    raise SolverError(
        f"method 'explicit': the stiffness and damping of the force elements ({items}) "
        f"give the mechanism a rate of {rate:.3g} 1/s, so the explicit method stays "
        f"stable only in steps under {EXPLICIT_STABILITY / rate:.3g} s: at least "
        f"{steps:,.0f} steps for this {span:.6g} s run; use method 'implicit' (or "
        "'auto', which takes it here)", t, tuple(names))
