"""Tests for agents/search.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import mctx
import numpy as np
import pytest

from agents import agent as agent_lib
from agents import search


def _model(num_actions=5, size=3):
  """A small deterministic model: embeddings step by a fixed map of the
  action; rewards, priors and values read off the embedding."""
  weights = jax.random.normal(jax.random.PRNGKey(7), (size + num_actions,
                                                      size))
  readout = jax.random.normal(jax.random.PRNGKey(8), (size, num_actions))

  def recurrent_fn(params, key, actions, embeddings):
    del params, key
    inputs = jnp.concatenate(
        [embeddings, jax.nn.one_hot(actions, num_actions)], axis=-1)
    embeddings = jnp.tanh(inputs @ weights)
    return mctx.RecurrentFnOutput(
        reward=embeddings[:, 0], discount=jnp.full(actions.shape, 0.9),
        prior_logits=embeddings @ readout,
        value=embeddings[:, 1]), embeddings

  def root(embeddings):
    return mctx.RootFnOutput(prior_logits=embeddings @ readout,
                             value=embeddings[:, 2], embedding=embeddings)

  return root, recurrent_fn


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


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
class SearchEachTest(absltest.TestCase):

  def test_each_root_searches_as_it_would_alone(self):
    # search_each over 6 roots gives what vmap of `search` over batches of
    # one root gives, each root with its own key: moves and targets.
    root_of, recurrent_fn = _model()
    embeddings = jax.random.normal(jax.random.PRNGKey(0), (6, 3))
    legal = jax.random.bernoulli(jax.random.PRNGKey(1), 0.7, (6, 5))
    legal = legal.at[:, 0].set(True)
    keys = jax.random.split(jax.random.PRNGKey(2), 6)
    # (PUCT's search_each is `vmap` of `search` itself.)
    for settings, deterministic in (
        (dict(search='gumbel', random_moves=0.3), False),
        (dict(search='gumbel', max_num_considered_actions=2), True)):
      config = search.SearchSettings(num_simulations=6, **settings)
      alone = jax.jit(jax.vmap(lambda key, embedding, legal: jax.tree.map(
          lambda x: x[0], search.search(
              config, None, key, root_of(embedding[None]), recurrent_fn,
              legal[None], deterministic))))(keys, embeddings, legal)
      together = jax.jit(lambda keys: search.search_each(
          config, None, keys, root_of(embeddings), recurrent_fn, legal,
          deterministic))(keys)
      message = f'{settings}, deterministic={deterministic}'
      np.testing.assert_array_equal(together[0], alone[0], message)
      for name in (search.SEARCH_POLICY, search.SEARCH_VALUE):
        np.testing.assert_allclose(together[1][name], alone[1][name],
                                   rtol=1e-5, atol=1e-6, err_msg=message)
      self.assertTrue(np.all(np.asarray(legal)[np.arange(6),
                                               np.asarray(together[0])]))

  def test_roots_do_not_depend_on_each_other(self):
    # A root's move and target are the same searched with other roots or
    # alone.
    root_of, recurrent_fn = _model()
    embeddings = jax.random.normal(jax.random.PRNGKey(3), (4, 3))
    keys = jax.random.split(jax.random.PRNGKey(4), 4)
    config = search.SearchSettings(num_simulations=8, random_moves=0.5)
    run = jax.jit(lambda keys, embeddings: search.search_each(
        config, None, keys, root_of(embeddings), recurrent_fn, None))
    actions, extras = run(keys, embeddings)
    first, first_extras = run(keys[:1], embeddings[:1])
    self.assertEqual(int(first[0]), int(actions[0]))
    np.testing.assert_allclose(first_extras[search.SEARCH_POLICY][0],
                               extras[search.SEARCH_POLICY][0], rtol=1e-5,
                               atol=1e-6)


if __name__ == '__main__':
  absltest.main()
