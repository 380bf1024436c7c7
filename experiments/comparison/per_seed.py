"""One row per run (environment × agent × seed): the report's per-seed table.

Aggregates hide the seeds; a reader checking a claim, or pooling seeds with
another paper's, needs each run's own numbers: its final score, normalised
score, environment steps, wall time and whether it finished.
"""

from typing import Any, Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from environments import registry as env_registry


def rows(runs: Mapping[str, Mapping[str, Mapping[int, Tuple[Optional[dict],
                                                             np.ndarray]]]],
         left_out: Sequence[Mapping[str, Any]],
         efficiency: Mapping[str, Mapping[str, Any]]) -> List[Dict[str, Any]]:
  """Every run of `runs` (`{env: {agent: {seed: (result or None, evals)}}}`,
  the report's), in that order.

  Each row: `env`, `agent`, `seed`, `status` (`finished`, or the state of a
  left-out run with its `reason`), the final greedy `score` (the env's
  score metric), `normalised` (None without a reference), `env_steps`,
  `wall_seconds` (of the seed's program: seeds trained together share it,
  `seeds_in_program` says how many), and from `efficiency` (`{env:
  sample_efficiency.env_metrics}`) the seed's `auc` and
  `steps_to_threshold`. A left-out run has None for every number.
  """
  reasons = {(m['env'], m['agent'], m['seed']): m for m in left_out}
  out = []
  for env, by_agent in runs.items():
    reference = env_registry.reference_score(env)
    metric = 'eval_' + env_registry.score_metric(env)
    for agent, by_seed in by_agent.items():
      curves = efficiency.get(env, {}).get('agents', {}).get(agent, {})
      by_curve = {m['seed']: m for m in curves.get('per_seed', [])}
      for seed, (result, _) in sorted(by_seed.items()):
        row = {'env': env, 'agent': agent, 'seed': seed, 'status': 'finished',
               'reason': '', 'score': None, 'normalised': None,
               'env_steps': None, 'wall_seconds': None,
               'seeds_in_program': None, 'auc': None,
               'steps_to_threshold': None}
        if result is None:
          missing = reasons.get((env, agent, seed), {})
          row.update(status=missing.get('state', 'left out'),
                     reason=missing.get('reason', ''))
          out.append(row)
          continue
        score = float(result[metric])
        curve = by_curve.get(seed, {})
        row.update(
            score=score,
            normalised=(None if reference is None else
                        float(reference.normalise(score))),
            env_steps=int(result['env_steps']),
            wall_seconds=float(result['wall_seconds']),
            seeds_in_program=int(result.get('num_seeds', 1)),
            auc=curve.get('auc'),
            steps_to_threshold=curve.get('steps_to_threshold'))
        out.append(row)
  return out
