"""Tests of the compiled loop's environment slots: resets of ended slots."""

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


def _slots(num_envs: int):
  """Plane Strike's core (random boards: every reset differs), its slots
  after one step, and ids of next episodes."""
  core = registry.make_functional('plane_strike')
  env_key = jax.random.PRNGKey(7)
  envs = env_slots.start(core, env_key, num_envs)
  states, timesteps = jax.vmap(core.step)(
      envs.states, jnp.arange(num_envs, dtype=jnp.int32) % 64)
  next_ids = jnp.arange(num_envs, dtype=jnp.int32) + 1000
  return core, env_key, states, timesteps.observation, next_ids


class ResetEndedTest(parameterized.TestCase):

  @parameterized.parameters(
      (8, ()), (8, (0, 5)), (40, ()), (40, (3,)), (40, tuple(range(0, 40, 2))),
      (40, tuple(range(40))), (17, tuple(range(17))))
  def test_matches_resetting_every_slot(self, num_envs, ended):
    core, env_key, states, observations, next_ids = _slots(num_envs)
    last = jnp.zeros(num_envs, bool).at[jnp.asarray(ended, jnp.int32)].set(
        True)
    got = jax.jit(env_slots._reset_ended, static_argnums=0)(
        core, env_key, last, next_ids, states, observations)
    want = _every_slot_reset(core, env_key, last, next_ids, states,
                             observations)
    chex.assert_trees_all_equal(got, want)

  def test_lanes_with_different_endings(self):
    """Under a map over lanes, each lane resets its own ended slots (the
    batches run as often as the lane with most endings needs)."""
    num_envs = 40
    core, env_key, states, observations, next_ids = _slots(num_envs)
    endings = [(), (1, 2), tuple(range(0, 40, 3)), tuple(range(40))]
    last = jnp.stack([
        jnp.zeros(num_envs, bool).at[jnp.asarray(e, jnp.int32)].set(True)
        for e in endings])
    lane = lambda tree: jax.tree.map(
        lambda x: jnp.stack([x] * len(endings)), tree)
    mapped = jax.jit(jax.vmap(
        lambda *args: env_slots._reset_ended(core, *args),
        axis_name=lanes.LANES))
    got = mapped(lane(env_key), last, lane(next_ids), lane(states),
                 lane(observations))
    for i in range(len(endings)):
      want = _every_slot_reset(core, env_key, last[i], next_ids, states,
                               observations)
      chex.assert_trees_all_equal(jax.tree.map(lambda x: x[i], got), want)
    # Where nothing ended, nothing changed.
    np.testing.assert_array_equal(got[1][0], observations)


if __name__ == '__main__':
  absltest.main()
