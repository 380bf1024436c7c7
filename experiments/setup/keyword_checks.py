"""Checks of the API keywords that are not declared settings (`export`'s),
with their flags' messages: a keyword is refused as its flag would be,
before any work."""

from typing import Any, Sequence

from experiments.setup import settings


def choice(flag: str, value: Any, valid: Sequence[str]) -> None:
  """Refuses a `value` that is not one of `valid`."""
  if value not in valid:
    raise settings.SettingError(
        f'--{flag}: one of {", ".join(valid)}; got {value!r}.')
