"""The tables of docs/benchmarks/speed.md that put ours beside the peers'
programs (PureJaxRL, rejax, purejaxql, SBX): training speed per round,
compile time and the return each ended with."""

import functools
from typing import Dict, List

from benchmarks.pages import markdown as md

num, short, mib = md.num, md.short, md.mib
_int = num
_two = functools.partial(num, digits=2)
_one = functools.partial(num, digits=1)


def protocol(suite: Dict) -> str:
  """How our runs in `suite` were scored at their end, from the settings
  it recorded (`measured`): 'greedy', 'sampled' or 'ε-greedy (ε 0.05)'."""
  names = []
  for run in suite.get('measured', {}).get('runs', ()):
    settings = run['settings']
    name = settings['eval_policy']
    if name == 'epsilon_greedy':
      name = f'ε-greedy (ε {settings["eval_epsilon"]:g})'
    if name not in names:
      names.append(name)
  return ' / '.join(names) or 'its evaluation'


_OURS_BOTH = (('ours', 'ours, time limits as ends (the peers\' arithmetic)'),
              ('ours_bootstrapping',
               'ours, bootstrapping time limits (default)'))


def ppo_gymnax_cartpole_training() -> List[str]:
  """Both our arithmetics beside PureJaxRL's and rejax's PPO."""
  suite = md.load('ppo_gymnax_cartpole_speed.json')['peers_gymnax_cartpole']
  med, run = suite['median'], suite['runs']

  def speed(who):
    return md.with_runs(med[who]['steps_per_second'],
                        [r['steps_per_second'] for r in run[who]], _int)

  def ratio(who, peer):
    key = f'speed_over_{peer}'
    if key not in med[who]:  # Not this peer's arithmetic.
      return ''
    return md.with_runs(med[who][key], [r[key] for r in run[who]], _two,
                        bold=True)

  ours = (('ours', 'ours, time limits as ends (PureJaxRL\'s arithmetic)'),
          ('ours_as_rejax', 'ours, time limits as ends and each gradient '
                            'entry clipped (rejax\'s arithmetic)'),
          ('ours_bootstrapping', 'ours, bootstrapping time limits, the '
                                 'global norm clipped (default)'))
  rows = [[title, speed(who), ratio(who, 'purejaxrl'), ratio(who, 'rejax'),
           _two(med[who]['compile_seconds']),
           f'{short(med[who]["greedy_return"])} ({protocol(suite)}, its '
           'final evaluation)'] for who, title in ours if who in med]
  rows.append(['PureJaxRL `ppo.py`', speed('purejaxrl'), '', '',
               _two(med['purejaxrl']['compile_seconds']), ''])
  rows.append(['rejax PPO', speed('rejax'), '', '',
               _two(med['rejax']['compile_seconds']),
               f'{short(med["rejax"]["final_eval_return"])} (its '
               '128-episode evaluation)'])
  return md.table(['', 'training steps/s, median (rounds)',
                   'over PureJaxRL, median (rounds)',
                   'over rejax, median (rounds)', 'compile s, median',
                   'return at the end, median'], rows)


def ppo_gymnax_cartpole_command() -> List[str]:
  suite = md.load('ppo_gymnax_cartpole_speed.json')['peers_gymnax_cartpole']
  med, run, commands = suite['median'], suite['runs'], suite['commands']

  def seconds(who, bold=False):
    return md.with_runs(med[who]['seconds'],
                        [r['seconds'] for r in run[who]], _one, bold)

  key = 'seconds_over_purejaxrl_script'
  return md.table(
      ['whole command', 'seconds, median (rounds)', 'peak memory, median'],
      [[md.code(commands['our_default_command']) + ' (periodic '
        'evaluations, final evaluation, TFLite export and its check)',
        seconds('our_default_command', True),
        mib(med['our_default_command']['peak_memory_mib'])],
       [f'PureJaxRL\'s script: {commands["purejaxrl_script"]}',
        seconds('purejaxrl_script'),
        mib(med['purejaxrl_script']['peak_memory_mib'])],
       ['ours over PureJaxRL\'s, median (rounds)',
        md.with_runs(med['our_default_command'][key],
                     [r[key] for r in run['our_default_command']], _two,
                     bold=True), '']])


