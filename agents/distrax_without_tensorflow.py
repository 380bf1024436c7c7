"""Imports distrax (and with it TFP's JAX substrate) without TensorFlow.

TFP's JAX and NumPy backends try `import tensorflow` when they load, only to
copy TF's docstrings onto their own functions. Where TensorFlow is installed
(our export needs it) that costs every `import rlax` about 3 s and 500 MB.
Hiding TensorFlow while distrax loads sends TFP down the path it takes where
TensorFlow is not installed: the same functions, without the docstring
wrappers (which only forward their arguments), so no number changes. Export
imports TensorFlow later, as usual.
"""

import importlib
import sys


def import_distrax() -> None:
  """Imports distrax, with `tensorflow` hidden unless it is already loaded."""
  if 'distrax' in sys.modules or 'tensorflow' in sys.modules:
    importlib.import_module('distrax')
    return
  sys.modules['tensorflow'] = None  # `import tensorflow` raises ImportError.
  try:
    importlib.import_module('distrax')
  finally:
    if 'tensorflow' in sys.modules and sys.modules['tensorflow'] is None:
      del sys.modules['tensorflow']
