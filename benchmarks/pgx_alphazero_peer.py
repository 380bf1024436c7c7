"""AlphaZero beside pgx's own AlphaZero example on connect four, on the
same network; run through `benchmarks.suites`.

  peers_alphazero_connect_four: AlphaZero with Gumbel search on pgx's
    `connect_four`, `--alphazero_iterations` iterations, each self-play
    of 64 games side by side for 16 moves (1,024 positions) with 32
    simulations per move, then one pass over those positions in
    minibatches of 256 (4 Adam steps, lr 1e-3): training steps per second
    of ours (`--agent=alphazero --env=pgx:connect_four`, compilation
    excluded) and of pgx's `examples/alphazero/train.py` (its iterations
    timed after two that compile, `benchmarks/pgx_alphazero_program.py`
    run by `benchmarks/peer_programs.py`), their
    ratio per round; pgx's self-play and training rates apart beside it.

A step is a position played: one move of either player in one game (our
environment steps; pgx's `frames`). Our steps per second include self-play
and training, as pgx's whole iteration does.

The network is not pgx's. Its example trains AZNet, a ResNet with
BatchNorm (128 channels, 6 blocks by default), which our framework has no
equivalent of; so on pgx's side the peer program replaces the module's
global `forward` with `hk.transform_with_state` of our `mlp_actor_critic`
at 256-256 (the observation flattened, two tanh layers, linear policy and
value heads, Haiku's default initialisers; an empty state), the same
network ours trains. Everything else is pgx's code: its self-play
(`selfplay`), its targets (`compute_loss_input`), its `train` step and the
shuffle between them.

pgx is a checkout (`--pgx_source`, github.com/sotetsuk/pgx, the folder
holding `examples/alphazero/`), run in the peers' environment
(`scripts/setup_peer_venv.sh` installs pgx and what `train.py` imports).
"""

from typing import Any, Callable, Dict, Mapping

from benchmarks import peer_runs
from benchmarks import scaling

SUITES = ('peers_alphazero_connect_four',)

# The setting both sides train in.
SETTING = {'env': 'connect_four', 'num_simulations': 32, 'games': 64,
           'moves': 16, 'minibatch': 256, 'learning_rate': 1e-3,
           'hidden_sizes': (256, 256)}
# Search settings pgx's `selfplay` leaves at mctx's defaults
# (`gumbel_muzero_policy`, `qtransform_completed_by_mix_value`), as ours
# names them.
MCTX_DEFAULTS = {'max_num_considered_actions': 16, 'gumbel_scale': 1.0,
                 'value_scale': 0.1, 'rescale_values': True}
NETWORK = 'mlp_actor_critic'
SUBSTITUTION = ('pgx\'s side trains our mlp_actor_critic in place of its '
                'AZNet (a BatchNorm ResNet): the peer program replaces '
                'train.py\'s global forward with hk.transform_with_state of '
                'the same MLP (observation flattened, {sizes} tanh layers, '
                'linear policy and value heads, Haiku\'s default '
                'initialisers, an empty state); the rest is pgx\'s code')


def our_settings(iterations: int,
                 setting: Mapping[str, Any] = SETTING) -> Dict[str, Any]:
  """Our run of `setting` (a measurement's settings, less its program):
  `iterations` updates of `games × moves` steps, training alone."""
  positions = setting['games'] * setting['moves']
  if positions % setting['minibatch']:
    raise ValueError(f'{setting["minibatch"]} positions per minibatch do '
                     f'not divide the {positions} of an iteration.')
  return dict(
      agent='alphazero', env=f'pgx:{setting["env"]}', network=NETWORK,
      hidden_sizes=list(setting['hidden_sizes']), num_episodes=None,
      num_steps=iterations * positions,
      agent_config={
          'search': 'gumbel', 'num_simulations': setting['num_simulations'],
          **MCTX_DEFAULTS, 'random_moves': 0.0, 'discount': 1.0,
          'n_step': None, 'value_cost': 1.0,
          'batch_size': setting['games'],
          'unroll_length': setting['moves'], 'num_epochs': 1,
          'num_minibatches': positions // setting['minibatch'],
          'learning_rate': setting['learning_rate'],
          'anneal_learning_rate': False},
      **peer_runs.TRAINING_ONLY)


def pgx_settings(setting: Mapping[str, Any] = SETTING) -> Dict[str, Any]:
  """pgx `train.py`'s command-line overrides (its `Config` keys) for
  `setting`; its network's keys (num_channels, num_layers, resnet_v2) are
  left out, as its network is replaced (`SUBSTITUTION`)."""
  return {'env_id': setting['env'],
          'num_simulations': setting['num_simulations'],
          'selfplay_batch_size': setting['games'],
          'max_num_steps': setting['moves'],
          'training_batch_size': setting['minibatch'],
          'learning_rate': setting['learning_rate']}


def alphazero_connect_four(root: str, repeats: int, run: scaling.Runner,
                           iterations: int,
                           setting: Mapping[str, Any] = SETTING
                          ) -> Dict[str, Any]:
  """Ours and pgx's AlphaZero on `setting`, `iterations` iterations each,
  taken in turn, each of our runs with its speed over pgx's in the same
  round."""
  sizes = '-'.join(str(size) for size in setting['hidden_sizes'])
  ours = our_settings(iterations, setting)
  theirs = {'program': 'pgx_alphazero', 'config': pgx_settings(setting),
            'iterations': iterations,
            'hidden_sizes': list(setting['hidden_sizes'])}
  runs = scaling.measure(root, {
      'ours': scaling.Measurement(dict(program='ours', **ours)),
      'pgx': scaling.Measurement(theirs),
  }, repeats, run)
  peer_runs.ratios(runs, 'ours', 'steps_per_second', ('pgx',), 'speed')
  positions = setting['games'] * setting['moves']
  return {
      'setting': f'pgx:{setting["env"]}, Gumbel search with '
                 f'{setting["num_simulations"]} simulations, '
                 f'{setting["games"]} games x {setting["moves"]} moves per '
                 f'iteration ({positions:,} positions), one pass in '
                 f'minibatches of {setting["minibatch"]}, Adam lr '
                 f'{setting["learning_rate"]:g}, {NETWORK} {sizes} on both '
                 f'sides, {iterations} iterations '
                 f'({iterations * positions:,} steps). A step is a '
                 f'position played (either player\'s move). Not the same '
                 f'arithmetic: pgx starts {setting["games"]} new games '
                 f'every iteration and drops the value targets of games '
                 f'unfinished after {setting["moves"]} moves; ours plays '
                 f'its games on across iterations and bootstraps their '
                 f'targets from the network\'s value; ours clips the '
                 f'gradient\'s global norm at 1 and masks illegal moves '
                 f'in its policy loss, pgx neither. pgx\'s time includes '
                 f'fetching each batch to the host, its shuffle there and '
                 f'one train call per minibatch, each loss fetched; '
                 f'ours, one compiled program, its log rows',
      'network_substitution': SUBSTITUTION.format(sizes=sizes),
      'settings': {'ours': ours, 'pgx': theirs},
      **scaling.summary(runs)}


def suites(root: str, flags_values: Any, run: scaling.Runner
          ) -> Dict[str, Callable[[], Any]]:
  """The suites of this module, by name, bound to their flag values."""
  f = flags_values
  return {'peers_alphazero_connect_four': lambda: alphazero_connect_four(
      root, f.seeds, run, f.alphazero_iterations)}
