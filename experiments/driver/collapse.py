"""Warnings for a finished run whose learning died while its weights stayed
finite, which the divergence guard (`divergence`) cannot see.

A learning rate far too high (PPO with `--config.learning_rate=1000`) can
drive the policy to one fixed action within a few updates: its entropy falls
to zero, the gradients stop moving it, and it plays no better than chance,
yet every number stays finite, so the run finishes and exports a model that
matches JAX exactly. Two facts give it away, both checked here:

- the final evaluation's score is no better than random play on the game:
  within `RANDOM_MARGIN` of the way from random play
  (`ReferenceScore.random_play`) to the strong reference at the game's
  default settings; with other settings (`--env_config`), where neither
  reference holds, random play is measured at the run's settings
  (`measured_random_play`: `RANDOM_EPISODES` uniformly random episodes of
  the JAX core) and a score must beat it by more than `RANDOM_MARGIN` of
  its size and three standard errors;
- the policy's entropy (`train/entropy` of `train.csv`, discrete actions)
  over the last `LAST_SHARE` of the rows is at most `ENTROPY_SHARE` of its
  largest value, log(number of actions).

A score no better than random play is warned about with or without the
entropy (the model does not play better than chance, whatever the cause;
with a collapsed entropy it says learning collapsed); a collapsed entropy
alone only where the game has no random-play reference (a confident policy
that beats chance is what training is for). Healthy runs (PPO on Plane
Strike, REINFORCE on Catch, PPO on gymnax CartPole-v1) keep entropies of
0.1 to 0.6 nats and beat random play by far.

Each warning is one short string with its evidence: `result.json` lists
them under `warnings`, and the command prints each as a `WARNING:` line at
the end. The run's status stays `finished`.
"""

import math
import os
from typing import Any, List, Mapping, NamedTuple, Optional, Sequence

import jax
import jax.numpy as jnp
import numpy as np

from agents import agent as agent_lib
from environments import registry as env_registry
from environments import specs as env_specs
from experiments.driver import log_names
from experiments.driver import seed_logs
from experiments.loops import evaluation
from experiments.storage import loggers

# Entropy at most this share of log(number of actions): collapsed.
ENTROPY_SHARE = 0.01
# A score within this share of the way from random play to the strong
# reference (or below random play): no better than random play.
RANDOM_MARGIN = 0.05
# The rows of train.csv whose entropy counts: this last share of them.
LAST_SHARE = 0.25
ENTROPY = f'{log_names.TRAIN}entropy'
# Random play at a run's own settings: this many episodes, in `_BATCHES`
# batches whose means give the standard error.
RANDOM_EPISODES = 1000
_BATCHES = 10


class RandomPlay(NamedTuple):
  """Random play's mean score on a game, and its standard error (None:
  the reference's, measured with so many episodes it is negligible)."""
  mean: float
  standard_error: Optional[float] = None


def random_play(environment: env_registry.EnvironmentEntry,
                env_kwargs: Mapping[str, Any]) -> Optional[RandomPlay]:
  """The reference's random play on `env` at its default settings; None
  with other settings (`measured_random_play`) or where not measured."""
  reference = environment.reference_score
  if reference is None or reference.random_play is None or env_kwargs:
    return None
  return RandomPlay(reference.random_play)


def measured_random_play(config: Any, agent: agent_lib.Agent,
                         spec: env_specs.EnvironmentSpec
                        ) -> Optional[RandomPlay]:
  """Uniformly random legal play on `config.env` at the run's settings
  (`RANDOM_EPISODES` episodes of the JAX core, keys from PRNGKey(0)), for a
  scored game run with other than its default settings; None where the
  reference applies, or without a random-play reference, a JAX core or
  discrete actions. `agent` only carries the protocol (ε = 1: every action
  uniformly random among the legal ones), so its params are zeros."""
  reference = config.environment.reference_score
  if (not config.env_kwargs or reference is None or
      reference.random_play is None or spec.is_continuous or
      not config.environment.has_core):
    return None
  core = config.environment.core(**config.env_kwargs)
  params = jax.tree.map(
      lambda x: jnp.zeros(x.shape, x.dtype),
      jax.eval_shape(lambda: agent.actor_params(
          agent.init(jax.random.PRNGKey(0)))))
  uniform = evaluation.Protocol('epsilon_greedy', 1.0)
  per_batch = RANDOM_EPISODES // _BATCHES
  play = jax.jit(jax.vmap(lambda key: evaluation.evaluate_core(
      core, agent, spec, params, key, per_batch, uniform)))
  keys = jax.random.split(jax.random.PRNGKey(0), _BATCHES)
  means = np.asarray(play(keys)[f'{reference.metric}'], np.float64)
  return RandomPlay(float(means.mean()),
                    float(means.std(ddof=1) / math.sqrt(_BATCHES)))


