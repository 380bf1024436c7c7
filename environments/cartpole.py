"""CartPole with Gymnasium's CartPole-v1 dynamics, as pure JAX.

A pole is hinged on a cart that moves along a frictionless track. Action 0
pushes the cart left and action 1 right, with a fixed force. Every step gives
reward +1, the terminating one included. The episode terminates when the cart
leaves [-2.4, 2.4] or the pole tilts more than 12 degrees, and is truncated
after `max_steps` steps (500, as CartPole-v1's time limit).

The constants and the explicit Euler integration are those of
`gymnasium.envs.classic_control.cartpole.CartPoleEnv` (kinematics_integrator
"euler"); the state is float32 here where Gymnasium keeps float64, so long
trajectories drift apart by rounding only.
"""

import math
from typing import NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import dm_env_wrapper
from environments import functional

GRAVITY = 9.8
MASS_CART = 1.0
MASS_POLE = 0.1
TOTAL_MASS = MASS_CART + MASS_POLE
HALF_LENGTH = 0.5  # Gymnasium's `length` is half the pole's length.
POLE_MASS_LENGTH = MASS_POLE * HALF_LENGTH
FORCE_MAG = 10.0
TAU = 0.02  # Seconds per step.
X_THRESHOLD = 2.4
THETA_THRESHOLD = 12 * 2 * math.pi / 360  # Radians.
RESET_RANGE = 0.05  # Reset state is uniform in [-0.05, 0.05]^4.


class CartPoleState(NamedTuple):
  """Physical state and step count of one episode."""
  physics: jax.Array  # float32 [4]: x, x_dot, theta, theta_dot.
  steps: jax.Array  # int32 [], steps taken so far.


class CartPole:
  """Pure-JAX CartPole-v1; see `functional.FunctionalEnvironment`."""

  def __init__(self, max_steps: int = 500):
    if (not isinstance(max_steps, (int, np.integer)) or
        isinstance(max_steps, bool) or max_steps < 1):
      raise ValueError(f'max_steps must be a positive integer; got '
                       f'{max_steps!r}.')
    self.max_steps = int(max_steps)

  @property
  def max_episode_steps(self) -> int:
    """Episodes end by `max_steps` at the latest (truncation)."""
    return int(self.max_steps)

  def reset(self, key: jax.Array) -> Tuple[CartPoleState, dm_env.TimeStep]:
    physics = jax.random.uniform(key, (4,), jnp.float32, -RESET_RANGE,
                                 RESET_RANGE)
    state = CartPoleState(physics, jnp.zeros((), jnp.int32))
    return state, functional.restart(physics)

  def step(self, state: CartPoleState,
           action: jax.Array) -> Tuple[CartPoleState, dm_env.TimeStep]:
    """One Euler step of 0.02 s with the cart pushed left (0) or right (1).

    Pure and traceable, so it cannot raise: `action` must be 0 or 1. The
    dm_env face validates actions from users.
    """
    x, x_dot, theta, theta_dot = state.physics
    force = jnp.where(jnp.asarray(action) == 1, FORCE_MAG, -FORCE_MAG)
    cos_theta, sin_theta = jnp.cos(theta), jnp.sin(theta)
    temp = (force + POLE_MASS_LENGTH * theta_dot**2 * sin_theta) / TOTAL_MASS
    theta_acc = (GRAVITY * sin_theta - cos_theta * temp) / (
        HALF_LENGTH * (4.0 / 3.0 - MASS_POLE * cos_theta**2 / TOTAL_MASS))
    x_acc = temp - POLE_MASS_LENGTH * theta_acc * cos_theta / TOTAL_MASS
    # Explicit Euler: positions move with the old velocities.
    physics = jnp.stack([
        x + TAU * x_dot,
        x_dot + TAU * x_acc,
        theta + TAU * theta_dot,
        theta_dot + TAU * theta_acc,
    ]).astype(jnp.float32)
    steps = state.steps + 1
    terminated = jnp.logical_or(
        jnp.abs(physics[0]) > X_THRESHOLD,
        jnp.abs(physics[2]) > THETA_THRESHOLD)
    truncated = jnp.logical_and(~terminated, steps >= self.max_steps)
    state = CartPoleState(physics, steps)
    return state, functional.transition(1.0, physics, terminated, truncated)

  def observation_spec(self) -> specs.Array:
    # Unbounded like Gymnasium's velocities; positions stay near the limits.
    return specs.Array((4,), np.float32, name='observation')

  def action_spec(self) -> specs.DiscreteArray:
    return specs.DiscreteArray(2, dtype=np.int32, name='action')

  def reward_spec(self) -> specs.Array:
    return specs.Array((), np.float32, name='reward')

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


def make_environment(max_steps: int = 500,
                     seed: Optional[int] = None
                    ) -> dm_env_wrapper.DmEnvironment:
  """CartPole as a `dm_env.Environment`."""
  return dm_env_wrapper.DmEnvironment(CartPole(max_steps), seed)
