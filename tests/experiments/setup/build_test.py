"""Tests for experiments/setup/build.py."""

import os
import sys
from unittest import mock

from absl.testing import absltest
import jax

from agents import registry as agent_registry
from experiments.driver import run as driver
from experiments.loops import compiled_training
from experiments.loops import python_training
from experiments.loops import seeding
from experiments.setup import build as build_lib
from experiments.setup import config as config_lib


def _config(**overrides):
  settings = dict(agent='reinforce', env='catch', hidden_sizes=(8,),
                  agent_config=agent_registry.make_config('reinforce',
                                                          batch_size=4),
                  num_episodes=8, export_tflite=False)
  settings.update(overrides)
  return config_lib.ExperimentConfig(**settings)


class BuildTest(absltest.TestCase):

  def test_loop_follows_the_config(self):
    python = build_lib.make_loop(build_lib.build(_config(loop='python')))
    self.assertIsInstance(python, python_training.PythonTraining)
    self.assertEqual(list(python.seeds), [0])
    compiled = build_lib.make_loop(build_lib.build(_config(num_seeds=3,
                                                           seed=2)))
    self.assertIsInstance(compiled, compiled_training.CompiledTraining)
    self.assertEqual(list(compiled.seeds), [2, 3, 4])
    self.assertEqual(compiled.num_envs, 4)  # The agent's batch.

  def test_num_envs_default_is_one_in_python_and_the_batch_compiled(self):
    config = _config()
    self.assertEqual(config.num_envs, 4)
    self.assertEqual(config.num_envs,
                     build_lib.build(config).agent.data.batch_size)
    self.assertEqual(_config(loop='python').num_envs, 1)
    self.assertEqual(_config(num_envs=2).num_envs, 2)
    self.assertEqual(_config(num_envs=2, loop='python').num_envs, 2)

  def test_periodic_evaluations_take_a_tenth_of_the_budget_by_default(self):
    episodes = lambda **overrides: build_lib.periodic_eval_episodes(
        _config(**overrides))
    # 10 evaluations over 500k steps; CartPole's episodes last up to 500.
    self.assertEqual(episodes(env='gymnax:CartPole-v1', num_episodes=None,
                              num_steps=500_000), 10)
    # Catch's last 9 steps: 10 x 100 x 9 is within 90k steps.
    self.assertEqual(episodes(num_episodes=None, num_steps=90_000), 100)
    self.assertEqual(episodes(num_episodes=None, num_steps=9_000), 10)
    self.assertEqual(episodes(num_episodes=None, num_steps=90), 1)
    # By episodes: a tenth of the training episodes, at most 100.
    self.assertEqual(episodes(num_episodes=2_000), 20)
    self.assertEqual(episodes(num_episodes=30_000), 100)
    self.assertEqual(episodes(num_episodes=2_000,
                              periodic_eval_episodes=7), 7)
    self.assertEqual(
        build_lib.build(_config(num_episodes=2_000)).periodic_eval_episodes,
        20)

  def test_wandb_without_its_package_is_refused_before_any_write(self):
    config = _config(wandb_project='planestrike')
    workdir = os.path.join(self.create_tempdir().full_path, 'run')
    with mock.patch.dict(sys.modules, {'wandb': None}):  # Import fails.
      with self.assertRaisesRegex(build_lib.ExperimentError,
                                  r"wandb_project.*pip install -e "
                                  r"'\.\[wandb\]'"):
        build_lib.build(config)
      with self.assertRaises(build_lib.ExperimentError):
        driver.run_experiment(config, workdir, progress=False)
    self.assertFalse(os.path.exists(workdir))
    build_lib.build(_config(wandb_project=None))  # Not asked: no check.

  def test_bad_num_envs_is_an_experiment_error_naming_the_flag(self):
    with self.assertRaisesRegex(build_lib.ExperimentError,
                                '--num_envs.*divide'):
      build_lib.make_loop(build_lib.build(_config(num_envs=3)))

  def test_environment_default_widths_reach_the_network(self):
    # Plane Strike's registry entry: the app's layout, 64 -> 128 -> 64 -> 64.
    built = build_lib.build(_config(env='plane_strike', hidden_sizes=None))
    params = built.agent.actor_params(built.agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(params['logits']['w'].shape, (64, 64))
    self.assertEqual(params['mlp_torso/mlp/~/linear_0']['w'].shape,
                     (64, 128))

  def test_each_seed_plays_its_own_export_games(self):
    built = build_lib.build(_config(seed=5))
    self.assertEqual(built.for_seed(7).config.seed, 7)
    first = built.export_environment().reset().observation
    again = built.for_seed(5).export_environment().reset().observation
    self.assertTrue((first == again).all())
    self.assertNotEqual(seeding.environment_seed(5, seeding.EXPORT),
                        seeding.environment_seed(7, seeding.EXPORT))


class PlayersAndPlanningTest(absltest.TestCase):
  """Who may play a two-player game, and where a planning agent runs."""

  def _refusal(self, **settings):
    with self.assertRaises(ValueError) as context:
      build_lib.build(config_lib.ExperimentConfig(
          **dict(dict(num_steps=1024, export_tflite=False), **settings)))
    return str(context.exception)

  def test_an_agent_that_plays_alone_is_refused_a_two_player_game(self):
    message = self._refusal(agent='ppo', env='pgx:tic_tac_toe')
    self.assertIn("agent 'ppo' plays alone", message)
    self.assertIn('2-player game', message)
    self.assertIn('self-play: alphazero', message)

  def test_alphazero_refuses_games_that_hide_their_state(self):
    for env in ('pgx:2048', 'gymnax:Asterix-MinAtar'):
      message = self._refusal(agent='alphazero', env=env)
      self.assertIn('hides part of its state', message)
      self.assertIn('--agent=muzero', message)

  def test_alphazero_searches_plane_strike_over_sampled_planes(self):
    # Plane Strike hides its plane but draws states from what the player
    # knows (`sample_state`): AlphaZero searches over those.
    self.assertIsNone(build_lib.planning_refusal('alphazero', 'plane_strike'))
    built = build_lib.build(config_lib.ExperimentConfig(
        agent='alphazero', env='plane_strike', num_steps=1024,
        export_tflite=False))
    self.assertIsNotNone(built.agent.planning)

  def test_alphazero_refuses_the_python_loop(self):
    message = self._refusal(agent='alphazero', env='catch', loop='python')
    self.assertIn('only the compiled loop holds', message)
    self.assertIn('agent=muzero', message)
    message = self._refusal(agent='alphazero', env='gym:CartPole-v1')
    self.assertIn("env='gym:CartPole-v1' steps in Python", message)
    self.assertIn('train it on a game with a JAX core', message)
    self.assertIn('agent=muzero', message)

  def test_muzero_plans_in_both_loops_and_alone(self):
    for loop in ('python', 'compiled'):
      built = build_lib.build(config_lib.ExperimentConfig(
          agent='muzero', env='plane_strike', loop=loop, num_steps=1024,
          export_tflite=False))
      self.assertIsNone(built.agent.planning)
    message = self._refusal(agent='muzero', env='pgx:tic_tac_toe')
    self.assertIn('self-play: alphazero', message)

  def test_a_two_player_game_trains_in_the_compiled_loop(self):
    message = self._refusal(agent='alphazero', env='pgx:tic_tac_toe',
                            loop='python')
    self.assertIn('only the compiled loop holds', message)

  def test_gymnax_games_hide_state_where_their_step_draws(self):
    self.assertIn('hides part of its state', build_lib.planning_refusal(
        'alphazero', 'gymnax:Freeway-MinAtar'))
    for env in ('gymnax:CartPole-v1', 'gymnax:Breakout-MinAtar'):
      self.assertIsNone(build_lib.planning_refusal('alphazero', env))

  def test_the_search_protocol_is_for_agents_that_search(self):
    message = self._refusal(agent='ppo', env='catch', eval_policy='search')
    self.assertIn('--eval_policy=search: PPO does not search', message)
    self.assertIn('alphazero, muzero', message)
    for agent, loop in (('alphazero', 'compiled'), ('muzero', 'python')):
      built = build_lib.build(config_lib.ExperimentConfig(
          agent=agent, env='catch', loop=loop, num_steps=1024,
          eval_policy='search', export_tflite=False))
      self.assertIsNotNone(built.agent.play_with_search)

  def test_alphazero_builds_with_its_model(self):
    built = build_lib.build(config_lib.ExperimentConfig(
        agent='alphazero', env='pgx:tic_tac_toe', num_steps=1024,
        export_tflite=False))
    self.assertIsNotNone(built.agent.planning)
    self.assertEqual(built.environment_spec.num_players, 2)


if __name__ == '__main__':
  absltest.main()
