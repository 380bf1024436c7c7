"""scripts/xminigrid_ruleset_generator.py: runs a checkout's generator
with its arguments, stacking in NumPy, and refuses a folder that is not a
checkout."""

import importlib.util
import os
import sys
import textwrap

from absl.testing import absltest
import jax.numpy as jnp
import numpy as np

_SCRIPT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), 'scripts', 'xminigrid_ruleset_generator.py')


def _load():
  spec = importlib.util.spec_from_file_location('generator', _SCRIPT)
  module = importlib.util.module_from_spec(spec)
  spec.loader.exec_module(module)
  return module


class RulesetGeneratorTest(absltest.TestCase):

  def setUp(self):
    super().setUp()
    self.generator = _load()

  def test_it_stacks_as_jnp_vstack_does(self):
    arrays = [jnp.arange(6, dtype=jnp.uint8).reshape(2, 3) + i
              for i in range(4)]
    stacked = self.generator.stack_in_numpy(arrays)
    self.assertIsInstance(stacked, type(jnp.zeros(1)))
    self.assertEqual(stacked.dtype, jnp.uint8)
    np.testing.assert_array_equal(stacked, jnp.vstack(arrays))

  def test_it_runs_the_checkouts_generator_with_its_arguments(self):
    checkout = self.create_tempdir()
    out = os.path.join(checkout.full_path, 'out.npy')
    checkout.create_file('scripts/ruleset_generator.py', textwrap.dedent(f'''
        import sys
        import jax.numpy as jnp
        import numpy as np
        stacked = jnp.vstack([jnp.ones((1, 2)), jnp.zeros((1, 2))])
        np.save({out!r}, np.asarray(stacked))
        assert sys.argv[1:] == ['--total_rulesets=2'], sys.argv
        assert jnp.vstack.__name__ == 'stack_in_numpy'
        '''))
    argv, vstack = sys.argv, jnp.vstack
    self.generator.main(['generator', checkout.full_path,
                         '--total_rulesets=2'])
    np.testing.assert_array_equal(np.load(out), [[1, 1], [0, 0]])
    # Put back for whatever runs next in this process.
    self.assertIs(sys.argv, argv)
    self.assertIs(jnp.vstack, vstack)

  def test_a_folder_without_the_generator_is_refused(self):
    folder = self.create_tempdir().full_path
    with self.assertRaisesRegex(SystemExit, 'is not a checkout of '
                                'xland-minigrid: it has no '
                                r'scripts/ruleset_generator\.py'):
      self.generator.main(['generator', folder])
    with self.assertRaisesRegex(SystemExit, 'usage: python scripts/'):
      self.generator.main(['generator'])


if __name__ == '__main__':
  absltest.main()
