"""Writers of the run directory: JSONL rows, NMEA sentences, INS frames, ROS 2 bags, reports."""
