"""A start at a singular position of the joints: a parallelogram drawn with its links lined
up, where the crossed (anti-parallelogram) branch meets the parallel one.  There the joints'
equations lose rank, so the redundant rows found at the start include one that is
independent everywhere near it; an analysis that dropped it would let that joint come
apart as soon as the mechanism moves (a dynamic run from a flat parallelogram opened its
fourth pivot by 0.56 m).  Which branch the mechanism takes from such a position is not
decided by its first-order motion, so the run and check() refuse it, naming the joints,
as they refuse a general motion's target that starts on the edge of its reach."""
from __future__ import annotations

import numpy as np

from ...algebra.newton import NEWTON_TOL, RANK_TOL, step_pose
from ...algebra.rank import independent_rows, involved
from ...kernels.constraints import body_arrays, evaluate, global_jacobian, motion_values
from ...model.compile import Model
from .assembly import last_jacobian, least_movement
from ..structure import Structure, structure

# the probe's random move, as a share of the model's size (rotations times the part's
# length): far above the rank test's RANK_TOL (1e-6) in what it adds to a row lined up at
# the start, and small enough to stay on the branches that meet there
PROBE = 1e-3
# a start singular up to the inputs' rounding is probed this many times the rank test's
# share away (rounded_singular): the lost row, independent there by about that share, is
# found far above the test, and the parts turn by a few degrees at most
PROBE_ROUNDED = 10.0
# the assembly's Newton stops short of a singular position it closes onto: its residual is
# quadratic in the lost direction there, so the stopping rule's NEWTON_TOL (1e-12) leaves
# the pose some sqrt(NEWTON_TOL / c) off it, c the fold's curvature over the model's size
# (a parallelogram of 1 m cranks in a 3 m model: 2.8e-6 rad, its lost row new by a share of
# 2e-6 to 4e-6, above RANK_TOL); the start is ranked at 100 sqrt(NEWTON_TOL), for folds down
# to c = 1e-4, and probed at PROBE, ten times that share
ASSEMBLED = 1e-4


def singular_start(model: Model, st: Structure, r: np.ndarray, p: np.ndarray, t: float,
                   track: np.ndarray | None = None, jac: np.ndarray | None = None
                   ) -> tuple[str, tuple[str, ...]]:
    """('', ()) unless the assembled start (r, p) is a singular position of the joints
    (``nearby_structure``; up to the inputs' rounding, ``rounded_singular``; within the
    assembly's accuracy, ``assembled_singular``); else the message and the joints
    involved.  ``jac``: the rows' Jacobian blocks at (r, p) where the caller has them."""
    near, how = nearby_structure(model, st, r, p, t, track), ""
    if near is None:
        near, st = rounded_singular(model, st, r, p, t, track)
        how = " up to the rounding of its inputs"
    if near is None:
        near, st = assembled_singular(model, st, r, p, t, track, jac)
        how = ""
    if near is None:
        return "", ()
    jrows = model.constraint_rows
    independent = np.intersect1d(near.keep, jrows)
    lost = independent.size - np.intersect1d(st.keep, jrows).size
    J = global_jacobian(model, evaluate(model, *body_arrays(model, r, p)[:2], ref=track).jac)
    joints = involved(model, J, independent) or tuple(
        dict.fromkeys(model.joint_names[model.row_joint[k]] for k in st.redundant
                      if model.row_joint[k] >= 0))
    named = ", ".join(map(repr, joints))
    return (f"the mechanism starts at a singular position{how} at t = {t:.6g} s: joints {named} "
            f"are lined up ({lost} of their equations, independent everywhere near it, are "
            "dependent there), so the way it moves from there is undecided (a "
            "parallelogram lined up may go on parallel or crossed) and a run would let a "
            "joint come apart; build it a little off this position, the way it should "
            f"move{_driving(model, joints)}"), joints


def _driving(model: Model, joints: tuple[str, ...]) -> str:
    """What else to do where motions of the ``joints`` place them: start those motions a
    little off the position (built off it, the motion's value at the start would put the
    parts back on it); empty where none drives them."""
    names = [model.motion_names[k] for k, joint in enumerate(model.motion_joints)
             if joint in joints]
    if not names:
        return ""
    return (f", or start motion {', '.join(map(repr, dict.fromkeys(names)))} a little off "
            "it (its value at the start places the parts there)")


def nearby_structure(model: Model, st: Structure, r: np.ndarray, p: np.ndarray, t: float,
                     track: np.ndarray | None = None) -> Structure | None:
    """None unless the assembled start (r, p) is a singular position of the joints; else
    the structure at a pose near it, whose rows are the independent ones everywhere near
    it.  The start's structure ``st`` has redundant rows; the parts are moved at random by
    PROBE of the model's size and closed onto the joints again (least movement): where
    more joint rows are independent there than at the start, the start is singular (a
    mechanism whose redundancy is that of its loops, a planar four-bar's three rows, has
    the same rank everywhere near its start)."""
    if not st.redundant.size or not model.nb:
        return None
    jrows = model.constraint_rows
    near = _nearby(model, r, p, t, jrows)
    if near is None:
        return None
    rn, pn, tn, jac = near
    # the joint rows' rank there first (structure's first test): the whole structure only
    # where it is higher, the common answer known without ranking the motions too
    if jac is None:
        jac = evaluate(model, *body_arrays(model, rn, pn)[:2], ref=tn).jac
    ranked = independent_rows(model, global_jacobian(model, jac), jrows)
    if ranked.size <= np.intersect1d(st.keep, jrows).size:
        return None
    return structure(model, rn, pn, ref=tn, jac=jac)


