"""Tests for agents/alphazero.py."""

from absl.testing import absltest
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import alphazero
from agents import registry
from agents import search as search_lib
from environments import dm_env_wrapper
from environments import pgx_adapter
from environments import plane_strike
from environments import registry as env_registry
from environments import specs


def _tic_tac_toe():
  core = pgx_adapter.make_core('tic_tac_toe')
  return core, specs.make_environment_spec(dm_env_wrapper.DmEnvironment(core))


class ConfigTest(absltest.TestCase):

  def test_bad_settings_are_named(self):
    for overrides, message in (
        (dict(num_simulations=1), 'num_simulations must be an integer >= 2'),
        (dict(search='mcts'), 'gumbel'),
        (dict(random_moves=1.5), 'random_moves'),
        (dict(n_step=0), 'n_step'),
        (dict(num_minibatches=3), 'num_minibatches'),
        (dict(sampled_states=0), 'sampled_states')):
      with self.assertRaisesRegex(ValueError, message):
        registry.make_config('alphazero', **overrides)


class LossTest(absltest.TestCase):

  def test_cross_entropy_to_the_search_and_squared_value_error(self):
    logits = jnp.zeros((1, 3))
    batch = {'search_policy': jnp.asarray([[0.5, 0.5, 0.0]]),
             'value_target': jnp.asarray([1.0])}
    legal = jnp.asarray([[True, True, False]])
    config = alphazero.AlphaZeroConfig(value_cost=2.0)
    total, metrics = alphazero.loss(logits, jnp.zeros(1), legal, batch,
                                    config)
    np.testing.assert_allclose(metrics['policy_loss'], np.log(2), rtol=1e-6)
    np.testing.assert_allclose(metrics['value_loss'], 0.5)
    np.testing.assert_allclose(total, np.log(2) + 1.0, rtol=1e-6)
    np.testing.assert_allclose(metrics['search_policy_entropy'], np.log(2),
                               rtol=1e-6)


