"""How often a run logs and evaluates: the flags of `experiments.train`."""

from absl import flags

from experiments.setup import config as config_lib

_HELP = {
    'log_every_steps': 'Write a row of train.csv (and TensorBoard) every '
                       'this many environment steps (0: not by steps).',
    'log_every_episodes': '... every this many episodes (0: not by '
                          'episodes).',
    'eval_every_steps': 'Greedy evaluation (eval.csv) every this many '
                        'environment steps (0: not by steps).',
    'eval_every_episodes': '... every this many episodes (0: not by '
                           'episodes).',
}
_DEFAULTS = (f'Default for each pair: {config_lib.LOG_POINTS} log rows and '
             f'{config_lib.EVAL_POINTS} evaluations over the budget, by '
             f'steps when --num_steps is set, else by episodes; setting '
             f'one of a pair turns the other off.')


def define() -> None:
  """Defines the four interval flags and `--periodic_eval_episodes`."""
  for name in config_lib.INTERVAL_KEYS:
    flags.DEFINE_integer(name, None, f'{_HELP[name]} {_DEFAULTS}',
                         lower_bound=0)
  flags.DEFINE_integer(
      'periodic_eval_episodes',
      config_lib.ExperimentConfig.periodic_eval_episodes,
      'Greedy episodes of each evaluation along the way; default: as many '
      'as keep all of them within about a tenth of the training budget '
      '(in environment steps, counting each episode at the game\'s '
      'longest), between 1 and 100.', lower_bound=1)