def final_entropy(entropies: Sequence[float]) -> Optional[float]:
  """The mean of the last `LAST_SHARE` of `entropies` (at least one)."""
  if not entropies:
    return None
  last = entropies[-max(1, math.ceil(len(entropies) * LAST_SHARE)):]
  return float(sum(last) / len(last))


def _progress(reference: Any, chance: RandomPlay, score: float
             ) -> Optional[float]:
  """How far `score` went from random play: a share of the way to the
  strong reference (default settings), or, for random play measured at
  other settings, in units of the margin it must beat (`RANDOM_MARGIN` of
  its size, at least three standard errors), times `RANDOM_MARGIN`; so
  `<= RANDOM_MARGIN` means no better than random play either way."""
  if chance.standard_error is None:
    if reference.high == chance.mean:
      return None
    return (score - chance.mean) / (reference.high - chance.mean)
  margin = max(RANDOM_MARGIN * abs(chance.mean),
               3 * chance.standard_error, 1e-9)
  better = score - chance.mean if reference.higher_is_better else (
      chance.mean - score)
  return better / margin * RANDOM_MARGIN


def check(environment: env_registry.EnvironmentEntry,
          env_kwargs: Mapping[str, Any], score: float,
          entropies: Sequence[float], num_actions: Optional[int],
          chance: Optional[RandomPlay] = None) -> List[str]:
  """Warnings for a run on `environment` (its entry) whose final score is
  `score` (the game's score metric), whose `train/entropy` rows are
  `entropies` and whose
  policy picks among `num_actions` (None: continuous actions, where
  entropy says nothing of collapse); `chance`: random play measured at the
  run's settings (None: the reference's, at the default ones)."""
  reference = environment.reference_score
  label = reference.label if reference else 'return'
  chance = chance or random_play(environment, env_kwargs)
  entropy = final_entropy(entropies) if num_actions else None
  largest = math.log(num_actions) if num_actions and num_actions > 1 else 0
  collapsed = (entropy is not None and largest > 0 and
               entropy <= ENTROPY_SHARE * largest)
  entropy_text = (f'the policy\'s entropy fell to {entropy:.2g} nats (of '
                  f'{largest:.3g} at most) over the last '
                  f'{LAST_SHARE:.0%} of training' if collapsed else '')
  progress = None if chance is None else _progress(reference, chance, score)
  if progress is not None:
    if progress <= RANDOM_MARGIN:
      way = (f'{progress:+.0%} of the way to {reference.high:.4g}'
             if chance.standard_error is None else
             f'measured at these settings, ± {chance.standard_error:.2g}')
      evidence = (f'the final evaluation\'s {label} {score:.4g} is no better '
                  f'than random play ({chance.mean:.4g}; {way})')
      if collapsed:
        return [f'learning collapsed: {evidence}, and {entropy_text}, with '
                f'finite weights; train again with a lower learning rate']
      return [f'no learning: {evidence}; train longer, or check the '
              f'settings (e.g. the learning rate)']
    return []
  if collapsed:
    return [f'learning may have collapsed: {entropy_text} (a policy that '
            f'always plays the same action), and {environment.name} has no '
            f'random-play score to compare its {label} {score:.4g} with; '
            f'look at eval.csv']
  return []


def warnings(config: Any, spec: env_specs.EnvironmentSpec,
             result: Mapping[str, Any], seed_workdir: str,
             chance: Optional[RandomPlay] = None) -> List[str]:
  """`check` of a finished seed's `result`, its entropies read from
  `seed_workdir`'s train.csv (none if it cannot be read); `chance` as
  `check`'s."""
  metric = config.environment.score_metric
  num_actions = None if spec.is_continuous else spec.num_actions
  try:
    rows = loggers.read_rows(os.path.join(seed_workdir,
                                          seed_logs.TRAIN_LOG))
  except (OSError, ValueError):
    rows = []
  entropies = [float(row[ENTROPY]) for row in rows if ENTROPY in row]
  return check(config.environment, config.env_kwargs,
               float(result[f'eval_{metric}']), entropies, num_actions,
               chance)
