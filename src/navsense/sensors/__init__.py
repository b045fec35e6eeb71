"""Sensor models: each owns its state and turns consecutive truth chunks into sampled epochs."""
