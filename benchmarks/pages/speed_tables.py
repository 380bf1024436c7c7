"""The tables of docs/benchmarks/speed.md: loop speed beside the peers,
the Python loop, start-up, compiling once, a short command's time."""

import functools
from typing import List

from benchmarks.pages import markdown as md
from experiments.driver import time_account as account_lib

num, short, sci, mib = md.num, md.short, md.sci, md.mib
_int = num
_two = functools.partial(num, digits=2)
_one = functools.partial(num, digits=1)


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
    return md.with_runs(med[who][key], [r[key] for r in run[who]], _two,
                        bold=True)

  rows = [[title, speed(who), ratio(who, 'purejaxrl'), ratio(who, 'rejax'),
           _two(med[who]['compile_seconds']),
           f'{short(med[who]["greedy_return"])} (greedy, its final '
           'evaluation)'] for who, title in _OURS_BOTH]
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
          f'{_one(med[who]["greedy_return"])} (greedy)'])
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


def ppo_games() -> List[str]:
  """Each game: both our arithmetics and PureJaxRL's training speed, and
  ours over its, per round."""
  suite = md.load('ppo_games_peers_speed.json')['peers_ppo_games']
  rows = []
  for game, part in suite.items():
    if not isinstance(part, dict) or 'median' not in part:
      continue
    med, run = part['median'], part['runs']

    def speed(who, med=med, run=run):
      return md.with_runs(med[who]['steps_per_second'],
                          [r['steps_per_second'] for r in run[who]], _int)

    def ratio(who, med=med, run=run):
      return md.with_runs(med[who]['speed_over_purejaxrl'],
                          [r['speed_over_purejaxrl'] for r in run[who]],
                          _two, bold=True)

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
                   'compile s', f'return: ours greedy / {peer_score}'], rows)


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
       [f'return at the end (ours: greedy; {score_title}), rounds',
        md.runs([r['greedy_return'] for r in run['ours']], _one),
        md.runs([r[score] for r in run[peer]], _one)]])


def _beside_rejax(file_name: str, suite_name: str,
                  title: str) -> List[str]:
  return _beside_peer(file_name, suite_name, 'rejax', title,
                      'final_eval_return', 'rejax: its evaluation')


def sac_pendulum() -> List[str]:
  return _beside_rejax('sac_pendulum_speed.json', 'peers_sac_pendulum',
                       'rejax SAC')


def dqn_cartpole() -> List[str]:
  return _beside_rejax('dqn_cartpole_peers_speed.json',
                       'peers_dqn_cartpole', 'rejax DQN')


def td3_pendulum() -> List[str]:
  """Ours beside rejax's TD3 at each minibatch the suite measured."""
  suite = md.load('td3_pendulum_peers_speed.json')['peers_td3_pendulum']
  med, run = suite['median'], suite['runs']
  rows = []
  for ours in [name for name in med if name.startswith('ours')]:
    rejax = ours.replace('ours', 'rejax', 1)
    batch = 256 if ours.endswith('_batch_256') else 100

    def speed(who):
      return md.with_runs(med[who]['steps_per_second'],
                          [r['steps_per_second'] for r in run[who]], _int)

    rows.append([
        f'{batch}', speed(ours), speed(rejax),
        md.with_runs(med[ours][f'speed_over_{rejax}'],
                     [r[f'speed_over_{rejax}'] for r in run[ours]], _two,
                     bold=True),
        f'{_one(med[ours]["compile_seconds"])} / '
        f'{_one(med[rejax]["compile_seconds"])}',
        f'ours {md.runs([r["greedy_return"] for r in run[ours]], _one)}; '
        f'rejax '
        f'{md.runs([r["final_eval_return"] for r in run[rejax]], _one)}'])
  return md.table(['minibatch', 'ours: training steps/s, median (rounds)',
                   'rejax TD3: steps/s', 'ours over rejax, median '
                   '(rounds)', 'compile s, ours / rejax',
                   'return at the end, rounds (ours: greedy; rejax: its '
                   'evaluation)'], rows)


