"""Forward dynamics and its events: the run (driver.py: steps, frames, singular positions,
rest, long steps), its equations (equations.py: the right-hand side, the projection), the
events inside a step (events.py), and the two event families, rigid and compliant stops
(stops.py) and joint friction (friction.py), with the rows a run switches on and off
(switching.py).  The kinematic sweep and statics use the stops' and friction's models too."""
