"""A mechanism checked before and after a run: check() (the start, redundant rows, the
report), a cam's curves cutting into each other over a run's frames and the joint angles
followed by their rates."""
