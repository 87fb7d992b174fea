"""Explicit embedded Runge-Kutta steppers for mechanisms without stiff force elements.

Both advance the ODE state y of ``equations.Equations`` by one step of size h from (t, y)
given f0 = f(t, y), and return the new state with the error norm of the step (accepted
when <= 1; the step factor is err^(-1/(order+1))).

- Dormand-Prince 5(4) (Hairer, Norsett, Wanner, Solving ODEs I, Table II.5.2): seven
  stages, the last one at the new point, so it is the next step's first (FSAL); its dense
  output is Shampine's continuous extension of order 4 (same book, Sec. II.6), from the
  seven stages alone.
- Dormand-Prince 8(5,3) "DOP853" (same book, Sec. II.10; coefficients as published by
  Hairer and Wanner with their code DOP853): twelve stages of order 8.  Its error estimate
  combines a 5th-order estimator E5 and a 3rd-order one E3 as h E5^2 / sqrt(E5^2 +
  0.01 E3^2), which stays reliable at large steps.  At tight tolerances it takes several
  times fewer steps than 5(4), and every step also costs a projection onto the constraints.
"""
from __future__ import annotations

import math

import numpy as np

# Dormand-Prince 5(4)
_C5 = np.array([0.0, 1 / 5, 3 / 10, 4 / 5, 8 / 9, 1.0, 1.0])
_A5 = np.zeros((7, 7))
_A5[1, :1] = [1 / 5]
_A5[2, :2] = [3 / 40, 9 / 40]
_A5[3, :3] = [44 / 45, -56 / 15, 32 / 9]
_A5[4, :4] = [19372 / 6561, -25360 / 2187, 64448 / 6561, -212 / 729]
_A5[5, :5] = [9017 / 3168, -355 / 33, 46732 / 5247, 49 / 176, -5103 / 18656]
_A5[6, :6] = [35 / 384, 0.0, 500 / 1113, 125 / 192, -2187 / 6784, 11 / 84]
_B5 = _A5[6].copy()
_E4 = _B5 - np.array([5179 / 57600, 0.0, 7571 / 16695, 393 / 640, -92097 / 339200, 187 / 2100, 1 / 40])
# its continuous extension of order 4 (Shampine 1986; Hairer-Norsett-Wanner II.6, code
# DOPRI5 "contd5"): the weights of the stages in the interpolant's last coefficient
_D5 = np.array([-12715105075 / 11282082432, 0.0, 87487479700 / 32700410799,
                -10690763975 / 1880347072, 701980252875 / 199316789632,
                -1453857185 / 822651844, 69997945 / 29380423])

# Dormand-Prince 8(5,3)
_C8 = np.array([
    0.0, 0.05260015195876773, 0.0789002279381516, 0.1183503419072274, 0.2816496580927726,
    0.3333333333333333, 0.25, 0.3076923076923077, 0.6512820512820513, 0.6,
    0.8571428571428571, 1.0
])
_A8 = np.array([  # stages 1-12 (lower triangle)
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.05260015195876773, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.0197250569845379, 0.0591751709536137, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
     0.0],
    [0.02958758547680685, 0.0, 0.08876275643042054, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0,
     0.0],
    [0.2413651341592667, 0.0, -0.8845494793282861, 0.924834003261792, 0.0, 0.0, 0.0, 0.0,
     0.0, 0.0, 0.0, 0.0],
    [0.037037037037037035, 0.0, 0.0, 0.17082860872947386, 0.12546768756682242, 0.0, 0.0,
     0.0, 0.0, 0.0, 0.0, 0.0],
    [0.037109375, 0.0, 0.0, 0.17025221101954405, 0.06021653898045596, -0.017578125, 0.0,
     0.0, 0.0, 0.0, 0.0, 0.0],
    [0.03709200011850479, 0.0, 0.0, 0.17038392571223998, 0.10726203044637328,
     -0.015319437748624402, 0.008273789163814023, 0.0, 0.0, 0.0, 0.0, 0.0],
    [0.6241109587160757, 0.0, 0.0, -3.3608926294469414, -0.868219346841726,
     27.59209969944671, 20.154067550477894, -43.48988418106996, 0.0, 0.0, 0.0, 0.0],
    [0.47766253643826434, 0.0, 0.0, -2.4881146199716677, -0.590290826836843,
     21.230051448181193, 15.279233632882423, -33.28821096898486, -0.020331201708508627,
     0.0, 0.0, 0.0],
    [-0.9371424300859873, 0.0, 0.0, 5.186372428844064, 1.0914373489967295,
     -8.149787010746927, -18.52006565999696, 22.739487099350505, 2.4936055526796523,
     -3.0467644718982196, 0.0, 0.0],
    [2.273310147516538, 0.0, 0.0, -10.53449546673725, -2.0008720582248625,
     -17.9589318631188, 27.94888452941996, -2.8589982771350235, -8.87285693353063,
     12.360567175794303, 0.6433927460157636, 0.0],
])
_B8 = np.array([
    0.054293734116568765, 0.0, 0.0, 0.0, 0.0, 4.450312892752409, 1.8915178993145003,
    -5.801203960010585, 0.3111643669578199, -0.1521609496625161, 0.20136540080403034,
    0.04471061572777259
])
_E5 = np.array([  # 5th-order error estimator
    0.01312004499419488, 0.0, 0.0, 0.0, 0.0, -1.2251564463762044, -0.4957589496572502,
    1.6643771824549864, -0.35032884874997366, 0.3341791187130175, 0.08192320648511571,
    -0.022355307863886294
])
# the 3rd-order estimator's weights on stages 1, 9, 12
_BHH = np.array([0.2440944881889764, 0.7338466882816118, 0.022058823529411766])

