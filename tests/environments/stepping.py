"""What the environment tests share: stepping a core through a list of
actions, and checking a dm_env face against the vmapped core."""

import jax
import jax.numpy as jnp
import numpy as np


def rollout(core, actions, key=jax.random.PRNGKey(0)):
  """`(first, (state, timesteps))`: `core` reset with `key`, then stepped
  through `actions` (int32), as one jitted scan."""
  def run(key, actions):
    state, first = core.reset(key)
    return first, jax.lax.scan(core.step, state, actions)
  return jax.jit(run)(key, jnp.asarray(actions, jnp.int32))


def play(step, state, actions):
  """`(state, timesteps)` after `step`ping `state` through `actions`
  (scalars), each timestep fetched to the host."""
  timesteps = []
  for action in actions:
    state, timestep = step(state, np.int32(action))
    timesteps.append(jax.device_get(timestep))
  return state, timesteps


def play_batched(step, states, actions):
  """`(states, timesteps)` after a vmapped `step` through `actions`
  `[T, N]`, the timesteps stacked to `[T, N, ...]` on the host."""
  timesteps = []
  for row in actions:
    states, timestep = step(states, row)
    timesteps.append(jax.device_get(timestep))
  return states, jax.tree.map(lambda *xs: np.stack(xs), *timesteps)


def assert_step_matches(timestep, batched, t: int, i: int, atol: float = 0.):
  """The dm_env face's `timestep` is step `t` of episode `i` of the
  batched core's `batched` `[T, N, ...]` timesteps."""
  msg = f'episode {i}, step {t}'
  assert int(timestep.step_type) == batched.step_type[t, i], msg
  assert float(timestep.reward) == batched.reward[t, i], msg
  assert float(timestep.discount) == batched.discount[t, i], msg
  np.testing.assert_allclose(timestep.observation, batched.observation[t, i],
                             atol=atol, rtol=0, err_msg=msg)


def assert_face_plays_as_batched(face, first, batched, actions,
                                 atol: float = 0.):
  """Episode i of the dm_env `face` (reset anew for each) plays as lane i
  of the batched core: its first observation `first.observation[i]`,
  then, stepped with `actions[:, i]` until it ends, each timestep as
  `batched`'s. Returns each episode's `(steps, last timestep)`."""
  ends = []
  for i in range(actions.shape[1]):
    timestep = face.reset()
    assert timestep.reward is None
    np.testing.assert_array_equal(timestep.observation,
                                  np.asarray(first.observation[i]))
    for t in range(actions.shape[0]):
      timestep = face.step(int(actions[t, i]))
      assert_step_matches(timestep, batched, t, i, atol)
      if timestep.last():
        break
    assert timestep.last(), f'episode {i} did not end'
    ends.append((t + 1, timestep))
  return ends
