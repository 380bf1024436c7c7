"""Environments: games behind dm_env, with pure-JAX cores; suites by adapter."""

from importlib import metadata

# The installed release: setup.py declares it once; agents, networks and
# experiments report it too.
try:
  __version__ = metadata.version('planestrike-rl')
except metadata.PackageNotFoundError:  # A checkout on the path, uninstalled.
  __version__ = 'unknown'
