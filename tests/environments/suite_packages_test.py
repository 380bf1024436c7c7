"""Tests for environments/suite_packages.py, through each adapter using it."""

import sys
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized

from environments import craftax_adapter
from environments import jumanji_adapter
from environments import navix_adapter
from environments import suite_packages
from environments import xminigrid_adapter


class RequireTest(parameterized.TestCase):

  def test_an_installed_package_is_imported(self):
    self.assertIs(suite_packages.require('json', 'JSON'), sys.modules['json'])

  @parameterized.parameters(
      (craftax_adapter, 'craftax', 'Craftax', 'Craftax-Classic-Symbolic-v1'),
      (navix_adapter, 'navix', 'Navix', 'Navix-Empty-5x5-v0'),
      (xminigrid_adapter, 'xminigrid', 'xminigrid', 'MiniGrid-Empty-5x5'),
      (jumanji_adapter, 'jumanji', 'Jumanji', 'Snake-v1'))
  def test_a_missing_suite_says_how_to_install_it(self, adapter, module,
                                                  title, suite_id):
    with mock.patch.dict(sys.modules, {module: None}):
      with self.assertRaisesRegex(ValueError, rf"^{title} is not installed: "
                                  r"pip install -e '\.\[suites\]'"):
        adapter.check_id(suite_id)


if __name__ == '__main__':
  absltest.main()
