"""Peer models for bench/bench_peers.py: the benchmark mechanisms of docs/benchmarks.md
built in MuJoCo and in Exudyn, run, and measured the same way as our solver.

Every runner builds its model outside the timed region, times the solve itself (best of
`repeats` while a solve is short) and measures afterwards from the engine's own positions and
velocities at the output frames: chain, the energy error with E = sum of 1/2 m |v_c|^2 +
1/2 w.I w + m g z_c (one formula for every engine), the joint gap and the link end points;
slider-crank, slider x against the closed form and the drive torque. Engines are imported
lazily: an ImportError reaches the caller, which reports "not installed".
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

G = 9.81
MASS, LENGTH = 1.0, 1.0
INERTIA = np.array([5e-5, 0.0833583, 0.0833583])      # link axes: axial x, transverse y, z
SC_R, SC_L = 0.1, 0.3                                   # slider-crank crank and rod lengths
OMEGA = 2 * math.pi                                     # crank speed, rad/s


def mujoco_settings(per: int = 10, fps: int = 24) -> str:
    """One line describing the MuJoCo models; `per` integrator steps per output frame."""
    return ("MuJoCo chain: MJCF nested bodies, ball joints (reduced coordinates), explicit "
            f"<inertial>, contact disabled, RK4, dt 1/{per * fps} s")


def exudyn_chain_settings(per: int = 10, fps: int = 24) -> str:
    """One line describing the Exudyn chain; `per` integrator steps per output frame."""
    return ("Exudyn chain: rigid bodies (Euler parameters, node at COM), spherical joints, "
            f"generalized-alpha index 3, spectral radius 0.95, dt 1/{per * fps} s, EigenSparse")


EXUDYN_SC_SETTINGS = ("Exudyn slider-crank: no kinematic solver for a closed loop, so a dynamic "
                      "generalized-alpha solve (rho 0.95, 240 steps) with the crank angle "
                      "prescribed by a coordinate constraint (Rxyz node, Python offset function)")


@dataclass
class PeerResult:
    """One engine's run of one case: best wall time (s) and what was measured."""

    wall: float
    error: float                       # chain: normalised energy error; slider-crank: x error, m
    gap: float | None = None           # largest joint gap, m (chain)
    steps: int | None = None           # integrator steps
    ends: np.ndarray | None = None     # chain: link end points (frames, N + 1, 3)
    effort: np.ndarray | None = None   # slider-crank: drive torque (frames,)
    note: str = ""
    extra: dict = field(default_factory=dict)


def best_of(build: Callable[[], object], solve: Callable[[object], object], repeats: int,
            budget: float = 5.0) -> tuple[float, object]:
    """Build then time `solve(model)`; repeat (fresh build each time) up to `repeats` times
    while a solve takes less than `budget` s. Returns (best wall s, last solve's return)."""
    best, out = math.inf, None
    for _ in range(max(1, repeats)):
        model = build()
        t0 = time.perf_counter()
        out = solve(model)
        wall = time.perf_counter() - t0
        best = min(best, wall)
        if wall > budget:
            break
    return best, out


def chain_energy(pos: np.ndarray, vel: np.ndarray, omega_local: np.ndarray,
                 mass: np.ndarray | float = MASS) -> np.ndarray:
    """Total energy per frame from COM positions and velocities (frames, N, 3) and body-axis
    angular velocities (frames, N, 3) of the benchmark links (masses (N,) if not all MASS)."""
    kin = 0.5 * ((mass * (vel ** 2).sum(axis=2)).sum(axis=1)) + 0.5 * (INERTIA * omega_local ** 2).sum(axis=(1, 2))
    return kin + G * (mass * pos[..., 2]).sum(axis=1)


def chain_error(energy: np.ndarray, n: int) -> float:
    """max |E(t) - E(0)| / (m g L N^2 / 2)."""
    return float(np.abs(energy - energy[0]).max()) / (MASS * G * LENGTH * n * n / 2)


def chain_gap(ends_near: np.ndarray, ends_far: np.ndarray) -> float:
    """Largest joint gap: link k's near end against link k-1's far end (the origin for k=0);
    arrays (frames, N, 3)."""
    prev = np.concatenate([np.zeros_like(ends_far[:, :1]), ends_far[:, :-1]], axis=1)
    return float(np.linalg.norm(ends_near - prev, axis=2).max())


