"""Tests for experiments/driver/trained_policy.py: a policy's actions and
the episodes it plays, from freshly initialised parameters (no training:
what is checked is how the policy is asked, not what it learned)."""

import jax
import numpy as np
import pytest

from environments import registry as env_registry
from experiments import api
from experiments.driver import trained_policy
from experiments.setup import build as build_lib


def _policy(agent='reinforce', env='catch', **settings):
  built = build_lib.build(api.experiment_config(agent=agent, env=env,
                                                **settings))
  params = built.agent.actor_params(built.agent.init(jax.random.PRNGKey(0)))
  return trained_policy.Policy(built, params)


def _observations(n, env='catch'):
  environment = env_registry.make_environment(env, seed=0)
  first = environment.reset().observation
  return np.stack([first] * n)


def test_predict_gives_one_action_per_observation_or_row():
  policy = _policy()
  batch = _observations(4)
  action = policy.predict(batch[0])
  assert np.shape(action) == () and 0 <= int(action) < 3
  np.testing.assert_array_equal(policy.predict(batch), [action] * 4)
  assert policy(batch[0]) == action  # Calling it predicts greedily.


def test_sampled_actions_follow_the_key():
  policy = _policy()
  batch = _observations(64)
  key = jax.random.PRNGKey(3)
  drawn = policy.predict(batch, deterministic=False, key=key)
  again = policy.predict(batch, deterministic=False, key=key)
  np.testing.assert_array_equal(drawn, again)
  assert set(np.unique(drawn)) <= {0, 1, 2}
  # An untrained softmax policy over 3 actions draws more than one of them.
  assert len(np.unique(drawn)) > 1
  other = policy.predict(batch, deterministic=False,
                         key=jax.random.PRNGKey(4))
  assert not np.array_equal(drawn, other)


def test_bad_requests_are_named():
  policy = _policy()
  observation = _observations(1)[0]
  with pytest.raises(api.UsageError, match='pass key='):
    policy.predict(observation, deterministic=False)
  with pytest.raises(api.UsageError, match='key is for deterministic=False'):
    policy.predict(observation, key=jax.random.PRNGKey(0))
  with pytest.raises(api.UsageError, match=r'observations of shape '
                     r'\(3,\): this policy reads \(10, 5\)'):
    policy.predict(np.zeros(3))
  with pytest.raises(api.UsageError, match="acts by its Q-values.*"
                     "protocol='epsilon_greedy'"):
    _policy('dqn').predict(observation, deterministic=False,
                           key=jax.random.PRNGKey(0))
  with pytest.raises(api.UsageError, match='continuous actions'):
    continuous = _policy('ppo', 'gymnax:Pendulum-v1')
    continuous.predict(np.zeros(3), deterministic=False,
                       key=jax.random.PRNGKey(0))


def test_play_gives_each_episode_s_return_and_length():
  played = trained_policy.play(_policy(), 12, seed=5)
  assert played.returns.shape == played.lengths.shape == (12,)
  # A Catch episode is the ball's 9 steps down; it ends caught or missed.
  np.testing.assert_array_equal(played.lengths, [9] * 12)
  assert set(played.returns) <= {-1.0, 1.0}
  assert played.env == 'catch' and played.protocol == 'greedy'
  assert played.mean_return == pytest.approx(float(np.mean(played.returns)))
  again = trained_policy.play(_policy(), 12, seed=5)
  np.testing.assert_array_equal(played.returns, again.returns)
  sampled = trained_policy.play(_policy(), 12, protocol='sampled', seed=5)
  assert sampled.protocol == 'sampled'


def test_play_refuses_what_the_policy_cannot_play():
  policy = _policy()
  for settings, message in (
      (dict(episodes=0), 'episodes must be a positive integer'),
      (dict(episodes=2, protocol='best'),
       'protocol must be one of greedy, sampled, epsilon_greedy'),
      (dict(episodes=2, protocol='epsilon_greedy', epsilon=2.0),
       'epsilon must be between 0 and 1'),
      (dict(episodes=2, env='plane_strike'),
       "env='plane_strike' shows observations of shape .* but 'catch'"),
  ):
    with pytest.raises(api.UsageError, match=message):
      trained_policy.play(policy, **settings)


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
def test_search_settings_change_how_the_search_plays():
  policy = _policy('alphazero', 'pgx:tic_tac_toe', num_steps=1024)
  run_simulations = policy.built.config.agent_config.num_simulations
  searching = trained_policy.with_search(policy, {'num_simulations': 4,
                                                  'value_scale': 0.5})
  config = searching.built.config.agent_config
  assert (config.num_simulations, config.value_scale) == (4, 0.5)
  assert searching.params is policy.params
  assert (policy.built.config.agent_config.num_simulations ==
          run_simulations != 4)  # The run's own policy is unchanged.
  episodes = trained_policy.play(policy, 4, protocol='search',
                                 search_settings={'num_simulations': 4})
  assert episodes.protocol == 'search (num_simulations 4)'
  assert set(np.unique(episodes.returns)) <= {-1.0, 0.0, 1.0}


def test_bad_search_settings_are_named():
  policy = _policy('alphazero', 'pgx:tic_tac_toe', num_steps=1024)
  with pytest.raises(api.UsageError, match="use them with protocol='search'"):
    trained_policy.play(policy, 2, search_settings={'num_simulations': 8})
  for key in ('learning_rate', 'random_moves'):
    with pytest.raises(api.UsageError, match=(
        rf"search_settings: '{key}' not a setting of alphazero's search as "
        r'it plays \(without exploration\); valid: num_simulations, .*'
        r'sampled_states')):
      trained_policy.play(policy, 2, protocol='search',
                          search_settings={key: 0.1})
  with pytest.raises(api.UsageError, match='num_simulations must be an '
                     'integer >= 2'):
    trained_policy.play(policy, 2, protocol='search',
                        search_settings={'num_simulations': 1})
  with pytest.raises(api.UsageError,
                     match='search_settings: ppo does not search'):
    trained_policy.with_search(_policy('ppo'), {'num_simulations': 8})
