"""PQN beside purejaxql's, the program of PQN's authors (Gallici et al.,
2024), in its MinAtar setting; run through `benchmarks.suites`.

  peers_pqn_breakout_minatar: PQN on Breakout-MinAtar in purejaxql's
    `config/alg/pqn_minatar.yaml` setting (our `pqn_breakout_minatar`
    preset), `--pqn_minatar_steps` steps with every schedule fitted to
    them (ε over the first tenth, the step size annealed over all):
    training steps per second of ours and of purejaxql's
    `pqn_minatar.py`, and each side's greedy return at the end (ours over
    128 episodes; theirs its own test, 128 environments for one episode
    length).

purejaxql is a checkout (`--purejaxql_source`, github.com/mttga/purejaxql),
run in the peers' environment (`scripts/setup_peer_venv.sh`) by
`benchmarks/peer_programs.py`.
"""

from typing import Any, Callable, Dict

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_pqn_breakout_minatar',)


def purejaxql_minatar_settings(env_id: str, steps: int) -> Dict[str, Any]:
  """purejaxql `pqn_minatar.yaml`'s config keys for `steps` steps (its
  decays fitted to them), greedy-tested only at the first and last
  update."""
  return {'ALG_NAME': 'pqn', 'ENV_NAME': env_id, 'ENV_KWARGS': {},
          'TOTAL_TIMESTEPS': steps, 'TOTAL_TIMESTEPS_DECAY': steps,
          'NUM_ENVS': 128, 'NUM_STEPS': 32, 'EPS_START': 1.0,
          'EPS_FINISH': 0.05, 'EPS_DECAY': 0.1, 'NUM_MINIBATCHES': 32,
          'NUM_EPOCHS': 2, 'NORM_TYPE': 'layer_norm', 'LR': 5e-4,
          'MAX_GRAD_NORM': 10, 'LR_LINEAR_DECAY': True, 'GAMMA': 0.99,
          'LAMBDA': 0.65, 'TEST_DURING_TRAINING': True,
          'TEST_INTERVAL': 1.0, 'TEST_NUM_ENVS': 128, 'EPS_TEST': 0.0}


def pqn_breakout_minatar(root: str, repeats: int,
                         run: scaling.Runner,
                         steps: int) -> Dict[str, Any]:
  """PQN on Breakout-MinAtar: ours and purejaxql's, purejaxql's setting."""
  runs = scaling.measure(root, {
      'ours': scaling.Measurement(dict(
          program='ours', preset='pqn_breakout_minatar', num_steps=steps,
          agent_config={'epsilon_decay_steps': steps // 10},
          eval_policy='greedy',
          **dict(peer_runs.TRAINING_ONLY, eval_episodes=128))),
      'purejaxql': scaling.Measurement(dict(
          program='purejaxql_pqn_minatar',
          config=purejaxql_minatar_settings('Breakout-MinAtar', steps))),
  }, repeats, run)
  peer_runs.ratios(runs, 'ours', 'steps_per_second', ('purejaxql',),
                   'speed')
  return {'setting': f'128 envs x 32 steps, 2 epochs x 32 minibatches, lr '
                     f'5e-4 annealed over the run, λ 0.65, ε 1 → 0.05 over '
                     f'{steps // 10:,} steps, MinAtar\'s convolution with '
                     f'LayerNorm, {steps:,} steps. Not the same arithmetic: '
                     f'purejaxql steps with RAdam, scales observations by '
                     f'1/255 and ends its targets at time limits; ours Adam, '
                     f'observations as given, bootstrapped time limits. '
                     f'purejaxql\'s time includes its two greedy tests',
          **scaling.summary(runs)}


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {'peers_pqn_breakout_minatar': lambda: pqn_breakout_minatar(
      root, f.seeds, run, f.pqn_minatar_steps)}
