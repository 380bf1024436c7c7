"""What the agent tests share: small specs and random trajectories."""

from dm_env import specs as dm_specs
import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from agents import replay as replay_lib
from environments import specs

OBSERVATION_SIZE = 3
ACTION_LOW = np.array([-1.0, 0.0], np.float32)


def continuous_spec(high, actions=None) -> specs.EnvironmentSpec:
  """3-number observations and two bounded actions in [ACTION_LOW, high]
  (or `actions`)."""
  return specs.make_spec(
      dm_specs.Array((OBSERVATION_SIZE,), np.float32),
      dm_specs.BoundedArray((2,), np.float32, ACTION_LOW, high)
      if actions is None else actions)


def masked_discrete_spec(num_actions: int, with_mask: bool
                        ) -> specs.EnvironmentSpec:
  """Observations of `num_actions` numbers; with a mask, an entry >= 5
  makes that action illegal."""
  return specs.make_spec(
      dm_specs.Array((num_actions,), np.float32),
      dm_specs.DiscreteArray(num_actions),
      legal_actions=(lambda o: o < 5) if with_mask else None)


def continuous_trajectory(high, t=2, b=2, seed=0, **overrides
                         ) -> agent_lib.Trajectory:
  """`[t, b]` random steps of `continuous_spec(high)`, none ending."""
  keys = jax.random.split(jax.random.PRNGKey(seed), 4)
  fields = dict(
      observations=np.asarray(jax.random.normal(
          keys[0], (t, b, OBSERVATION_SIZE))),
      actions=np.asarray(jax.random.uniform(keys[1], (t, b, 2),
                                            minval=ACTION_LOW, maxval=high)),
      rewards=np.asarray(jax.random.normal(keys[2], (t, b))),
      discounts=np.ones((t, b), np.float32),
      last=np.zeros((t, b), bool),
      mask=np.ones((t, b), np.float32),
      final_observations=np.asarray(jax.random.normal(
          keys[3], (b, OBSERVATION_SIZE))),
      extras={})
  fields.update(overrides)
  return agent_lib.Trajectory(**fields)


def two_transitions() -> replay_lib.Transitions:
  """Two one-dimensional transitions of reward 1, the second ending its
  episode (discount 0), for the losses' hand-computed targets."""
  return replay_lib.Transitions(
      observations=jnp.zeros((2, 1)), actions=jnp.zeros((2, 1)),
      rewards=jnp.ones(2), discounts=jnp.array([1.0, 0.0]),
      next_observations=jnp.zeros((2, 1)))
