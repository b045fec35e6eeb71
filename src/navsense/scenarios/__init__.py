"""Embedded sites and scenarios (data files read with importlib.resources)."""
