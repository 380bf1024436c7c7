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

from typing import Any, Callable, Dict, Optional, Tuple

import jax
import jax.numpy as jnp
import optax

from agents import agent as agent_lib
from agents import config_checks
from agents import data_parallel
from agents import optimizers


class MinibatchSettings:
  """What follows from the settings of a config that learns in epochs of
  minibatches over `unroll_length * batch_size` steps, with a learning
  rate optionally annealed (PPO's, PQN's; the fields are the config's
  own): the checks and the optional methods `agents.registry` asks of a
  config."""

  def check_minibatches(self) -> None:
    """`num_minibatches` divides the batch; a decay runs for >= 1 update."""
    if (self.unroll_length * self.batch_size) % self.num_minibatches:
      raise ValueError(
          f'{type(self).__name__}.num_minibatches ({self.num_minibatches}) '
          f'must divide unroll_length * batch_size ({self.unroll_length} * '
          f'{self.batch_size}).')
    if self.learning_rate_decay_updates is not None:
      config_checks.check_positive_integer(self,
                                           'learning_rate_decay_updates')

  def schedules(self) -> Dict[str, int]:
    """`{schedule: environment step it ends at}`
    (`agents.registry.schedule_ends`): the learning rate's decay."""
    return optimizers.decay_schedule(self)

  def batch_splits(self) -> Dict[str, int]:
    """What a device count splitting one seed must divide
    (`agents.registry.batch_splits`): each minibatch is split."""
    return {'the minibatch (unroll_length * batch_size / num_minibatches '
            'steps)': (self.unroll_length * self.batch_size //
                       self.num_minibatches)}

  def fit_to_budget(self, num_steps: Optional[int]) -> Any:
    """This config with `learning_rate_decay_updates` fitted to a run of
    `num_steps` environment steps (`optimizers.fit_decay_to_budget`)."""
    return optimizers.fit_decay_to_budget(self, num_steps)


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
