"""Tests for networks/actor_critic.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp

from networks import actor_critic


class ActorCriticTest(absltest.TestCase):

  def test_shapes_and_shared_torso(self):
    net = actor_critic.make_actor_critic_network(3, hidden_sizes=(8, 4))
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 5)))
    logits, values = net.apply(params, jnp.ones((7, 5)))
    self.assertEqual(logits.shape, (7, 3))
    self.assertEqual(values.shape, (7,))
    shapes = sorted(p['w'].shape for p in params.values())
    # One torso (5->8->4) feeding both heads (4->3 and 4->1).
    self.assertEqual(shapes, sorted([(5, 8), (8, 4), (4, 3), (4, 1)]))

  def test_default_is_64_64_tanh(self):
    net = actor_critic.make_actor_critic_network(2)
    params = net.init(jax.random.PRNGKey(0), jnp.zeros((1, 4)))
    self.assertIn((4, 64), [p['w'].shape for p in params.values()])


if __name__ == '__main__':
  absltest.main()
