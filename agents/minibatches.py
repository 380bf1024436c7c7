"""Epochs of shuffled minibatches over one batch, as one `lax.scan`.

The on-policy agents that take several SGD steps per batch (PPO, PQN)
share this: each epoch draws a permutation, cuts the batch into
`num_minibatches` minibatches and scans `sgd_step` over them. Minibatches
are of steps (the `[T, B]` batch flattened) or, for a recurrent network,
of whole sequences (`[T, b]` each, replayed from their first state).

Split over devices (`agents.data_parallel`), every device holds the whole
batch and draws the same permutation, then takes its share of each
minibatch, so the minibatches are those of one device with the whole
batch.
"""

from typing import Any, Callable, Dict, Tuple

import jax
import jax.numpy as jnp
import optax

from agents import agent as agent_lib
from agents import data_parallel


def batch_splits(config: Any) -> Dict[str, int]:
  """What a device count splitting one seed must divide, for a config of
  `unroll_length`, `batch_size` and `num_minibatches`: each minibatch is
  split over the devices (`agents.registry.batch_splits`)."""
  return {'the minibatch (unroll_length * batch_size / num_minibatches '
          'steps)': (config.unroll_length * config.batch_size //
                     config.num_minibatches)}


def epochs(sgd_step: Callable[[Any, Any], Tuple[Any, Any]], carry: Any,
           data: Any, key: jax.Array, num_epochs: int, num_minibatches: int,
           whole_sequences: bool = False) -> Tuple[Any, Any]:
  """`(carry, metrics [num_epochs, num_minibatches, ...])` of
  `sgd_step(carry, minibatch)` over `num_epochs` shuffles of `data`, a
  pytree of `[T, B, ...]` arrays.

  Raises:
    ValueError: `num_minibatches` does not divide the steps (or, with
      `whole_sequences`, the sequences) of the batch.
  """
  t, b = jax.tree.leaves(data)[0].shape[:2]
  if whole_sequences:  # [T, B] -> [M, T, b].
    count = b
    pick = lambda x, order: jnp.moveaxis(x[:, order], 1, 0)
  else:  # [T·B] -> [M, m].
    count = t * b
    data = jax.tree.map(agent_lib.flatten_steps, data)
    pick = lambda x, order: x[order]
  if count % num_minibatches:
    what = 'sequences' if whole_sequences else 'steps'
    raise ValueError(f'num_minibatches ({num_minibatches}) must divide the '
                     f'batch of {t} x {b} steps ({count} {what}).')

  def epoch(carry, epoch_key):
    order = jax.random.permutation(epoch_key, count).reshape(
        num_minibatches, -1)
    # This device's share of each minibatch.
    order = data_parallel.share(order, axis=1)
    return jax.lax.scan(sgd_step, carry,
                        jax.tree.map(lambda x: pick(x, order), data))

  return jax.lax.scan(epoch, carry, jax.random.split(key, num_epochs))


def sgd_step(loss: Callable[[Any, Any], Tuple[jax.Array, Dict[str, Any]]],
             optimizer: optax.GradientTransformation
            ) -> Callable[[Any, Any], Tuple[Any, Dict[str, Any]]]:
  """`(params, opt_state), minibatch -> (new carry, metrics)`: one
  `optimizer` step on `loss(params, minibatch) -> (loss, metrics)`, its
  gradients and metrics averaged over devices (each device's loss is the
  mean of its equal share of the minibatch), plus `grad_norm`."""

  def step(carry, batch):
    params, opt_state = carry
    grads, metrics = jax.grad(loss, has_aux=True)(params, batch)
    grads, metrics = data_parallel.mean((grads, metrics))
    updates, opt_state = optimizer.update(grads, opt_state, params)
    metrics = dict(metrics, grad_norm=optax.global_norm(grads))
    return (optax.apply_updates(params, updates), opt_state), metrics

  return step
