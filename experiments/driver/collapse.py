"""Warnings for a finished run whose learning died while its weights stayed
finite, which the divergence guard (`divergence`) cannot see.

A learning rate far too high (PPO with `--config.learning_rate=1000`) can
drive the policy to one fixed action within a few updates: its entropy falls
to zero, the gradients stop moving it, and it plays no better than chance,
yet every number stays finite, so the run finishes and exports a model that
matches JAX exactly. Two facts give it away, both checked here:

- the final evaluation's score is no better than random play on the game
  (`ReferenceScore.random_play`, measured with the game's default settings:
  not checked with `--env_config`), within `RANDOM_MARGIN` of the way from
  random play to the strong reference;
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
from typing import Any, List, Mapping, Optional, Sequence

from environments import registry as env_registry
from environments import specs as env_specs
from experiments.driver import log_names
from experiments.driver import seed_logs
from experiments.storage import loggers

# Entropy at most this share of log(number of actions): collapsed.
ENTROPY_SHARE = 0.01
# A score within this share of the way from random play to the strong
# reference (or below random play): no better than random play.
RANDOM_MARGIN = 0.05
# The rows of train.csv whose entropy counts: this last share of them.
LAST_SHARE = 0.25
ENTROPY = f'{log_names.TRAIN}entropy'


def random_play(env: str, env_kwargs: Mapping[str, Any]) -> Optional[float]:
  """The mean score of random play on `env` where measured (with the
  game's default settings only); None otherwise."""
  reference = env_registry.reference_score(env)
  if reference is None or env_kwargs:
    return None
  return reference.random_play


def final_entropy(entropies: Sequence[float]) -> Optional[float]:
  """The mean of the last `LAST_SHARE` of `entropies` (at least one)."""
  if not entropies:
    return None
  last = entropies[-max(1, math.ceil(len(entropies) * LAST_SHARE)):]
  return float(sum(last) / len(last))


def check(env: str, env_kwargs: Mapping[str, Any], score: float,
          entropies: Sequence[float],
          num_actions: Optional[int]) -> List[str]:
  """Warnings for a run on `env` whose final score is `score` (the game's
  score metric), whose `train/entropy` rows are `entropies` and whose
  policy picks among `num_actions` (None: continuous actions, where
  entropy says nothing of collapse)."""
  reference = env_registry.reference_score(env)
  label = reference.label if reference else 'return'
  chance = random_play(env, env_kwargs)
  entropy = final_entropy(entropies) if num_actions else None
  largest = math.log(num_actions) if num_actions and num_actions > 1 else 0
  collapsed = (entropy is not None and largest > 0 and
               entropy <= ENTROPY_SHARE * largest)
  entropy_text = (f'the policy\'s entropy fell to {entropy:.2g} nats (of '
                  f'{largest:.3g} at most) over the last '
                  f'{LAST_SHARE:.0%} of training' if collapsed else '')
  if chance is not None and reference.high != chance:
    progress = (score - chance) / (reference.high - chance)
    if progress <= RANDOM_MARGIN:
      evidence = (f'the final evaluation\'s {label} {score:.4g} is no better '
                  f'than random play ({chance:.4g}; {progress:+.0%} of the '
                  f'way to {reference.high:.4g})')
      if collapsed:
        return [f'learning collapsed: {evidence}, and {entropy_text}, with '
                f'finite weights; train again with a lower learning rate']
      return [f'no learning: {evidence}; train longer, or check the '
              f'settings (e.g. the learning rate)']
    return []
  if collapsed:
    return [f'learning may have collapsed: {entropy_text} (a policy that '
            f'always plays the same action), and {env} has no random-play '
            f'score to compare its {label} {score:.4g} with; look at '
            f'eval.csv']
  return []


def warnings(config: Any, spec: env_specs.EnvironmentSpec,
             result: Mapping[str, Any], seed_workdir: str) -> List[str]:
  """`check` of a finished seed's `result`, its entropies read from
  `seed_workdir`'s train.csv (none if it cannot be read)."""
  metric = env_registry.score_metric(config.env)
  num_actions = None if spec.is_continuous else spec.num_actions
  try:
    rows = loggers.read_rows(os.path.join(seed_workdir,
                                          seed_logs.TRAIN_LOG))
  except (OSError, ValueError):
    rows = []
  entropies = [float(row[ENTROPY]) for row in rows if ENTROPY in row]
  return check(config.env, config.env_kwargs, float(result[f'eval_{metric}']),
               entropies, num_actions)
