"""Tests for `networks.jumanji_maze`."""

from absl.testing import absltest
import haiku as hk
import jax
import numpy as np

from environments import jumanji_adapter
from networks import jumanji_maze
from networks import registry


class JumanjiMazeTest(absltest.TestCase):

  @classmethod
  def setUpClass(cls):
    super().setUpClass()
    # Three Maze observations, as Jumanji gives them and as our core's
    # vectors.
    cls.core = jumanji_adapter.make_core('Maze-v0')
    keys = jax.random.split(jax.random.PRNGKey(0), 3)
    _, timesteps = jax.jit(jax.vmap(cls.core.reset))(keys)
    _, originals = jax.jit(jax.vmap(cls.core.env.reset))(keys)
    cls.originals, cls.vectors = originals.observation, timesteps.observation

  def test_draws_walls_agent_and_target(self):
    core, originals, vectors = self.core, self.originals, self.vectors
    side = jumanji_maze.grid_size(core.observation_spec().shape)
    self.assertEqual(side, 10)
    image = np.asarray(jumanji_maze.maze_image(vectors, side))
    self.assertEqual(image.shape, (3, 10, 10, 1))
    for i in range(3):
      expected = np.asarray(originals.walls[i], np.float32)
      agent = originals.agent_position
      target = originals.target_position
      expected[int(agent.row[i]), int(agent.col[i])] = 2
      expected[int(target.row[i]), int(target.col[i])] = 3
      np.testing.assert_array_equal(image[i, ..., 0], expected)

  def test_computes_what_jumanjis_network_computes(self):
    # Jumanji's own Maze networks, their parameters given to ours.
    from jumanji.training.networks.maze import actor_critic  # pylint: disable=g-import-not-at-top
    core, originals, vectors = self.core, self.originals, self.vectors
    theirs = {
        critic: actor_critic.make_network_maze(
            core.env, critic, jumanji_maze.CHANNELS,
            (128, 128) if critic else (64, 64), 4)
        for critic in (False, True)}
    params = {critic: net.init(jax.random.PRNGKey(int(critic)), originals)
              for critic, net in theirs.items()}
    ours = jumanji_maze.make_maze_actor_critic_network(4, 10)
    names = ['conv2_d', 'conv2_d_1', 'conv2_d_2', 'mlp/~/linear_0',
             'mlp/~/linear_1', 'mlp/~/linear_2']
    ours_names = [f'{{}}_conv_{i}' for i in range(3)] + [
        f'{{}}_mlp/~/linear_{i}' for i in range(3)]
    mapped = {}
    for critic, branch in ((False, 'policy'), (True, 'value')):
      for theirs_name, ours_name in zip(names, ours_names):
        mapped[ours_name.format(branch)] = params[critic][theirs_name]
    mapped = hk.data_structures.to_haiku_dict(mapped)
    self.assertEqual(jax.tree.structure(mapped),
                     jax.tree.structure(ours.init(jax.random.PRNGKey(0),
                                                  vectors)))
    logits, values = ours.apply(mapped, vectors)
    their_logits = theirs[False].apply(params[False], originals)
    legal = np.asarray(originals.action_mask)
    np.testing.assert_allclose(np.asarray(logits)[legal],
                               np.asarray(their_logits)[legal], rtol=1e-5,
                               atol=1e-5)
    np.testing.assert_allclose(
        values, theirs[True].apply(params[True], originals), rtol=1e-5,
        atol=1e-5)

  def test_hidden_sizes_set_the_policy_and_double_for_the_value(self):
    params = jumanji_maze.make_maze_actor_critic_network(4, 10, (8,)).init(
        jax.random.PRNGKey(0), self.vectors)
    self.assertEqual(params['policy_mlp/~/linear_0']['w'].shape[1], 8)
    self.assertEqual(params['value_mlp/~/linear_0']['w'].shape[1], 16)

  def test_refuses_other_observations(self):
    for shape in ((108,), (10, 10, 3), (14,)):
      with self.assertRaisesRegex(ValueError, r'jumanji:Maze-v0.*got shape '
                                  + repr(shape).replace('(', r'\(')
                                  .replace(')', r'\)')):
        jumanji_maze.grid_size(shape)

  def test_is_registered(self):
    entry = registry.get('jumanji_maze_actor_critic')
    self.assertEqual(entry.kind, registry.ACTOR_CRITIC)
    self.assertEqual(entry.default_hidden_sizes, (64, 64))


if __name__ == '__main__':
  absltest.main()
