"""Runs the framework's commands in this process, as `python -m` would.

A child process spends about 5 s importing JAX, TensorFlow and the framework
and starting JAX before it does any work. Most tests of a command check what it writes, prints and exits
with, which the same code shows when run here: `run` executes the module as
`__main__` with `sys.argv`, captures what it prints (file descriptors 1 and
2), turns `sys.exit` into an exit status, and leaves flags, signal handlers,
the working directory, the registries and the user's modules (`--imports`)
as they were.

Keep a real process (`subprocess`) where the process is the point: signals
and the exit of a killed or interrupted run (`os._exit`), locks between
processes, several hosts, resource limits and environment variables read at
start-up.
"""

import contextlib
import dataclasses
import io
import os
import runpy
import signal
import sys
import tempfile
import traceback
import warnings
from typing import Iterator, List, Optional

from absl import app
from absl import flags
from absl import logging as absl_logging
import jax
from jax.experimental.compilation_cache import compilation_cache as jax_cache

from agents import registry as agent_registry
from environments import registry as env_registry
from experiments.presets import registry as preset_registry
from networks import registry as network_registry

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_FRAMEWORK = ('agents', 'environments', 'networks', 'experiments')
# What `--compilation_cache_dir` changes for the process.
_CACHE_SETTINGS = ('jax_enable_compilation_cache', 'jax_compilation_cache_dir',
                   'jax_compilation_cache_max_size',
                   'jax_persistent_cache_min_compile_time_secs')
# Flags of libraries, which every process defines once at import.
_KEPT_FLAG_MODULES = ('absl.', 'chex.')

# `app.run` defines --help and its kin on its first call; define them now so
# that they outlive every command's flags (which `run` deletes afterwards).
app.define_help_flags()


@dataclasses.dataclass(frozen=True)
class Completed:
  """What `subprocess.run(..., capture_output=True, text=True)` returns."""
  args: List[str]
  returncode: int
  stdout: str
  stderr: str


def _copied(value):
  if isinstance(value, dict):
    return {k: _copied(v) for k, v in value.items()}
  if isinstance(value, (list, set)):
    return type(value)(value)
  return value


@contextlib.contextmanager
def _flags_restored() -> Iterator[None]:
  """Runs the body without the framework's flags (a command defines its own
  as a process would, some of them in shared modules), then puts every flag
  back as it was, values included, and deletes the ones the command
  defined."""
  fv = flags.FLAGS
  # pylint: disable=protected-access
  registry = _copied(dict(fv.__dict__))
  values = {id(flag): dict(flag.__dict__) for flag in fv._flags().values()}
  framework = {name for module, module_flags
               in fv.flags_by_module_dict().items()
               if not module.startswith(_KEPT_FLAG_MODULES)
               for flag in module_flags
               for name in (flag.name, flag.short_name) if name}
  for name in framework:
    delattr(fv, name)
  try:
    yield
  finally:
    fv.__dict__.update(registry)
    for flag in fv._flags().values():
      flag.__dict__ = dict(values[id(flag)])


@contextlib.contextmanager
def _process_state_restored(cwd: str, argv: List[str],
                            stdin: str) -> Iterator[None]:
  """sys.argv, sys.path, sys.stdin, the working directory, the
  environment, signal handlers, the registries and JAX's compilation cache
  settings, as they were before the command."""
  old = (list(sys.argv), list(sys.path), os.getcwd(),
         {s: signal.getsignal(s) for s in _SIGNALS}, sys.stdin)
  environment = dict(os.environ)
  cache = {name: getattr(jax.config, name) for name in _CACHE_SETTINGS}
  registries = [(r, dict(r)) for r in _registries()]
  modules = set(sys.modules)
  sys.argv = argv
  sys.path.insert(0, cwd)  # As `python -m` puts its directory first.
  sys.stdin = io.StringIO(stdin)
  os.chdir(cwd)
  try:
    yield
  finally:
    sys.argv, sys.path[:], sys.stdin = old[0], old[1], old[4]
    os.chdir(old[2])
    os.environ.clear()
    os.environ.update(environment)
    if any(getattr(jax.config, k) != v for k, v in cache.items()):
      for name, value in cache.items():
        jax.config.update(name, value)
      jax_cache.reset_cache()
    for s, handler in old[3].items():
      signal.signal(s, handler)
    for registry, entries in registries:
      registry.clear()
      registry.update(entries)
    for name in set(sys.modules) - modules:
      if _is_user_module(sys.modules[name]):
        del sys.modules[name]  # Its next `--imports` registers anew.


def _is_user_module(module) -> bool:
  """A module of the user's (`--imports`, e.g. examples.custom_agent or a
  file a test wrote), not of the framework or an installed library."""
  path = os.path.abspath(getattr(module, '__file__', None) or '')
  if not path or path.startswith((sys.prefix, sys.base_prefix)):
    return False
  return not path.startswith(tuple(
      os.path.join(_REPO, package, '') for package in _FRAMEWORK))


def _registries() -> List[dict]:
  """The registries a command's `--imports` may add to."""
  # pylint: disable=protected-access
  return [registry._ENTRIES.by_name for registry in (
      agent_registry, env_registry, network_registry, preset_registry)]


@contextlib.contextmanager
def _output_captured() -> Iterator[List[str]]:
  """Captures file descriptors 1 and 2, as a child process's pipes would:
  Python's prints and logs and the C++ logs of XLA and TensorFlow alike,
  in the order written. Yields [stdout, stderr], filled in at the end."""
  # pylint: disable=consider-using-with
  captured = ['', '']
  files = [tempfile.TemporaryFile(), tempfile.TemporaryFile()]
  old_streams = sys.stdout, sys.stderr
  handler = absl_logging.get_absl_handler().python_handler
  old_handler_stream = handler.stream
  for stream in old_streams:
    stream.flush()
  saved = [os.dup(1), os.dup(2)]
  os.dup2(files[0].fileno(), 1)
  os.dup2(files[1].fileno(), 2)
  sys.stdout = open(1, 'w', buffering=1, closefd=False)
  sys.stderr = open(2, 'w', buffering=1, closefd=False)
  handler.stream = sys.stderr
  try:
    yield captured
  finally:
    sys.stdout.flush()
    sys.stderr.flush()
    sys.stdout, sys.stderr = old_streams
    handler.stream = old_handler_stream
    for fd, old in zip((1, 2), saved):
      os.dup2(old, fd)
      os.close(old)
    for i, f in enumerate(files):
      f.seek(0)
      captured[i] = f.read().decode('utf-8', 'replace')
      f.close()


def run(module: str, *args: str, cwd: Optional[str] = None,
        input: str = '') -> Completed:  # pylint: disable=redefined-builtin
  """`python -m <module> <args>` (e.g. `run('experiments.train',
  '--env=catch')`), run in this process with `input` as its stdin."""
  argv = [module, *args]
  with _process_state_restored(cwd or _REPO, argv, input), \
      _flags_restored(), _output_captured() as output:
    try:
      with warnings.catch_warnings():  # That `module` was imported before.
        warnings.filterwarnings('ignore', '.*found in sys.modules',
                                RuntimeWarning)
        runpy.run_module(module, run_name='__main__', alter_sys=True)
      code = 0
    except SystemExit as e:
      if e.code is None or isinstance(e.code, int):
        code = e.code or 0
      else:  # sys.exit('message'): Python prints it and exits with 1.
        print(e.code, file=sys.stderr)
        code = 1
    except Exception:  # pylint: disable=broad-except
      traceback.print_exc()  # As an uncaught exception ends a process.
      code = 1
  return Completed(argv, code, *output)
