"""Scoring a user's estimator against a run's truth (``navsense score``, issue 22)."""
