"""Tests for experiments/setup/user_modules.py."""

import sys

from absl.testing import absltest

from experiments.setup import user_modules


class UserModulesTest(absltest.TestCase):

  def test_imports_named_modules(self):
    sys.modules.pop('json.tool', None)
    user_modules.import_modules(['json.tool'])
    self.assertIn('json.tool', sys.modules)

  def test_missing_module_is_named_with_the_fix(self):
    with self.assertRaisesRegex(ValueError, r"--imports: cannot import "
                                r"module 'no_such_module_xyz'.*PYTHONPATH"):
      user_modules.import_modules(['no_such_module_xyz'])

  def test_empty_name_is_refused(self):
    with self.assertRaisesRegex(ValueError, 'non-empty'):
      user_modules.import_modules([''])


if __name__ == '__main__':
  absltest.main()
