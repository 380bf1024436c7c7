"""Networks: Haiku modules turned into pure functions by hk.transform."""

from importlib import metadata

# The installed release (setup.py declares it once).
__version__ = metadata.version('planestrike-rl')