def slider_x_exact(t: np.ndarray) -> np.ndarray:
    """Closed-form slider position for crank angle 2 pi t."""
    th = OMEGA * t
    return SC_R * np.cos(th) + np.sqrt(SC_L ** 2 - SC_R ** 2 * np.sin(th) ** 2)


# ---------------------------------------------------------------- MuJoCo
def mujoco_chain_xml(n: int, dt: float = 1 / 240) -> str:
    """MJCF of the benchmark chain: body k's frame at link k's near end, x along the link,
    yawed (pi/2)/N from its parent (link 0 unyawed at the origin)."""
    dyaw = (math.pi / 2) / n
    bodies = []
    for k in range(n):
        pos, yaw = ("0 0 0", 0.0) if k == 0 else ("1 0 0", dyaw)
        bodies.append(
            f'<body name="link{k}" pos="{pos}" quat="{math.cos(yaw / 2)!r} 0 0 {math.sin(yaw / 2)!r}">'
            f'<joint type="ball"/>'
            f'<inertial pos="0.5 0 0" mass="{MASS}" diaginertia="{" ".join(map(str, INERTIA))}"/>'
            f'<geom type="capsule" fromto="0 0 0 1 0 0" size="0.01" contype="0" conaffinity="0"/>')
    return (f'<mujoco><compiler angle="radian" inertiafromgeom="false"/>'
            f'<option timestep="{dt!r}" integrator="RK4" gravity="0 0 {-G}">'
            f'<flag contact="disable"/></option>'
            f'<worldbody>{"".join(bodies)}{"</body>" * n}</worldbody></mujoco>')


def mujoco_chain(n: int, duration: float = 2.0, fps: int = 24, repeats: int = 3,
                 per: int = 10, masses: np.ndarray | None = None) -> PeerResult:
    """Step the MJCF chain with dt 1/(per fps) (default 480 steps of 1/240 s), keeping
    qpos/qvel at every per-th step; the energy and end points are computed afterwards with
    mj_forward at the kept states.  ``masses`` (n,): the links' masses if not all MASS."""
    import mujoco

    xml = mujoco_chain_xml(n, dt=1 / (per * fps))
    nsteps = round(duration * fps) * per
    model = mujoco.MjModel.from_xml_string(xml)
    assert abs(model.opt.timestep * per - 1 / fps) < 1e-12
    mass = np.full(n, MASS) if masses is None else np.asarray(masses, float)
    model.body_mass[1:] = mass

    def build() -> mujoco.MjData:
        return mujoco.MjData(model)

    def solve(data: mujoco.MjData) -> tuple[list, list]:
        qs, vs = [data.qpos.copy()], [data.qvel.copy()]
        for i in range(1, nsteps + 1):
            mujoco.mj_step(model, data)
            if i % per == 0:
                qs.append(data.qpos.copy())
                vs.append(data.qvel.copy())
        return qs, vs

    wall, (qs, vs) = best_of(build, solve, repeats)
    data = mujoco.MjData(model)
    frames = len(qs)
    pos, vel, om = (np.zeros((frames, n, 3)) for _ in range(3))
    near, far = np.zeros((frames, n, 3)), np.zeros((frames, n, 3))
    v6 = np.zeros(6)
    for f, (q, v) in enumerate(zip(qs, vs)):
        data.qpos[:], data.qvel[:] = q, v
        mujoco.mj_forward(model, data)
        for k in range(n):
            b = k + 1                                   # body 0 is the world
            mujoco.mj_objectVelocity(model, data, mujoco.mjtObj.mjOBJ_BODY, b, v6, 1)
            om[f, k], vel[f, k] = v6[:3], v6[3:]        # at the COM, inertial-frame axes
            pos[f, k] = data.xipos[b]
            near[f, k] = data.xpos[b]
            far[f, k] = data.xpos[b] + data.xmat[b].reshape(3, 3)[:, 0] * LENGTH
    assert np.allclose(model.body_inertia[1:], INERTIA) and np.allclose(model.body_mass[1:], mass)
    return PeerResult(wall=wall, error=chain_error(chain_energy(pos, vel, om, mass), n),
                      gap=chain_gap(near, far), steps=nsteps,
                      ends=np.concatenate([near, far[:, -1:]], axis=1),
                      note="reduced coordinates: no gap by construction")


