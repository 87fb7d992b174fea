"""Results of an analysis: per-frame body states, multipliers, reactions and efforts,
read by part, joint, motion or marker name."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..base.einsum import einsum
from ..base.errors import MechanismError, unknown
from ..base.rotations import congruence, continuous_quats, cross, quat_to_matrix
from .readouts import (actuator_efforts, bushing_displacement, bushing_load, contact_index,
                       general_motion_load, general_motion_torque, report_progress,
                       spring_readout, torsion_readout, vector_force_load)
from .gear_mesh import mesh_numbers, pitch_radii, separation
from .impacts import Impact
from .reactions import all_joint_reactions
from .kept import kept_quantities, named_rows, needed_by_run, not_kept
from .state import State


FRICTION_EVENT_KINDS = ("stick", "slip", "reverse")     # Result.friction_events' kinds


class Result:
    """Output frames of one analysis.  Positions are of the part-frame origin, orientations
    (w, x, y, z) of the part frame, all vectors in world axes, SI units.  ``kept``: the
    quantities stored (model/kept.py; what ``keep`` asked for and what the run's end
    reads); the arrays of the others are None and reading them raises MechanismError."""

    def __init__(self, model: Any, times: np.ndarray, analysis: str = "kinematic",
                 keep: Any = None) -> None:
        n, nb = len(times), model.nb
        self.model = model
        self.kept = kept_quantities(keep) | needed_by_run(model, analysis)

        def zeros(quantity: str, shape: tuple) -> np.ndarray | None:
            return np.zeros(shape) if quantity in self.kept else None
        self.analysis = analysis
        self.method = "kinematic sweep (Newton on blocks of frames)" if analysis == "kinematic" else ""
        self.steps = 0                       # integrator steps taken (dynamic runs)
        self.notes: list[str] = []           # things the user should know about this result
        # the joints whose reactions redundant equations leave to a least-norm share, each
        # with the components moved (0-5: Fx, Fy, Fz, Tx, Ty, Tz, world axes at the start)
        self.shared_reactions: dict[str, tuple[int, ...]] = {}
        self.impacts: list[Impact] = []      # each impact at rigid stops (model/impacts.py)
        self._friction = np.zeros((n, len(model.frictions.rows) if model.frictions else 0))
        # dynamics: (t, friction element, "stick" | "slip" | "reverse") of each friction event
        self.friction_events: list[tuple[float, str, str]] = []
        self.stable: bool | None = None      # statics: is the equilibrium stable
        self.rest_from: int | None = None    # dynamics: the frame whose pose the later frames hold
        # the torsion springs' angles at frame 0 as the analysis took them (rad; statics: its
        # equilibrium's), None: a run's first turns (force_model.spring_turns)
        self.spring_turns: np.ndarray | None = None
        self.times = np.asarray(times, dtype=float)
        self._r = np.zeros((n, nb, 3))      # centre of mass
        self._p = np.zeros((n, nb, 4))
        self._v, self._w = zeros("velocities", (n, nb, 3)), zeros("velocities", (n, nb, 3))
        self._a = zeros("accelerations", (n, nb, 3))
        self._alpha = zeros("accelerations", (n, nb, 3))
        # lambda of every row, or (_lam_rows: the rows read by name) of those rows only
        self._lam_rows = None if "multipliers" in self.kept else named_rows(model)
        self._lam = np.zeros((n, model.nc if self._lam_rows is None else len(self._lam_rows)))
        self._reaction = zeros("reactions", (n, len(model.joint_names), 6))
        self._effort = zeros("efforts", (n, len(model.motion_names)))
        self._actuator = zeros("efforts", (n, len(getattr(model, "actuators", ()))))
        # kinetic, potential, work of non-conservative loads; their power
        self._energy, self._power_nc = zeros("energy", (n, 3)), zeros("energy", (n,))
        self._pending_vw = None   # a block's velocities for store_energy when not kept
        self.track = np.zeros((n, model.ntrack))   # tracked values (kernels.constraints.evaluate)
        cp = model.forces.contacts     # per contact: force, torque on a, depth, point (n, nct, 10)
        self._contact = np.zeros((n, 0 if cp is None else len(cp.names), 10))
        self._interference = np.zeros(self._contact.shape[:2] + (4,))   # least gap, where
        self._body = {name: b for b, name in enumerate(model.body_part)}
        # marker I of each joint: body and point (body frame; ground: world)
        mi = model.joint_marker_i
        self._ji_body = np.array([model.marker_body[m] for m in mi], dtype=int)
        self._ji_point = np.array([model.marker_point[m] for m in mi]).reshape(-1, 3)
        self._mesh = mesh_numbers(model)

    @classmethod
    def empty(cls, model: Any, times: np.ndarray, analysis: str = "kinematic",
              keep: Any = None) -> "Result":
        return cls(model, times, analysis, keep)

    def _need(self, quantity: str, what: str) -> None:
        """MechanismError naming ``what`` unless ``quantity`` was kept."""
        if quantity not in self.kept:
            raise not_kept(quantity, what)

    @property
    def multipliers(self) -> np.ndarray:
        """(n, nc) every constraint row's Lagrange multiplier (kept: "multipliers")."""
        self._need("multipliers", "Result.multipliers")
        return self._lam

    def _row_lam(self, rows: Any) -> np.ndarray:
        """The stored multipliers of rows ``rows`` (an int or an array of model rows)."""
        return self._lam[:, rows if self._lam_rows is None
                         else np.searchsorted(self._lam_rows, rows)]

    def store(self, k: int | slice, state: State, lam: np.ndarray, jac: np.ndarray,
              track: np.ndarray | None = None) -> None:
        """Save frame k (or a slice of frames: a state with a leading frame axis) with its
        accelerations, multipliers lam (..., nc) and Jacobian blocks jac (..., nc, 12);
        reactions from multipliers (``_reactions``)."""
        _store(self, self.model, (k,), state, lam, jac, track, self._ji_point, self._mesh)

    def store_packed(self, first: int, t: np.ndarray, X: np.ndarray, lam: np.ndarray,
                     jac: np.ndarray, energy: np.ndarray, track: np.ndarray | None = None
                     ) -> None:
        """Frames first, first+1, ... stored together from packed arrays: X (n, nb, FRAME)
        each frame's r, p, v, w, a, alpha side by side (as FrameBuffer and a design study's
        lockstep run gather them), energy (n, 3) its spring potential, power and work; the
        world inertias are made here from the orientations."""
        block = slice(first, first + len(t))
        self.store(block, State(t, X[..., 0:3], X[..., 3:7], X[..., 7:10], X[..., 10:13],
                                X[..., 13:16], X[..., 16:19]), lam, jac, track)
        Iw = congruence(quat_to_matrix(X[..., 3:7]), self.model.body_inertia)
        self.store_energy(block, Iw, energy[:, 0], energy[:, 1], energy[:, 2])

    def store_energy(self, k: int | slice, Iw: np.ndarray, spring_potential, power_nc,
                     work_nc=None) -> None:
        """Kinetic and potential energy (gravity and springs) of frame k (or a slice of
        frames, stored by the ``store`` just before: its velocities); the work of
        non-conservative loads (dampers, actuators, applied loads, motions) is given by the
        integrator (dynamic runs) or accumulated by the trapezoidal rule from the power."""
        m = self.model
        _store_energy(self, (k,), m.body_mass, m.gravity, Iw, spring_potential, power_nc,
                      work_nc)

    def energy(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(kinetic, potential, work_nc), each (n,) J.  Potential: gravity and springs;
        work_nc: work done since t = 0 by dampers, friction, actuators, applied loads and
        motions, so kinetic + potential - work_nc stays constant (in a dynamic run to its
        accuracy; a kinematic sweep's work is the trapezoidal sum of the power at the
        frames, to the square of their spacing: docs/conventions.md)."""
        self._need("energy", "Result.energy()")
        return self._energy[:, 0].copy(), self._energy[:, 1].copy(), self._energy[:, 2].copy()

    _FRAME_FIELDS = ("_r", "_p", "_v", "_w", "_a", "_alpha", "_lam", "_reaction",
                     "_effort", "_energy", "_power_nc", "track", "_friction", "_contact",
                     "_interference", "_actuator")

    def truncated(self, k: int) -> "Result":
        """The first k frames (what was solved before a failure), with every impact up to
        the failure (those past the last frame happened too: they are kept), and how they
        were computed: the method, the steps taken, the notes so far, the frame that later
        frames hold (if it is one of them)."""
        out = Result(self.model, self.times[:k], self.analysis, self.kept)
        for name in self._FRAME_FIELDS:
            x = getattr(self, name)
            setattr(out, name, None if x is None else x[:k].copy())
        out.method, out.steps, out.stable = self.method, self.steps, self.stable
        out.spring_turns = self.spring_turns
        out.notes = list(self.notes)
        out.shared_reactions = dict(self.shared_reactions)
        out.rest_from = self.rest_from if self.rest_from is not None and self.rest_from < k else None
        out.impacts = list(self.impacts)                     # every one before the failure
        out.friction_events = list(self.friction_events)
        return out

    def hold(self, k: int) -> None:
        """Every frame after frame k as frame k: a mechanism at rest that nothing moves any
        more (analyses/dynamics/driver.py)."""
        for name in self._FRAME_FIELDS:
            x = getattr(self, name)
            if x is not None:
                x[k + 1:] = x[k]
        self.rest_from = k

    def __len__(self) -> int:
        return len(self.times)

    # -- parts
    def _lookup(self, part: str) -> tuple[int | None, Any]:
        if part in self._body:
            return self._body[part], None
        if part in self.model.fixed_parts:
            return None, self.model.fixed_parts[part]
        raise unknown("part", part, [*self._body, *self.model.fixed_parts])

    def _arm(self, b: int) -> np.ndarray:
        """(n, 3) vector from the part-frame origin to the centre of mass, world axes."""
        return np.einsum("nij,j->ni", quat_to_matrix(self._p[:, b]), self.model.body_com[b])

    def position(self, part: str) -> np.ndarray:
        """(n, 3) part-frame origin in world, m."""
        b, fixed = self._lookup(part)
        if fixed is not None:
            return np.tile(fixed[0], (len(self), 1))
        return self._r[:, b] - self._arm(b)

    def orientation(self, part: str) -> np.ndarray:
        """(n, 4) part-frame orientation, w x y z (sign kept continuous from frame to frame)."""
        b, fixed = self._lookup(part)
        if fixed is not None:
            return np.tile(fixed[1], (len(self), 1))
        return continuous_quats(self._p[:, b])

    def velocity(self, part: str) -> np.ndarray:
        """(n, 3) velocity of the part-frame origin, m/s."""
        self._need("velocities", f"velocity({part!r})")
        b, fixed = self._lookup(part)
        if fixed is not None:
            return np.zeros((len(self), 3))
        return self._v[:, b] - cross(self._w[:, b], self._arm(b))

    def angular_velocity(self, part: str) -> np.ndarray:
        """(n, 3) rad/s, world axes."""
        self._need("velocities", f"angular_velocity({part!r})")
        b, fixed = self._lookup(part)
        return np.zeros((len(self), 3)) if fixed is not None else self._w[:, b].copy()

    def acceleration(self, part: str) -> np.ndarray:
        """(n, 3) acceleration of the part-frame origin, m/s^2."""
        self._need("velocities", f"acceleration({part!r})")
        self._need("accelerations", f"acceleration({part!r})")
        b, fixed = self._lookup(part)
        if fixed is not None:
            return np.zeros((len(self), 3))
        arm, w = self._arm(b), self._w[:, b]
        return self._a[:, b] - cross(self._alpha[:, b], arm) - cross(w, cross(w, arm))

    def angular_acceleration(self, part: str) -> np.ndarray:
        """(n, 3) rad/s^2, world axes."""
        self._need("accelerations", f"angular_acceleration({part!r})")
        b, fixed = self._lookup(part)
        return np.zeros((len(self), 3)) if fixed is not None else self._alpha[:, b].copy()

    def center_of_mass(self, part: str) -> np.ndarray:
        """(n, 3) centre of mass in world, m (a fixed part's: where it stands, every frame)."""
        b, fixed = self._lookup(part)
        if fixed is not None:       # (position, orientation, part-frame centre of mass)
            return np.tile(fixed[0] + quat_to_matrix(fixed[1]) @ fixed[2], (len(self), 1))
        return self._r[:, b].copy()

    # -- markers, joints, motions
    def marker_frame(self, marker: str) -> tuple[np.ndarray, np.ndarray]:
        """World origin (n, 3) and axes (n, 3, 3) (columns x, y, z) of a marker."""
        m = self.model
        if marker not in m.marker_body:
            raise unknown("marker", marker, m.marker_body)
        b, s, C = m.marker_body[marker], m.marker_point[marker], m.marker_axes[marker]
        if b == m.nb:
            return np.tile(s, (len(self), 1)), np.tile(C, (len(self), 1, 1))
        A = quat_to_matrix(self._p[:, b])
        rows = A.reshape(-1, 3)       # every frame's rows in one product (a stack: one a frame)
        return self._r[:, b] + (rows @ s).reshape(-1, 3), (rows @ C).reshape(A.shape)

    def reaction(self, joint: str, frame: str = "world") -> tuple[np.ndarray, np.ndarray]:
        """(force (n, 3) N, torque (n, 3) N m) the joint applies to part I at marker I's
        origin; world axes, or marker J's axes with frame="J".  Constraint forces only; a
        meshing gear's axle carries its tooth force (``tooth_force``), the separating part
        only where both gears' joints are on one part (the housing).

        Where the joints' equations are redundant (a planar loop of revolute joints in 3-D)
        the reactions are not unique; every analysis (kinematic sweep, dynamics, statics)
        then reports the least-norm joint multipliers with the same forces on every part
        (analyses/structure.py ``least_norm``: the smallest sum of squares of the joint
        rows' multipliers, N and N m as they come), and joint friction takes its load from
        this reaction."""
        names = self.model.joint_names
        if joint not in names:
            raise unknown("joint", joint, names)
        self._need("reactions", f"reaction({joint!r})")
        R = self._reaction[:, names.index(joint)]
        F, T = R[:, :3].copy(), R[:, 3:].copy()
        if frame in ("J", "marker_j", "marker J"):
            _, C = self.marker_frame(self.model.joint_marker_j[names.index(joint)])
            return np.einsum("nji,nj->ni", C, F), np.einsum("nji,nj->ni", C, T)
        if frame != "world":
            raise MechanismError(f"frame must be 'world' or 'J', got {frame!r}")
        return F, T

    def coupler(self, name: str) -> np.ndarray:
        """(n, terms): the generalized force (N m on an angle, N on a slide) a coupler applies
        along each of its joint coordinates, in the order they were given, on part I of
        that joint (part J takes the opposite): -s_i lambda (Haug 1989, reactions from
        multipliers; vocabulary/couplers.py for the relation).  A gear pair's two torques
        are in the ratio of its pitch radii; a mechanism's power through the coupler,
        sum_i Q_i dq_i/dt, is zero."""
        k, cp = self._coupler_index(name)
        row = int(np.flatnonzero(self.model.row_coupler == k)[0])
        return -self._row_lam(row)[:, None] * cp.scale[k, : cp.count[k]]

    def tooth_force(self, name: str) -> np.ndarray:
        """(n,) a gear pair's tooth force (N) along the line of action (none for a belt or chain):
        gear 1's torque / (r_1 cos alpha), r_1 its pitch radius (given, or as built where a pair
        by teeth or ratio meshes: gear_mesh.pitch_radii), alpha the pressure angle; positive
        drives gear 1 forward.  A meshing pair's acts on gear 1 at the pitch point, T cos(alpha)
        along its forward tangent, |T| sin(alpha) pushing the teeth apart; gear 2 the opposite."""
        k, cp = self._coupler_index(name)
        if cp.gear_mesh[k] in ("belt", "chain"):
            raise MechanismError(f"coupler {name!r}: a {cp.gear_mesh[k]} has no tooth force")
        meshing = cp.radii[k] is None and k in cp.mesh_coupler     # (given by teeth or ratio)
        if cp.kinds[k] != "gear" or not (cp.radii[k] is not None or meshing):
            raise MechanismError(f"coupler {name!r}: the tooth force needs a gear given by its "
                                 "pitch radii (add_gear(..., radii=(r1, r2))) or meshing")
        r1 = (pitch_radii(cp, mesh_numbers(self.model), self._r, self._p)[:, list(
            cp.mesh_coupler).index(k)] if meshing else cp.radii[k][0])
        return self.coupler(name)[:, 0] / (r1 * np.cos(cp.pressure[k]))

    def contact_force(self, joint: str) -> np.ndarray:
        """(n,) a cam joint's contact force along the common normal, N: positive when the
        curves push each other apart (a real contact), negative where holding them together
        would take a pull (the follower would lift off).  Needs a closed curve on one side
        (a disc, a roller) to tell the parts' sides apart; with two open curves the sign
        follows curve J's left normal."""
        names = self.model.joint_names
        cp = self.model.curves
        if joint not in names or cp is None or joint not in cp.cam_names:
            raise MechanismError(f"{joint!r} is not a cam joint")
        row = int(np.flatnonzero(self.model.row_joint == names.index(joint))[0])
        return -self._row_lam(row)

    def friction(self, name: str) -> np.ndarray:
        """(n,) a friction element's force (N) or torque (N m) along its joint coordinate on
        part I (positive toward a larger slide or angle): slipping, -mu L - c v against the
        motion; sticking, what holds the joint (at most mu_s L + preload).  A spherical
        joint's: (n, 3), the torque on part I in marker J's axes (its size at most mu_s L +
        preload while it sticks, against the relative angular velocity while it slips)."""
        fp = self.model.frictions
        if fp is None or name not in fp.names:
            raise unknown("friction", name, fp and dict.fromkeys(fp.names))
        k = fp.names.index(name)
        parts = self._friction[:, fp.element == k].copy()
        return parts if fp.is_ball[k] else parts[:, 0]

    def friction_instants(self, name: str, kind: str | None = None) -> np.ndarray:
        """(k,) the instants (s) of a friction element's events in a dynamic run, in time
        order (``friction_events`` has them all, each with its element and kind): "stick"
        (held from then on: its relative speed reached zero with the needed force within
        mu_s L + preload, or at rest at the start), "slip" (a held joint breaks loose: the
        needed force exceeded the limit), "reverse" (its relative speed reached zero, a
        ball's a hundredth of its transition speed, and it slipped on without holding: its
        friction turned round); ``kind`` None: all of them.  Each instant is where it
        happened (located to 1e-10 s), not a frame's.  A slip turned round by an impact's
        velocity jump is not among them (``impacts`` has the impact)."""
        fp = self.model.frictions
        if fp is None or name not in fp.names:
            raise unknown("friction", name, fp and dict.fromkeys(fp.names))
        if kind is not None and kind not in FRICTION_EVENT_KINDS:
            raise MechanismError(f"friction {name!r}: unknown event kind {kind!r}; the kinds "
                                 f"are {', '.join(map(repr, FRICTION_EVENT_KINDS))}")
        return np.array([t for t, who, what in self.friction_events
                         if who == name and (kind is None or what == kind)], dtype=float)

    def limit(self, name: str) -> np.ndarray:
        """(n,) the generalized force a limit's stops apply along its joint coordinate (N m on
        an angle, N on a slide; positive toward a larger angle or slide: a lower stop pushes
        up, an upper one down), zero while the coordinate is inside its range (a compliant
        stop: its IMPACT force while penetrated).  Impacts are instants (their impulses change the velocities between frames: Result.impacts)."""
        lm = self.model.limits
        if lm is None or name not in lm.names:
            raise unknown("limit", name, lm and dict.fromkeys(lm.names))
        rows = lm.rows[[k for k, n in enumerate(lm.names) if n == name]]
        return -self._row_lam(rows).sum(axis=1)

    def spring(self, name: str) -> np.ndarray:
        """(n,) a spring-damper's tension, N: k (l - L0) + preload + c dl/dt + friction +
        actuator (model/springs.py), positive pulling its markers together (on part I at
        marker I's origin, toward marker J's; part J takes the opposite), negative pushing
        them apart.  Its stored energy k (l - L0)^2 / 2 + preload l changes by minus the
        work of its conservative part, -(k (l - L0) + preload) dl."""
        self._need("velocities", f"spring({name!r})")
        return spring_readout(self.model.forces, name, self.times, self._states())[0]

    def spring_length(self, name: str) -> np.ndarray:
        """(n,) a spring-damper's length l, m: marker I's origin to marker J's."""
        return spring_readout(self.model.forces, name, self.times, self._states())[1]

    def torsion_spring(self, name: str) -> np.ndarray:
        """(n,) a torsion spring's torque T, N m: k (theta - free_angle) + preload + c
        dtheta/dt + friction + actuator (model/springs.py), resisting the joint's angle:
        part I takes -T about marker J's z, part J +T (positive T turns I back toward a
        smaller angle)."""
        self._need("velocities", f"torsion_spring({name!r})")
        return torsion_readout(self.model, name, self.times, self._states(), True,
                               self.spring_turns)[0]

    def torsion_spring_angle(self, name: str) -> np.ndarray:
        """(n,) a torsion spring's joint angle theta, rad: x_I from x_J about z_J with its
        turns, the angle its torque reads (model/readouts.py ``torsion_readout``)."""
        return torsion_readout(self.model, name, self.times, self._states(),
                               self._v is not None, self.spring_turns)[1]

    def _states(self) -> tuple:
        """(r, p, v, w) of every frame, zero rates where velocities were not kept."""
        v = np.zeros_like(self._r) if self._v is None else self._v
        return self._r, self._p, v, np.zeros_like(self._r) if self._w is None else self._w

    def bushing(self, name: str, frame: str = "world") -> tuple[np.ndarray, np.ndarray]:
        """(force (n, 3) N, torque (n, 3) N m) the bushing applies to part I at marker I's
        origin (part J takes the opposite at the same point); ``frame="J"``: in marker J's
        axes, where force = -K_t d - C_t d_dot + F_0 and torque = -K_r theta - C_r w_rel +
        T_0 (model/bushings.py).  ``bushing_displacement`` gives d and theta."""
        self._need("velocities", f"bushing({name!r})")
        return bushing_load(self.model.forces, name, frame, (self._r, self._p, self._v, self._w))

    def bushing_displacement(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(d (n, 3) m, theta (n, 3) rad): marker I's origin from marker J's and the rotation
        vector of I's axes from J's, in J's axes."""
        return bushing_displacement(self.model.forces, name, self._states())   # (no rates)

    def vector_force(self, name: str) -> tuple[np.ndarray, np.ndarray]:
        """(force (n, 3) N, torque (n, 3) N m) the vector force applies to part I at marker
        I's origin, world axes (part J takes the opposite at the same point), its
        expressions evaluated at the stored states (model/vector_forces.py)."""
        self._need("velocities", f"vector_force({name!r})")
        return vector_force_load(self.model.forces, name, self.times, (self._r, self._p, self._v, self._w))

    def contact(self, name: str) -> dict[str, np.ndarray]:
        """A contact's (add_contact) forces at every frame: {"force", "torque"} (n, 3) on
        part a (N, N m; the torque about part a's centre of mass), world axes (part b takes
        the opposite force); "penetration" (n,) the deepest (m, 0 apart); "point" (n, 3)
        the touching points' centroid weighted by their penetration (NaN apart)."""
        x = self._contact[:, contact_index(self.model, name)]
        return {"force": x[:, 0:3].copy(), "torque": x[:, 3:6].copy(),
                "penetration": x[:, 6].copy(), "point": x[:, 7:10].copy()}

    def interference(self, name: str) -> dict[str, np.ndarray]:
        """A contact's closest approach at every frame: {"gap"} (n,) m, the least gap
        between its contact points and the other side's surface (negative: the deepest
        penetration), and {"point"} (n, 3) m, where (world).  For a kinematic sweep, where
        the motions may drive the parts into each other, as for any run."""
        x = self._interference[:, contact_index(self.model, name)]
        return {"gap": x[:, 0].copy(), "point": x[:, 1:].copy()}

    def _coupler_index(self, name: str):
        cp = self.model.couplers
        if cp is None or name not in cp.names:
            raise unknown("coupler", name, cp and cp.names)
        return cp.names.index(name), cp

    def general_motion(self, name: str) -> np.ndarray:
        """(n, 3) N: the force a general motion applies to marker I's part at marker I's
        origin along marker J's x, y, z (0 along a free direction): the push an actuator
        prescribing that motion would give."""
        self._need("efforts", f"general_motion({name!r})")
        return general_motion_load(self.model, self._effort, name)

    def general_motion_torque(self, name: str) -> np.ndarray:
        """(n, 3) N m: the torque a general motion's angles b1, b2, b3 apply to marker I's
        part, along marker J's x, y, z (zero if it drives no angle)."""
        self._need("efforts", f"general_motion_torque({name!r})")
        return general_motion_torque(self, name)

    def actuator_efforts(self, name: str) -> dict[str, np.ndarray]:
        """{actuator: (n,) N m or N} what each actuator of a general motion gives along its
        joint coordinate (signed as ``effort``); empty without actuators."""
        self._need("efforts", f"actuator_efforts({name!r})")
        return actuator_efforts(self, name)

    def effort(self, motion: str) -> np.ndarray:
        """(n,) torque (N m) or force (N) the motion applies along its joint coordinate."""
        names = self.model.motion_names
        if motion not in names:
            raise unknown("motion", motion, names)
        self._need("efforts", f"effort({motion!r})")
        return self._effort[:, names.index(motion)].copy()


def _store(res: Any, model: Any, at: tuple, state: State, lam: np.ndarray, jac: np.ndarray,
           track: np.ndarray | None, ji_point: np.ndarray, mesh: tuple | None = None,
           A: np.ndarray | None = None) -> None:
    """Result.store into the frame arrays of ``res`` at index ``at`` (a Result's (k,), a
    ResultStack's (slice(None), k): all variants); ``mesh``: ``mesh_numbers`` (a stack's
    with a variant axis), the teeth's separating force added to the axle reactions."""
    p = state.p
    res._r[at], res._p[at] = state.r, p
    if res._v is not None:
        res._v[at], res._w[at] = state.v, state.w
    elif res._energy is not None:
        res._pending_vw = (state.v, state.w)              # store_energy's, next
    if res._a is not None:
        res._a[at], res._alpha[at] = state.a, state.alpha
    res._lam[at] = lam if res._lam_rows is None else lam[..., res._lam_rows]
    if track is not None:
        res.track[at] = track
    if res._reaction is not None:
        res._reaction[at] = all_joint_reactions(model, res._ji_body, ji_point, p, lam, jac, A)
        if mesh is not None:
            res._reaction[at] += separation(model, mesh, state.r, p, lam)
    if res._effort is not None:
        mr = model.row_motion >= 0
        res._effort[at + (model.row_motion[mr],)] = -lam[..., mr]


def _store_energy(res: Any, at: tuple, mass: np.ndarray, gravity: np.ndarray, Iw: np.ndarray,
                  spring_potential, power_nc, work_nc) -> None:
    """Result.store_energy into ``res`` at index ``at`` (see _store); mass (nb,) and
    gravity (3,), or a stack's (V, 1, nb) and (V, 1, 3)."""
    if res._energy is None:
        return
    k = at[-1]
    lead = len(at) - 1                                   # a stack's variant axis
    if res._v is not None:
        v, w = res._v[at], res._w[at]
    else:                                                # the block ``store`` just had
        (v, w), res._pending_vw = res._pending_vw, None
    r = res._r[at]
    ke = 0.5 * (einsum("...b,...bi,...bi->...", mass, v, v)
                + einsum("...bi,...bij,...bj->...", w, Iw, w))
    pe = -einsum("...b,...bi,...i->...", mass, r, gravity) + spring_potential
    res._power_nc[at] = power_nc
    if work_nc is None:
        i = np.atleast_1d(np.arange(len(res.times))[k])
        lo = max(int(i[0]) - 1, 0)
        sl = (slice(None),) * lead
        t, pw = res.times[lo:i[-1] + 1], res._power_nc[sl + (slice(lo, i[-1] + 1),)]
        work = np.cumsum(0.5 * np.diff(t) * (pw[..., 1:] + pw[..., :-1]), axis=-1)
        if i[0] > 0:
            work_nc = res._energy[sl + (lo, 2)][..., None] + work
        else:
            work_nc = np.concatenate([np.zeros(work.shape[:-1] + (1,)), work], -1)
        work_nc = np.reshape(work_nc, np.shape(ke))
    res._energy[at + (0,)], res._energy[at + (1,)], res._energy[at + (2,)] = ke, pe, work_nc


class ResultStack:
    """The Results of variants of one topology (a design study, study/) over the same times,
    whose frame arrays are views of stacked ones (V, n, ...): a block of frames of every
    variant is stored in one set of numpy calls.  ``results``: the Results, each as usable
    (and picklable) as any other."""

    def __init__(self, models: list, times: np.ndarray, analysis: str = "kinematic",
                 keep: Any = None) -> None:
        self.results = [Result(m, times, analysis, keep) for m in models]
        self.model, self.times = models[0], self.results[0].times
        self._lam_rows, self._pending_vw = self.results[0]._lam_rows, None
        for name in Result._FRAME_FIELDS:       # (one Result: its own arrays, no copy)
            each = [getattr(o, name) for o in self.results]
            if each[0] is None:                 # not kept (the same for every variant)
                setattr(self, name, None)
                continue
            big = np.stack(each) if len(each) > 1 else each[0][None]
            setattr(self, name, big)
            for o, view in zip(self.results, big):
                setattr(o, name, view)
        self._ji_body = self.results[0]._ji_body
        self._ji_point = np.stack([o._ji_point for o in self.results])[:, None]  # (V, 1, nj, 3)
        self._mass = np.stack([m.body_mass for m in models])[:, None]          # (V, 1, nb)
        self._gravity = np.stack([m.gravity for m in models])[:, None]         # (V, 1, 3)
        each = [mesh_numbers(m) for m in models]
        self._mesh = None if each[0] is None else tuple(
            np.stack(x)[:, None] for x in zip(*each))                          # (V, 1, ...)

    def keep(self, mask: np.ndarray) -> None:
        """Go on with the variants ``mask`` (V,) only (the others' Results keep what was
        stored in them so far)."""
        self.results = [o for o, k in zip(self.results, mask) if k]
        for name in Result._FRAME_FIELDS:
            if getattr(self, name) is None:
                continue
            big = getattr(self, name)[mask]
            setattr(self, name, big)
            for o, view in zip(self.results, big):
                setattr(o, name, view)
        self._ji_point, self._mass = self._ji_point[mask], self._mass[mask]
        if self._mesh is not None:
            self._mesh = tuple(x[mask] for x in self._mesh)
        self._gravity = self._gravity[mask]

    def store(self, k: int | slice, state: State, lam: np.ndarray, jac: np.ndarray,
              track: np.ndarray | None = None, A: np.ndarray | None = None) -> None:
        """Result.store of frames k of every variant: arrays (V, frames, ...); A: _reactions'."""
        _store(self, self.model, (slice(None), k), state, lam, jac, track, self._ji_point,
               self._mesh, A)

    def store_energy(self, k: int | slice, Iw: np.ndarray, spring_potential, power_nc) -> None:
        """Result.store_energy of frames k of every variant (V, frames, ...), the work by
        the trapezoidal rule."""
        _store_energy(self, (slice(None), k), self._mass, self._gravity, Iw, spring_potential,
                      power_nc, None)
