"""Named entries, added to but never replaced: the table behind each of the
three registries (environments, networks, agents).

It lives here because `environments` is the package the other two already
depend on. A registry keeps one module-level table of its built-in entries
and those users `register`; nothing else changes it.
"""

from typing import Callable, Dict, Generic, Iterable, Optional, Protocol, Tuple, TypeVar


class _Named(Protocol):
  name: str


Entry = TypeVar('Entry', bound=_Named)


class NamedEntries(Generic[Entry]):
  """Entries by their `name`; `register` adds one and refuses another under
  a taken name."""

  def __init__(self, what: str, entries: Iterable[Entry]):
    self._what = what  # 'Environment', 'Network', 'Agent': for messages.
    self.by_name: Dict[str, Entry] = {e.name: e for e in entries}

  def register(self, entry: Entry, replace: bool = False) -> Entry:
    """Adds `entry`; registering the same entry again is a no-op.

    Args:
      entry: the entry, named by its `name`.
      replace: replace another entry of that name (e.g. a module reloaded
        in a notebook); built-in names can be replaced this way too.

    Raises:
      ValueError: if another entry already has that name and not `replace`.
    """
    existing = self.by_name.get(entry.name)
    if existing is not None and existing != entry and not replace:
      raise ValueError(f'{self._what} {entry.name!r} is already registered; '
                       f'choose another name, or register(..., '
                       f'replace=True) to replace it.')
    self.by_name[entry.name] = entry
    return entry

  def names(self, where: Optional[Callable[[Entry], bool]] = None
           ) -> Tuple[str, ...]:
    """Sorted names of the entries (those `where` accepts, if given)."""
    return tuple(sorted(n for n, e in self.by_name.items()
                        if where is None or where(e)))

  def get(self, name: str) -> Optional[Entry]:
    """The entry `name`, or None."""
    return self.by_name.get(name) if isinstance(name, str) else None
