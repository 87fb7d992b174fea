"""The Study panel's logic without Blender (addon/io/study_table.py, addon/io/png_plot.py):
the values of Start/Stop/Count, the table kept in the scene (JSON round trip, sorting, the
CSV equal to StudyResult.to_csv byte for byte, the plot's lines), and the PNG drawn with
numpy (axes, ticks, lines, the file's bytes)."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from mechanisms import PI, slider_crank
from solver import Study, grid
from solver.study import resolve
from test_io_addon import io

study_table = io("study_table")
png_plot = io("png_plot")


@pytest.fixture(scope="module")
def crank_study():
    """A real StudyResult: rod length x crank mass, one rod too short (variants 2, 3 fail)."""
    m = slider_crank(theta0=PI / 2, error_deg=0.0, error_m=0.0)
    return Study(m, grid({"rod_B.position.x": [0.3, 0.05, 0.4],
                          "crank.mass": [1.0, 2.0]})).run(duration=0.1, fps=24)


def test_level_values_and_levels() -> None:
    lv = study_table.level_values
    assert lv(0.0, 0.3, 4) == pytest.approx((0.0, 0.1, 0.2, 0.3)) and lv(0.0, 0.3, 4)[-1] == 0.3
    assert lv(2.0, 9.0, 1) == (2.0,) and lv(1.0, 2.0, 0) == ()
    assert study_table.study_levels([("a", 1, 2, 2), ("b", 0, 0, 1)]) == {"a": (1.0, 2.0), "b": (0.0,)}
    with pytest.raises(ValueError, match="pick parameter 2"):
        study_table.study_levels([("a", 1, 2, 2), ("", 0, 1, 2)])
    with pytest.raises(ValueError, match="a from 2 to 2 is an empty range: 3 equal values"):
        study_table.study_levels([("a", 2, 2, 3)])
    with pytest.raises(ValueError, match="'a' is picked twice"):
        study_table.study_levels([("a", 1, 2, 2), ("a", 0, 1, 2)])


def test_a_zero_count_is_refused_by_the_solvers_grid() -> None:
    levels = study_table.study_levels([("crank.mass", 1.0, 2.0, 0)])
    with pytest.raises(ValueError, match=r"crank.mass has no values \(an empty range\)"):
        grid(levels)


def test_table_round_trip_csv_and_order(crank_study, tmp_path) -> None:
    res = crank_study
    t = study_table.StudyTable.from_result(res, {"frames": [1, 3], "analysis": "auto"})
    assert t.parameters == ("rod_B.position.x", "crank.mass") and len(t) == 6
    assert set(t.failures) == {2, 3} and "assembly failed" in t.failures[2]
    text = t.to_json()
    json.loads(text)                                   # strict JSON: NaN stored as null
    assert "NaN" not in text
    back = study_table.StudyTable.from_json(text)
    assert back.columns == list(res.summary) and back.failures == t.failures
    assert back.settings == {"frames": [1, 3], "analysis": "auto"} and back.run_id == t.run_id
    for c, col in res.summary.items():
        np.testing.assert_array_equal(back.column(c), np.asarray(col, dtype=float))
    assert study_table.StudyTable.from_json("") is None
    # the CSV is StudyResult.to_csv's, byte for byte
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    res.to_csv(a)
    back.write_csv(str(b))
    assert a.read_bytes() == b.read_bytes()
    # sorting: by value, ties by index, failed (NaN) last in either direction
    col = "peak reaction crank_pin"
    up, down = back.order(col), back.order(col, descending=True)
    vals = back.column(col)
    assert up[-2:] == [2, 3] and down[-2:] == [2, 3]
    assert list(vals[up[:4]]) == sorted(vals[up[:4]])
    assert list(vals[down[:4]]) == sorted(vals[down[:4]], reverse=True)
    assert back.order("variant", descending=True) == [5, 4, 3, 2, 1, 0]
    assert back.values(4) == {"rod_B.position.x": 0.4, "crank.mass": 1.0}
    with pytest.raises(ValueError, match="no column 'nope'"):
        back.order("nope")
    # the plot's lines: one per crank mass, x sorted, NaN at the failed rod
    lines = back.series(col)
    assert [v for v, _, _ in lines] == [1.0, 2.0]
    np.testing.assert_array_equal(lines[0][1], [0.05, 0.3, 0.4])
    assert math.isnan(lines[0][2][0]) and lines[0][2][1] == vals[0]
    assert study_table.describe({"a": 0.1, "b": 2.0}) == "a = 0.1, b = 2"
    assert study_table.describe({"a": 0.1, "b": 2.0}, {"a": "m", "b": ""}) == "a = 0.1 m, b = 2"


def test_design_value_and_row_differs() -> None:
    m = slider_crank()
    for name, want in (("crank.mass", 1.0), ("rod_B.position.x", 0.3), ("gravity.z", -9.81)):
        p = resolve(m, name)
        assert study_table.design_value(m, p) == pytest.approx(want)
    assert study_table.row_differs({"a": 1.0, "b": math.nan}, {"a": 1.0 + 1e-13, "b": math.nan}) == []
    assert study_table.row_differs({"a": 1.0}, {"a": 1.001}) == ["a"]


def test_nice_ticks_and_numbers() -> None:
    np.testing.assert_allclose(png_plot.nice_ticks(0.05, 0.4), [0.0, 0.1, 0.2, 0.3, 0.4])
    np.testing.assert_allclose(png_plot.nice_ticks(3.0, 3.0), [1.0, 2.0, 3.0, 4.0, 5.0])
    assert png_plot.tick_text(0.30000000000000004, 0.1) == "0.3"
    assert png_plot.tick_text(250.0, 50.0) == "250" and png_plot.tick_text(2e6, 1e6) == "2.00e6"


def test_plot_pixels_axes_lines_and_png(tmp_path) -> None:
    x = np.array([0.0, 1.0, 2.0, 3.0, 4.0])
    img = png_plot.plot_pixels([(None, x, x)], 400, 300)         # y = x: corner to corner
    h, w, _ = img.shape
    assert (h, w) == (300, 400)
    L, T, R, B = png_plot.LEFT, png_plot.TOP, w - png_plot.RIGHT, h - png_plot.BOTTOM
    black = np.all(img == 0, axis=2)
    assert black[T:B + 1, L].all() and black[B, L:R + 1].all()          # the frame
    blue = np.all(img == png_plot.COLOURS[0], axis=2)
    assert blue[B - 3:B + 4, L - 3:L + 4].any() and blue[T - 3:T + 4, R - 3:R + 4].any()
    mid = (L + R) // 2
    rows = np.flatnonzero(blue[:, mid])                    # the line through the middle
    assert abs(rows.mean() - (T + B) / 2) < 3
    assert black[B + 8:B + 8 + png_plot.CHAR_H, :].any()   # x tick numbers below the axis
    assert black[:, :L - 8].any()                          # y tick numbers left of it
    # two lines (a legend), a gap at NaN
    y2 = np.array([1.0, np.nan, 3.0, 2.0, 1.0])
    img2 = png_plot.plot_pixels([(0.5, x, x), (2.0, x, y2)], 600, 300)
    red = np.all(img2 == png_plot.COLOURS[1], axis=2)
    assert red[:, 600 - png_plot.RIGHT - png_plot.LEGEND + 12:].any()   # legend swatch
    # the PNG: a valid file with the same pixels
    path = tmp_path / "p.png"
    png_plot.write_png(str(path), img2)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    np.testing.assert_array_equal(png_plot.read_png(data), img2)
    with pytest.raises(ValueError, match="checksum"):
        png_plot.read_png(data[:40] + bytes([data[40] ^ 1]) + data[41:])
    empty = png_plot.plot_pixels([(None, x, np.full(5, np.nan))], 200, 150)
    assert np.all(empty[png_plot.TOP:150 - png_plot.BOTTOM, png_plot.LEFT] == 0)


def test_plot_labels_its_axes_and_legend() -> None:
    """The x label (the parameter and its unit) centred under the tick numbers, the y label
    (the column) turned to read upwards left of them, the legend's title (the second
    parameter) in small letters over its values: each exactly its glyphs at its place, the
    plot area shrunk to make room; a label too long for its axis ends in "..."."""
    pp = png_plot
    x = np.array([0.0, 1.0, 2.0])
    xl, yl, lt = "Pin I.position.x (m)", "peak reaction Cylinder", "rod.mass (kg)"
    img = pp.plot_pixels([(1.0, x, x), (2.0, x, 2 * x)], 800, 500, xlabel=xl, ylabel=yl,
                         legend_title=lt)
    black = np.all(img == 0, axis=2)
    band = pp.CHAR_H + 12
    L, R = pp.LEFT + band, 800 - pp.RIGHT - pp.LEGEND
    T, B = pp.TOP + 7 + 6, 500 - pp.BOTTOM - band
    assert black[T:B + 1, L].all() and black[B, L:R + 1].all()          # the frame, moved
    m = pp.text_mask(xl)
    xa, ya = (L + R - pp.text_width(xl)) // 2, B + 8 + pp.CHAR_H + 10
    np.testing.assert_array_equal(black[ya:ya + m.shape[0], xa:xa + m.shape[1]], m)
    m = np.rot90(pp.text_mask(yl))
    ya = (T + B - m.shape[0]) // 2
    np.testing.assert_array_equal(black[ya:ya + m.shape[0], 6:6 + m.shape[1]], m)
    assert m.shape[0] > m.shape[1]                                     # standing up
    m = pp.text_mask(lt, 1)
    np.testing.assert_array_equal(black[T - 9:T - 2, R + 12:R + 12 + m.shape[1]], m)
    assert pp.fit("a" * 10, pp.text_width("a" * 10)) == "a" * 10
    cut = pp.fit("a" * 100, 200)
    assert cut.endswith("...") and pp.text_width(cut) <= 200 < pp.text_width(cut + "a")
    cut = pp.fit("peak reaction Prismatic piston slide (N)", 200)     # the unit is kept
    assert cut == "peak reac... (N)" and pp.text_width(cut) <= 200
    assert all(len(g) == 7 and all(len(r) == 5 for r in g) for g in pp.FONT.values())


# ---------------------------------------------------------------- the modal run's worker
def test_background_run_reports_progress_and_cancels_on_esc() -> None:
    """addon/background.py (Bake, Run Study, Bake Variant in a window): the work runs in a
    thread, each timer event shows its progress, Esc makes progress() return False, and
    ``finished`` gets the work's result or error on the main thread.  Headless Blender has
    no window, so its window manager and events are stood in for here."""
    import importlib
    import threading
    import time
    from test_io_addon import PACKAGE, package
    package()
    BackgroundRun = importlib.import_module(f"{PACKAGE}.addon.background").BackgroundRun

    class Log:
        def __init__(self):
            self.calls = []

        def __getattr__(self, name):
            return lambda *a, **k: self.calls.append((name, a)) or name

    class Ctx:
        window = None

        def __init__(self):
            self.window_manager, self.workspace = Log(), Log()

    class Op(BackgroundRun):
        def finished(self, context, error, result):
            self.got = (error, result)
            return {"FINISHED"} if error is None else {"CANCELLED"}

    class Event:
        def __init__(self, kind):
            self.type = kind

    def drive(op, ctx, esc_after=None):
        out, k = {"RUNNING_MODAL"}, 0
        while out == {"RUNNING_MODAL"}:
            k += 1
            out = op.modal(ctx, Event("ESC" if esc_after == k else "TIMER"))
            time.sleep(0.002)
        return out

    go = threading.Event()

    def work(progress):          # ten frames; stops when progress says cancel
        for i in range(10):
            go.wait()
            if progress(i + 1, 10) is False:
                raise RuntimeError("cancelled")
        return "done"

    op, ctx = Op(), Ctx()
    assert op.start(ctx, work, "frame {k} of {n}") == {"RUNNING_MODAL"}
    go.set()
    assert drive(op, ctx) == {"FINISHED"} and op.got == (None, "done")
    shown = [a[0] for name, a in ctx.workspace.calls if name == "status_text_set"]
    assert shown[-1] is None and any(s and s.endswith("of 10") for s in shown)
    assert ("progress_end", ()) in ctx.window_manager.calls
    go.clear()
    op, ctx = Op(), Ctx()
    op.start(ctx, work, "frame {k} of {n}")
    threading.Timer(0.05, go.set).start()
    assert drive(op, ctx, esc_after=1) == {"CANCELLED"}
    assert isinstance(op.got[0], RuntimeError)