def ppo_breakout_minatar() -> List[str]:
  """Both our arithmetics beside PureJaxRL's, at each budget."""
  suite = md.load('ppo_breakout_minatar_speed.json')['peers_breakout_minatar']
  rows = []
  for key, part in suite.items():
    if not key.endswith('_steps'):
      continue
    med, run = part['median'], part['runs']
    budget = f'{int(key.split("_")[0]) // 1_000_000}M'
    for who, title in _OURS_BOTH:
      rows.append([
          budget, title,
          md.with_runs(med[who]['steps_per_second'],
                       [r['steps_per_second'] for r in run[who]], _int),
          f'**{_two(med[who]["speed_over_purejaxrl"])}**',
          _one(med[who]['compile_seconds']),
          f'{_one(med[who]["greedy_return"])} ({protocol(suite)})'])
    rows.append([
        budget, 'PureJaxRL `ppo.py`',
        md.with_runs(med['purejaxrl']['steps_per_second'],
                     [r['steps_per_second'] for r in run['purejaxrl']],
                     _int), '', _one(med['purejaxrl']['compile_seconds']),
        f'{_one(med["purejaxrl"]["last_update_return"])} (its last '
        'update\'s training episodes)'])
  return md.table(['steps', '', 'training steps/s, median (rounds)',
                   'over PureJaxRL, median of the rounds\' ratios',
                   'compile s, median', 'return at the end, median'], rows)


def speed_cell(part: Dict, who: str) -> str:
  """`who`'s median training steps/s in a suite's `part`, with its rounds."""
  return md.with_runs(part['median'][who]['steps_per_second'],
                      [r['steps_per_second'] for r in part['runs'][who]],
                      _int)


def ratio_cell(part: Dict, peer: str, who: str) -> str:
  """`who`'s median speed over `peer`'s in `part`, with its rounds."""
  key = f'speed_over_{peer}'
  return md.with_runs(part['median'][who][key],
                      [r[key] for r in part['runs'][who]], _two, bold=True)


def ppo_games() -> List[str]:
  """Each game: both our arithmetics and PureJaxRL's training speed, and
  ours over its, per round."""
  suite = md.load('ppo_games_peers_speed.json')['peers_ppo_games']
  rows = []
  for game, part in suite.items():
    if not isinstance(part, dict) or 'median' not in part:
      continue
    speed = functools.partial(speed_cell, part)
    ratio = functools.partial(ratio_cell, part, 'purejaxrl')
    med = part['median']
    rows.append([f'`gymnax:{game}`', f'{short(part["steps"])}',
                 speed('ours'), ratio('ours'), speed('ours_bootstrapping'),
                 ratio('ours_bootstrapping'), speed('purejaxrl'),
                 f'{_one(med["ours"]["compile_seconds"])} / '
                 f'{_one(med["purejaxrl"]["compile_seconds"])}'])
  return md.table(['game', 'steps', 'ours, time limits as ends: steps/s, '
                   'median (rounds)', 'over PureJaxRL, median (rounds)',
                   'ours, bootstrapping (default): steps/s',
                   'over PureJaxRL', 'PureJaxRL `ppo.py`: steps/s',
                   'compile s, ours / PureJaxRL'], rows)


def ppo_rnn() -> List[str]:
  """A GRU PPO beside PureJaxRL's `ppo_rnn.py`, one row per program."""
  return _beside_one_peer(
      'ppo_rnn_peers_speed.json', 'peers_ppo_rnn', 'purejaxrl',
      (('ours', 'ours, time limits as ends (PureJaxRL\'s arithmetic)',
        'greedy_return'),
       ('ours_bootstrapping', 'ours, bootstrapping time limits (default)',
        'greedy_return'),
       ('purejaxrl', 'PureJaxRL `ppo_rnn.py`', 'last_update_return')),
      'PureJaxRL', 'PureJaxRL\'s last update')


def pqn_cartpole() -> List[str]:
  """PQN beside rejax's, one row per program."""
  return _beside_one_peer(
      'pqn_cartpole_peers_speed.json', 'peers_pqn_cartpole', 'rejax',
      (('ours', 'ours, time limits as ends (rejax\'s arithmetic)',
        'greedy_return'),
       ('ours_bootstrapping', 'ours, bootstrapping time limits (default)',
        'greedy_return'),
       ('rejax', 'rejax PQN', 'final_eval_return')),
      'rejax', 'rejax\'s final evaluation')


