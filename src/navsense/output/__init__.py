"""Layouts and writers of the run directory: JSONL and Parquet rows, NMEA sentences, INS frames,
ROS 2 messages and bags (what reads a finished run: navsense.runs)."""
