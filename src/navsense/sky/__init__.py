"""The sky of a site: the synthetic constellation or a RINEX file's satellites, and what the
site's obstacles block.

Libraries, like :mod:`navsense.geo`: the GNSS receiver calls them, and a reader of a run (the
report's sky plot, the statistics' truth antenna) uses them with the parameters the run wrote
in episode.json, without building a model (DESIGN.md "Data flows one way").

- :mod:`.constellation`: the satellites' orbits and lines of sight (specification, "GNSS
  Receiver", "Constellation");
- :mod:`.rinex_nav`, :mod:`.broadcast`, :mod:`.broadcast_sky`: the real sky (``gnss.orbits`` a
  RINEX navigation file): the file's records, satellite positions from broadcast ephemerides
  (GPS, Galileo, BeiDou, QZSS Kepler orbits; GLONASS Runge-Kutta), the satellites valid and
  healthy at each epoch and their lines of sight;
- :mod:`.obstruction`: the antenna position, the culling and ray tests, each satellite's status
  ("Antenna Position", "Sky Obstruction").
"""