def _beside_one_peer(name: str, suite_name: str, peer: str,
                     programs, peer_title: str,
                     peer_score: str) -> List[str]:
  """One row per program of a suite that measures ours against `peer`:
  speed with its rounds, the ratio to the peer, compile, the score."""
  suite = md.load(name)[suite_name]
  med, run = suite['median'], suite['runs']
  rows = []
  for program, title, score in programs:
    ratio = med[program].get(f'speed_over_{peer}')
    rows.append([
        title,
        md.with_runs(med[program]['steps_per_second'],
                     [r['steps_per_second'] for r in run[program]], _int),
        f'**{_two(ratio)}**' if ratio else '',
        _one(med[program]['compile_seconds']), _one(med[program][score])])
  return md.table(['', 'training steps/s, median (rounds)',
                   f'over {peer_title}, median of the rounds\' ratios',
                   'compile s', f'return: ours {protocol(suite)} / '
                   f'{peer_score}'], rows)


def _beside_peer(file_name: str, suite_name: str, peer: str, title: str,
                 score: str, score_title: str) -> List[str]:
  """Ours against one `peer` program (titled `title`) in one setting:
  speed, compile time and the return each ended with (the peer's
  `score`, described by `score_title`)."""
  suite = md.load(file_name)[suite_name]
  med, run = suite['median'], suite['runs']
  return md.table(
      ['', 'ours', title],
      [['training steps/s, median (rounds)',
        md.with_runs(med['ours']['steps_per_second'],
                     [r['steps_per_second'] for r in run['ours']], _int,
                     bold=True),
        md.with_runs(med[peer]['steps_per_second'],
                     [r['steps_per_second'] for r in run[peer]], _int)],
       [f'ours over {peer}, median (rounds)',
        md.with_runs(med['ours'][f'speed_over_{peer}'],
                     [r[f'speed_over_{peer}'] for r in run['ours']], _two,
                     bold=True), ''],
       ['compile seconds, median', _one(med['ours']['compile_seconds']),
        _one(med[peer]['compile_seconds'])],
       [f'return at the end (ours: {protocol(suite)}; {score_title}), '
        'rounds',
        md.runs([r['greedy_return'] for r in run['ours']], _one),
        md.runs([r[score] for r in run[peer]], _one)]])


def _rejax_pairs(file_name: str, suite_name: str, title: str, column: str,
                 arms: Dict[str, str],
                 ours_speed: str = 'ours: training steps/s, median (rounds)',
                 returns: str = '{protocol}; rejax: its evaluation'
                ) -> List[str]:
  """Ours beside rejax's `title`, a row per pair of arms the suite
  measured (`ours<suffix>`, `rejax<suffix>`), labelled `arms[suffix]` in
  the first column, `column`; `ours_speed` and `returns` (with our
  `{protocol}`) say what the speed and return columns hold."""
  suite = md.load(file_name)[suite_name]
  med, run = suite['median'], suite['runs']
  rows = []
  for suffix, label in arms.items():
    ours, rejax = f'ours{suffix}', f'rejax{suffix}'
    if ours not in med:
      continue

    def speed(who):
      return md.with_runs(med[who]['steps_per_second'],
                          [r['steps_per_second'] for r in run[who]], _int)

    rows.append([
        label, speed(ours), speed(rejax),
        md.with_runs(med[ours][f'speed_over_{rejax}'],
                     [r[f'speed_over_{rejax}'] for r in run[ours]], _two,
                     bold=True),
        f'{_one(med[ours]["compile_seconds"])} / '
        f'{_one(med[rejax]["compile_seconds"])}',
        f'ours {md.runs([r["greedy_return"] for r in run[ours]], _one)}; '
        f'rejax '
        f'{md.runs([r["final_eval_return"] for r in run[rejax]], _one)}'])
  return md.table([column, ours_speed, f'{title}: steps/s',
                   'ours over rejax, median (rounds)',
                   'compile s, ours / rejax',
                   'return at the end, rounds (ours: '
                   f'{returns.format(protocol=protocol(suite))})'], rows)


def sac_pendulum() -> List[str]:
  return _rejax_pairs('sac_pendulum_speed.json', 'peers_sac_pendulum',
                      'rejax SAC', 'networks',
                      {'': '256-256 (ours)', '_64_64': '64-64 (rejax\'s)'})


def dqn_cartpole() -> List[str]:
  return _rejax_pairs('dqn_cartpole_peers_speed.json', 'peers_dqn_cartpole',
                      'rejax DQN', 'minibatch',
                      {'': '100 (rejax\'s)', '_batch_32': '32 (ours)'})


