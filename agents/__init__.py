"""Agents: pure functions (init, act, update) on RLax ops and Optax.

Loading the package loads distrax first, without TensorFlow
(`distrax_without_tensorflow`), so that no agent module's `import rlax`
pays for TensorFlow.
"""

from agents import distrax_without_tensorflow

distrax_without_tensorflow.import_distrax()