# DOP853's dense output of order 7 (Hairer, Norsett, Wanner, Solving ODEs I, Sec. II.6 and
# their code DOP853, "contd8"): stage 13 is f at the new point (weights _B8), stages 14-16
# are three more at c = 0.1, 0.2, 7/9; _D8 gives the interpolant's last four coefficients.
_C8X = np.array([1.0, 0.1, 0.2, 0.7777777777777778])
_A8X = np.zeros((4, 16))
_A8X[0, :12] = _B8
for _j, _a in {0: 0.056167502283047954, 6: 0.25350021021662483, 7: -0.2462390374708025,
               8: -0.12419142326381637, 9: 0.15329179827876568, 10: 0.00820105229563469,
               11: 0.007567897660545699, 12: -0.008298}.items():
    _A8X[1, _j] = _a
for _j, _a in {0: 0.03183464816350214, 5: 0.028300909672366776, 6: 0.053541988307438566,
               7: -0.05492374857139099, 10: -0.00010834732869724932,
               11: 0.0003825710908356584, 12: -0.00034046500868740456,
               13: 0.1413124436746325}.items():
    _A8X[2, _j] = _a
for _j, _a in {0: -0.42889630158379194, 5: -4.697621415361164, 6: 7.683421196062599,
               7: 4.06898981839711, 8: 0.3567271874552811, 12: -0.0013990241651590145,
               13: 2.9475147891527724, 14: -9.15095847217987}.items():
    _A8X[3, _j] = _a
_D8 = np.zeros((4, 16))
for _i, _row in enumerate((
        (-8.428938276109013, 0.5667149535193777, -3.0689499459498917, 2.38466765651207,
         2.117034582445028, -0.871391583777973, 2.2404374302607883, 0.6315787787694688,
         -0.08899033645133331, 18.148505520854727, -9.194632392478356, -4.436036387594894),
        (10.427508642579134, 242.28349177525817, 165.20045171727028, -374.5467547226902,
         -22.113666853125306, 7.733432668472264, -30.674084731089398, -9.332130526430229,
         15.697238121770845, -31.139403219565178, -9.35292435884448, 35.81684148639408),
        (19.985053242002433, -387.0373087493518, -189.17813819516758, 527.8081592054236,
         -11.57390253995963, 6.8812326946963, -1.0006050966910838, 0.7777137798053443,
         -2.778205752353508, -60.19669523126412, 84.32040550667716, 11.99229113618279),
        (-25.69393346270375, -154.18974869023643, -231.5293791760455, 357.6391179106141,
         93.40532418362432, -37.45832313645163, 104.0996495089623, 29.8402934266605,
         -43.53345659001114, 96.32455395918828, -39.17726167561544, -149.72683625798564))):
    _D8[_i, [0, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]] = _row


def _combine(c: np.ndarray, K2: np.ndarray, shape: tuple) -> np.ndarray:
    """sum_i c_i K_i over the stages, one matrix-vector product whatever the shape of a
    stage (one state or many): K2 (stages, size + _PAD) their entries flat, then _PAD zero
    columns.  BLAS treats a matrix's last columns apart (another order of the same sums):
    with the padding no state's entries are among them, so a design study's variant gets
    the same bits wherever it stands in its stack, and in a stack of any size."""
    size = K2.shape[1] - _PAD
    return (c @ K2)[:size].reshape(shape)