def pqn_breakout_minatar() -> List[str]:
  return _beside_peer('pqn_breakout_minatar_peers_speed.json',
                      'peers_pqn_breakout_minatar', 'purejaxql',
                      'purejaxql `pqn_minatar.py`', 'final_test_return',
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


def python_loop_num_envs() -> List[str]:
  data = md.load('python_loop_num_envs_speed.json')
  rows = []
  for suite, agent in (('vector_python_loop', 'ppo'),
                       ('bsuite_python_loop', 'ppo'),
                       ('bsuite_python_loop', 'dqn')):
    part = data[suite][agent]
    med = part['median']
    rows.append([
        f'{agent.upper()}, {md.code(data[suite]["env"])}',
        _int(med['one_env_steps_per_second']),
        _int(med[f'{data[suite]["num_envs"]}_envs_steps_per_second']),
        md.with_runs(med['speedup'], [r['speedup'] for r in part['runs']],
                     _two)])
  return md.table(['run', '1 env, steps/s', '8 envs, steps/s',
                   'ratio, median (runs)'], rows)


def loop_speed() -> List[str]:
  suite = md.load('loop_speed_and_devices.json')['loop_speed']
  med, run = suite['median'], suite['runs']

  def row(label, key, figure, fmt, memory=True, bold=False):
    values = [r[figure] for r in run[key]]
    head = fmt(med[key][figure])
    return [label, f'**{head}**' if bold else head, md.runs(values, fmt),
            mib(med[key]['peak_memory_mib']) if memory else '']

  times = lambda v: f'{num(v, 1)}×'
  strikes = ' / '.join(
      _two(med[k]['greedy_episode_length'])
      for k in ('python', 'compiled', 'compiled_64_envs'))
  return md.table(
      ['figure', 'median of 3', 'runs (seeds 0, 1, 2)', 'peak memory'],
      [row('Python loop, env steps/s', 'python', 'steps_per_second', _int),
       row('compiled loop, 16 envs (the default), env steps/s', 'compiled',
           'steps_per_second', _int),
       row('**speed-up**', 'compiled', 'speedup_over_python', times, False,
           True),
       row('compiled loop, 64 envs (`--num_envs=64 --batch_size=64`),'
           ' env steps/s', 'compiled_64_envs', 'steps_per_second', _int),
       row('**speed-up, 64 envs**', 'compiled_64_envs', 'speedup_over_python',
           times, False, True),
       ['compile seconds, 16 / 64 envs',
        f'{_one(med["compiled"]["compile_seconds"])} / '
        f'{_one(med["compiled_64_envs"]["compile_seconds"])}', '', ''],
       [f'greedy strikes after {_int(suite["episodes_per_run"])} games '
        '(100 games), Python / compiled / 64 envs', strikes, '', '']])


_SETTINGS = {  # What each preset trains (experiments/presets/builtin/).
    'ppo_pendulum': '16 envs × 128 steps, 10 epochs × 32 minibatches',
    'sac_pendulum': '1 env, one SGD step of 256 transitions per step',
    'ppo_brax_inverted_pendulum': '32 envs × 32 steps, 4 epochs × 8 '
                                  'minibatches',
}


def continuous_control() -> List[str]:
  data = md.load('continuous_control_speed.json')
  rows = []
  for suite in ('ppo_pendulum', 'sac_pendulum', 'brax_inverted_pendulum'):
    med, run = data[suite]['median'], data[suite]['runs']
    preset = data[suite]['preset']
    rows.append([
        f'{md.code(preset)} ({_SETTINGS[preset]})',
        md.with_runs(med['steps_per_second'],
                     [r['steps_per_second'] for r in run], _int, bold=True),
        _one(med['compile_seconds']),
        _one(med['train_seconds_without_compile']),
        short(med['greedy_return'])])
  return md.table(['preset', 'env steps/s, median (per seed)', 'compile s',
                   'training s', 'greedy return, median'], rows)


def startup() -> List[str]:
  suite = md.load('startup.json')['startup']
  seconds, medians = suite['seconds'], suite['median_seconds']
  order = sorted(medians, key=lambda k: (
      0 if 'helpshort' in k else 1 if k.startswith('import') else 2))
  rows = [[md.code(k) if not k.startswith('train:') else f'train command: '
           f'{k.split(": ", 1)[1]}', f'**{_two(medians[k])}**',
           md.runs(seconds[k], _two)] for k in order]
  rows.append(['train command to its compile start, beyond `import agents, '
               'jax, haiku, optax, rlax`',
               f'**{_two(suite["train_setup_over_imports_seconds"])}**', ''])
  return md.table(['command', 'median s', 'runs'], rows)


def train_command() -> List[str]:
  suite = md.load('train_command_end_to_end.json')['train_command']
  check = suite['export_check']
  return md.table(
      ['figure', 'median of 3', 'runs'],
      [['the command with its defaults, seconds',
        f'**{_one(suite["median_seconds"])}**',
        md.runs(suite['seconds'], _one)],
       [f'start-up plus training alone ({md.code(suite["bare_flags"])}), '
        'seconds', _one(suite['median_bare_seconds']),
        md.runs(suite['bare_seconds'], _one)],
       ['ratio of the medians', f'**{_two(suite["ratio_of_medians"])}** '
        f'(of the per-pair ratios: {_two(suite["median_pairwise_ratio"])})',
        ''],
       ['peak memory, defaults / alone',
        f'{num(suite["median_peak_memory_mib"])} / '
        f'{num(suite["median_bare_peak_memory_mib"])} MiB', ''],
       ['training time inside the run (compile included)',
        f'{_one(suite["training_seconds"])} s', ''],
       ['what the defaults add', f'final evaluation of '
        f'{suite["eval_episodes"]} greedy episodes (return '
        f'{short(suite["eval_mean_return"])}); export check of '
        f'{check["games"]} games in LiteRT, '
        f'{_int(check["observations_checked"])} observations, max '
        f'\\|p − p_jax\\| {sci(check["max_abs_diff"])} (tolerance '
        f'{sci(check["tolerance"])})', '']])


def time_to_model() -> List[str]:
  suite = md.load('ppo_plane_strike_time_to_model.json')['time_to_model']
  med, run = suite['median'], suite['runs']

  def row(label, key, fmt, bold=False):
    head = fmt(med[key])
    return [label, f'**{head}**' if bold else head,
            md.runs([r[key] for r in run], fmt)]

  seconds = lambda v: f'{_one(v)} s'
  return md.table(
      ['figure', 'median of 3', 'per seed (0, 1, 2)'],
      [row('**wall time from start to exported, verified model** (compile '
           'included)', 'seconds_to_exported_model', seconds, True),
       row('of which training (compile included)', 'train_seconds', seconds),
       row('of which compile', 'compile_seconds', seconds),
       row('wall time until greedy strikes ≤ 13 (periodic evaluation)',
           'seconds_to_strikes_<=13', seconds),
       row('greedy strikes, 1000 games, JAX', 'greedy_strikes_jax', _two),
       row('**greedy strikes, 1000 games through the exported .tflite**',
           'greedy_strikes_tflite', _two, True),
       row('max \\|p_tflite − p_jax\\|', 'tflite_max_abs_diff', sci)])


def compilation_cache() -> List[str]:
  suite = md.load('compilation_cache_speed.json')['compilation_cache']
  reruns = ('same command', 'another seed', 'another learning rate')
  rows = [[md.code(name), md.with_runs(
      c['medians']['first run']['compile_seconds'],
      [r['compile_seconds'] for r in c['runs']['first run']], _one)] + [
          f'{_one(c["medians"][r]["compile_seconds"])} '
          f'(**{c["compile_share_of_first"][r]:.0%}**)' for r in reruns] + [
              f'{_one(c["medians"]["first run"]["command_seconds"])} → '
              f'{_one(c["medians"]["same command"]["command_seconds"])}']
          for name, c in suite['commands'].items()]
  return md.table(['command', 'compile s, first run (runs)'] + [
      f'{r}: compile s (of first)' for r in reruns] + [
          'whole command s, first → same'], rows)


def time_account() -> List[str]:
  commands = md.load('short_run_time_account.json')['time_account']['commands']
  cell = lambda c, p: f'{_two(c["medians"][p])} s ({c["shares"][p]:.0%})'
  return md.table(['part'] + [md.code(c['flags']) for c in commands.values()],
                  [['whole command'] + [f'**{_one(c["medians"]["command"])} s**'
                                        for c in commands.values()]] +
                  [[p] + [cell(c, p) for c in commands.values()]
                   for p in account_lib.PARTS + ('start-up',)])