# ---------------------------------------------------------------- Exudyn
def _exudyn_settings(steps: int, end_time: float, fps: int, sparse: bool) -> object:
    """exudyn.SimulationSettings: fixed steps, rho 0.95, no solution file, sensors per frame."""
    import exudyn as exu

    s = exu.SimulationSettings()
    s.timeIntegration.numberOfSteps = steps
    s.timeIntegration.endTime = end_time
    s.timeIntegration.generalizedAlpha.spectralRadius = 0.95
    s.timeIntegration.verboseMode = 0
    s.solution.file.write = False
    s.solution.sensors.writePeriod = 1 / fps
    if sparse:
        s.linearSolver.solverType = exu.LinearSolverType.EigenSparse
    return s


def _frames(data: np.ndarray, times: np.ndarray) -> np.ndarray:
    """Rows of a stored sensor array (time in column 0) nearest to the output times."""
    idx = np.abs(data[:, :1] - times[None, :]).argmin(axis=0)
    assert np.abs(data[idx, 0] - times).max() < 1e-9, "sensor rows do not hit the frames"
    return data[idx, 1:]


def exudyn_chain(n: int, duration: float = 2.0, fps: int = 24, repeats: int = 3,
                 per: int = 10) -> PeerResult:
    """Rigid bodies (Euler parameters, node at the COM) joined by spherical joints, solved by
    generalized-alpha with `per` steps per frame (default 480 steps); node sensors record
    position, velocity, body-axis angular velocity and rotation matrix at the frames."""
    import exudyn as exu
    from exudyn.itemInterface import ObjectGround, SensorNode
    from exudyn.utilities import RigidBodyInertia, RotationMatrixZ

    ovt = exu.OutputVariableType
    kinds = (ovt.Position, ovt.Velocity, ovt.AngularVelocityLocal, ovt.RotationMatrix)

    def build() -> tuple:
        sc = exu.SystemContainer()
        mbs = sc.AddSystem()
        prev = mbs.AddObject(ObjectGround())
        inertia = RigidBodyInertia(mass=MASS, inertiaTensor=np.diag(INERTIA))
        tip, sensors = np.zeros(3), []
        for k in range(n):
            psi = k * (math.pi / 2) / n
            u = np.array([math.cos(psi), math.sin(psi), 0.0])
            body = mbs.CreateRigidBody(inertia=inertia, referencePosition=tip + 0.5 * LENGTH * u,
                                       referenceRotationMatrix=RotationMatrixZ(psi),
                                       gravity=[0, 0, -G], returnDict=True, show=False)
            mbs.CreateSphericalJoint(itemNumbers=[prev, body["bodyNumber"]], position=list(tip),
                                     show=False)
            sensors.append([mbs.AddSensor(SensorNode(nodeNumber=body["nodeNumber"], outputVariableType=o,
                                                     storeInternal=True, writeToFile=False))
                            for o in kinds])
            prev, tip = body["bodyNumber"], tip + LENGTH * u
        mbs.Assemble()
        return sc, mbs, sensors

    steps = round(duration * fps) * per
    settings = _exudyn_settings(steps, duration, fps, sparse=True)

    def solve(model: tuple) -> tuple:
        return model, model[1].SolveDynamic(settings)

    wall, ((_, mbs, sensors), ok) = best_of(build, solve, repeats)
    times = np.arange(round(duration * fps) + 1) / fps
    pos, vel, om, rot = (np.stack([_frames(mbs.GetSensorStoredData(row[i]), times) for row in sensors],
                                  axis=1) for i in range(4))
    rot = rot.reshape(len(times), n, 3, 3)
    half = rot[..., :, 0] * (LENGTH / 2)                # link x axis in world
    near, far = pos - half, pos + half
    it = mbs.sys["dynamicSolver"].it
    return PeerResult(wall=wall, error=chain_error(chain_energy(pos, vel, om), n),
                      gap=chain_gap(near, far), steps=int(it.currentStepIndex) - 1,
                      ends=np.concatenate([near, far[:, -1:]], axis=1),
                      note=f"{it.newtonStepsCount} Newton iterations" + ("" if ok else "; FAILED"))


