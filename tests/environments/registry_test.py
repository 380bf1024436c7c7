"""Tests for `environments.registry`."""

import sys
from unittest import mock

from absl.testing import absltest
from absl.testing import parameterized
from bsuite.environments import catch as bsuite_catch
import dm_env
import jax
import numpy as np

from environments import bsuite_adapter
from environments import cartpole
from environments import catch
from environments import dm_env_wrapper
from environments import gym_adapter
from environments import gymnax_adapter
from environments import name_hints
from environments import pgx_adapter
from environments import plane_strike
from environments import registry
from environments import suites

_NAMES = ("cartpole, catch, plane_strike, or brax:<id> (e.g. "
          "brax:inverted_pendulum), bsuite:<id> (e.g. bsuite:catch/0), "
          "craftax:<id> (e.g. craftax:Craftax-Classic-Symbolic-v1), "
          "envpool:<id> (e.g. envpool:Pong-v5), "
          "gym:<id> (e.g. gym:CartPole-v1), gymnax:<id> (e.g. "
          "gymnax:CartPole-v1), jumanji:<id> (e.g. jumanji:Snake-v1), "
          "navix:<id> (e.g. navix:Navix-Empty-5x5-v0), pgx:<id> (e.g. "
          "pgx:2048), popgym_arcade:<id> (e.g. "
          "popgym_arcade:CountRecallEasy) or xminigrid:<id> (e.g. "
          "xminigrid:MiniGrid-Empty-8x8)")
_UNKNOWN = ("Unknown environment {!r}.{} Valid names: " + _NAMES + ". Your "
            "own environment: register it in a module named by --imports.")


