"""Tests for environments/reference_scores.py."""

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from environments import reference_scores
from environments import registry


def test_plane_strike_is_scored_in_strikes_fewer_is_better():
  reference = registry.reference_score('plane_strike')
  assert reference.metric == 'mean_episode_length'
  assert not reference.higher_is_better
  np.testing.assert_allclose(reference.normalise([20.88, 11.93, 16.405]),
                             [0.0, 1.0, 0.5])


@pytest.mark.parametrize('name, low, high', [('catch', -1.0, 1.0),
                                             ('cartpole', 22.3, 500.0)])
def test_return_games_normalise_between_their_references(name, low, high):
  reference = registry.reference_score(name)
  assert reference.metric == 'mean_return' and reference.higher_is_better
  np.testing.assert_allclose(reference.normalise([low, high]), [0.0, 1.0])


def test_every_built_in_game_has_a_reference():
  for name in ('cartpole', 'catch', 'plane_strike'):
    assert registry.reference_score(name) is not None, name


def test_adapted_environments_have_none_and_are_scored_by_return():
  assert registry.reference_score('bsuite:catch/0') is None
  assert registry.score_metric('gym:CartPole-v1') == 'mean_return'
  assert registry.score_metric('plane_strike') == (
      'mean_episode_length')


def test_cartpole_low_reference_is_the_random_players_return():
  """22.3 was measured on 100,000 episodes; 20,000 land within 0.3."""
  core = registry.make_functional('cartpole')

  def episode_return(key):
    reset_key, key = jax.random.split(key)
    state, _ = core.reset(reset_key)

    def step(carry):
      state, total, _, key = carry
      key, action_key = jax.random.split(key)
      state, timestep = core.step(
          state, jax.random.randint(action_key, (), 0, 2))
      return state, total + timestep.reward, timestep.last(), key

    _, total, _, _ = jax.lax.while_loop(
        lambda carry: jnp.logical_not(carry[2]), step,
        (state, jnp.float32(0.0), jnp.bool_(False), key))
    return total

  returns = jax.jit(jax.vmap(episode_return))(
      jax.random.split(jax.random.PRNGKey(1), 20_000))
  assert float(returns.mean()) == pytest.approx(
      registry.reference_score('cartpole').low, abs=0.3)


def test_pendulum_low_reference_is_the_random_players_return():
  """-1229.5 was measured on 100,000 episodes; 20,000 land within 6 (the
  standard error of 20,000 is 2)."""
  core = registry.make_functional('gymnax:Pendulum-v1')

  def episode_return(key):
    reset_key, key = jax.random.split(key)
    state, _ = core.reset(reset_key)

    def step(carry, action_key):
      state, total = carry
      action = jax.random.uniform(action_key, (1,), minval=-2.0, maxval=2.0)
      state, timestep = core.step(state, action)
      return (state, total + timestep.reward), None

    (_, total), _ = jax.lax.scan(step, (state, jnp.float32(0.0)),
                                 jax.random.split(key, core.max_episode_steps))
    return total

  returns = jax.jit(jax.vmap(episode_return))(
      jax.random.split(jax.random.PRNGKey(1), 20_000))
  reference = registry.reference_score('gymnax:Pendulum-v1')
  assert float(returns.mean()) == pytest.approx(reference.low, abs=6.0)
  assert reference.high == 0.0
