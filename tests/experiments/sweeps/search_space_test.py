"""Tests for sweep search spaces: parsing, draws and bad input."""

from absl.testing import absltest

from experiments.sweeps import search_space


class SearchSpaceTest(absltest.TestCase):

  def test_grid_values_take_the_fields_types(self):
    grid = search_space.parse_grid(
        ['learning_rate:1e-3,3e-4', 'batch_size:16,64',
         'value_clip_epsilon:none,0.5', 'normalize_advantages:true,false'], 'ppo')
    self.assertEqual(grid['learning_rate'], [1e-3, 3e-4])
    self.assertEqual(grid['batch_size'], [16, 64])
    self.assertIsInstance(grid['batch_size'][0], int)
    self.assertEqual(grid['value_clip_epsilon'], [None, 0.5])
    self.assertEqual(grid['normalize_advantages'], [True, False])

  def test_configurations_cross_the_grid_with_the_draws(self):
    grid = search_space.parse_grid(['discount:0.5,0.9'], 'ppo')
    space = search_space.parse_random(
        ['learning_rate:log_uniform:1e-4:1e-2', 'num_epochs:choice:2,4'],
        'ppo')
    configurations = search_space.configurations(grid, space, 3, 'ppo',
                                                 search_seed=1)
    self.assertLen(configurations, 6)
    self.assertEqual({c['discount'] for c in configurations}, {0.5, 0.9})
    for c in configurations:
      self.assertBetween(c['learning_rate'], 1e-4, 1e-2)
      self.assertIn(c['num_epochs'], (2, 4))
    # The same seed draws the same configurations.
    self.assertEqual(configurations, search_space.configurations(
        grid, space, 3, 'ppo', search_seed=1))

  def test_bad_input_names_the_key(self):
    cases = [
        (['learning_rat:1e-3'], r"no config key 'learning_rat'.*Valid keys"),
        (['batch_size:16,sixty'], r"--grid=batch_size: 'sixty' is not a "
         r"valid int"),
        (['batch_size:2.5'], 'not an integer'),
        (['discount:0.5,0.5'], 'repeated'),
        (['discount'], 'write <key>:<values>'),
        (['learning_rate:nan'], 'not finite'),
    ]
    for specs, message in cases:
      with self.assertRaisesRegex(search_space.SearchSpaceError, message):
        search_space.parse_grid(specs, 'ppo')
    with self.assertRaisesRegex(search_space.SearchSpaceError,
                                'unknown distribution'):
      search_space.parse_random(['discount:normal:0:1'], 'ppo')
    with self.assertRaisesRegex(search_space.SearchSpaceError, '0 < low'):
      search_space.parse_random(['learning_rate:log_uniform:0:1'], 'ppo')
    with self.assertRaisesRegex(search_space.SearchSpaceError,
                                'Nothing to sweep'):
      search_space.configurations({}, {}, 0, 'ppo')
    with self.assertRaisesRegex(search_space.SearchSpaceError,
                                'both --grid and --random'):
      search_space.configurations({'discount': [0.5]},
                                  {'discount': ('uniform', [0.1, 0.9])}, 2,
                                  'ppo')


if __name__ == '__main__':
  absltest.main()
