# SPDX-License-Identifier: GPL-3.0-or-later
"""The add-on's logic that needs no Blender (glTF exporter style: ``io/`` apart from the
Blender side).  Nothing here imports bpy, mathutils or a Blender-side module of addon/;
the callers read the scene into plain numbers and write the results back.  Tested without
Blender in tests/test_io_addon.py (couplers.py in tests/test_io_couplers.py, the curve
modules in tests/test_io_curves.py).

  timeline.py     scene frames <-> solver times
  settings.py     sidebar settings as solver arguments (kind names, motion names, force text)
  keyframes.py    exact F-curve evaluation (a keyframed motion's value and rates)
  part_frames.py  part frames (scale taken out), marker frames, pose matrices, parent space
  mass.py         a part's mass, centre of mass and inertia in SI, typed in or from its mesh
  contact_shapes.py a contact's shapes from a part's mesh: the mesh in the part frame, fitted primitives
  plots.py        the custom properties a bake animates on joints (reactions, efforts) and couplers
  couplers.py     a coupler's settings as its solver call, Couple's guess, gear radii, tie lines
  csv_table.py    the rows of Export CSV
  arrows.py       the viewport's force arrows as line segments
  command_line.py the arguments of the ``mechanism`` command
  curve_shapes.py Bezier, NURBS and poly splines as the solver's curves (curve joints)
  curve_joints.py a curve joint's curve objects in their markers' frames, checks, fit notes
  study_table.py  the Study panel's table as the scene keeps it (JSON), its order, CSV, plot lines
  png_plot.py     a line plot drawn with numpy and written as a PNG (no matplotlib in Blender)
"""