class RegistryTest(parameterized.TestCase):

  def test_titles_for_people(self):
    self.assertEqual(registry.title('plane_strike'), 'Plane Strike')
    self.assertEqual(registry.title('gymnax:CartPole-v1'),
                     'CartPole-v1 (gymnax)')
    self.assertEqual(registry.title('bsuite:catch/0'), 'catch/0 (bsuite)')

  def test_contract_episodes_must_be_positive(self):
    for bad in (0, -3, 2.5, True):
      with self.assertRaisesRegex(ValueError, 'contract_episodes'):
        registry.EnvironmentEntry('mine', make_core=lambda: None,
                                  contract_episodes=bad)

  def test_names(self):
    self.assertEqual(registry.names(), ('cartpole', 'catch', 'plane_strike'))

  def test_make_environment(self):
    env = registry.make_environment('plane_strike', seed=3)
    self.assertIsInstance(env, dm_env.Environment)
    self.assertIsInstance(env.core, plane_strike.PlaneStrike)
    timestep = env.reset()
    self.assertIs(timestep.step_type, dm_env.StepType.FIRST)
    self.assertEqual(timestep.observation.shape, (8, 8))
    self.assertEqual(env.action_spec().num_values, 64)

  def test_seed_passes_through(self):
    env = registry.make_environment('plane_strike', seed=3)
    env.reset()
    key = jax.random.fold_in(jax.random.PRNGKey(3), 0)
    plane = np.asarray(env.core.reset(key)[0].plane)
    # Striking exactly the cells of the seed-3 plane ends the episode.
    cells = np.flatnonzero(plane.reshape(-1))
    timesteps = [env.step(int(a)) for a in cells]
    self.assertEqual([float(t.reward) for t in timesteps], [1.0] * 8)
    self.assertTrue(timesteps[-1].last())
    self.assertEqual(float(timesteps[-1].discount), 0.0)

  def test_kwargs_pass_through(self):
    env = registry.make_environment('plane_strike', seed=0, board_size=6,
                                    max_steps=2)
    timestep = env.reset()
    self.assertEqual(timestep.observation.shape, (6, 6))
    self.assertEqual(env.observation_spec().shape, (6, 6))
    self.assertEqual(env.action_spec().num_values, 36)
    self.assertEqual(env.step(0).step_type, dm_env.StepType.MID)
    self.assertEqual(env.step(0).step_type, dm_env.StepType.LAST)

  def test_invalid_kwargs_raise(self):
    with self.assertRaisesRegex(ValueError, 'board_size'):
      registry.make_environment('plane_strike', board_size=4)
    with self.assertRaises(TypeError):
      registry.make_functional('plane_strike', no_such_option=1)

  def test_unknown_name(self):
    for make in (registry.make_environment, registry.make_functional,
                 registry.check_name, registry.has_functional):
      for name in ('no_such_game', 'bsuite:', 'gym:', 'gymnax:', 'pgx:',
                   'brax:', 'craftax:', 'navix:', 'jumanji:', 'xminigrid:',
                   'popgym_arcade:', 'Catch', 'bsuite', 'gymnax', 'brax',
                   'atari:Pong-v5', ':hopper', None):
        with self.assertRaises(ValueError) as context:
          make(name)
        self.assertEqual(str(context.exception), _UNKNOWN.format(
            name, name_hints.did_you_mean(name, registry.names())))

  def test_make_functional_is_the_pure_core(self):
    core = registry.make_functional('plane_strike', board_size=6)
    self.assertIsInstance(core, plane_strike.PlaneStrike)
    self.assertNotIsInstance(core, dm_env.Environment)
    self.assertNotIsInstance(core, dm_env_wrapper.DmEnvironment)
    self.assertEqual(core.board_size, 6)
    state, timestep = jax.jit(core.reset)(jax.random.PRNGKey(0))
    self.assertEqual(timestep.observation.shape, (6, 6))
    state, timestep = jax.jit(core.step)(state, 7)
    self.assertEqual(int(state.steps), 1)
    self.assertNotEqual(float(timestep.observation.reshape(-1)[7]), 0.0)


  @parameterized.parameters(('cartpole', cartpole.CartPole),
                            ('catch', catch.Catch),
                            ('plane_strike', plane_strike.PlaneStrike))
  def test_jax_cores(self, name, core_class):
    registry.check_name(name)
    self.assertTrue(registry.has_functional(name))
    core = registry.make_functional(name)
    self.assertIsInstance(core, core_class)
    env = registry.make_environment(name, seed=2)
    self.assertIsInstance(env, dm_env_wrapper.DmEnvironment)
    self.assertIsInstance(env.core, core_class)
    key = jax.random.fold_in(jax.random.PRNGKey(2), 0)
    np.testing.assert_array_equal(env.reset().observation,
                                  core.reset(key)[1].observation)

  def test_new_cores_take_kwargs(self):
    core = registry.make_functional('catch', rows=4, columns=3)
    self.assertEqual((core.rows, core.columns), (4, 3))
    env = registry.make_environment('catch', seed=0, rows=4, columns=3)
    self.assertEqual(env.reset().observation.shape, (4, 3))
    self.assertLen([env.step(1) for _ in range(3)], 3)
    self.assertTrue(env.step(1).first())  # Episodes last rows - 1 steps.
    core = registry.make_functional('cartpole', max_steps=7)
    self.assertEqual(core.max_steps, 7)
    env = registry.make_environment('cartpole', seed=0, max_steps=2)
    env.reset()
    self.assertTrue(env.step(np.int32(0)).mid())
    last = env.step(np.int32(1))
    self.assertTrue(last.last())
    self.assertEqual(float(last.discount), 1.0)

  def test_bsuite_names(self):
    registry.check_name('bsuite:catch/0')
    self.assertFalse(registry.has_functional('bsuite:catch/0'))
    env = registry.make_environment('bsuite:catch/0', seed=3)
    self.assertIsInstance(env.environment, bsuite_catch.Catch)
    reference = bsuite_adapter.make_environment('catch/0', seed=3)
    for _ in range(10):
      np.testing.assert_array_equal(env.reset().observation,
                                    reference.reset().observation)
    with self.assertRaises(TypeError):  # The id fixes the settings.
      registry.make_environment('bsuite:catch/0', rows=4)

  def test_gym_names(self):
    registry.check_name('gym:CartPole-v1')
    self.assertFalse(registry.has_functional('gym:CartPole-v1'))
    env = registry.make_environment('gym:CartPole-v1', seed=3,
                                    max_episode_steps=2)
    self.assertIsInstance(env, gym_adapter.GymEnvironment)
    reference = gym_adapter.make_environment('CartPole-v1', seed=3)
    np.testing.assert_array_equal(env.reset().observation,
                                  reference.reset().observation)
    self.assertTrue(env.step(0).mid())
    self.assertTrue(env.step(1).last())  # The kwarg reached gymnasium.make.

  @parameterized.parameters('bsuite:catch/0', 'gym:CartPole-v1')
  def test_external_names_have_no_jax_core(self, name):
    with self.assertRaisesRegex(ValueError, 'no JAX core') as context:
      registry.make_functional(name)
    self.assertIn(repr(name), str(context.exception))
    self.assertIn('plane_strike, brax:<id>, craftax:<id>, gymnax:<id>, '
                  'jumanji:<id>, navix:<id>, pgx:<id>, popgym_arcade:<id>, '
                  'xminigrid:<id>.',
                  str(context.exception))

  def test_describe_names_lists_every_suite_with_an_example(self):
    self.assertEqual(registry.describe_names(), _NAMES)

  @parameterized.parameters(
      ('gym:CartPole-v1', ('gym:', 'CartPole-v1')),
      ('gymnax:CartPole-v1', ('gymnax:', 'CartPole-v1')),
      ('brax:hopper', ('brax:', 'hopper')),
      ('bsuite:catch/0', ('bsuite:', 'catch/0')),
      ('pgx:minatar-breakout', ('pgx:', 'minatar-breakout')),
      ('brax:', ('brax:', '')),
      ('cartpole', ('', 'cartpole')),
      ('atari:Pong-v5', ('', 'atari:Pong-v5')),
      (None, ('', None)))
  def test_suite_prefixes_split_names(self, name, parts):
    self.assertEqual(suites.split(name), parts)

  def test_settings(self):
    def defaults(name):
      return {k: p.default for k, p in registry.settings(name).items()}
    self.assertEqual(defaults('plane_strike'),
                     {'board_size': 8, 'max_steps': None})
    self.assertEqual(defaults('cartpole'), {'max_steps': 500})
    self.assertEqual(defaults('pgx:2048'),
                     {'max_steps': 1000, 'opponent': None})
    self.assertEqual(defaults('bsuite:catch/0'), {})  # The id fixes them.
    gymnax = defaults('gymnax:CartPole-v1')  # Its env params.
    self.assertEqual(gymnax['max_steps_in_episode'], 500)
    self.assertEqual(gymnax['gravity'], 9.8)
    self.assertIsNone(registry.settings('gym:CartPole-v1'))  # **kwargs.
    brax = defaults('brax:inverted_pendulum')  # Builds nothing.
    self.assertEqual(brax, {'episode_length': 1000, 'backend': 'generalized',
                            'n_frames': None})
    with self.assertRaisesRegex(ValueError, 'Unknown environment'):
      registry.settings('no_such_game')

  def test_brax_names_have_a_jax_core(self):
    registry.check_name('brax:hopper')
    self.assertTrue(registry.has_functional('brax:inverted_pendulum'))
    self.assertEqual(registry.title('brax:hopper'), 'hopper (brax)')
    self.assertIsNone(registry.reference_score('brax:hopper'))
    self.assertEqual(registry.input_name('brax:hopper'), 'observation')

  @parameterized.parameters(
      ('gymnax:CartPole-v1', gymnax_adapter.GymnaxCore, (4,), 2),
      ('gymnax:Breakout-MinAtar', gymnax_adapter.GymnaxCore, (10, 10, 4), 3),
      ('pgx:2048', pgx_adapter.PgxCore, (4, 4, 31), 4))
  def test_jax_suites_run_in_both_loops(self, name, core_class, shape,
                                        num_actions):
    registry.check_name(name)
    self.assertTrue(registry.has_functional(name))
    core = registry.make_functional(name)
    self.assertIsInstance(core, core_class)
    self.assertEqual(core.observation_spec().shape, shape)
    env = registry.make_environment(name, seed=2)
    self.assertIsInstance(env, dm_env_wrapper.DmEnvironment)
    self.assertIsInstance(env.core, core_class)
    self.assertEqual(env.action_spec().num_values, num_actions)
    key = jax.random.fold_in(jax.random.PRNGKey(2), 0)
    np.testing.assert_array_equal(env.reset().observation,
                                  jax.jit(core.reset)(key)[1].observation)
    self.assertEqual(registry.input_name(name), 'observation')
    self.assertIsNone(registry.hidden_sizes(name, {}))

  def test_jax_suites_take_kwargs(self):
    core = registry.make_functional('gymnax:CartPole-v1',
                                    max_steps_in_episode=5)
    self.assertEqual(core.max_episode_steps, 5)
    env = registry.make_environment('gymnax:CartPole-v1', seed=0,
                                    max_steps_in_episode=2)
    env.reset()
    self.assertTrue(env.step(0).mid())
    last = env.step(1)
    self.assertTrue(last.last())
    self.assertEqual(float(last.discount), 1.0)  # Truncation.
    with self.assertRaisesRegex(ValueError, 'max_steps_in_episode'):
      registry.make_functional('gymnax:CartPole-v1', max_steps=5)
    self.assertEqual(registry.make_functional(
        'pgx:2048', max_steps=9).max_episode_steps, 9)
    self.assertEqual(registry.make_environment(
        'pgx:2048', max_steps=9).core.max_episode_steps, 9)

  def test_suite_reference_scores(self):
    reference = registry.reference_score('gymnax:CartPole-v1')
    self.assertEqual((reference.low, reference.high), (22.1, 500.0))
    self.assertIn('10,000 episodes', reference.source)
    self.assertEqual(registry.score_metric('gymnax:CartPole-v1'),
                     'mean_return')
    for name in ('gymnax:Breakout-MinAtar', 'pgx:2048', 'gym:CartPole-v1',
                 'bsuite:catch/0'):
      self.assertIsNone(registry.reference_score(name))

  def test_suite_refusals_reach_the_registry(self):
    for name, message in (
        ('gymnax:Cartpole-v1', 'Did you mean CartPole-v1'),
        ('brax:half_cheetah', 'Did you mean halfcheetah'),
        ('pgx:sparrow_mahjong', '3-player game.*pgx ids: 2048')):
      for fn in (registry.check_name, registry.has_functional,
                 registry.make_environment, registry.make_functional):
        with self.assertRaisesRegex(ValueError, message):
          fn(name)

  def test_missing_suite_package_is_a_value_error(self):
    for module, name in (('gymnax', 'gymnax:CartPole-v1'),
                         ('pgx', 'pgx:2048')):
      with mock.patch.dict(sys.modules, {module: None}):
        for fn in (registry.check_name, registry.has_functional,
                   registry.make_environment, registry.make_functional):
          with self.assertRaisesRegex(
              ValueError, rf"{module} is not installed: pip install -e "
              r"'\.\[suites\]'"):
            fn(name)
        registry.check_name('cartpole')  # The rest works without it.

  def test_unknown_suite_ids_raise_the_suite_error(self):
    for name, suite_message in (('bsuite:catch/99', 'bsuite.sweep.SWEEP'),
                                ('gym:NoSuchGame-v0', 'Unknown Gymnasium'),
                                ('gymnax:NoSuchGame-v0', 'Unknown gymnax'),
                                ('pgx:no_such_game', 'Unknown pgx')):
      for fn in (registry.check_name, registry.has_functional,
                 registry.make_environment, registry.make_functional):
        with self.assertRaisesRegex(ValueError, suite_message) as context:
          fn(name)
        self.assertIn(name.partition(':')[2], str(context.exception))


