"""Pytest set-up shared by all tests.

Every test process, and every process a test starts, shares one persistent
JAX compilation cache (`.jax_cache/` in the repository, or
$JAX_COMPILATION_CACHE_DIR): the suite compiles the same small programs in
many processes, and a cached executable is the same executable, so no
number changes. A developer's later runs reuse it; CI starts it empty.
They compile without LLVM's backend optimisations (below).
"""

import os

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# Read by JAX when it is imported, here and in every child process.
os.environ.setdefault('JAX_COMPILATION_CACHE_DIR',
                      os.path.join(_REPO, '.jax_cache'))
os.environ.setdefault('JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS', '0')
# Tests check what programs compute, not how fast they run: most of the
# suite's time is XLA compiling small programs. Without LLVM's backend
# optimisations and with XLA:CPU's older (non-MLIR) fusion emitters they
# compile about half as long (docs/testing.md). Every test, and every
# process it starts, compiles this way, each flag unless XLA_FLAGS already
# names it.
TEST_XLA_FLAGS = ('--xla_backend_optimization_level=0',
                  '--xla_cpu_use_fusion_emitters=false')
for _flag in TEST_XLA_FLAGS:
  if _flag.split('=')[0] not in os.environ.get('XLA_FLAGS', ''):
    os.environ['XLA_FLAGS'] = (os.environ.get('XLA_FLAGS', '') + ' ' +
                               _flag).strip()

# pylint: disable=g-import-not-at-top,wrong-import-position
from absl import flags

import agents  # Before any test's `import rlax`: TFP without TensorFlow.


def pytest_configure(config):
  del config
  # absltest helpers (create_tempdir, …) read flags; pytest never parses them.
  if not flags.FLAGS.is_parsed():
    flags.FLAGS.mark_as_parsed()


# A fast-tier test (not marked slow) taking longer than this is listed at the
# end of the run: make it faster, or mark it slow (docs/testing.md).
FAST_TEST_SECONDS = 5.0
_slow_fast_tier_tests = []


def pytest_collection_modifyitems(items):
  """Modules with slow tests run first (otherwise in their usual order), so
  that parallel workers begin with the long ones and finish together on the
  short ones."""
  slow_modules = {item.nodeid.split('::')[0] for item in items
                  if item.get_closest_marker('slow')}
  items.sort(key=lambda item: item.nodeid.split('::')[0] not in slow_modules)


def pytest_runtest_logreport(report):
  if (report.when == 'call' and 'slow' not in report.keywords
      and report.duration > FAST_TEST_SECONDS):
    _slow_fast_tier_tests.append((report.duration, report.nodeid))


def pytest_terminal_summary(terminalreporter):
  if not _slow_fast_tier_tests:
    return
  terminalreporter.section(
      f'fast-tier tests over {FAST_TEST_SECONDS:g} s: make them faster or '
      'mark them slow (docs/testing.md)')
  for seconds, nodeid in sorted(_slow_fast_tier_tests, reverse=True):
    terminalreporter.write_line(f'{seconds:6.1f}s {nodeid}')