@pytest.mark.slow  # Over 3.5 s cold here (docs/testing.md).
class SearchTest(absltest.TestCase):
  """A search that knows nothing but the rules (a network of zeros: a
  uniform prior, values 0) still sees the win and the forced block."""

  def _search(self, games, **overrides):
    """One batched search from the position after each of `games` (move
    sequences)."""
    core, spec = _tic_tac_toe()
    config = registry.make_config('alphazero', num_simulations=32,
                                  **overrides)
    agent = registry.make_agent('alphazero', config, spec, model=core)
    params = jax.tree.map(jnp.zeros_like, agent.actor_params(
        agent.init(jax.random.PRNGKey(0))))
    positions = []
    for moves in games:
      state, timestep = core.reset(jax.random.PRNGKey(3))
      for move in moves:
        state, timestep = core.step(state, move)
      positions.append((state, timestep.observation))
    states, observations = jax.tree.map(lambda *x: jnp.stack(x), *positions)
    keys = jax.random.split(jax.random.PRNGKey(1), len(games))
    return jax.jit(agent.planning.act)(params, keys, observations, states)

  def test_gumbel_and_puct_search_win_and_block(self):
    # (0 3 1 4): the mover wins at 2; (0 4 1): the mover must block at 2.
    # The move played is drawn (Gumbel noise, or visit counts); the
    # search's policy must favour the move.
    games = ((0, 3, 1, 4), (0, 4, 1))
    for search in search_lib.SEARCHES:
      actions, extras = self._search(games, search=search)
      for i, moves in enumerate(games):
        self.assertNotIn(int(actions[i]), moves)
        policy = np.asarray(extras['search_policy'][i])
        self.assertEqual(int(policy.argmax()), 2, (search, moves))
        self.assertGreater(policy[2], 0.25)
        self.assertAlmostEqual(float(policy.sum()), 1.0, places=5)
        self.assertEqual(float(policy[list(moves)].sum()), 0.0)

  def test_plane_strike_search_finds_the_one_placement_left(self):
    # Seven cells of a plane hit and its neighbours missed: one placement
    # explains the board, so every sampled plane is the true one, and the
    # search (knowing nothing but the rules) strikes its last cell, what
    # ever plane the state it is handed holds.
    env = env_registry.resolve('plane_strike')
    core = env.core()
    spec = specs.make_environment_spec(env.environment())
    planes, _ = plane_strike.placements(8)
    plane = planes[40]
    cells = list(np.flatnonzero(plane.reshape(-1)))
    board = np.zeros(64, np.float32)
    board[cells[:-1]] = 1.0
    around = np.flatnonzero(~plane.reshape(-1))
    board[around[:40]] = -1.0
    fits = [p for p in planes if np.all(p.reshape(-1)[cells[:-1]]) and
            not np.any(p.reshape(-1)[around[:40]])]
    self.assertLen(fits, 1)
    config = registry.make_config('alphazero', num_simulations=32)
    agent = registry.make_agent('alphazero', config, spec, model=core)
    params = jax.tree.map(jnp.zeros_like, agent.actor_params(
        agent.init(jax.random.PRNGKey(0))))
    # The loop's state holds another plane: the search must not use it.
    wrong_plane = next(p for p in planes if not p.reshape(-1)[cells[-1]])
    wrong_state = plane_strike.PlaneStrikeState(
        jnp.asarray(wrong_plane), jnp.asarray(board.reshape(8, 8)),
        jnp.asarray(7), jnp.asarray(47))
    batch = jax.tree.map(lambda x: x[None], wrong_state)
    actions, extras = jax.jit(agent.planning.act)(
        params, jax.random.PRNGKey(1)[None],
        jnp.asarray(board.reshape(1, 8, 8)), batch)
    # The move played is drawn (Gumbel noise); the policy must favour it.
    policy = np.asarray(extras['search_policy'][0])
    self.assertEqual(int(policy.argmax()), cells[-1])
    self.assertGreater(policy[cells[-1]], 0.25)
    self.assertEqual(board[int(actions[0])], 0.0)  # An untried cell.

  def test_play_by_search_wins_and_blocks_whatever_the_key(self):
    # Without root noise or random moves the search's move is its own
    # choice: the win (0 3 1 4: at 2) and the forced block (0 4 1: at 2)
    # under every key.
    core, spec = _tic_tac_toe()
    positions = []
    for moves in ((0, 3, 1, 4), (0, 4, 1)):
      state, timestep = core.reset(jax.random.PRNGKey(3))
      for move in moves:
        state, timestep = core.step(state, move)
      positions.append((state, timestep.observation))
    states, observations = jax.tree.map(lambda *x: jnp.stack(x), *positions)
    for search in search_lib.SEARCHES:
      config = registry.make_config('alphazero', num_simulations=32,
                                    search=search, random_moves=0.5)
      agent = registry.make_agent('alphazero', config, spec, model=core)
      params = jax.tree.map(jnp.zeros_like, agent.actor_params(
          agent.init(jax.random.PRNGKey(0))))
      play = jax.jit(jax.vmap(lambda key, agent=agent, params=params: (
          agent.play_with_search(params, jnp.stack([key, key]),
                                 observations, states))))
      actions = play(jax.random.split(jax.random.PRNGKey(5), 8))
      np.testing.assert_array_equal(actions, 2, err_msg=search)
    with self.assertRaisesRegex(ValueError, 'has none'):
      agent.play_with_search(params, jax.random.split(
          jax.random.PRNGKey(0), 2), observations, None)

  def test_sampled_states_average_their_searches(self):
    # On the empty board each search, over its own drawn plane, is sharp
    # on that plane's cells; the mean of 16 spreads over more cells, and
    # the move played by search is an untried cell.
    env = env_registry.resolve('plane_strike')
    core = env.core()
    spec = specs.make_environment_spec(env.environment())
    observation = jnp.zeros((1, 8, 8), jnp.float32)
    state = jax.tree.map(lambda x: x[None], core.reset(
        jax.random.PRNGKey(0))[0])
    weights = {}
    for draws in (1, 16):
      config = registry.make_config('alphazero', num_simulations=16,
                                    sampled_states=draws)
      agent = registry.make_agent('alphazero', config, spec, model=core)
      params = jax.tree.map(jnp.zeros_like, agent.actor_params(
          agent.init(jax.random.PRNGKey(0))))
      _, extras = jax.jit(agent.planning.act)(
          params, jax.random.PRNGKey(1)[None], observation, state)
      weights[draws] = np.asarray(extras['search_policy'][0])
      self.assertAlmostEqual(float(weights[draws].sum()), 1.0, places=5)
    move = jax.jit(agent.play_with_search)(
        params, jax.random.PRNGKey(2)[None], observation, state)
    self.assertEqual(move.shape, (1,))
    spread = lambda w: int(np.sum(w > 0.02))
    self.assertGreater(spread(weights[16]), 4 * spread(weights[1]))
    self.assertLess(weights[16].max(), weights[1].max() / 2)

  def test_each_environment_acts_as_it_would_alone(self):
    # Three Plane Strike boards acting together, each with its own key,
    # move and learn as each acting alone with that key does, each
    # searching two drawn states per move.
    env = env_registry.resolve('plane_strike')
    core = env.core()
    spec = specs.make_environment_spec(env.environment())
    states, timesteps = jax.vmap(core.reset)(
        jax.random.split(jax.random.PRNGKey(4), 3))
    states, timesteps = jax.vmap(core.step)(states, jnp.asarray([0, 9, 27]))
    keys = jax.random.split(jax.random.PRNGKey(5), 3)
    one = lambda tree: jax.tree.map(lambda x: x[None], tree)
    config = registry.make_config('alphazero', num_simulations=4,
                                  sampled_states=2, random_moves=0.3)
    agent = registry.make_agent('alphazero', config, spec, model=core)
    params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
    together = jax.jit(agent.planning.act)(params, keys,
                                           timesteps.observation, states)
    alone = jax.jit(jax.vmap(lambda key, observation, state: jax.tree.map(
        lambda x: x[0], agent.planning.act(
            params, key[None], observation[None], one(state)))))(
                keys, timesteps.observation, states)
    np.testing.assert_array_equal(together[0], alone[0])
    np.testing.assert_allclose(together[1]['search_policy'],
                               alone[1]['search_policy'], rtol=1e-5,
                               atol=1e-6)

  def test_n_step_targets_are_refused_over_sampled_states(self):
    env = env_registry.resolve('plane_strike')
    spec = specs.make_environment_spec(env.environment())
    config = registry.make_config('alphazero', n_step=3)
    with self.assertRaisesRegex(ValueError, 'Use n_step=None'):
      registry.make_agent('alphazero', config, spec, model=env.core())

  def test_random_moves_are_legal_and_keep_the_search_target(self):
    core, spec = _tic_tac_toe()
    state, timestep = core.reset(jax.random.PRNGKey(3))
    state, timestep = core.step(state, 4)
    keys = jax.random.split(jax.random.PRNGKey(0), 200)
    played = {}
    for random_moves in (0.0, 1.0):
      config = registry.make_config('alphazero', num_simulations=4,
                                    random_moves=random_moves)
      agent = registry.make_agent('alphazero', config, spec, model=core)
      params = agent.actor_params(agent.init(jax.random.PRNGKey(0)))
      act = jax.jit(jax.vmap(lambda key, agent=agent, params=params: (
          agent.planning.act(params, key[None], timestep.observation[None],
                             jax.tree.map(lambda x: x[None], state)))))
      played[random_moves] = act(keys)
    actions, extras = played[1.0]
    self.assertNotIn(4, np.asarray(actions))
    self.assertEqual(set(np.asarray(actions).ravel()),
                     {0, 1, 2, 3, 5, 6, 7, 8})
    # The same search, whatever is played: its policy stays the target.
    for name in ('search_policy', 'search_value'):
      np.testing.assert_allclose(extras[name], played[0.0][1][name],
                                 rtol=1e-5, atol=1e-6)

  def test_acting_needs_the_states(self):
    _, spec = _tic_tac_toe()
    agent = registry.make_agent('alphazero',
                                registry.make_config('alphazero'), spec)
    self.assertIsNone(agent.planning)
    with self.assertRaisesRegex(ValueError, 'agent.planning'):
      agent.act(None, None, None)


if __name__ == '__main__':
  absltest.main()
