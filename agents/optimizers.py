"""The Optax optimizer chain every gradient agent learns with.

One definition, so that every agent (REINFORCE, A2C, PPO, DQN, SAC) builds
its optimizers the same way: optional gradient clipping (to a global norm
by default, or each entry on its own as rejax does), then Adam or SGD,
optionally with a step size annealed linearly to 0. The chain is always
`optax.chain(*([clip] if clipping), optimizer)`, in that order, so the
numerics of each agent are exactly those of the chain it used to build by
hand.
"""

import dataclasses
from typing import Any, Dict, Optional, Union

import optax

from agents import config_checks

OPTIMIZERS = ('adam', 'sgd')
# `gradient_clipping` value -> the Optax transform it clips with, given
# `max_grad_norm`.
GRADIENT_CLIPPINGS = {'global_norm': optax.clip_by_global_norm,
                      'each_entry': optax.clip}


def gradient_clipping_setting() -> str:
  """The `gradient_clipping` field of every agent config with a
  `max_grad_norm`, declared here once with its default and its meaning
  (`--helpconfig` reads the meaning from the field's `doc`). It returns a
  `dataclasses.field`, typed as the value the field holds."""
  return dataclasses.field(default='global_norm', metadata={'doc': (
      'how max_grad_norm clips: global_norm rescales the whole gradient to '
      'that norm (PureJaxRL, purejaxql, CleanRL); each_entry clips every '
      'entry to [-max_grad_norm, max_grad_norm] (rejax), one cheap '
      'elementwise op instead of a reduction over every parameter.')})


def check_gradient_clipping(config: Any) -> None:
  """A config's `gradient_clipping` is a key of `GRADIENT_CLIPPINGS`, and
  clips each entry only where `max_grad_norm` gives the bound."""
  config_checks.check_one_of(config, 'gradient_clipping', GRADIENT_CLIPPINGS)
  if config.gradient_clipping == 'each_entry' and config.max_grad_norm is None:
    raise ValueError(
        f'{type(config).__name__}.gradient_clipping=\'each_entry\' clips '
        f'each entry to max_grad_norm, which is None: set max_grad_norm '
        f'too.')


def linear_decay(learning_rate: float, decay_steps: int) -> optax.Schedule:
  """Step size annealed linearly from `learning_rate` to 0 over
  `decay_steps` optimizer steps, then held at 0."""
  if decay_steps < 1:
    raise ValueError(f'decay_steps must be >= 1; got {decay_steps!r}.')
  return optax.linear_schedule(learning_rate, 0.0, decay_steps)


def fit_decay_to_budget(config: Any, num_steps: Optional[int]) -> Any:
  """`config` with `learning_rate_decay_updates` set from a budget of
  `num_steps` environment steps when its `anneal_learning_rate` asks for
  it (the `fit_to_budget` of agent configs that update on batches of
  `unroll_length * batch_size` steps: PPO, PQN).

  Raises:
    ValueError: annealing without a step budget, or with another
      `learning_rate_decay_updates` given by hand.
  """
  if not config.anneal_learning_rate:
    return config
  name = type(config).__name__
  if num_steps is None:
    raise ValueError(f'{name}.anneal_learning_rate needs a budget in '
                     'environment steps (--num_steps).')
  updates = -(-num_steps // (config.unroll_length * config.batch_size))
  if config.learning_rate_decay_updates not in (None, updates):
    raise ValueError(
        f'{name}.anneal_learning_rate sets learning_rate_decay_updates '
        f'to {updates} for {num_steps} steps; got '
        f'learning_rate_decay_updates={config.learning_rate_decay_updates} '
        f'too. Give one of the two.')
  return dataclasses.replace(config, learning_rate_decay_updates=updates)


def decay_schedule(config: Any) -> Dict[str, int]:
  """The environment step a learning-rate decay given by hand ends at
  (for a config's `schedules`; one fitted to the budget by
  `anneal_learning_rate` ends with the run)."""
  if config.anneal_learning_rate or config.learning_rate_decay_updates is None:
    return {}
  return {'learning-rate decay (learning_rate_decay_updates)':
          config.learning_rate_decay_updates * config.unroll_length *
          config.batch_size}


def decay_optimizer_steps(config: Any) -> Optional[int]:
  """Optimizer steps of a config's learning-rate decay (one per minibatch
  of each epoch of `learning_rate_decay_updates` updates); None: none."""
  if config.learning_rate_decay_updates is None:
    return None
  return (config.learning_rate_decay_updates * config.num_epochs *
          config.num_minibatches)


def make_optimizer(learning_rate: Union[float, optax.Schedule],
                   name: str = 'adam',
                   max_grad_norm: Optional[float] = None,
                   eps: Optional[float] = None,
                   decay_steps: Optional[int] = None,
                   gradient_clipping: str = 'global_norm'
                  ) -> optax.GradientTransformation:
  """`optax.chain([clip(max_grad_norm)], adam | sgd)`.

  Args:
    learning_rate: step size (or an Optax schedule of it).
    name: 'adam' or 'sgd'.
    max_grad_norm: clip gradients to this global norm first; None disables.
    eps: Adam's ε; None keeps Optax's default. Not accepted with SGD.
    decay_steps: if set, anneal a float `learning_rate` linearly to 0 over
      this many optimizer steps (`linear_decay`); None keeps it constant.
    gradient_clipping: a key of `GRADIENT_CLIPPINGS`: how `max_grad_norm`
      clips.

  Returns:
    The chained gradient transformation.

  Raises:
    ValueError: on an unknown `name` or `gradient_clipping`, `eps` with
      SGD, or `decay_steps` with a schedule or below 1.
  """
  if name not in OPTIMIZERS:
    raise ValueError(f'optimizer must be one of {OPTIMIZERS}; got {name!r}.')
  if gradient_clipping not in GRADIENT_CLIPPINGS:
    raise ValueError(f'gradient_clipping must be one of '
                     f'{tuple(GRADIENT_CLIPPINGS)}; got '
                     f'{gradient_clipping!r}.')
  if decay_steps is not None:
    if callable(learning_rate):
      raise ValueError('decay_steps needs a float learning_rate, not a '
                       'schedule.')
    learning_rate = linear_decay(learning_rate, decay_steps)
  transforms = []
  if max_grad_norm is not None:
    transforms.append(GRADIENT_CLIPPINGS[gradient_clipping](max_grad_norm))
  if name == 'adam':
    optimizer = (optax.adam(learning_rate) if eps is None else
                 optax.adam(learning_rate, eps=eps))
  elif eps is not None:
    raise ValueError(f'eps is an Adam setting; got eps={eps!r} with '
                     f'optimizer {name!r}.')
  else:
    optimizer = optax.sgd(learning_rate)
  transforms.append(optimizer)
  return optax.chain(*transforms)
