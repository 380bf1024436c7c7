"""The evaluation flags: the protocol (every command that trains) and how
commands that score many runs (compare, sweep) evaluate them."""

from absl import flags

from experiments.loops import evaluation
from experiments.setup import config as config_lib


def define_protocol() -> None:
  """`--eval_policy` and `--eval_epsilon`: how evaluations act."""
  flags.DEFINE_enum(
      'eval_policy', config_lib.ExperimentConfig.eval_policy,
      evaluation.PROTOCOLS, 'How evaluation episodes are played: greedy (the '
      'most probable legal action, or the deterministic continuous one: '
      'what the exported model does), sampled (drawn from the policy\'s '
      'probabilities; policy agents on discrete actions) or epsilon_greedy '
      '(a uniform legal action with probability --eval_epsilon, else '
      'greedy; discrete actions). Unset: as results on the game are '
      'reported: greedy, but on MinAtar sampled for policy agents and '
      'epsilon_greedy for value agents. Evaluation episodes always come '
      'from the seed\'s own evaluation stream, never its training one; '
      'result.json and the reports record the protocol.')
  flags.DEFINE_float(
      'eval_epsilon', config_lib.ExperimentConfig.eval_epsilon,
      '--eval_policy=epsilon_greedy\'s exploration rate, in [0, 1]. Unset: '
      'the agent\'s own (DQN: 0.05, its evaluation ε on Atari, Mnih et '
      'al., 2015; the policy agents use the same).',
      lower_bound=0, upper_bound=1)


def define(eval_points: int) -> None:
  """`--eval_points` (default `eval_points`), `--eval_episodes` and
  `--periodic_eval_episodes`: how each run is scored and its curve drawn."""
  flags.DEFINE_integer('eval_points', eval_points, 'Greedy evaluations per '
                       'run (learning curves).', lower_bound=1)
  flags.DEFINE_integer('eval_episodes', 200, 'Greedy episodes of the final '
                       'evaluation, the run\'s score.', lower_bound=1)
  flags.DEFINE_integer('periodic_eval_episodes', 100, 'Greedy episodes of '
                       'each evaluation along the way.', lower_bound=1)
  define_protocol()
