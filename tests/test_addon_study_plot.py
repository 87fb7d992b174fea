"""Plot Study (addon/study_ops.py) in real Blender: what its report says of the PNG it
writes.  Scenes: blender_scenes.py."""
from __future__ import annotations

import blender_scenes as bs


def test_a_plot_of_a_study_whose_variants_all_failed_says_it_is_empty(blender, capfd,
                                                                         tmp_path) -> None:
    """The slider-crank's rod (its small-end marker at x = 0.15 on the rod) moved to -0.1
    and -0.12, where it cannot reach the piston: every variant fails.  Plot still writes
    the axes, and its report says they are empty and why, not that the column was
    plotted."""
    bpy = blender
    sc = bs.slider_crank(bpy)
    st = bpy.context.scene.mechanism.study
    st.pick_1 = f"{sc['small_end'].mechanism.marker_j.name}.position.x"
    st.start_1, st.stop_1, st.count_1 = -0.1, -0.12, 2
    st.plot_path = str(tmp_path / "plot.png")
    assert bpy.ops.mechanism.study_run() == {"FINISHED"}
    capfd.readouterr()
    assert bpy.ops.mechanism.study_plot() == {"FINISHED"}
    out = capfd.readouterr().out
    assert "Warning: plotted" in out and "empty axes, no variant has a value of" in out, out
    assert (tmp_path / "plot.png").exists()
