"""The report's sections beyond final scores, from the runs `report` reads.

`report.build_report` gathers the runs once; this module adds what a paper
also needs: learning-speed metrics (`sample_efficiency`), every run's own
numbers (`per_seed`), what software and hardware produced them
(`provenance_summary`), the few-seeds warning (`caveats`) and the files
under `tables/` (`report_tables`).
"""

from typing import Any, Dict, Mapping, Optional, Sequence, Tuple

import numpy as np

from environments import registry as env_registry
from experiments.comparison import caveats
from experiments.comparison import per_seed
from experiments.comparison import provenance_summary
from experiments.comparison import report_tables
from experiments.comparison import sample_efficiency
from experiments.comparison import tables

Runs = Mapping[str, Mapping[str, Mapping[int, Tuple[Optional[dict],
                                                    np.ndarray]]]]
DEFINITIONS = {
    'auc': 'mean score over the run: trapezoid integral of the score over '
           'environment steps from the first to the last periodic '
           'evaluation, divided by that span of steps',
    'score_at': 'score of the periodic evaluation nearest to that fraction '
                'of the environment steps the run trained (none when no '
                'evaluation is nearer than half their spacing)',
    'steps_to_threshold': 'environment steps of the first periodic '
                          'evaluation whose normalised score is at least '
                          'the threshold',
}


def from_runs(runs: Runs, left_out: Sequence[Mapping[str, Any]],
              reps: int) -> Dict[str, Any]:
  """`sample_efficiency`, `per_seed` and `provenance` of the report."""
  efficiency = {env: sample_efficiency.env_metrics(
      by_agent, env_registry.reference_score(env), reps)
                for env, by_agent in runs.items()}
  finished = {env: {agent: [r for r, _ in by_seed.values() if r]
                    for agent, by_seed in by_agent.items()}
              for env, by_agent in runs.items()}
  return {
      'sample_efficiency': {
          'threshold': sample_efficiency.THRESHOLD,
          'fractions': [sample_efficiency.fraction_key(f)
                        for f in sample_efficiency.FRACTIONS],
          'definitions': DEFINITIONS, 'envs': efficiency},
      'per_seed': per_seed.rows(runs, left_out, efficiency),
      'provenance': provenance_summary.summarise(finished),
  }


def finish(report: Dict[str, Any]) -> Dict[str, Any]:
  """`report` with `few_seeds` (`caveats.few_seeds`) and `tables` (the
  files `write_tables` writes, relative to the workdir)."""
  report['few_seeds'] = caveats.few_seeds(report)
  report['tables'] = [name for table in report_tables.all_tables(report)
                      for name in tables.file_names(table).values()]
  return report


def write_tables(report: Mapping[str, Any], workdir: str) -> None:
  """Writes every table under `workdir/tables/` as CSV and LaTeX."""
  tables.write(report_tables.all_tables(report), workdir)
