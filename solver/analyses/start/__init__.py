"""The start of a run: the pose assembled (least movement, assembly.py), a start at a
singular position of the joints, the joints open where the parts were built and the
parts' given velocities against the joints and motions."""
