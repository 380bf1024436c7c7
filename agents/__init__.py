"""Agents: pure functions (init, act, update) on RLax ops and Optax.

Loading the package loads distrax first, without TensorFlow
(`distrax_without_tensorflow`), so that no agent module's `import rlax`
pays for TensorFlow.
"""

from importlib import metadata

from agents import distrax_without_tensorflow

distrax_without_tensorflow.import_distrax()

# The installed release (setup.py declares it once).
__version__ = metadata.version('planestrike-rl')
