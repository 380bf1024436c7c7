"""Type checks of the API keywords that are not training settings (those of
`compare`, `sweep` and `export`), with their flags' messages: a keyword is
refused as its flag would be, before any work."""

from typing import Any, Sequence

from experiments.setup import train_settings


def names(**values: Any) -> None:
  """Refuses a value that is not a list of names (None: left unset): a bare
  string would be read letter by letter (`agents='ppo'` as p, p, o)."""
  for flag, value in values.items():
    if value is not None and (
        isinstance(value, (str, bytes)) or not isinstance(value, Sequence)
        or not all(isinstance(v, str) for v in value)):
      raise train_settings.SettingError(
          f'--{flag}: a list of names is needed, e.g. [{value!r}] for one; '
          f'got {value!r}.')


def count(flag: str, value: Any, low: int, optional: bool = False) -> None:
  """Refuses a `value` that is not an integer >= `low` (or None, if
  `optional`)."""
  if optional and value is None:
    return
  if isinstance(value, bool) or not isinstance(value, int) or value < low:
    raise train_settings.SettingError(
        f'--{flag}: must be an integer >= {low}'
        f'{" (or None)" if optional else ""}; got {value!r}.')


def choice(flag: str, value: Any, valid: Sequence[str]) -> None:
  """Refuses a `value` that is not one of `valid`."""
  if value not in valid:
    raise train_settings.SettingError(
        f'--{flag}: one of {", ".join(valid)}; got {value!r}.')
