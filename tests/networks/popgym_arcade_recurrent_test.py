"""Tests for networks/popgym_arcade_recurrent.py and its registered network.
"""

from absl.testing import absltest
from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from environments import specs
from networks import popgym_arcade_recurrent
from networks import recurrent
from networks import registry

# POPGym Arcade 0.0.5's equinox `ActorCriticRNN(obs_size=..., rnn_type=
# 'lru')`, its arrays counted in the peers' environment: the rebuilt
# network has as many.
PACKAGE_PARAMETERS = {128: 5_872_902, 256: 7_979_270}


def _network(side=128, hidden_sizes=None):
  return popgym_arcade_recurrent.make_popgym_arcade_lru_actor_critic_network(
      5, (side, side, 3), hidden_sizes)


class PopgymArcadeRecurrentTest(absltest.TestCase):

  def test_parameters_as_many_as_the_packages_network(self):
    for side, count in PACKAGE_PARAMETERS.items():
      network = _network(side)
      params = jax.eval_shape(network.init, jax.random.PRNGKey(0),
                              jnp.zeros((1, side, side, 3)))
      self.assertEqual(sum(np.prod(x.shape) for x in jax.tree.leaves(params)),
                       count, side)
      # Two LRU layers in the actor's memory, one in the critic's.
      self.assertIn('actor_memory/lru_1', params)
      self.assertNotIn('critic_memory/lru_1', params)

  @pytest.mark.slow  # Two 128x128 towers compiled: ~7 s cold.
  def test_steps_replay_the_unroll_and_first_resets_the_memory(self):
    network = _network(hidden_sizes=(16, 8))
    t, n = 3, 2
    images = jax.random.uniform(jax.random.PRNGKey(1), (t, n, 128, 128, 3))
    first = jnp.array([[True, True], [False, True], [False, False]])
    params = network.init(jax.random.PRNGKey(0), images[0])
    state = network.initial_state(n)
    step = jax.jit(network.step)
    (logits, values), final = jax.jit(network.unroll)(params, images, first,
                                                      state)
    self.assertEqual((logits.shape, values.shape), ((t, n, 5), (t, n)))
    stepped = state
    for i in range(t):
      (step_logits, step_values), stepped = step(params, images[i],
                                                 first[i], stepped)
      np.testing.assert_allclose(step_logits, logits[i], rtol=1e-4,
                                 atol=1e-5)
      np.testing.assert_allclose(step_values, values[i], rtol=1e-4,
                                 atol=1e-5)
    for a, b in zip(jax.tree.leaves(stepped), jax.tree.leaves(final)):
      np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    # At a first step the outputs do not depend on the state carried in.
    carried = jax.tree.map(lambda x: x + 1.0, final)
    (again, _), _ = step(params, images[0], jnp.ones(n, bool), carried)
    np.testing.assert_allclose(again, logits[0], rtol=1e-4, atol=1e-5)
    (moved, _), _ = step(params, images[0], jnp.zeros(n, bool), carried)
    self.assertGreater(float(jnp.abs(moved - logits[0]).max()), 1e-6)

  def test_registered_as_recurrent_and_images_refused(self):
    entry = registry.get(popgym_arcade_recurrent.NAME)
    self.assertEqual((entry.kind, entry.default_hidden_sizes,
                      entry.recurrent),
                     (registry.ACTOR_CRITIC, (512, 256), True))
    spec = specs.make_spec(dm_specs.Array((128, 128, 3), np.float32),
                           dm_specs.DiscreteArray(5))
    self.assertTrue(recurrent.is_recurrent(entry.make(spec, (16, 8))))
    small = specs.make_spec(dm_specs.Array((84, 84, 3), np.float32),
                            dm_specs.DiscreteArray(5))
    with self.assertRaisesRegex(ValueError,
                                'popgym_arcade_lru_actor_critic needs '
                                'images of at least 119x119'):
      entry.make(small, None)
    with self.assertRaisesRegex(ValueError, 'two numbers'):
      _network(hidden_sizes=(16,))


if __name__ == '__main__':
  absltest.main()
