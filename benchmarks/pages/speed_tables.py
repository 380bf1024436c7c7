"""The tables of docs/benchmarks/speed.md of our own runs: the loops'
rates, devices, start-up, whole commands, compiling once and where a
short command's time goes (the peers' tables: `peer_tables`)."""

import functools
from typing import List

from benchmarks.pages import markdown as md
from experiments.driver import time_account as account_lib

num, short, sci, mib = md.num, md.short, md.sci, md.mib
_int = num
_two = functools.partial(num, digits=2)
_one = functools.partial(num, digits=1)


def python_loop_num_envs() -> List[str]:
  data = md.load('python_loop_num_envs_speed.json')
  parts = [(data['vector_python_loop'], 'ppo')]
  games = data.get('envpool_python_loop', {})
  parts += [(games[env], 'ppo') for env in games if ':' in env]
  parts += [(data['bsuite_python_loop'], agent) for agent in ('ppo', 'dqn')]
  rows = []
  for suite, agent in parts:
    part = suite[agent]
    med = part['median']
    rows.append([
        f'{agent.upper()}, {md.code(suite["env"])}',
        _int(med['one_env_steps_per_second']),
        _int(med[f'{suite["num_envs"]}_envs_steps_per_second']),
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
       ['the run\'s wall seconds after start-up (compile, training, '
        'evaluations)',
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


def collection_cost() -> List[str]:
  games = md.load('collection_cost_speed.json')['collection_cost']
  rows = []
  for game, g in games.items():
    us, runs = g['us_per_env_step'], g['rounds_us_per_env_step']
    rows.append([
        f'{md.code("gymnax:" + game)}, {g["num_envs"]} envs',
        f'**{md.with_runs(us["ours"], runs["ours"], _two)}**',
        md.with_runs(us['ours_key_split_each_step'],
                     runs['ours_key_split_each_step'], _two),
        md.with_runs(us['bare'], runs['bare'], _two),
        f'**{_two(g["ours_over_bare"])}**'])
  return md.table(['game', 'ours: µs per env step (rounds)',
                   'ours, the key split every step', 'bare (PureJaxRL\'s '
                   'style)', 'ours / bare'], rows)


def update_cost() -> List[str]:
  settings = md.load('update_cost_speed.json')['update_cost']
  rows = []
  for name, g in settings.items():
    us, runs = (g['us_per_env_step_per_epoch'],
                g['rounds_us_per_env_step_per_epoch'])
    ours = 'ours_global_norm_clip'
    rows.append([
        f'{md.code(name)}: {g["batch"]} steps, minibatches of '
        f'{g["minibatch_steps"]:,}',
        f'**{md.with_runs(us[ours], runs[ours], _two)}**',
        md.with_runs(us['each_entry_clipped'], runs['each_entry_clipped'],
                     _two),
        md.with_runs(us['no_clipping'], runs['no_clipping'], _two),
        f'**{g["global_norm_share"]:.0%}**'])
  return md.table(['setting', 'ours (global norm clipped): µs per env '
                   'step per epoch (rounds)', 'each entry clipped '
                   '(`gradient_clipping=each_entry`, rejax\'s)',
                   'no clipping', 'share of the global norm'], rows)
