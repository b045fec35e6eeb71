"""Allan deviation of a run's IMU (``navsense allan RUN_DIR``; issue 30 item 4).

Checks a simulated IMU the way its users check a real one: the overlapping Allan deviation of
each gyro and accelerometer axis of a stationary recording, with the error terms read off it
(IEEE Std 952-1997, "IEEE Standard Specification Format Guide and Test Procedure for
Single-Axis Interferometric Fiber Optic Gyros", Annex C) beside the values the run was
configured with.

- :mod:`navsense.allan.terms`: the lines the run's recorded configuration implies (angle or
  velocity random walk, bias instability, rate random walk, quantisation) and the Allan
  variance they add up to;
- :mod:`navsense.allan.analysis`: the IMU rows (through the run reader), the overlapping Allan
  deviation (allantools, the ``allan`` extra), the readings and their uncertainty;
- :mod:`navsense.allan.figure`: the figure (the command's ``--plot`` and the run report's, for
  runs of 10 minutes or more);
- :mod:`navsense.commands.allan`: the command line.

Nothing here builds a sensor model: what is needed is in the run directory (CONTRACTS.md).
"""
