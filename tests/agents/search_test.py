"""Tests for agents/search.py."""

from absl.testing import absltest
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import search


def _trajectory(rewards, discounts, last, search_value=None):
  rewards = jnp.asarray(rewards, jnp.float32)[:, None]
  t = rewards.shape[0]
  extras = {} if search_value is None else {
      'search_value': jnp.asarray(search_value, jnp.float32)[:, None]}
  return agent_lib.Trajectory(
      observations=jnp.zeros((t, 1, 1)), actions=jnp.zeros((t, 1), jnp.int32),
      rewards=rewards, discounts=jnp.asarray(discounts, jnp.float32)[:, None],
      last=jnp.asarray(last)[:, None], mask=jnp.ones((t, 1)),
      final_observations=jnp.zeros((1, 1)), extras=extras)


class TargetsTest(absltest.TestCase):

  def test_outcomes_change_sides_with_the_turn(self):
    # Three moves, the third wins: each target is the outcome seen by the
    # player who moved.
    trajectory = _trajectory([0, 0, 1], [-1, -1, 0], [False, False, True])
    targets = search.value_targets(trajectory, jnp.zeros((3, 1)), 1.0,
                                   None)
    np.testing.assert_allclose(targets[:, 0], [1, -1, 1])

  def test_a_cut_game_bootstraps_from_the_next_movers_value(self):
    trajectory = _trajectory([0, 0], [-1, -1], [False, False])
    next_values = jnp.asarray([[0.0], [0.5]])  # v of the next mover.
    targets = search.value_targets(trajectory, next_values, 1.0, None)
    np.testing.assert_allclose(targets[:, 0], [0.5, -0.5])

  def test_a_time_limit_bootstraps_from_the_next_movers_side(self):
    # The game is cut after the first move, the turn passing: the target
    # is the next mover's value with its sign turned.
    trajectory = _trajectory([0, 0], [-1, -1], [True, False])._replace(
        next_observations=jnp.zeros((2, 1, 1)))
    next_values = jnp.asarray([[0.75], [0.5]])
    targets = search.value_targets(trajectory, next_values, 1.0, None)
    np.testing.assert_allclose(targets[:, 0], [-0.75, -0.5])

  def test_n_step_targets_bootstrap_from_the_search(self):
    trajectory = _trajectory([1, 2, 3], [1, 1, 1], [False] * 3,
                             search_value=[10, 20, 30])
    next_values = jnp.asarray([[0.0], [0.0], [40.0]])
    targets = search.value_targets(trajectory, next_values, 0.5, 1)
    np.testing.assert_allclose(targets[:, 0], [11, 17, 23])


class PolicyLossTest(absltest.TestCase):

  def test_cross_entropy_masks_illegal_moves_and_skips_zero_targets(self):
    logits = jnp.asarray([[0.0, 0.0, 50.0], [0.0, 0.0, 0.0]])
    legal = jnp.asarray([[True, True, False], [True, True, True]])
    targets = jnp.asarray([[0.5, 0.5, 0.0], [1.0, 0.0, 0.0]])
    cross_entropy, entropy = search.policy_loss(logits, legal, targets)
    np.testing.assert_allclose(cross_entropy, [np.log(2), np.log(3)],
                               rtol=1e-6)
    np.testing.assert_allclose(entropy, [np.log(2), 0.0], atol=1e-6)


if __name__ == '__main__':
  absltest.main()