_PAD = 32          # zero columns after the stages' entries (_combine)


def _padded(count: int, shape: tuple) -> tuple[np.ndarray, np.ndarray]:
    """(K2 (count, size + _PAD) zeros, its first size columns as (count,) + shape)."""
    size = math.prod(shape)
    K2 = np.zeros((count, size + _PAD))
    return K2, K2[:, :size].reshape((count,) + shape)


def end_rate(stepper, y: np.ndarray) -> np.ndarray | None:
    """f at y when y is the end of the stepper's last step and its last stage was taken
    there (DoPri5.end_rate); None otherwise, or for a stepper without one."""
    rate = getattr(stepper, "end_rate", None)
    return None if rate is None else rate(y)


class DoPri5:
    """Explicit Dormand-Prince 5(4): cheap steps at moderate tolerances."""
    order = 4          # of the error estimate: step factor err^(-1/(order+1))
    name = "explicit Dormand-Prince 5(4)"
    C, A, B, E = _C5, _A5, _B5, _E4
    # a step past the frames (analyses/dynamics/driver.py) at most this over the equations' fastest
    # rate: where the error estimate vanishes (at rest) only stability bounds the step, and
    # an undamped oscillation's eigenvalues lie on the imaginary axis, where |R(iy)| <= 1
    # for y up to 0.998 (5(4): |R(1.5i)| = 1.003 grew a resting pendulum's rounding 44-fold
    # in 1,000 s) and about 3 (DOP853: |R(1.5i)| = 1 - 1.5e-6); with room below each
    stable = 0.9

    def __init__(self, rhs) -> None:
        self.rhs = rhs
        self.k_end: np.ndarray | None = None
        self._last = None

    def end_rate(self, y: np.ndarray, row: int | None = None) -> np.ndarray | None:
        """f at the last step's end when y is that end (the array the step returned): its
        last stage (first same as last); None otherwise, or without one (DOP853).  ``row``:
        y is that state of a stack of them (a design study's), compared by value."""
        last, k = self._last, self.k_end
        if last is None or k is None:
            return None
        if row is None:
            return k if last[4] is y else None
        return k[row] if np.array_equal(last[4][row], y) else None

    def stages(self, t, y: np.ndarray, f0: np.ndarray, h, cap=None) -> np.ndarray:
        """(stages,) + y.shape stage derivatives k_i = f(t + c_i h, y + h sum_j a_ij k_j).
        y (n,) with t, h numbers, or many states y (S, n) with their own t, h (S,) (a
        design study's variants, each with its own step).  ``cap`` (s, or (S,)): no stage
        time past it (the float just before a breakpoint a step ends on, where a step
        function's rate turns: its stages there take the side the step comes from)."""
        n = len(self.C)
        K2, K = _padded(n, y.shape)
        K[0] = f0
        hh = np.asarray(h)[..., None]
        for i in range(1, n):
            self.y_stage = y + hh * _combine(self.A[i, :i], K2[:i], y.shape)
            ti = t + self.C[i] * h
            K[i] = self.rhs(ti if cap is None else np.minimum(ti, cap), self.y_stage)
        return K2

    def step(self, t, y: np.ndarray, f0: np.ndarray, h, norm, cap=None):
        K2 = self.stages(t, y, f0, h, cap)
        # the last stage's state is the new point (its weights are B: first same as last),
        # taken as that stage had it, so that f(t + h, ynew) is the next step's first stage
        # and the projection finds that stage's rows at ynew (Equations.project)
        ynew = self.y_stage
        self.k_end = K2[6, : y.size].reshape(y.shape)
        self._last = (t, y, h, K2, ynew)
        self._dense = None
        return ynew, norm(np.asarray(h)[..., None] * _combine(self.E, K2, y.shape), y, ynew)

    def _coefficients(self) -> np.ndarray:
        """The last step's dense output's coefficients (4,) + y.shape: Shampine's
        continuous extension of order 4 (Hairer-Norsett-Wanner II.6, their code DOPRI5,
        "contd5"), from the step's seven stages (the seventh is f at the new point), no
        right-hand side more:
        y0 + th (c0 + (1-th) (c1 + th (c2 + (1-th) c3)))."""
        t, y, h, K2, ynew = self._last
        hh = np.asarray(h)[..., None]
        dy = ynew - y
        c1 = hh * K2[0, : y.size].reshape(y.shape) - dy
        coef = np.empty((4,) + y.shape)
        coef[0], coef[1] = dy, c1
        coef[2] = dy - hh * K2[6, : y.size].reshape(y.shape) - c1
        coef[3] = hh * _combine(_D5, K2, y.shape)
        return coef

    def dense(self, theta, row: int | None = None) -> np.ndarray:
        """y at t + theta h (0 <= theta <= 1, or an array of them: (F, n)) within the last
        step (one state, or state ``row`` of a stack of them: the coefficients of all made
        together, on first use): the polynomial of ``_coefficients`` in theta, nested as
        y0 + th (c0 + (1-th) (c1 + th (c2 + (1-th) (c3 + ...))))."""
        if self._dense is None:
            self._dense = (self._last[1], self._coefficients())
        y0, c = self._dense
        if row is not None:                     # one state of a stack
            y0, c = y0[row], c[:, row]
        th = np.asarray(theta, dtype=float)[..., None]     # several thetas: (F, n)
        th1 = 1.0 - th
        acc = c[-1]
        for k in range(len(c) - 2, 0, -1):
            acc = c[k] + (th if k % 2 else th1) * acc
        return y0 + th * (c[0] + th1 * acc)


