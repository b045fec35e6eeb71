"""The GNSS receiver (specification, "GNSS Receiver").

A position-domain receiver: a synthetic constellation (:mod:`.constellation`), the sky view
against the site's obstacles (:mod:`.sky`), the dilution of precision (:mod:`.dop`), the
reflector and multipath indices (:mod:`.multipath`), the correction stream, the fix-state
machine and the correlated errors, and the rows of ``gnss.jsonl``.
"""
