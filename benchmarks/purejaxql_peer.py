"""PQN beside purejaxql's, the program of PQN's authors (Gallici et al.,
2024), in its MinAtar and recurrent MemoryChain settings; run through
`benchmarks.suites`.

  peers_pqn_breakout_minatar: PQN on Breakout-MinAtar in purejaxql's
    `config/alg/pqn_minatar.yaml` setting (our `pqn_breakout_minatar`
    preset), `--pqn_minatar_steps` steps with every schedule fitted to
    them (ε over the first tenth, the step size annealed over all):
    training steps per second of ours and of purejaxql's
    `pqn_minatar.py`, and each side's greedy return at the end (ours over
    128 episodes; theirs its own test, 128 environments for one episode
    length).
  peers_pqn_rnn_memory_chain: recurrent PQN on gymnax's MemoryChain at
    memory length 100 in purejaxql's `config/alg/pqn_rnn_memory_chain.yaml`
    setting (our `pqn_rnn_memory_chain` preset, `--network=
    gru_layer_norm_q_values`), its 24 updates of 32 x 128 steps: the same
    figures, beside its `pqn_rnn_gymnax.py`.

purejaxql is a checkout (`--purejaxql_source`, github.com/mttga/purejaxql),
run in the peers' environment (`scripts/setup_peer_venv.sh`) by
`benchmarks/peer_programs.py`.
"""

from typing import Any, Callable, Dict

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_pqn_breakout_minatar', 'peers_pqn_rnn_memory_chain')

# purejaxql's MemoryChain setting: memory length 100, 24 updates.
MEMORY_LENGTH = 100
MEMORY_CHAIN_STEPS = 24 * 32 * 128


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


def _beside_purejaxql(root: str, repeats: int, run: scaling.Runner,
                      ours: Dict[str, Any], program: str,
                      config: Dict[str, Any]) -> scaling.Runs:
  """Our run of `ours` (its settings; scored by 128 greedy episodes at the
  end, training only otherwise) and purejaxql's `program` with `config`,
  taken in turn, each of our runs with its speed over purejaxql's in the
  same round."""
  runs = scaling.measure(root, {
      'ours': scaling.Measurement(dict(
          program='ours', eval_policy='greedy', **ours,
          **dict(peer_runs.TRAINING_ONLY, eval_episodes=128))),
      'purejaxql': scaling.Measurement(dict(program=program, config=config)),
  }, repeats, run)
  peer_runs.ratios(runs, 'ours', 'steps_per_second', ('purejaxql',),
                   'speed')
  return runs


def pqn_breakout_minatar(root: str, repeats: int,
                         run: scaling.Runner,
                         steps: int) -> Dict[str, Any]:
  """PQN on Breakout-MinAtar: ours and purejaxql's, purejaxql's setting."""
  runs = _beside_purejaxql(
      root, repeats, run,
      dict(preset='pqn_breakout_minatar', num_steps=steps,
           agent_config={'epsilon_decay_steps': steps // 10}),
      'purejaxql_pqn_minatar',
      purejaxql_minatar_settings('Breakout-MinAtar', steps))
  return {'setting': f'128 envs x 32 steps, 2 epochs x 32 minibatches, lr '
                     f'5e-4 annealed over the run, λ 0.65, ε 1 → 0.05 over '
                     f'{steps // 10:,} steps, MinAtar\'s convolution with '
                     f'LayerNorm, {steps:,} steps. Not the same arithmetic: '
                     f'purejaxql steps with RAdam, scales observations by '
                     f'1/255 and ends its targets at time limits; ours Adam, '
                     f'observations as given, bootstrapped time limits. '
                     f'purejaxql\'s time includes its two greedy tests',
          **scaling.summary(runs)}


def purejaxql_memory_chain_settings() -> Dict[str, Any]:
  """purejaxql `pqn_rnn_memory_chain.yaml`'s config keys, greedy-tested
  only at the first and last update, each test 128 environments for two
  episode lengths (its own 5% interval tests every one of its 24 updates,
  for 1,000 steps each: 2.6 times its training steps at the two tests
  this suite keeps, time that would count as training)."""
  return {'ALG_NAME': 'pqn_rnn', 'ENV_NAME': 'MemoryChain-bsuite',
          'ENV_KWARGS': {'memory_length': MEMORY_LENGTH},
          'TOTAL_TIMESTEPS': 100_000, 'TOTAL_TIMESTEPS_DECAY': 100_000,
          'NUM_ENVS': 32, 'MEMORY_WINDOW': 4, 'NUM_STEPS': 128,
          'EPS_START': 1.0, 'EPS_FINISH': 0.01, 'EPS_DECAY': 0.1,
          'NUM_MINIBATCHES': 16, 'NUM_EPOCHS': 4, 'NORM_INPUT': False,
          'HIDDEN_SIZE': 256, 'NUM_LAYERS': 2, 'NORM_TYPE': 'layer_norm',
          'LR': 0.001, 'MAX_GRAD_NORM': 10, 'LR_LINEAR_DECAY': False,
          'REW_SCALE': 1.0, 'GAMMA': 0.99, 'LAMBDA': 0.95,
          'TEST_DURING_TRAINING': True, 'TEST_INTERVAL': 1.0,
          'TEST_NUM_ENVS': 128, 'TEST_NUM_STEPS': 2 * (MEMORY_LENGTH + 1),
          'EPS_TEST': 0.0}


def pqn_rnn_memory_chain(root: str, repeats: int,
                         run: scaling.Runner) -> Dict[str, Any]:
  """Recurrent PQN on MemoryChain (length 100): ours and purejaxql's, in
  purejaxql's setting."""
  runs = _beside_purejaxql(
      root, repeats, run,
      dict(preset='pqn_rnn_memory_chain',
           env_kwargs={'memory_length': MEMORY_LENGTH},
           num_steps=MEMORY_CHAIN_STEPS),
      'purejaxql_pqn_rnn', purejaxql_memory_chain_settings())
  return {'setting': f'memory length {MEMORY_LENGTH}, 32 envs x 128 steps, '
                     f'24 updates ({MEMORY_CHAIN_STEPS:,} steps), 4 epochs x '
                     f'16 minibatches of whole sequences, lr 1e-3, λ 0.95, '
                     f'ε 1 → 0.01 over the first tenth of 100k steps, two '
                     f'256 LayerNorm ReLU layers and a 256 GRU. Not the same '
                     f'arithmetic: purejaxql steps with RAdam, feeds the '
                     f'previous action to its GRU, replays each sequence '
                     f'from 4 steps of the previous batch and computes its '
                     f'targets in every minibatch, ending them at time '
                     f'limits; ours Adam, observations alone, each sequence '
                     f'replayed from the state it began in, targets once '
                     f'per batch, bootstrapped time limits. purejaxql\'s '
                     f'time includes its two greedy tests (128 environments '
                     f'for {2 * (MEMORY_LENGTH + 1)} steps each)',
          **scaling.summary(runs)}


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {'peers_pqn_breakout_minatar': lambda: pqn_breakout_minatar(
      root, f.seeds, run, f.pqn_minatar_steps),
          'peers_pqn_rnn_memory_chain': lambda: pqn_rnn_memory_chain(
              root, f.seeds, run)}
