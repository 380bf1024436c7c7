"""Tests of the compiled loop's environment slots: resets of ended slots."""

import functools

from absl.testing import absltest
from absl.testing import parameterized
import chex
import jax
import jax.numpy as jnp
import numpy as np

from agents import lanes
from environments import registry
from experiments.loops import env_slots


def _every_slot_reset(core, env_key, last, next_ids, states, observations):
  """The reference: all slots reset, the ended ones kept."""
  reset_states, reset_steps = jax.vmap(core.reset)(
      env_slots.reset_keys(env_key, next_ids))
  return (env_slots.where(last, reset_states, states),
          env_slots.where(last, reset_steps.observation, observations))


_CORE = registry.make_functional('catch')
# One compiled program per shape, shared by the tests.
_reset_ended = jax.jit(functools.partial(env_slots._reset_ended, _CORE))
_reset_every_slot = jax.jit(functools.partial(_every_slot_reset, _CORE))


def _slots(num_envs: int):
  """Catch's slots after one step (each reset draws the ball's column
  from its key, so resets differ), a key and next episodes' ids."""
  env_key = jax.random.PRNGKey(7)
  envs = env_slots.start(_CORE, env_key, num_envs)
  states, timesteps = jax.vmap(_CORE.step)(
      envs.states, jnp.arange(num_envs, dtype=jnp.int32) % 3)
  next_ids = jnp.arange(num_envs, dtype=jnp.int32) + 1000
  return env_key, states, timesteps.observation, next_ids


def _ended(num_envs: int, ended) -> jax.Array:
  return jnp.zeros(num_envs, bool).at[jnp.asarray(ended, jnp.int32)].set(
      True)


class ResetEndedTest(parameterized.TestCase):

  @parameterized.parameters((8, [(), (0, 5)]),
                            (40, [(), (3,), range(0, 40, 2), range(40)]))
  def test_matches_resetting_every_slot(self, num_envs, endings):
    """Up to RESET_BATCH slots and past it (1, 2 and 3 batches)."""
    env_key, states, observations, next_ids = _slots(num_envs)
    for ended in endings:
      last = _ended(num_envs, tuple(ended))
      got = _reset_ended(env_key, last, next_ids, states, observations)
      want = _reset_every_slot(env_key, last, next_ids, states, observations)
      chex.assert_trees_all_equal(got, want)

  def test_lanes_with_different_endings(self):
    """Under a map over lanes, each lane resets its own ended slots (the
    batches run as often as the lane with most endings needs)."""
    num_envs = 40
    env_key, states, observations, next_ids = _slots(num_envs)
    endings = [(), (1, 2), tuple(range(0, 40, 3)), tuple(range(40))]
    last = jnp.stack([_ended(num_envs, e) for e in endings])
    lane = lambda tree: jax.tree.map(
        lambda x: jnp.stack([x] * len(endings)), tree)
    mapped = jax.jit(jax.vmap(
        functools.partial(env_slots._reset_ended, _CORE),
        axis_name=lanes.LANES))
    got = mapped(lane(env_key), last, lane(next_ids), lane(states),
                 lane(observations))
    for i in range(len(endings)):
      want = _reset_every_slot(env_key, last[i], next_ids, states,
                               observations)
      chex.assert_trees_all_equal(jax.tree.map(lambda x: x[i], got), want)
    # Where nothing ended, nothing changed.
    np.testing.assert_array_equal(got[1][0], observations)


if __name__ == '__main__':
  absltest.main()
