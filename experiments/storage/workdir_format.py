"""The one format of every workdir the framework writes: runs, comparisons
and sweeps. Each records it (`config.json`, `comparison.json`,
`sweep.json`); a workdir of another format is refused in one line, never
read with a shim.

Format 5: the Python loop's checkpoints are those of its one path, N
environments side by side for every N (1 included): episodes begun per
environment, the batcher's unrolls in progress where every environment is
between episodes, and whether it was (one number for every workdir, so
compiled-loop runs, comparisons and sweeps of format 4 are refused too).
Earlier formats: 4, checkpoints
holding the compiled loop's environment slots whole and the Python loop's
steps with their next observations, comparisons and sweeps recording the
format and every setting they take; 3, two-word counters and host-side
state in checkpoints; 2, one driver for both loops; 1 (no key), before it.
"""

from typing import Any, Dict, Mapping

KEY = 'workdir_format'
FORMAT = 5


class OtherFormat(ValueError):
  """A workdir written in another format than this framework's."""


def stamped(saved: Mapping[str, Any]) -> Dict[str, Any]:
  """`saved` with this framework's format recorded."""
  return {**saved, KEY: FORMAT}


def unstamped(saved: Mapping[str, Any], workdir: str) -> Dict[str, Any]:
  """`saved` (a workdir's JSON) without its format, which must be ours.

  Raises:
    OtherFormat: naming the workdir, its format and what to do.
  """
  saved = dict(saved)
  version = saved.pop(KEY, 1)
  if version != FORMAT:
    raise OtherFormat(
        f'--workdir {workdir!r} was written by another version of this '
        f'framework (workdir format {version}, this one reads {FORMAT}): '
        f'train again in a new --workdir, or read it with the release '
        f'that wrote it.')
  return saved
