"""Diagonal Gaussian policies over continuous actions, optionally squashed.

A policy network gives the mean and log standard deviation of a diagonal
Gaussian (`distrax.MultivariateNormalDiag`) over `action_dim` components.

* Unsquashed (PPO's default, as in PureJaxRL and CleanRL): the action is
  the Gaussian sample itself, in the action spec's units; the environment
  clips it to the spec's bounds (`environments.continuous_actions`), and
  the agent's log-probabilities are those of the unclipped sample. The
  deterministic action is the mean, clipped to the bounds.
* Squashed (SAC, and PPO with `squash_actions`): `a = low + (tanh(x) + 1)
  (high - low) / 2` for a Gaussian sample x, so actions always lie inside
  finite bounds. The log-probability carries the change of variables:
  `log N(x) - Σ log(1 - tanh(x)²) - Σ log((high - low) / 2)` (the tanh term
  from `distrax.Tanh`, which computes it stably). The deterministic action
  squashes and rescales the mean.
"""

from typing import Tuple

import distrax
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import continuous_actions

# Squashed actions are pulled this far inside ±1 before atanh, so the
# log-probability of an action at a bound stays finite.
_ATANH_LIMIT = 1.0 - 1e-6


def check_squashable(spec: specs.Array, what: str) -> None:
  """Raises ValueError naming `what` (the setting asking for squashing)
  unless `spec` has finite bounds with room between them (`high > low` in
  every component) to squash into."""
  if not continuous_actions.has_finite_bounds(spec):
    raise ValueError(
        f'{what} squashes actions into the action bounds, but this '
        f'environment\'s actions are '
        f'{continuous_actions.describe(spec)}. Turn squashing off, or use '
        f'an environment with finite action bounds.')
  low, high = continuous_actions.bounds(spec)
  if not np.all(high > low):
    raise ValueError(
        f'{what} squashes actions into the action bounds, but components '
        f'{np.flatnonzero(high <= low).tolist()} of this environment\'s '
        f'actions have no room between their bounds ({low.tolist()} .. '
        f'{high.tolist()}).')


def gaussian(means: jax.Array, log_stds: jax.Array
            ) -> distrax.MultivariateNormalDiag:
  """The diagonal Gaussian of `[N, D]` means and log-stds."""
  return distrax.MultivariateNormalDiag(means, jnp.exp(log_stds))


def _half_range_log(spec: specs.Array) -> jax.Array:
  """Σ log((high - low) / 2): the log-Jacobian of the affine rescale."""
  low, high = continuous_actions.bounds(spec)
  return jnp.sum(jnp.log(0.5 * (jnp.asarray(high) - jnp.asarray(low))))


def squash(pre_tanh: jax.Array, spec: specs.Array) -> jax.Array:
  """Gaussian samples `[..., D]` squashed by tanh and rescaled into the
  spec's bounds."""
  return continuous_actions.rescale_from_unit(jnp.tanh(pre_tanh), spec)


def _unsquash(actions: jax.Array, spec: specs.Array) -> jax.Array:
  """The pre-tanh value of squashed `actions` (kept finite at the bounds)."""
  unit = continuous_actions.rescale_to_unit(actions, spec)
  return jnp.arctanh(jnp.clip(unit, -_ATANH_LIMIT, _ATANH_LIMIT))


def squashed_log_prob(means: jax.Array, log_stds: jax.Array,
                      pre_tanh: jax.Array, spec: specs.Array) -> jax.Array:
  """`[N]` log-density of the squashed action `squash(pre_tanh)`."""
  log_det = jnp.sum(distrax.Tanh().forward_log_det_jacobian(pre_tanh), -1)
  return (gaussian(means, log_stds).log_prob(pre_tanh) - log_det -
          _half_range_log(spec))


def sample(key: jax.Array, means: jax.Array, log_stds: jax.Array,
           spec: specs.Array, squashed: bool
          ) -> Tuple[jax.Array, jax.Array]:
  """`(actions [N, D], log_probs [N])`, a sample (`reparameterize` with
  standard normal noise drawn from `key`)."""
  return reparameterize(means, log_stds,
                        jax.random.normal(key, means.shape, means.dtype),
                        spec, squashed)


def reparameterize(means: jax.Array, log_stds: jax.Array, noise: jax.Array,
                   spec: specs.Array, squashed: bool
                  ) -> Tuple[jax.Array, jax.Array]:
  """`(actions [N, D], log_probs [N])` of the sample `means + std · noise`
  (standard normal `noise`): its gradient flows to `means` and `log_stds`,
  as SAC's actor loss needs."""
  pre_tanh = means + jnp.exp(log_stds) * noise
  if squashed:
    return (squash(pre_tanh, spec),
            squashed_log_prob(means, log_stds, pre_tanh, spec))
  return pre_tanh, gaussian(means, log_stds).log_prob(pre_tanh)


def log_prob(means: jax.Array, log_stds: jax.Array, actions: jax.Array,
             spec: specs.Array, squashed: bool) -> jax.Array:
  """`[N]` log-probability of `actions` `[N, D]` as `sample` drew them."""
  if squashed:
    return squashed_log_prob(means, log_stds, _unsquash(actions, spec), spec)
  return gaussian(means, log_stds).log_prob(actions)


def entropy(log_stds: jax.Array) -> jax.Array:
  """`[N]` entropy of the Gaussian before any squashing (the squashed
  distribution has no closed form; this is the usual bonus)."""
  return gaussian(jnp.zeros_like(log_stds), log_stds).entropy()


def deterministic_actions(means: jax.Array, spec: specs.Array,
                          squashed: bool) -> jax.Array:
  """`[N, D]` greedy actions: the mean, squashed and rescaled, or clipped
  to the bounds (what the environment would receive)."""
  if squashed:
    return squash(means, spec)
  return continuous_actions.clip_to_spec(means, spec)

