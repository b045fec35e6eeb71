"""Typed, frozen views of the validated configuration, one module per section (``X.from_validated(cfg)`` converts and does not check)."""
