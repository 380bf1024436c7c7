"""Tests for experiments/loops/evaluation.py."""

from absl.testing import absltest
import jax
import numpy as np
import pytest

from agents import registry
from environments import dm_env_wrapper
from environments import pgx_adapter
from environments import plane_strike
from environments import registry as env_registry
from environments import specs
from environments import two_player
from experiments.loops import evaluation


class EvaluationTest(absltest.TestCase):

  def _agent(self, env):
    return registry.make_agent(
        'reinforce', registry.make_config('reinforce'),
        specs.make_environment_spec(env), hidden_sizes=(16,))

  def test_greedy_never_repeats_and_is_deterministic(self):
    env = plane_strike.make_environment(seed=4)
    agent = self._agent(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    result = evaluation.evaluate(env, agent, params, num_episodes=5)
    self.assertEqual(result['mean_return'], 8.0)  # No -1 repeats.
    self.assertBetween(result['mean_episode_length'], 8, 64)
    again = evaluation.evaluate(plane_strike.make_environment(seed=4), agent,
                                params, num_episodes=5)
    self.assertEqual(result, again)

  def test_greedy_policy_takes_argmax_among_legal(self):
    env = plane_strike.make_environment()
    agent = self._agent(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    params = jax.tree.map(np.zeros_like, params)
    params['logits']['b'] = np.arange(64, dtype=np.float32)  # Prefers 63.
    greedy = evaluation.make_batched_policy(
        agent, specs.make_environment_spec(env))
    boards = np.zeros((2, 8, 8), np.float32)
    boards[1, 7, 7] = -1.0
    actions, state = greedy(params, boards, jax.random.PRNGKey(0),
                            np.zeros(2, np.int32), np.zeros(2, np.int32), ())
    self.assertEqual(list(np.asarray(actions)), [63, 62])
    self.assertEqual(state, ())  # A feed-forward agent keeps no state.

  def test_compiled_evaluation_plays_the_same_games(self):
    env = plane_strike.make_environment(seed=4)
    agent = self._agent(env)
    spec = specs.make_environment_spec(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    expected = evaluation.evaluate(env, agent, params, num_episodes=20)
    got = jax.jit(lambda p, k: evaluation.evaluate_core(
        plane_strike.PlaneStrike(), agent, spec, p, k, num_episodes=20))(
            params, jax.random.PRNGKey(4))
    self.assertAlmostEqual(float(got['mean_return']),
                           expected['mean_return'], places=5)
    self.assertAlmostEqual(float(got['mean_episode_length']),
                           expected['mean_episode_length'], places=5)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_two_player_games_count_games_won_drawn_and_lost(self):
    core = pgx_adapter.make_core('tic_tac_toe', opponent='random')
    spec = specs.make_environment_spec(dm_env_wrapper.DmEnvironment(core))
    agent = registry.make_agent('alphazero',
                                registry.make_config('alphazero'), spec)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    got = jax.jit(lambda p, k: evaluation.evaluate_core(
        two_player.evaluation_core(core), agent, spec, p, k, 64,
        outcomes=True))(params, jax.random.PRNGKey(1))
    shares = [float(got[name]) for name in evaluation.OUTCOMES]
    self.assertAlmostEqual(sum(shares), 1.0, places=5)
    self.assertAlmostEqual(shares[0] - shares[2], float(got['mean_return']),
                           places=5)
    self.assertGreater(shares[0], 0.0)  # Against random play, some wins.
    plain = evaluation.evaluate_core(two_player.evaluation_core(core), agent,
                                     spec, params, jax.random.PRNGKey(1), 8)
    self.assertNotIn('won', plain)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_search_protocol_plays_the_search_from_the_games_states(self):
    # AlphaZero's search sees the game's own state inside the game against
    # the opponent; a network of zeros searching 32 simulations wins most
    # games of tic-tac-toe against random play, its greedy policy (the
    # first legal cell) far fewer.
    core = pgx_adapter.make_core('tic_tac_toe', opponent='random')
    spec = specs.make_environment_spec(dm_env_wrapper.DmEnvironment(core))
    agent = registry.make_agent(
        'alphazero', registry.make_config('alphazero', num_simulations=32),
        spec, model=core)
    params = jax.tree.map(np.zeros_like, agent.actor_params(
        agent.init(jax.random.PRNGKey(0))))
    versus = two_player.evaluation_core(core)
    won = {}
    for policy in ('greedy', 'search'):
      got = jax.jit(lambda p, k, policy=policy: evaluation.evaluate_core(
          versus, agent, spec, p, k, 32, evaluation.Protocol(policy),
          outcomes=True))(params, jax.random.PRNGKey(1))
      won[policy] = float(got['won'])
    self.assertGreater(won['search'], 0.7)
    self.assertGreater(won['search'], won['greedy'] + 0.2)

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_muzero_plays_by_search_in_the_python_loop(self):
    # No core states there: MuZero searches the model it learned.
    env = env_registry.make_environment('catch')
    spec = specs.make_environment_spec(env)
    agent = registry.make_agent(
        'muzero', registry.make_config('muzero', num_simulations=4), spec)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    policy = evaluation.make_batched_policy(agent, spec,
                                            evaluation.Protocol('search'))
    result = evaluation.evaluate(env, agent, params, 3, policy)
    self.assertEqual(result['mean_episode_length'], 9.0)

  def test_search_protocol_refuses_an_agent_that_does_not_search(self):
    env = plane_strike.make_environment()
    agent = self._agent(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    with self.assertRaisesRegex(ValueError, 'does not search'):
      evaluation.protocol_step(agent, specs.make_environment_spec(env),
                               evaluation.Protocol('search'), params,
                               np.zeros((1, 8, 8), np.float32),
                               jax.random.split(jax.random.PRNGKey(0), 1))

  def test_episodes_side_by_side_are_the_episodes_one_by_one(self):
    env = env_registry.make_environment('catch')
    agent = self._agent(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(1)))
    env.seek(7, 3)
    expected = evaluation.evaluate(env, agent, params, num_episodes=12)
    environments = [env_registry.make_environment('catch') for _ in range(5)]
    got = evaluation.evaluate_streams(environments, agent, params, stream=7,
                                      first_episode=3, num_episodes=12)
    self.assertEqual(got, expected)
    self.assertNotIn(expected['mean_return'], (-1.0, 1.0))  # Mixed games.

  @pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
  def test_protocols_draw_alike_in_every_loop(self):
    env = plane_strike.make_environment(seed=4)
    agent = self._agent(env)
    spec = specs.make_environment_spec(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    greedy = evaluation.evaluate(env, agent, params, num_episodes=8,
                                 stream=4)
    for protocol in (evaluation.Protocol('sampled'),
                     evaluation.Protocol('epsilon_greedy', 0.5)):
      with self.subTest(protocol.policy):
        policy = evaluation.make_batched_policy(agent, spec, protocol)
        one_by_one = evaluation.evaluate(plane_strike.make_environment(
            seed=4), agent, params, 8, policy, stream=4)
        compiled = jax.jit(lambda p, k, protocol=protocol: (
            evaluation.evaluate_core(plane_strike.PlaneStrike(), agent, spec,
                                     p, k, 8, protocol)))(
                                         params, jax.random.PRNGKey(4))
        self.assertAlmostEqual(float(compiled['mean_episode_length']),
                               one_by_one['mean_episode_length'], places=5)
        # An untrained policy's draws play other games than its argmax.
        self.assertNotEqual(one_by_one['mean_episode_length'],
                            greedy['mean_episode_length'])
    no_exploration = evaluation.make_batched_policy(
        agent, spec, evaluation.Protocol('epsilon_greedy', 0.0))
    self.assertEqual(evaluation.evaluate(
        plane_strike.make_environment(seed=4), agent, params, 8,
        no_exploration, stream=4), greedy)

  def test_identical_episodes_are_reported(self):
    env = plane_strike.make_environment(seed=4)
    agent = self._agent(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    self.assertEqual(evaluation.evaluate(
        env, agent, params, num_episodes=3)['identical_episodes'], 0.0)
    self.assertEqual(evaluation._identical([2.0, 2.0], [5, 5]), 1.0)  # pylint: disable=protected-access
    self.assertEqual(evaluation._identical([2.0], [5]), 0.0)  # pylint: disable=protected-access
    self.assertEqual(evaluation._identical([2.0, 2.0], [5, 6]), 0.0)  # pylint: disable=protected-access

  def test_unknown_protocol_names_the_valid_ones(self):
    with self.assertRaisesRegex(ValueError, 'eval_policy must be one of '
                                'greedy, sampled, epsilon_greedy'):
      evaluation.Protocol('softmax')
    with self.assertRaisesRegex(ValueError, r'eval_epsilon must be in \[0, 1\]'):
      evaluation.Protocol('epsilon_greedy', 1.5)

  def test_bad_episode_count(self):
    env = plane_strike.make_environment()
    agent = self._agent(env)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    with self.assertRaisesRegex(ValueError, 'num_episodes'):
      evaluation.evaluate(env, agent, params, num_episodes=0)


if __name__ == '__main__':
  absltest.main()
