"""Legal-action masking shared by agents, for acting and for losses."""

from typing import Optional

import jax
import jax.numpy as jnp

from environments import specs

# Large but finite, so that softmax, log-softmax and entropy stay NaN-free.
_ILLEGAL_LOGIT = -1e9


def legal_actions(environment_spec: specs.EnvironmentSpec,
                  observations: jax.Array) -> Optional[jax.Array]:
  """Boolean `[..., A]` legal mask for `observations`, or None if all legal."""
  if environment_spec.legal_actions is None:
    return None
  return environment_spec.legal_actions(observations)


def mask_logits(logits: jax.Array, legal: Optional[jax.Array]) -> jax.Array:
  """Pushes illegal actions' logits to a large negative value."""
  if legal is None:
    return logits
  return jnp.where(legal, logits, _ILLEGAL_LOGIT)


def masked_softmax(logits: jax.Array, legal: Optional[jax.Array]) -> jax.Array:
  """Softmax over legal actions, exactly 0 on illegal ones."""
  probabilities = jax.nn.softmax(mask_logits(logits, legal), axis=-1)
  if legal is None:
    return probabilities
  return jnp.where(legal, probabilities, 0.0)


def mask_for(environment_spec: specs.EnvironmentSpec, observations: jax.Array,
             logits: jax.Array) -> jax.Array:
  """`logits` (or Q-values) of `observations` with illegal actions masked."""
  return mask_logits(logits, legal_actions(environment_spec, observations))


def policy_probabilities(environment_spec: specs.EnvironmentSpec,
                         observations: jax.Array,
                         logits: jax.Array) -> jax.Array:
  """The deployable policy: softmax over legal actions, 0 on illegal ones."""
  return masked_softmax(logits, legal_actions(environment_spec, observations))
