"""Environments: games behind dm_env, with pure-JAX cores; suites by adapter."""

from importlib import metadata

# The installed release (setup.py declares it once).
__version__ = metadata.version('planestrike-rl')
