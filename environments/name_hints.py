"""Close matches of a mistyped name, for the messages that refuse it.

Every registry (agents, environments, networks, presets) and every suite
adapter names the valid names of what it refuses; this adds the few that
look like what was typed (case ignored), as flags get from absl.
"""

import difflib
from typing import Iterable


def did_you_mean(name: object, valid: Iterable[str]) -> str:
  """' Did you mean a, b?' for up to three names of `valid` close to
  `name` (compared without case; given as `valid` spells them), or ''."""
  by_lower = {}
  for candidate in valid:
    by_lower.setdefault(candidate.lower(), candidate)
  close = difflib.get_close_matches(str(name).lower(), list(by_lower), n=3)
  if not close:
    return ''
  return f' Did you mean {", ".join(by_lower[c] for c in close)}?'
