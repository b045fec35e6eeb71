"""Live serving: a run paced at real time (or faster) and served as it happens (``navsense live``)."""
