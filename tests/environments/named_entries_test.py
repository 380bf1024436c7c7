"""Tests for environments/named_entries.py."""

import dataclasses

from absl.testing import absltest

from environments import named_entries


@dataclasses.dataclass(frozen=True)
class _Entry:
  name: str
  size: int = 0


class NamedEntriesTest(absltest.TestCase):

  def test_register_adds_and_names_are_sorted(self):
    table = named_entries.NamedEntries('Thing', [_Entry('b'), _Entry('a')])
    self.assertEqual(table.register(_Entry('c', 3)), _Entry('c', 3))
    self.assertEqual(table.names(), ('a', 'b', 'c'))
    self.assertEqual(table.names(lambda e: e.size > 0), ('c',))
    self.assertEqual(table.get('c'), _Entry('c', 3))
    self.assertIsNone(table.get('d'))
    self.assertIsNone(table.get(None))

  def test_same_entry_again_is_a_no_op_another_is_refused(self):
    table = named_entries.NamedEntries('Thing', [_Entry('a')])
    table.register(_Entry('a'))
    with self.assertRaisesRegex(ValueError,
                                "Thing 'a' is already registered"):
      table.register(_Entry('a', 1))
    self.assertEqual(table.get('a'), _Entry('a'))
    table.register(_Entry('a', 2), replace=True)  # A reloaded module.
    self.assertEqual(table.get('a'), _Entry('a', 2))


if __name__ == '__main__':
  absltest.main()
