"""Posing by hand: the ``Poser`` (drag.py: a grabbed point dragged to a target, every joint
held; drag_newton.py: its second-order step), its coordinate sliders (wiggle.py: one joint
coordinate set, a coordinate's range) and the joints' stops while posing (drag_stops.py)."""
