"""Pytest set-up shared by all tests.

Every test process, and every process a test starts, shares one persistent
JAX compilation cache (`.jax_cache/` in the repository, or
$JAX_COMPILATION_CACHE_DIR): the suite compiles the same small programs in
many processes, and a cached executable is the same executable, so no
number changes. A developer's later runs reuse it; CI starts it empty.
"""

import os

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Read by JAX when it is imported, here and in every child process.
os.environ.setdefault('JAX_COMPILATION_CACHE_DIR',
                      os.path.join(_REPO, '.jax_cache'))
os.environ.setdefault('JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS', '0')

# pylint: disable=g-import-not-at-top,wrong-import-position
from absl import flags

import agents  # Before any test's `import rlax`: TFP without TensorFlow.


def pytest_configure(config):
  del config
  # absltest helpers (create_tempdir, …) read flags; pytest never parses them.
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()
