"""Tests for experiments/setup/provenance.py."""

import json

from absl.testing import absltest

from experiments.setup import provenance


class ProvenanceTest(absltest.TestCase):

  def test_collect_names_versions_commit_and_devices(self):
    record = provenance.collect()
    json.dumps(record)  # JSON-ready.
    for name in ('jax', 'jaxlib', 'dm-haiku', 'rlax', 'optax'):
      self.assertIn(name, record['packages'])
    self.assertTrue(record['python'][0].isdigit())
    self.assertEqual(record['backend'], 'cpu')
    self.assertRegex(record['devices'][0], r'^.+ x \d+$')
    # A checkout has a 40-hex commit; an installed copy has None.
    commit = record['git_commit']
    self.assertTrue(commit is None or len(commit) == 40)

  def test_unknown_packages_are_left_out(self):
    self.assertEqual(provenance.package_versions(('no-such-dist-xyz',)), {})

  def test_differing_keys_between_sessions(self):
    first = provenance.collect()
    same = dict(first, started_utc='later')  # When is not a setup key.
    self.assertEqual(provenance.differing_keys([first, same]), [])
    moved = dict(first, packages={**first['packages'], 'jax': '0.0.1'},
                 devices=['NVIDIA H200 x 1'])
    self.assertEqual(provenance.differing_keys([first, moved]),
                     ['packages', 'devices'])
    self.assertEqual(provenance.differing_keys([]), [])


if __name__ == '__main__':
  absltest.main()