def ppo_continuous() -> List[str]:
  return _rejax_pairs('ppo_continuous_peers_speed.json',
                      'peers_ppo_continuous', 'rejax PPO', 'game',
                      {'_pendulum': 'gymnax:Pendulum-v1',
                       '_mountaincar_continuous':
                           'gymnax:MountainCarContinuous-v0'})


def td3_pendulum() -> List[str]:
  return _rejax_pairs('td3_pendulum_peers_speed.json', 'peers_td3_pendulum',
                      'rejax TD3', 'minibatch',
                      {'': '100', '_batch_256': '256'})


def ppo_seeds() -> List[str]:
  """Ours beside rejax's vmapped `train` at each seed count measured."""
  med = md.load('ppo_seeds_peers_speed.json')['peers_ppo_seeds']['median']
  counts = [name.split('_')[1] for name in med if name.startswith('ours_')]
  return _rejax_pairs(
      'ppo_seeds_peers_speed.json', 'peers_ppo_seeds', 'rejax PPO, vmapped',
      'seeds in one program', {f'_{n}_seeds': n for n in counts},
      ours_speed='ours: training steps/s of all seeds, median (rounds)',
      returns='the seeds\' median {protocol} return; rejax: the seeds\' '
              'mean evaluation')


def pqn_breakout_minatar() -> List[str]:
  return _beside_peer('pqn_breakout_minatar_peers_speed.json',
                      'peers_pqn_breakout_minatar', 'purejaxql',
                      'purejaxql `pqn_minatar.py`', 'final_test_return',
                      'purejaxql: its greedy test')


def pqn_rnn_memory_chain() -> List[str]:
  return _beside_peer('pqn_rnn_memory_chain_peers_speed.json',
                      'peers_pqn_rnn_memory_chain', 'purejaxql',
                      'purejaxql `pqn_rnn_gymnax.py`', 'final_test_return',
                      'purejaxql: its greedy test')


def python_loop() -> List[str]:
  suite = md.load('python_loop_speed.json')['peers_python_loop']
  med, run = suite['median'], suite['runs']
  labels = {
      'one_env': '1 environment',
      '8_envs': '8 environments, one batched act per step, evaluations 8 '
                'at a time',
      'sbx_8_envs': 'SBX PPO, 8 environments, SB3\'s defaults (no '
                    f'evaluation; {_int(med["sbx_8_envs"]["env_steps"])} '
                    'steps: whole rollouts)'}
  rows = [[label,
           md.with_runs(med[key]['seconds'], [r['seconds'] for r in run[key]],
                        _one, bold=key == '8_envs'),
           _int(med[key]['steps_per_second']),
           mib(med[key]['peak_memory_mib'])]
          for key, label in labels.items()]
  for key, label in (('speedup_over_one_env', '8 environments over 1: '
                      'seconds of the whole run'),
                     ('speedup_over_sbx', '8 environments over SBX: steps '
                      'per second of the whole run')):
    rows.append([label, md.with_runs(
        med['8_envs'][key], [r[key] for r in run['8_envs']], _two,
        bold=True), '', ''])
  return md.table(['run', 'seconds, median (rounds)', 'training steps/s',
                   'peak memory'], rows)


def alphazero_connect_four() -> List[str]:
  """AlphaZero beside pgx's example on one MLP: steps per second of each
  whole iteration (self-play and training), pgx's parts apart."""
  suite = md.load('alphazero_connect_four_peers_speed.json')[
      'peers_alphazero_connect_four']
  med, run = suite['median'], suite['runs']

  def rounds(who, key, digits=_int, bold=False):
    return md.with_runs(med[who][key], [r[key] for r in run[who]], digits,
                        bold=bold)

  return md.table(
      ['', 'ours', 'pgx `examples/alphazero/train.py` (our MLP)'],
      [['steps/s, self-play and training, median (rounds)',
        rounds('ours', 'steps_per_second', bold=True),
        rounds('pgx', 'steps_per_second')],
       ['ours over pgx, median of the rounds\' ratios',
        rounds('ours', 'speed_over_pgx', _two, bold=True), ''],
       ['pgx\'s self-play alone, positions/s', '',
        rounds('pgx', 'selfplay_positions_per_second')],
       ['pgx\'s targets and updates alone, positions/s', '',
        rounds('pgx', 'training_positions_per_second')],
       ['compile seconds, median', _one(med['ours']['compile_seconds']),
        _one(med['pgx']['compile_seconds'])]])