def rounded_singular(model: Model, st: Structure, r: np.ndarray, p: np.ndarray, t: float,
                     track: np.ndarray | None = None) -> tuple[Structure | None, Structure]:
    """(structure near it, structure at the start) when the assembled start (r, p) is a
    singular position of the joints up to the rounding of its inputs (Model.row_rounding:
    Blender's float32, each row its own mechanism's), else (None, ``st``).  The rounding's length mismatch folds a
    lined-up parallelogram off its line by sqrt(2 r delta), so the row it loses there is
    independent at the start by a share of about sqrt(input_rounding) (one built in Blender
    about (1.7, 0.9, 0.3): 4.0e-4, its rounding 1.3e-6); both poses are ranked at twice
    sqrt(2 input_rounding), as a motion's dead centre (general_motions.py), the pose near
    it PROBE_ROUNDED times that away (there the row is independent by about that share: 10
    times the test's).  For a sound mechanism this is one more rank test, no solve."""
    if model.input_rounding <= 0.0 or not model.nb:
        return None, st
    tol = np.maximum(RANK_TOL, np.sqrt(8.0 * model.row_rounding))              # (nc,)
    jrows = model.constraint_rows
    loose = structure(model, r, p, tol, track)
    kept = np.intersect1d(loose.keep, jrows).size
    if kept >= np.intersect1d(st.keep, jrows).size:
        return None, st
    own = np.maximum(RANK_TOL, np.sqrt(8.0 * np.asarray(model.body_rounding)))  # (nb,)
    near = _nearby(model, r, p, t, jrows, np.maximum(PROBE, PROBE_ROUNDED * own))
    if near is None:
        return None, st
    found = structure(model, near[0], near[1], tol, near[2], near[3])
    return (found, loose) if np.intersect1d(found.keep, jrows).size > kept else (None, st)


def assembled_singular(model: Model, st: Structure, r: np.ndarray, p: np.ndarray, t: float,
                       track: np.ndarray | None = None, jac: np.ndarray | None = None
                       ) -> tuple[Structure | None, Structure]:
    """(structure near it, structure at the start) when the assembled start (r, p) is a
    singular position of the joints within what the assembly's Newton can tell (ASSEMBLED:
    it stops short of one by the square root of its tolerance), else (None, ``st``).  Both
    the start and a pose PROBE away are ranked at ASSEMBLED: where the start loses a row
    that the pose near it keeps, it is on a singular position (a motion starting a
    parallelogram's crank on its line).  For a sound mechanism with redundant rows this is
    one more rank test, no solve (``jac``: the rows' Jacobian blocks at (r, p) where the
    caller has them, the assembly's)."""
    if not st.redundant.size or not model.nb:
        return None, st
    jrows = model.constraint_rows
    if jac is None:
        jac = evaluate(model, *body_arrays(model, r, p)[:2], ref=track).jac
    # the rows kept at the start, ranked again (in one Cholesky where all are clear of it)
    rows = np.intersect1d(st.keep, jrows)
    kept = independent_rows(model, global_jacobian(model, jac), rows, ASSEMBLED).size
    if kept >= rows.size:
        return None, st
    near = _nearby(model, r, p, t, jrows)
    if near is None:
        return None, st
    found = structure(model, near[0], near[1], ASSEMBLED, near[2], near[3])
    if np.intersect1d(found.keep, jrows).size <= kept:
        return None, st
    return found, structure(model, r, p, ASSEMBLED, track)


def _nearby(model: Model, r: np.ndarray, p: np.ndarray, t: float, jrows: np.ndarray,
            probe: float | np.ndarray = PROBE):
    """A pose (r, p, tracked values, the rows' Jacobian blocks there or None: assembly.py
    ``last_jacobian``) on the joints near (r, p): the parts moved at random (a fixed seed:
    the same answer every time) by ``probe`` (one, or (nb,) each body's) of the size of
    the mechanism each is in (Model.body_size: not of a larger one beside it) and closed
    onto the joint rows by the least movement; None when they do not close (imperfect
    geometry whose redundant rows disagree)."""
    rng = np.random.default_rng(20230901)
    move = rng.standard_normal((model.nb, 6))
    move /= np.abs(move).max()
    size = (probe * np.asarray(model.body_size))[:, None]                      # (nb, 1) m
    dr = move[:, :3] * size
    turn = move[:, 3:] * (size / np.asarray(model.body_length)[:, None])
    r1, p1 = step_pose(r, p, np.concatenate([dr, turn], axis=1).ravel())
    out = least_movement(model, r1, p1, motion_values(model, t), jrows, 60)
    if not out.ok or out.err > NEWTON_TOL:
        return None
    return (*out.x, out.data[0].track, last_jacobian(model, out))
