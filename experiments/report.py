r"""Redraws the report of an agent comparison from its run directories.

  python -m experiments.report --workdir=DIR [--bootstrap_reps=2000]

Reads the runs that `experiments.compare` lists in `DIR/comparison.json`
(no training) and writes `report.md`, `report.json` and the figures into
DIR (see `experiments/comparison/report.py`).
"""

import os
import sys

from absl import app
from absl import flags
from absl import logging

from experiments.cli import help_text
from experiments.comparison import plan as comparison_lib
from experiments.comparison import report
from experiments.comparison import statistics
from experiments.setup import extras


# What --help shows, in this order (every flag in exactly one group:
# tests/experiments/cli/help_text_test.py).
FLAG_GROUPS = {'Report': ('workdir', 'bootstrap_reps')}


def _define_flags() -> None:
  # Defined only when run as a program: tests import this module.
  flags.DEFINE_string('workdir', None, 'The --workdir of experiments.compare.')
  flags.DEFINE_integer('bootstrap_reps', statistics.DEFAULT_REPS,
                       'Bootstrap resamples per confidence interval.',
                       lower_bound=1)


def main(argv):
  if len(argv) > 1:
    raise app.UsageError(f'Unexpected arguments: {argv[1:]}')
  if not flags.FLAGS.workdir:
    raise app.UsageError('--workdir is required: the comparison to report.')
  try:
    extras.require('report', 'The report (its intervals, tables and '
                   'figures)')
  except extras.MissingExtra as e:
    raise app.UsageError(str(e)) from e
  logging.set_verbosity(logging.WARNING)  # rliable logs every estimate.
  try:
    written = report.write_report(flags.FLAGS.workdir,
                                  flags.FLAGS.bootstrap_reps)
  except comparison_lib.ComparisonError as e:
    raise app.UsageError(str(e)) from e
  except OSError as e:  # E.g. a full disk: each file is written atomically.
    sys.exit(f'FATAL {e}. The report files written before are intact; fix '
             f'the cause (e.g. free disk space) and run the report again.')
  for run in written['left_out_runs']:
    print(f'Left out of the report: {run["agent"]} on {run["env"]}, seed '
          f'{run["seed"]}: {run["state"]}: {run["reason"]}', file=sys.stderr)
  print(os.path.abspath(os.path.join(flags.FLAGS.workdir, 'report.md')))


if __name__ == '__main__':
  _define_flags()
  help_text.run(main, FLAG_GROUPS, __doc__)
