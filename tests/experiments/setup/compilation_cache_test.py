"""Tests for experiments/setup/compilation_cache.py."""

import os
from unittest import mock

from absl.testing import absltest
import jax

from experiments.setup import compilation_cache

_SETTINGS = ('jax_enable_compilation_cache', 'jax_compilation_cache_dir',
             'jax_compilation_cache_max_size',
             'jax_persistent_cache_min_compile_time_secs')


class EnableTest(absltest.TestCase):
  """Each test sets JAX's cache settings; they are put back after it."""

  def setUp(self):
    super().setUp()
    saved = {name: getattr(jax.config, name) for name in _SETTINGS}
    self.addCleanup(lambda: [jax.config.update(k, v)
                             for k, v in saved.items()])
    environment = mock.patch.dict(os.environ)
    environment.start()
    self.addCleanup(environment.stop)
    jax.config.update('jax_compilation_cache_dir', None)
    jax.config.update('jax_enable_compilation_cache', True)

  def test_the_default_folder_is_per_user_bounded_and_keeps_every_program(
      self):
    os.environ['XDG_CACHE_HOME'] = self.create_tempdir().full_path
    folder = compilation_cache.enable()
    self.assertEqual(folder, os.path.join(os.environ['XDG_CACHE_HOME'],
                                          'planestrike-rl', 'jax'))
    self.assertTrue(os.path.isdir(folder))
    self.assertEqual(compilation_cache.directory_in_use(), folder)
    self.assertEqual(jax.config.jax_persistent_cache_min_compile_time_secs,
                     0.0)
    # The processes a command starts (a comparison's runs) use it too.
    self.assertEqual(os.environ['JAX_COMPILATION_CACHE_DIR'], folder)
    self.assertEqual(
        os.environ['JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS'], '0.0')

  def test_a_folder_jax_was_given_is_kept(self):
    folder = self.create_tempdir().full_path
    jax.config.update('jax_compilation_cache_dir', folder)
    self.assertEqual(compilation_cache.enable(), folder)
    self.assertEqual(compilation_cache.directory_in_use(), folder)

  def test_jax_turned_off_stays_off(self):
    jax.config.update('jax_enable_compilation_cache', False)
    self.assertIsNone(compilation_cache.enable())
    self.assertIsNone(compilation_cache.directory_in_use())

  def test_the_flag_moves_it_or_turns_it_off(self):
    folder = os.path.join(self.create_tempdir().full_path, 'new')
    self.assertEqual(compilation_cache.enable(folder), folder)
    self.assertEqual(compilation_cache.directory_in_use(), folder)
    self.assertIsNone(compilation_cache.enable(''))
    self.assertIsNone(compilation_cache.directory_in_use())
    self.assertEqual(os.environ['JAX_ENABLE_COMPILATION_CACHE'], 'false')
    self.assertIsNone(compilation_cache.enable())  # Off stays off.

  def test_a_folder_that_cannot_be_written_is_named_with_the_flag(self):
    blocker = self.create_tempfile().full_path  # A file, not a folder.
    with self.assertRaisesRegex(compilation_cache.CacheError,
                                r'^--compilation_cache_dir: cannot keep '
                                r'compiled programs in .*; name a folder'):
      compilation_cache.enable(os.path.join(blocker, 'cache'))
    self.assertIsNone(jax.config.jax_compilation_cache_dir)  # Unchanged.

  def test_the_least_recently_used_programs_go_beyond_the_bound(self):
    folder = self.create_tempdir().full_path
    for age, name in enumerate(('newest', 'middle', 'oldest')):
      path = os.path.join(folder, name)
      with open(path, 'wb') as f:
        f.write(b'x' * 100)
      os.utime(path, (1e9 - age * 1000, 1e9 - age * 1000))
    self.assertEqual(compilation_cache.prune(folder, limit=250), 1)
    self.assertCountEqual(os.listdir(folder), ['newest', 'middle'])
    self.assertEqual(compilation_cache.prune(folder, limit=250), 0)
    # Turning the cache on in a folder bounds it.
    with mock.patch.object(compilation_cache, 'MAX_BYTES', 150):
      compilation_cache.enable(folder)
    self.assertEqual(os.listdir(folder), ['newest'])

  def test_an_unusable_default_leaves_the_cache_off(self):
    os.environ['XDG_CACHE_HOME'] = self.create_tempfile().full_path
    self.assertIsNone(compilation_cache.enable())
    self.assertIsNone(compilation_cache.directory_in_use())


if __name__ == '__main__':
  absltest.main()