class RegisterTest(absltest.TestCase):
  """A user's environment goes through `register`; the registry is restored
  after each test."""

  def setUp(self):
    super().setUp()
    patcher = mock.patch.dict(registry._ENTRIES.by_name)  # pylint: disable=protected-access
    patcher.start()
    self.addCleanup(patcher.stop)

  def test_a_registered_core_runs_in_both_faces(self):
    registry.register(registry.EnvironmentEntry(
        'small_catch', make_core=lambda **kw: catch.Catch(rows=4, **kw)))
    self.assertIn('small_catch', registry.names())
    self.assertTrue(registry.has_functional('small_catch'))
    core = registry.make_functional('small_catch', columns=3)
    self.assertEqual(core.observation_spec().shape, (4, 3))
    env = registry.make_environment('small_catch', seed=1, columns=3)
    self.assertEqual(env.observation_spec().shape, (4, 3))
    self.assertIsNone(registry.reference_score('small_catch'))
    self.assertEqual(registry.score_metric('small_catch'), 'mean_return')
    self.assertEqual(registry.input_name('small_catch'), 'observation')
    self.assertIsNone(registry.hidden_sizes('small_catch', {}))

  def test_a_dm_env_factory_alone_runs_in_the_python_loop_only(self):
    registry.register(registry.EnvironmentEntry(
        'dm_catch', make_environment=lambda seed=None, **kw: (
            catch.make_environment(seed=seed, **kw))))
    self.assertFalse(registry.has_functional('dm_catch'))
    with self.assertRaisesRegex(ValueError, 'no JAX core'):
      registry.make_functional('dm_catch')
    self.assertEqual(registry.make_environment(
        'dm_catch', seed=0).observation_spec().shape, (10, 5))

  def test_facts_of_the_built_in_games(self):
    self.assertEqual(registry.hidden_sizes('plane_strike', {}), (128, 64))
    self.assertEqual(registry.hidden_sizes('plane_strike',
                                           {'board_size': 6}), (72, 36))
    self.assertIsNone(registry.hidden_sizes('catch', {}))
    self.assertIsNone(registry.hidden_sizes('gym:CartPole-v1', {}))
    self.assertEqual(registry.input_name('plane_strike'), 'board')
    self.assertEqual(registry.input_name('bsuite:catch/0'), 'observation')

  def test_a_suite_id_resolves_to_an_entry_of_its_facts(self):
    entry = registry.resolve('gymnax:CartPole-v1')
    self.assertEqual(entry.title, 'CartPole-v1 (gymnax)')
    self.assertTrue(entry.has_core)
    self.assertIsNotNone(entry.reference_score)
    self.assertEqual(entry.core().action_spec().num_values, 2)
    self.assertEqual(entry.environment(seed=0).action_spec().num_values, 2)
    self.assertEqual(registry.resolve('gymnax:Breakout-MinAtar').evaluation,
                     'acting')
    bsuite = registry.resolve('bsuite:catch/0')
    self.assertFalse(bsuite.has_core)
    with self.assertRaisesRegex(ValueError, 'has no JAX core'):
      bsuite.core()
    with self.assertRaisesRegex(ValueError, 'Unknown environment'):
      registry.resolve('Catch')

  def test_fixed_hidden_sizes(self):
    registry.register(registry.EnvironmentEntry(
        'wide_catch', make_core=catch.Catch, hidden_sizes=(256, 256)))
    self.assertEqual(registry.hidden_sizes('wide_catch', {}), (256, 256))

  def test_bad_entries_are_refused(self):
    with self.assertRaisesRegex(ValueError, 'needs make_core'):
      registry.EnvironmentEntry('nothing')
    with self.assertRaisesRegex(ValueError, 'hidden_sizes must be a tuple'):
      registry.EnvironmentEntry('x', make_core=catch.Catch,
                                hidden_sizes=[64, 0])
    with self.assertRaisesRegex(ValueError, 'reference_score must be'):
      registry.EnvironmentEntry('x', make_core=catch.Catch,
                                reference_score=(0.0, 1.0))
    with self.assertRaisesRegex(ValueError, 'reserved for suites'):
      registry.register(registry.EnvironmentEntry('my:env',
                                                  make_core=catch.Catch))
    registry.register(registry.EnvironmentEntry('twice',
                                                make_core=catch.Catch))
    with self.assertRaisesRegex(ValueError, 'already registered'):
      registry.register(registry.EnvironmentEntry(
          'twice', make_core=cartpole.CartPole))
    for names in (('same', 'same'), ('Strikes', None), ('eval/x', None),
                  (1, None)):
      with self.subTest(names):
        with self.assertRaisesRegex(ValueError, 'length_statistic must be'):
          registry.EnvironmentEntry('x', make_core=catch.Catch,
                                    return_statistic=names[0],
                                    length_statistic=names[1])

  def test_episode_statistics_follow_the_entry(self):
    self.assertEqual(registry.resolve('plane_strike').episode_statistics,
                     {'episode_length': 'strikes'})
    for name in ('catch', 'cartpole'):  # Length: constant, or the return.
      self.assertEqual(registry.resolve(name).episode_statistics,
                       {'episode_return': 'episode_return'})
    both = {'episode_return': 'episode_return',
            'episode_length': 'episode_length'}
    self.assertEqual(registry.resolve('bsuite:catch/0').episode_statistics,
                     both)
    registry.register(registry.EnvironmentEntry('mine',
                                                make_core=catch.Catch))
    self.assertEqual(registry.resolve('mine').episode_statistics, both)


if __name__ == '__main__':
  absltest.main()
