"""JAX's persistent compilation cache, on by default for every run.

A run compiles its training program before it trains (seconds for a small
game, a minute for a large one). With the cache, the same program compiled
again (the same command rerun, another seed, a resumed run) is read from
disk: JAX keys each entry by the program and the compiler, so a cached
executable is the one the compiler would build and no number changes.

Where it lives, first match wins:

  1. `enable(directory)`: the commands' `--compilation_cache_dir` (''
     turns the cache off);
  2. JAX's own settings: `JAX_COMPILATION_CACHE_DIR` (or
     `jax.config.update('jax_compilation_cache_dir', …)`) moves it and
     `JAX_ENABLE_COMPILATION_CACHE=false` turns it off; a folder set this
     way keeps JAX's other settings as they are (by default unbounded,
     programs that compile in over 1 s);
  3. otherwise `default_directory()`.

A folder of 1 or 3 keeps every program, however quick its compile, and is
bounded at `MAX_BYTES`: each time a process turns the cache on, the least
recently used programs beyond that are removed (`prune`). JAX's own bound
(`jax_compilation_cache_max_size`) is left off: it rescans the whole
folder under a lock at every write, which grew to a second a write at 30k
programs. The processes a command starts (a comparison's local runs)
inherit the choice; workers of a Ray cluster started elsewhere keep their
own.

The folder is trusted as code is: do not share it with users you do not
trust (JAX's warning).
"""

import os
from typing import Optional

import jax
from jax.experimental.compilation_cache import compilation_cache as jax_cache

# The bound of a folder this module manages (`prune`).
MAX_BYTES = 2 << 30


class CacheError(ValueError):
  """A cache folder that cannot be used (bad input: said before any work)."""


def default_directory() -> str:
  """`$XDG_CACHE_HOME/planestrike-rl/jax`, by default under ~/.cache."""
  root = (os.environ.get('XDG_CACHE_HOME') or
          os.path.join(os.path.expanduser('~'), '.cache'))
  return os.path.join(root, 'planestrike-rl', 'jax')


def _writable(directory: str) -> Optional[str]:
  """Why `directory` cannot hold the cache (made if missing), or None."""
  try:
    os.makedirs(directory, exist_ok=True)
  except OSError as e:
    return e.strerror or str(e)
  if not os.access(directory, os.W_OK | os.X_OK):
    return 'not writable'
  return None


def prune(directory: str, limit: Optional[int] = None) -> int:
  """Removes the least recently used files of `directory` (by access or
  change time, whichever is later) until the rest hold at most `limit`
  bytes (default `MAX_BYTES`); returns how many it removed. A file another
  process removes first, or holds, is passed over."""
  limit = MAX_BYTES if limit is None else limit
  entries = []
  with os.scandir(directory) as found:
    for entry in found:
      if entry.is_file(follow_symlinks=False):
        stat = entry.stat(follow_symlinks=False)
        entries.append((max(stat.st_atime, stat.st_mtime), stat.st_size,
                        entry.path))
  total, removed = sum(size for _, size, _ in entries), 0
  for _, size, path in sorted(entries):
    if total <= limit:
      break
    try:
      os.remove(path)
    except OSError:
      continue
    total, removed = total - size, removed + 1
  return removed


def directory_in_use() -> Optional[str]:
  """The folder compiled programs go to, or None with the cache off."""
  if not jax.config.jax_enable_compilation_cache:
    return None
  return jax.config.jax_compilation_cache_dir or None


def enable(directory: Optional[str] = None) -> Optional[str]:
  """Turns the cache on (or off) for this process and those it starts, and
  returns the folder in use (None: off). Call it before compiling.

  Args:
    directory: the folder (made if missing); '' turns the cache off; None
      keeps what JAX was told (module docstring, 2), else the per-user
      default (3). An unusable default turns the cache off, silently: the
      run goes on, compiling as without one.

  Raises:
    CacheError: a `directory` given that cannot be made or written.
  """
  if directory == '':
    _update(jax_enable_compilation_cache=False)
    return None
  if directory is None:
    if not jax.config.jax_enable_compilation_cache:
      return None
    if jax.config.jax_compilation_cache_dir:
      return jax.config.jax_compilation_cache_dir
    directory = default_directory()
    if _writable(directory) is not None:
      return None
  else:
    directory = os.path.abspath(os.path.expanduser(directory))
    problem = _writable(directory)
    if problem is not None:
      raise CacheError(
          f'--compilation_cache_dir: cannot keep compiled programs in '
          f'{directory} ({problem}); name a folder you can write, or '
          f'--compilation_cache_dir= (empty) to compile without a cache.')
  prune(directory)
  _update(jax_enable_compilation_cache=True,
          jax_compilation_cache_dir=directory,
          jax_persistent_cache_min_compile_time_secs=0.0)
  return directory


def _update(**settings) -> None:
  """Sets JAX's `settings` here (from the next compile on, even where one
  came before) and, through the environment, in the processes this one
  starts."""
  if any(getattr(jax.config, name) != value
         for name, value in settings.items()):
    jax_cache.reset_cache()
  for name, value in settings.items():
    jax.config.update(name, value)
    # JAX reads each setting from the variable of its name, upper case.
    os.environ[name.upper()] = (str(value).lower()
                                if isinstance(value, bool) else str(value))
