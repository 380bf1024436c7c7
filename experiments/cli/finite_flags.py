"""Float flags refuse NaN and infinity before anything runs.

absl's `lower_bound` and `>` validators let `nan` through (every comparison
with NaN is false), and a NaN setting trains a NaN model.
"""

import math

from absl import flags


def require_finite(*names: str,
                   flag_values: flags.FlagValues = flags.FLAGS) -> None:
  """Registers a validator on each float flag of `names`: None or finite."""
  for name in names:
    flags.register_validator(
        name, lambda value: value is None or math.isfinite(value),
        message=f'--{name} must be a finite number, not nan or inf.',
        flag_values=flag_values)
