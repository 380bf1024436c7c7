"""Counters that do not wrap: two int32 words per count.

JAX computes in 32 bits (64-bit types are off by default), and a count in
one int32 wraps after 2^31 environment steps, hours of training on a GPU:
budgets would never end and logs would be cut on resume. A counter here is
`[high, low]` with `value = high * 2^30 + low`, which counts to 2^61.
"""

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

_WORD = 1 << 30


def zero() -> jax.Array:
  return jnp.zeros(2, jnp.int32)


def add(counter: jax.Array, amount: jax.Array) -> jax.Array:
  """`counter + amount` for a two-word counter and an int32 `amount` of at
  most 2^30 (the work of one update)."""
  low = counter[..., 1] + amount
  return jnp.stack([counter[..., 0] + low // _WORD, low % _WORD], axis=-1)


def value(counter: Any) -> np.ndarray:
  """The int64 values of host two-word counters (`[..., 2]` -> `[...]`)."""
  counter = np.asarray(counter, np.int64)
  return counter[..., 0] * _WORD + counter[..., 1]