def exudyn_slider_crank(duration: float = 1.0, fps: int = 240, repeats: int = 3) -> PeerResult:
    """The slider-crank with the crank's z rotation coordinate (Rxyz node) prescribed to 2 pi t
    by a coordinate constraint; revolute pivot and crank pin, a rod-slider point joint free
    along z (our in-line joint), a prismatic slider on world x; initial velocities consistent
    with the motion; joint forces and torques and the drive torque recorded by sensors."""
    import exudyn as exu
    from exudyn.itemInterface import ObjectGround, SensorNode, SensorObject
    from exudyn.utilities import RigidBodyInertia

    ovt = exu.OutputVariableType
    r, l, w = SC_R, SC_L, OMEGA
    w_rod = -w * r / l                                  # rod angular speed at th = 0

    def build() -> tuple:
        sc = exu.SystemContainer()
        mbs = sc.AddSystem()
        ground = mbs.AddObject(ObjectGround())
        grav = [0, 0, -G]
        crank = mbs.CreateRigidBody(
            inertia=RigidBodyInertia(0.1, np.diag([1e-6, 1e-4, 1e-4])), referencePosition=[r / 2, 0, 0],
            initialVelocity=[0, w * r / 2, 0], initialAngularVelocity=[0, 0, w], gravity=grav,
            nodeType=exu.NodeType.RotationRxyz, returnDict=True, show=False)
        rod = mbs.CreateRigidBody(
            inertia=RigidBodyInertia(0.3, np.diag([1e-6, 2.25e-3, 2.25e-3])),
            referencePosition=[r + l / 2, 0, 0], initialVelocity=[0, w * r + w_rod * l / 2, 0],
            initialAngularVelocity=[0, 0, w_rod], gravity=grav, returnDict=True, show=False)
        slider = mbs.CreateRigidBody(
            inertia=RigidBodyInertia(0.5, np.diag([1e-4, 1e-4, 1e-4])), referencePosition=[r + l, 0, 0],
            gravity=grav, returnDict=True, show=False)
        c, d, s = crank["bodyNumber"], rod["bodyNumber"], slider["bodyNumber"]
        joints = [
            mbs.CreateRevoluteJoint(itemNumbers=[ground, c], position=[0, 0, 0], axis=[0, 0, 1],
                                    show=False),
            mbs.CreateRevoluteJoint(itemNumbers=[c, d], position=[r, 0, 0], axis=[0, 0, 1], show=False),
            mbs.CreateGenericJoint(itemNumbers=[d, s], position=[r + l, 0, 0],
                                   constrainedAxes=[1, 1, 0, 0, 0, 0], show=False),
            mbs.CreatePrismaticJoint(itemNumbers=[ground, s], position=[r + l, 0, 0], axis=[1, 0, 0],
                                     show=False)]
        drive = mbs.CreateCoordinateConstraint(
            itemNumbers=[None, crank["nodeNumber"]], coordinates=[None, 5],
            offsetUserFunction=lambda mbs_, t, i, off: w * t,
            offsetUserFunction_t=lambda mbs_, t, i, off: w, show=False)

        def on_object(obj: int, kind: object) -> int:
            return mbs.AddSensor(SensorObject(objectNumber=obj, outputVariableType=kind,
                                              storeInternal=True, writeToFile=False))

        sensors = {"x": mbs.AddSensor(SensorNode(nodeNumber=slider["nodeNumber"], storeInternal=True,
                                                 outputVariableType=ovt.Position, writeToFile=False)),
                   "effort": on_object(drive, ovt.Force)}
        for k, j in enumerate(joints):
            sensors[f"F{k}"] = on_object(j, ovt.ForceLocal)
            sensors[f"T{k}"] = on_object(j, ovt.TorqueLocal)
        mbs.Assemble()
        return sc, mbs, sensors

    settings = _exudyn_settings(round(duration * fps), duration, fps, sparse=False)

    def solve(model: tuple) -> tuple:
        return model, model[1].SolveDynamic(settings)

    wall, ((_, mbs, sensors), ok) = best_of(build, solve, repeats)
    times = np.arange(round(duration * fps) + 1) / fps
    x = _frames(mbs.GetSensorStoredData(sensors["x"]), times)[:, 0]
    effort = -_frames(mbs.GetSensorStoredData(sensors["effort"]), times)[:, 0]  # our sign
    it = mbs.sys["dynamicSolver"].it
    return PeerResult(wall=wall, error=float(np.abs(x - slider_x_exact(times)).max()),
                      steps=int(it.currentStepIndex) - 1, effort=effort,
                      note=f"{it.newtonStepsCount} Newton iterations" + ("" if ok else "; FAILED"))
