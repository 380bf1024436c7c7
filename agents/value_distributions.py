"""What a Q-learning agent's network says about each action, and its loss.

A `ValueHead` reads the network's outputs for the agent (`q_values`: the
expected return per action, which acting, greedy play and the export use)
and gives each transition's loss towards its one-step (or n-step) target,
bootstrapping from the action `q_t_selector` picks (the online network's
in double Q-learning, the target network's otherwise; the agent masks
illegal actions out of it):

* `expected` (DQN): one value per action, `[N, A]`; the TD error of
  `rlax.double_q_learning`, under a Huber or L2 loss.
* `categorical` (C51; Bellemare et al., 2017): logits over K fixed atoms
  evenly spaced on `[v_min, v_max]` per action, `[N, A, K]`; the
  cross-entropy to the target distribution projected onto the atoms
  (`rlax.categorical_double_q_learning`).
* `quantile` (QR-DQN; Dabney et al., 2018): K quantiles per action at the
  midpoints `τ_i = (2i + 1) / 2K`, `[N, A, K]`; the quantile Huber loss
  (`rlax.quantile_q_learning`, κ = `huber_param`; 0: the plain quantile
  loss).

Each also gives every transition a priority for a prioritised replay:
|TD error| for `expected`, the loss itself for the distributions.
"""

from typing import Callable, NamedTuple, Optional, Tuple

import jax
import jax.numpy as jnp
import rlax

# Huber δ of DQN's TD loss.
HUBER_DELTA = 1.0
EXPECTED_LOSSES = ('huber', 'l2')

# (outputs_tm1, a_tm1 [N], r_t [N], discount_t [N], outputs_t,
#  q_t_selector [N, A]) -> (losses [N], priorities [N]).
Losses = Callable[[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array,
                   jax.Array], Tuple[jax.Array, jax.Array]]


class ValueHead(NamedTuple):
  """How an agent reads its network's outputs and learns them.

  Attributes:
    num_atoms: outputs per action beyond the first axis (None: one value,
      `[N, A]`; K: `[N, A, K]`), which the network is built with.
    q_values: outputs → `[N, A]` expected returns.
    losses: per-transition losses and priorities (`Losses`).
  """
  num_atoms: Optional[int]
  q_values: Callable[[jax.Array], jax.Array]
  losses: Losses


def td_loss(errors: jax.Array, loss: str) -> jax.Array:
  """Per-transition Huber (δ = 1) or L2 (½·td²) loss of TD `errors`."""
  if loss == 'huber':
    return rlax.huber_loss(errors, HUBER_DELTA)
  if loss == 'l2':
    return rlax.l2_loss(errors)
  raise ValueError(f'loss must be one of {EXPECTED_LOSSES}; got {loss!r}.')


def expected(loss: str) -> ValueHead:
  """One value per action (DQN), with a Huber or L2 `loss` on TD errors."""
  if loss not in EXPECTED_LOSSES:
    raise ValueError(f'loss must be one of {EXPECTED_LOSSES}; got {loss!r}.')

  def losses(q_tm1, a_tm1, r_t, discount_t, q_t, q_t_selector):
    errors = jax.vmap(rlax.double_q_learning)(q_tm1, a_tm1, r_t, discount_t,
                                              q_t, q_t_selector)
    return td_loss(errors, loss), jnp.abs(errors)

  return ValueHead(None, lambda q: q, losses)


def atoms(num_atoms: int, v_min: float, v_max: float) -> jax.Array:
  """`[K]` C51's fixed support: `num_atoms` evenly spaced returns."""
  return jnp.linspace(v_min, v_max, num_atoms)


def categorical(num_atoms: int, v_min: float, v_max: float) -> ValueHead:
  """Logits over `num_atoms` fixed atoms on `[v_min, v_max]` (C51)."""

  def q_values(logits: jax.Array) -> jax.Array:
    support = atoms(num_atoms, v_min, v_max)
    return jnp.sum(jax.nn.softmax(logits, axis=-1) * support, axis=-1)

  def losses(logits_tm1, a_tm1, r_t, discount_t, logits_t, q_t_selector):
    support = atoms(num_atoms, v_min, v_max)
    loss = jax.vmap(rlax.categorical_double_q_learning,
                    in_axes=(None, 0, 0, 0, 0, None, 0, 0))(
                        support, logits_tm1, a_tm1, r_t, discount_t, support,
                        logits_t, q_t_selector)
    return loss, loss

  return ValueHead(num_atoms, q_values, losses)


def quantile_midpoints(num_quantiles: int) -> jax.Array:
  """`[K]` the quantile levels `τ_i = (2i + 1) / 2K` QR-DQN learns."""
  return (jnp.arange(num_quantiles, dtype=jnp.float32) + 0.5) / num_quantiles


def quantile(num_quantiles: int, huber_param: float) -> ValueHead:
  """`num_quantiles` quantiles of each action's return (QR-DQN)."""

  def losses(dist_tm1, a_tm1, r_t, discount_t, dist_t, q_t_selector):
    # rlax takes [K, A]; the selector's mean over K is q_t_selector.
    to_rlax = lambda dist: jnp.swapaxes(dist, -1, -2)
    selector = jnp.broadcast_to(q_t_selector[:, None, :],
                                to_rlax(dist_t).shape)
    loss = jax.vmap(rlax.quantile_q_learning,
                    in_axes=(0, None, 0, 0, 0, 0, 0, None))(
                        to_rlax(dist_tm1), quantile_midpoints(num_quantiles),
                        a_tm1, r_t, discount_t, selector, to_rlax(dist_t),
                        huber_param)
    return loss, loss

  return ValueHead(num_quantiles, lambda dist: jnp.mean(dist, axis=-1),
                   losses)
