"""Tests for agents/data_parallel.py: the hook, and every built-in agent's
update split over a `data` axis (simulated with `vmap`) against one device
holding the whole batch."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np
import pytest

from agents import agent as agent_lib
from agents import data_parallel
from agents import registry as agent_registry
from environments import registry as env_registry
from environments import specs
from experiments.loops import compiled_loop

_AXIS = data_parallel.DATA_AXIS
_RTOL, _ATOL = 1e-5, 1e-6
_NUM_UPDATES = 3
_BATCH = 8

# Case (the agent's name, or '<agent>_<environment>'), environment and
# config: batches (and DQN's and SAC's SGD batch, PPO's minibatches) that
# split over 2 and 4 devices.
_AGENTS = {
    'reinforce': ('plane_strike', dict(batch_size=_BATCH, entropy_cost=0.01)),
    'a2c': ('catch', dict(unroll_length=8, batch_size=_BATCH)),
    'ppo': ('catch', dict(unroll_length=8, batch_size=_BATCH,
                          num_minibatches=2, num_epochs=2)),
    # A recurrent PPO: minibatches of whole sequences, replayed from the
    # states they began with (`_NETWORKS`).
    'ppo_lstm': ('catch', dict(unroll_length=8, batch_size=_BATCH,
                               num_minibatches=2, num_epochs=2)),
    # IMPALA with its actors one update behind: the queued params too.
    'impala': ('catch', dict(unroll_length=8, batch_size=_BATCH,
                             actor_lag=1)),
    'pqn': ('catch', dict(unroll_length=8, batch_size=_BATCH,
                          num_minibatches=2, num_epochs=2,
                          epsilon_decay_steps=50)),
    'dqn': ('catch', dict(update_period=4, num_actors=_BATCH, batch_size=8,
                          min_replay_size=8, target_update_period=2,
                          epsilon_decay_steps=50)),
    # Rainbow's parts: a C51 dueling head, 2-step targets and prioritised
    # replay (every device writes the whole batch's priorities).
    'c51_rainbow': ('catch', dict(
        update_period=4, num_actors=_BATCH, batch_size=8, min_replay_size=8,
        target_update_period=2, epsilon_decay_steps=50, n_step=2,
        prioritized_replay=True, num_atoms=11, v_min=-1.0, v_max=1.0)),
    # Continuous actions: a Gaussian PPO, and SAC (learning from the first
    # update on: 32 transitions >= min_replay_size).
    'ppo_pendulum': ('gymnax:Pendulum-v1', dict(
        unroll_length=8, batch_size=_BATCH, num_minibatches=2, num_epochs=2,
        reward_scale=0.1)),
    'sac_pendulum': ('gymnax:Pendulum-v1', dict(
        update_period=4, num_actors=_BATCH, batch_size=8, min_replay_size=8,
        sgd_steps_per_update=2, tau=0.1)),
    # TD3: two critic steps and one delayed actor step per update.
    'td3_pendulum': ('gymnax:Pendulum-v1', dict(
        update_period=4, num_actors=_BATCH, batch_size=8, min_replay_size=8,
        sgd_steps_per_update=2, policy_delay=2, tau=0.1)),
}
# Environment settings: Pendulum episodes of 5 steps, so that episodes end
# (truncated) inside the sequences.
_ENV_KWARGS = {'gymnax:Pendulum-v1': dict(max_steps_in_episode=5)}
_TWO_DEVICES_ONLY = ('impala', 'c51_rainbow', 'td3_pendulum')
_NETWORKS = {'ppo_lstm': 'lstm_actor_critic',
             'c51_rainbow': 'mlp_dueling_q_distribution'}


def _on_data_axis(fn, size):
  """`fn` of a device index, on each of `size` devices of the data axis."""
  return jax.vmap(fn, axis_name=_AXIS)(jnp.arange(size))


class HookOutsideTheAxisTest(absltest.TestCase):
  """No data axis (Python loop, one device per seed): the identity."""

  def test_one_device_at_index_zero(self):
    self.assertEqual(data_parallel.axis_size(), 1)
    self.assertEqual(int(data_parallel.axis_index()), 0)

  def test_reductions_return_their_input(self):
    tree = {'a': jnp.arange(6.0).reshape(2, 3), 'b': jnp.ones(4, jnp.int32)}
    for reduce in (data_parallel.total, data_parallel.mean,
                   data_parallel.maximum):
      self.assertIs(reduce(tree), tree)
    self.assertIs(data_parallel.gather(tree, axis=0), tree)
    self.assertIs(data_parallel.share(tree, axis=0), tree)

  def test_identity_inside_jit_and_other_named_axes(self):
    # A lane axis of seeds is not the data axis: nothing is reduced.
    x = jnp.arange(12.0).reshape(3, 4)
    fn = lambda row: data_parallel.total(row) + data_parallel.axis_size()
    np.testing.assert_array_equal(jax.jit(fn)(x), x + 1)
    np.testing.assert_array_equal(jax.vmap(fn, axis_name='seeds')(x), x + 1)

  def test_share_of_any_size_is_the_identity(self):
    x = jnp.arange(7.0)  # Not divisible by anything but 1 and 7.
    np.testing.assert_array_equal(data_parallel.share(x, axis=0), x)


class HookOnTheAxisTest(parameterized.TestCase):
  """Under a bound `data` axis of D devices: collectives over it."""

  @parameterized.parameters(2, 4)
  def test_axis_size_and_index(self, d):
    sizes, indices = _on_data_axis(
        lambda i: (jnp.asarray(data_parallel.axis_size()),
                   data_parallel.axis_index()), d)
    np.testing.assert_array_equal(sizes, np.full(d, d))
    np.testing.assert_array_equal(indices, np.arange(d))

  @parameterized.parameters(2, 4)
  def test_total_mean_maximum(self, d):
    x = jax.random.normal(jax.random.PRNGKey(d), (d, 3, 2))
    tree = {'x': x, 'n': jnp.arange(d, dtype=jnp.int32)}
    for reduce, expected in ((data_parallel.total, np.sum),
                             (data_parallel.mean, np.mean),
                             (data_parallel.maximum, np.max)):
      got = jax.vmap(reduce, axis_name=_AXIS)(tree)
      for key in tree:
        want = expected(np.asarray(tree[key]), axis=0)
        np.testing.assert_allclose(
            got[key], np.broadcast_to(want, got[key].shape), rtol=1e-6,
            err_msg=f'{reduce.__name__} of {key}')

  @parameterized.parameters((2, 0), (2, 1), (4, 0), (4, 1))
  def test_gather_concatenates_in_device_order(self, d, axis):
    shares = jnp.arange(d * 2 * 3, dtype=jnp.float32).reshape(d, 2, 3)
    got = jax.vmap(functools.partial(data_parallel.gather, axis=axis),
                   axis_name=_AXIS)(shares)
    whole = np.concatenate(list(np.asarray(shares)), axis=axis)
    for device in range(d):
      np.testing.assert_array_equal(got[device], whole)

  @parameterized.parameters((2, 0), (2, 1), (4, 0), (4, 1))
  def test_share_takes_contiguous_blocks(self, d, axis):
    whole = jnp.arange(4 * 8, dtype=jnp.float32).reshape(4, 8)
    got = _on_data_axis(
        lambda i: data_parallel.share({'w': whole}, axis=axis)['w'], d)
    blocks = np.split(np.asarray(whole), d, axis=axis)
    for device in range(d):
      np.testing.assert_array_equal(got[device], blocks[device])

  @parameterized.parameters(2, 4)
  def test_share_then_gather_is_the_whole(self, d):
    whole = jnp.arange(24.0).reshape(8, 3)
    got = _on_data_axis(lambda i: data_parallel.gather(
        data_parallel.share(whole, axis=0), axis=0), d)
    for device in range(d):
      np.testing.assert_array_equal(got[device], whole)

  def test_share_of_an_indivisible_size_names_the_sizes(self):
    with self.assertRaisesRegex(ValueError, r'batch of 6 .*axis 0.* 4 devices'):
      _on_data_axis(lambda i: data_parallel.share(jnp.zeros(6), axis=0), 4)
    with self.assertRaisesRegex(ValueError, r'batch of 3 .*axis 1.* 2 devices'):
      _on_data_axis(
          lambda i: data_parallel.share(jnp.zeros((4, 3)), axis=1), 2)


# Every built-in agent: D shares of a batch update as the whole batch does.


def _split(trajectory: agent_lib.Trajectory, d: int) -> agent_lib.Trajectory:
  """D contiguous shares of the batch, stacked on a new leading axis."""

  def time_major(x):  # [T, B, ...] -> [D, T, B/D, ...]
    x = np.asarray(x)
    x = x.reshape(x.shape[:1] + (d, x.shape[1] // d) + x.shape[2:])
    return np.moveaxis(x, 1, 0)

  final = np.asarray(trajectory.final_observations)
  return agent_lib.Trajectory(
      observations=time_major(trajectory.observations),
      actions=time_major(trajectory.actions),
      rewards=time_major(trajectory.rewards),
      discounts=time_major(trajectory.discounts),
      last=time_major(trajectory.last),
      mask=time_major(trajectory.mask),
      final_observations=final.reshape((d, -1) + final.shape[1:]),
      extras=jax.tree.map(time_major, trajectory.extras),
      next_observations=(None if trajectory.next_observations is None else
                         time_major(trajectory.next_observations)))


def _trim(trajectory: agent_lib.Trajectory) -> agent_lib.Trajectory:
  """Episodes padded to the smallest power of two holding the longest."""
  length = int(np.asarray(trajectory.mask).sum(axis=0).max())
  size = max(8, 1 << (length - 1).bit_length())
  cut = lambda x: x[:size]
  return trajectory._replace(
      **{k: cut(getattr(trajectory, k)) for k in
         ('observations', 'actions', 'rewards', 'discounts', 'last', 'mask')},
      extras=jax.tree.map(cut, trajectory.extras))


@functools.lru_cache(maxsize=None)
def _whole_batch_run(name):
  """The agent, its initial state, and `_NUM_UPDATES` on-policy batches of
  the compiled loop's collection with one device's whole-batch updates:
  `(agent, state0, trajectories, states after each, metrics of each)`."""
  env, overrides = _AGENTS[name]
  env_kwargs = _ENV_KWARGS.get(env, {})
  spec = specs.make_environment_spec(
      env_registry.make_environment(env, **env_kwargs))
  agent_name = name.split('_')[0]
  agent = agent_registry.make_agent(
      agent_name, agent_registry.make_config(agent_name, **overrides), spec,
      hidden_sizes=(16,), network=_NETWORKS.get(name))
  loop = compiled_loop.CompiledLoop(
      agent, env_registry.make_functional(env, **env_kwargs), _BATCH)
  loop_state = loop.init(jax.random.PRNGKey(3), jax.random.PRNGKey(4))
  collect = jax.jit(loop.collect)
  update = jax.jit(agent.update)
  state = initial = loop_state.learner
  trajectories, states, metrics = [], [], []
  for _ in range(_NUM_UPDATES):
    loop_state, trajectory, _ = collect(loop_state._replace(learner=state))
    trajectory = jax.tree.map(np.asarray, trajectory)
    if loop.episodic:
      trajectory = _trim(trajectory)
    state, step_metrics = update(state, trajectory)
    trajectories.append(trajectory)
    states.append(state)
    metrics.append(step_metrics)
  return agent, initial, trajectories, states, metrics


def _copies(tree, d):
  """The `d` devices' copies of a tree with a leading device axis (NumPy:
  indexing device arrays would compile a program per leaf shape)."""
  tree = jax.tree.map(np.asarray, tree)
  return [jax.tree.map(lambda x, i=i: x[i], tree) for i in range(d)]


def _flat_params(state) -> np.ndarray:
  """A learner state's params (SAC's and TD3's actor and critics,
  IMPALA's learner's) as one vector."""
  if hasattr(state, 'training'):
    state = state.training
  params = (state.params if hasattr(state, 'params') else
            (state.actor_params, state.critic_params))
  return np.concatenate([np.ravel(x) for x in jax.tree.leaves(params)])


# Several (simulated) devices, each agent's update compiled whole and split:
# the full tier's (docs/testing.md).
@pytest.mark.slow
class AgentsDataParallelTest(parameterized.TestCase):

  # 4 devices for the agents whose splits differ in kind (episodes,
  # sequences, replay, continuous actions); the newer ones reuse them, on 2.
  @parameterized.named_parameters(
      *[(f'{name}_on_{d}', name, d) for name in _AGENTS for d in (2, 4)
        if d == 2 or name not in _TWO_DEVICES_ONLY])
  def test_split_updates_equal_whole_batch_updates(self, name, d):
    (agent, state, trajectories, expected_states,
     expected_metrics) = _whole_batch_run(name)
    # Episodes end inside the sequences: returns must be cut there.
    self.assertTrue(any(np.asarray(t.last)[:-1].any() for t in trajectories))
    if name == 'reinforce':
      # Shares of different numbers of real steps: the normaliser is global.
      real = [float(m.sum()) for m in _split(trajectories[0], d).mask]
      self.assertGreater(len(set(real)), 1)
    if name in ('dqn', 'c51_rainbow', 'sac_pendulum', 'td3_pendulum'):
      self.assertEqual(float(expected_metrics[0]['learned']), 1.0)
    if name.endswith('_pendulum'):  # Float [T, B, 1] actions.
      self.assertEqual(trajectories[0].actions.shape,
                       (agent.data.unroll_length, _BATCH, 1))
      self.assertEqual(trajectories[0].actions.dtype, np.float32)
    for before, after in zip([state] + expected_states, expected_states):
      self.assertFalse(np.allclose(  # Every update learns something.
          _flat_params(before), _flat_params(after)))
    split_update = jax.jit(jax.vmap(agent.update, in_axes=(None, 0),
                                    axis_name=_AXIS))
    for u in range(_NUM_UPDATES):
      states, metrics = split_update(state, _split(trajectories[u], d))
      copies = _copies(states, d)
      for i in range(1, d):  # Equal params (and all else) on every device.
        chex.assert_trees_all_equal(copies[i], copies[0])
      chex.assert_trees_all_close(copies[0], expected_states[u], rtol=_RTOL,
                                  atol=_ATOL)
      self.assertEqual(set(metrics), set(expected_metrics[u]))
      for i, copy in enumerate(_copies(metrics, d)):
        chex.assert_trees_all_close(
            copy, dict(expected_metrics[u]), rtol=_RTOL, atol=_ATOL,
            custom_message=f'update {u}, device {i}')
      state = copies[0]  # Fed back: each device's state is the same.

  @parameterized.named_parameters(*[(name, name) for name in _AGENTS])
  def test_without_the_axis_the_shares_update_differently(self, name):
    # Plain vmap binds no data axis, so the hook is the identity and each
    # share updates alone: the reduction is what makes the update agree.
    agent, state, trajectories, expected_states, _ = _whole_batch_run(name)
    states, _ = jax.jit(jax.vmap(agent.update, in_axes=(None, 0)))(
        state, _split(trajectories[0], 2))
    for copy in _copies(states, 2):
      self.assertFalse(np.allclose(_flat_params(copy),
                                   _flat_params(expected_states[0]),
                                   rtol=_RTOL, atol=_ATOL))


if __name__ == '__main__':
  absltest.main()
