"""The GNSS receiver (specification, "GNSS Receiver").

A position-domain receiver (:mod:`.receiver`): the sky of the site (the synthetic constellation
and the obstructions, the library :mod:`navsense.sky`), the dilution of precision
(:mod:`.dop`), the reflector and multipath indices (:mod:`.multipath`), the correction stream
(:mod:`.corrections`), the fix-state machine (:mod:`.fixstate`) and the correlated errors
(:mod:`.error_model`); beyond the specification, its velocity (:mod:`.velocity`) and each
satellite's elevation, azimuth and C/N0 (:mod:`.signal`). Its rows and NMEA sentences are laid
out by :mod:`navsense.output.layouts.gnss`.
"""
