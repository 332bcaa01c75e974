"""Differential conformance oracle: the same SQS calls against the emulator and moto.

See engine.py for how a scenario runs and is judged, deviations.py for the named
differences where moto departs from AWS's documented behaviour, and scenarios.py
for the scenarios themselves.
"""