class DOP853(DoPri5):
    """Explicit Dormand-Prince 8(5,3): few steps at tight tolerances."""
    order = 7
    name = "explicit Dormand-Prince 8(5,3)"
    C, A, B, E = _C8, _A8, _B8, _E5
    stable = 1.5

    def step(self, t, y: np.ndarray, f0: np.ndarray, h, norm, cap=None):
        """(y at t + h, the error norm); with many states y (S, n), t and h (S,), and a
        norm giving one value per state: one error per state (``cap``: ``stages``)."""
        K2 = self.stages(t, y, f0, h, cap)
        K = K2[:, : y.size].reshape((len(K2),) + y.shape)
        inc = _combine(self.B, K2, y.shape)
        hh = np.asarray(h)
        ynew = y + hh[..., None] * inc
        self.k_end = None        # the last stage is not at the new point
        self._last = (t, y, h, K2, ynew)
        self._dense = None
        e5 = norm(_combine(self.E, K2, y.shape), y, ynew)
        e3 = norm(inc - (_BHH[0] * K[0] + _BHH[1] * K[8] + _BHH[2] * K[11]), y, ynew)
        den = e5 * e5 + 0.01 * e3 * e3
        with np.errstate(invalid="ignore", divide="ignore"):
            err = np.where(den > 0.0, hh * e5 * e5 / np.sqrt(den), 0.0)
        # a failed stage: reject however small h is
        err = np.where(np.isfinite(ynew).all(axis=-1) & (e5 < 1e10) & (e3 < 1e10), err, np.inf)
        return ynew, (float(err) if err.ndim == 0 else err)

    def _coefficients(self) -> np.ndarray:
        """DOP853's dense output of order 7 (contd8): its coefficients (7,) + y.shape, from
        the step's stages and four more right-hand sides (stage 13 at the new point,
        14-16), as ``dense`` nests them:
        y0 + th (d1 + (1-th) (d2 + th (d3 + (1-th) (d4 + th (d5 + (1-th) (d6 + th d7))))))."""
        t, y, h, K2, ynew = self._last
        hh = np.asarray(h)[..., None]       # (a stack: one h per state)
        X2, X = _padded(16, y.shape)
        X2[:12] = K2
        for i in range(4):
            X[12 + i] = self.rhs(t + _C8X[i] * h,
                                 y + hh * _combine(_A8X[i, :12 + i], X2[:12 + i], y.shape))
        dy = ynew - y
        d2 = hh * X[0] - dy
        coef = np.empty((7,) + y.shape)
        coef[0], coef[1], coef[2] = dy, d2, dy - hh * X[12] - d2
        coef[3:] = hh * (_D8 @ X2)[:, : y.size].reshape((4,) + y.shape)
        return coef


def explicit_method(rtol: float) -> type[DoPri5]:
    """DOP853 at tight local tolerances (rtol <= DOP853_BELOW), Dormand-Prince 5(4) else."""
    return DOP853 if rtol <= DOP853_BELOW else DoPri5


def explicit_stepper(rhs, rtol: float) -> DoPri5:
    """The stepper of ``explicit_method(rtol)`` on the right-hand side ``rhs``."""
    return explicit_method(rtol)(rhs)


# Where DOP853 starts to pay (chain of 10 rods, 2 s, solve tolerance = 100 rtol): at 1e-3
# 5(4) is 14% faster; at 1e-4 they take the same time (99 against 182 steps); at 1e-5 and
# 1e-6 DOP853 is 1.3x faster, and at every tolerance its energy error is 2-20x smaller.
DOP853_BELOW = 1e-6
