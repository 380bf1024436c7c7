"""Agents: pure functions (init, act, update) on RLax ops and Optax.

Loading the package loads distrax first, without TensorFlow
(`distrax_without_tensorflow`), so that no agent module's `import rlax`
pays for TensorFlow.
"""

from agents import distrax_without_tensorflow
import environments

distrax_without_tensorflow.import_distrax()

# The release (`environments.__version__`, setup.py's).
__version__ = environments.__version__
