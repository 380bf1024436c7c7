"""`--compilation_cache_dir`: where the commands that compile keep their
compiled programs (`setup.compilation_cache`), or '' for nowhere."""

from absl import app
from absl import flags

from experiments.setup import compilation_cache

FLAG_NAME = 'compilation_cache_dir'


def define_flag() -> flags.FlagHolder:
  return flags.DEFINE_string(
      FLAG_NAME, None, 'Keep compiled programs in this folder, so that the '
      'same program (a rerun, another seed, a resumed run) is read instead '
      'of compiled again; empty: compile without a cache. Default: '
      '$JAX_COMPILATION_CACHE_DIR if set, else '
      f'{compilation_cache.default_directory()} (at most '
      f'{compilation_cache.MAX_BYTES >> 30} GiB; '
      'JAX_ENABLE_COMPILATION_CACHE=false turns it off).')


def apply() -> None:
  """Turns the cache on as the flag says, before any compile.

  Raises:
    app.UsageError: a folder that cannot be used, named with the flag.
  """
  try:
    compilation_cache.enable(flags.FLAGS[FLAG_NAME].value)
  except compilation_cache.CacheError as e:
    raise app.UsageError(str(e)) from e
