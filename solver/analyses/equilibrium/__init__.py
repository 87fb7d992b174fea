"""Equilibrium and motion about it: statics (the active set of stops and friction around
the force balance) and the linear analysis there (natural frequencies, damping, mode
shapes)."""
