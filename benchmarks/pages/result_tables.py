"""The tables of docs/benchmarks/learning.md, export.md and scaling.md."""

from typing import Any, Dict, List, Optional

from benchmarks.pages import markdown as md
from environments import suites

num, short, sci, mib = md.num, md.short, md.sci, md.mib


def _two(value: float) -> str:
  return num(value, 2)


def _one(value: float) -> str:
  return num(value, 1)


def _target(text: str) -> str:
  """'greedy mean return >= 0.9' as 'return ≥ 0.9'."""
  for long, name in (('greedy mean return >= ', 'return ≥ '),
                     ('greedy mean episode length <= ', 'length ≤ ')):
    if text.startswith(long):
      return name + text[len(long):].replace('-', md.MINUS)
  return text


def _protocol(row: Dict[str, Any]) -> str:
  """How a learning row's runs were scored at the end: 'greedy, 100
  episodes' (its `protocol`, from the runs' results)."""
  protocol = row['protocol']
  policy = protocol['policy'].replace('epsilon_greedy', 'ε-greedy')
  return f'{policy}, {protocol["episodes"]} episodes'


def _measured_protocol(data: Dict[str, Any], env: Optional[str] = None,
                       agent: Optional[str] = None) -> str:
  """The same, for a JSON whose rows do not record it: from the settings
  and recipes its `measured` block records (of `env` and `agent`'s runs,
  if given)."""
  found = []
  for run in data['measured']['runs']:
    if env and (run['recipe']['env'], run['recipe']['agent']) != (env, agent):
      continue
    settings = run['settings']
    policy = settings['eval_policy']
    if policy == 'epsilon_greedy':
      policy = f'ε-greedy (ε {settings["eval_epsilon"]:g})'
    text = f'{policy}, {run["recipe"]["eval_episodes"]} episodes'
    if text not in found:
      found.append(text)
  return ' / '.join(found)


def _score_key(row: Dict[str, Any]) -> str:
  return ('eval_mean_return' if 'return' in row['target'] else
          'eval_mean_episode_length')


def budget(row: Dict[str, Any]) -> str:
  if row['budget_steps']:
    return md.steps(row['budget_steps'])
  return md.steps(row['budget_episodes'], 'games')


def catch_cartpole() -> List[str]:
  # Plane Strike's rows there predate its presets (see below).
  return learning_grid('catch_cartpole_learning.json', ('catch', 'cartpole'))


def pqn_learning() -> List[str]:
  """PQN's rows of the learning grid (Catch, Plane Strike)."""
  return learning_grid('pqn_learning.json')


def dqn_family_learning() -> List[str]:
  """C51's and QR-DQN's rows of the learning grid (Catch, Plane Strike)."""
  return learning_grid('dqn_family_learning.json')


def impala_learning() -> List[str]:
  """IMPALA's rows of the learning grid (Catch, Plane Strike)."""
  return learning_grid('impala_learning.json')


def learning_rows(name: str, envs=None) -> List[List[str]]:
  """Rows of `benchmarks.learning`'s JSON `name` (of `envs`): environment,
  agent, budget, target, protocol, median, per seed, train seconds."""
  rows = []
  for row in md.load(name)['results']:
    if envs is not None and row['env'] not in envs:
      continue
    key = _score_key(row)
    seconds = {r['wall_seconds'] for r in row['per_seed']}
    rows.append([row['env'], row['agent'], budget(row),
                 _target(row['target']), _protocol(row),
                 f'**{short(row["median"][key])}**',
                 md.runs([r[key] for r in row['per_seed']], short),
                 # The seeds of a pair train as one program: its time.
                 _one(seconds.pop()) if len(seconds) == 1 else md.runs(
                     [r['wall_seconds'] for r in row['per_seed']], _one)])
  return rows


def learning_grid(name: str, envs=None) -> List[str]:
  """`learning_rows` of `name` as a table."""
  return md.table(['environment', 'agent', 'budget', 'target',
                   'scored by', 'median', 'per seed (0, 1, 2)',
                   'train s (the seeds\' program; compile included)'],
                  learning_rows(name, envs))


def plane_strike_presets() -> List[str]:
  suite = md.load('ppo_plane_strike_time_to_model.json')['time_to_model']
  strikes = [r['greedy_strikes_tflite'] for r in suite['runs']]
  rows = [['ppo', 'ppo_plane_strike', '1M steps', md.runs(strikes, _two),
           f'**{_two(md.median(strikes))}**',
           f'{_one(suite["median"]["train_seconds"])} (median; each seed '
           'alone)']]
  for row in md.load('plane_strike_presets_learning.json')['results']:
    strikes = row['tflite_greedy_strikes']
    rows.append([row['agent'], row['preset'], budget(row),
                 md.runs(strikes, _two), f'**{_two(md.median(strikes))}**',
                 f'{_one(row["median"]["wall_seconds"])} (3 seeds in one '
                 'program)'])
  order = ('ppo', 'a2c', 'dqn', 'reinforce')
  rows.sort(key=lambda r: order.index(r[0]))
  return md.table(['agent', 'preset', 'budget', 'exported model, greedy '
                   'strikes (seeds 0, 1, 2; 1000 games)', 'median',
                   'train s (compile included)'], rows)


# Plane Strike's scripted players, weakest first, as the table names them.
_PLAYERS = {'random_untried': 'a random untried cell',
            'hunt_and_target': 'hunt-and-target (weak reference, 0)',
            'bayes_greedy': 'greedy on the exact Bayesian posterior over '
                            'the 115 placements (strong reference, 1)'}


def plane_strike_players() -> List[str]:
  data = md.load('plane_strike_reference_players.json')
  rows = [[_PLAYERS[name], f'**{_two(p["mean"])}** ± '
           f'{num(p["standard_error"], 3)}', num(p['median']),
           f'{p["min"]}–{p["max"]}']
          for name, p in data['plane_strike_players'].items()]
  return md.table([f'player ({data["games"]:,} games each)',
                   'strikes per game, mean ± standard error', 'median',
                   'range'], rows)


def suites_random_play() -> List[str]:
  """Uniformly random play on the JAX suites' games: the weak reference
  of the ids whose adapter scores them (`REFERENCE_SCORES`)."""
  return random_play('suites_random_play.json')


def popgym_arcade_random_play() -> List[str]:
  """POPGym Arcade's random play, measured apart: its games draw images,
  so it plays fewer episodes."""
  return random_play('popgym_arcade_random_play.json')


def random_play(file: str) -> List[str]:
  """The random play in `file` (benchmarks/random_play.py's JSON), with
  each id's strong reference where it has one."""
  data = md.load(file)
  rows = []
  for name, play in data['random_play'].items():
    prefix, suite_id = suites.split(name)  # Not built: only its reference.
    reference = suites.SUITES[prefix].references.get(suite_id)
    # Three decimals below 10 (the references' precision), one above.
    digits = 3 if abs(play['mean_return']) < 10 else 1
    rows.append([f'`{name}`', f'{num(play["mean_return"], digits)} ± '
                 f'{num(play["standard_error"], digits)}',
                 num(play['mean_length']),
                 f'{reference.high_name} ({reference.high:g})'
                 if reference else 'none: raw returns'])
  return md.table(['id', f'random play, mean return ± standard error '
                   f'({data["episodes"]:,} episodes)', 'mean length',
                   'normalised 1 (0 is random play)'], rows)


def continuous_control() -> List[str]:
  rows = []
  for name in ('pendulum_learning.json', 'td3_pendulum_learning.json',
               'brax_inverted_pendulum_learning.json'):
    for row in md.load(name)['results']:
      key = _score_key(row)
      rows.append([
          row['env'], row['agent'], budget(row), _target(row['target']),
          _protocol(row), f'**{short(row["median"][key])}**',
          md.runs([r[key] for r in row['per_seed']], short),
          md.runs(row['tflite_greedy_return'], short),
          md.runs(row['tflite_max_abs_diff'], sci)])
  return md.table(['environment', 'agent', 'budget', 'target', 'scored by',
                   'median of 3', 'per seed (0, 1, 2)',
                   'exported model, greedy return '
                   '(its 10 check games)', 'max \\|TFLite − JAX\\|'], rows)


def dqn_classic_control() -> List[str]:
  rows = []
  for row in md.load('dqn_classic_control_learning.json')['results']:
    key = _score_key(row)
    values = [r[key] for r in row['per_seed']]
    rows.append([row['env'], row['preset'], budget(row),
                 _target(row['target']), _protocol(row),
                 f'**{short(row["median"][key])}**',
                 short(sum(values) / len(values)), md.runs(values, short),
                 _one(row['median']['wall_seconds'])])
  return md.table(['environment', 'preset', 'budget', 'target',
                   'scored by', 'median of 3', 'mean of 3',
                   'per seed (0, 1, 2)',
                   'train s (3 seeds in one program)'], rows)


def time_limits() -> List[str]:
  """Bootstrapping through time limits against stopping there."""
  rows = []
  data = md.load('time_limit_bootstrap_learning.json')
  for row in data['results']:
    arms = row['arms']
    on, off = arms['bootstrap'], arms['as_terminations']
    rows.append([
        row['env'], row['agent'], budget(row), _target(row['target']),
        _measured_protocol(data, row['env'], row['agent']),
        f'**{short(on["median_return"])}**',
        md.runs([r['eval_mean_return'] for r in on['per_seed']], short),
        f'**{short(off["median_return"])}**',
        md.runs([r['eval_mean_return'] for r in off['per_seed']], short),
        md.num(on['median_return'] - off['median_return'], 1, sign=True)])
  return md.table(['environment', 'agent', 'budget', 'target', 'scored by',
                   'bootstrapped: median of 3', 'per seed (0, 1, 2)',
                   'as terminations: median of 3', 'per seed (0, 1, 2)',
                   'difference of medians'], rows)


def memory_chain() -> List[str]:
  """A recurrent PPO against a feed-forward one, per memory length, on
  gymnax's MemoryChain (compiled loop)."""
  return _memory('memory_chain_learning.json')


def bsuite_memory_len() -> List[str]:
  """The same on bsuite's memory_len (Python loop)."""
  return _memory('bsuite_memory_len_learning.json')


def _memory(name: str) -> List[str]:
  rows = []
  data = md.load(name)
  for row in data['results']:
    cells = [str(row['memory_length']), budget(row)]
    for arm in ('lstm', 'feed_forward'):
      result = row['arms'][arm]
      cells += [f'**{short(result["median_return"])}**',
                md.runs([r['eval_mean_return'] for r in result['per_seed']],
                        short),
                f'{result["seeds_solved"]} of {len(result["per_seed"])}']
    rows.append(cells)
  return md.table(['memory length', f'budget (scored by: '
                   f'{_measured_protocol(data)})', 'LSTM: median of 3',
                   'per seed (0, 1, 2)', 'seeds solved (≥ 0.9)',
                   'feed-forward: median of 3', 'per seed (0, 1, 2)',
                   'seeds solved (≥ 0.9)'], rows)


def quantized() -> List[str]:
  models = [md.load('export_int8_dynamic.json'),
            md.load('export_float16.json')]
  float_model = models[0]
  checked = float_model.get('float_model', {})
  rows = [['float32', num(float_model['float_size_bytes']), '100%',
           _two(float_model['float_mean_episode_length']), '',
           sci(checked['max_abs_diff']) if checked else '',
           md.trimmed(checked['greedy_agreement'], 4) if checked else '']]
  for model, label in zip(models, ('int8 dynamic range '
                                   '(`--quantize=dynamic`)',
                                   'float16 (`--quantize=float16`)')):
    rows.append([label, num(model['size_bytes']),
                 f'{num(100 * model["size_ratio"], 1)}%',
                 _two(model['mean_episode_length']),
                 num(model['mean_episode_length_change'], 2, sign=True),
                 sci(model['max_abs_diff']),
                 md.trimmed(model['greedy_agreement'], 4)])
  return md.table(['model', 'bytes', 'of float', 'greedy mean strikes (1000 '
                   'games)', 'change vs float', 'max \\|p − p_jax\\|',
                   'greedy agreement with JAX'], rows)


def _save_restore(model: Dict[str, Any]) -> str:
  check = model.get('save_restore') or {}
  if not check.get('checked'):
    return 'not run'
  return (f'{"yes" if check["identical"] else "no"} '
          f'({check["interpreter"]})')


def trainable() -> List[str]:
  adam = md.load('export_trainable_adam.json')
  sgd = md.load('export_trainable_sgd.json')
  both = (adam, sgd)
  boards = ' / '.join(str(n) for n in adam['boards_per_step'])
  tune = adam['fine_tune']
  return md.table(
      ['figure', 'Adam', 'SGD'],
      [['model bytes'] + [num(m['size_bytes']) for m in both],
       ['on-device learning rate'] + [f'{m["learning_rate"]:g}'
                                      for m in both],
       ['max \\|`infer` − JAX\\|'] + [sci(m['infer_max_abs_diff'])
                                      for m in both],
       [f'weights after {adam["train_steps_checked"]} `train` calls '
        f'({boards} boards) against the same JAX steps, max difference '
        '(bar)'] + [f'{sci(m["weights_max_abs_diff"])} '
                    f'({sci(m["weights_tolerance"])})' for m in both],
       ['loss against JAX, max difference'] + [
           sci(m['loss_max_abs_diff']) for m in both],
       ['a fresh interpreter given the weights by `set_weights` infers the '
        'same'] + ['yes' if m['set_weights_reproduces_infer'] else 'no'
                   for m in both],
       ['after `train` and `save`, a fresh interpreter `restore`s and infers '
        'bit for bit the same (with Flex)'] + [_save_restore(m)
                                               for m in both],
       [f'fine-tuning: {tune["games"]} games ({tune["updates"]} `train` '
        f'calls), greedy strikes before → after ({tune["eval_games"]} '
        'games)', f'{num(tune["mean_episode_length_before"], 3)} → '
        f'{num(tune["mean_episode_length_after"], 3)}', 'not run']])


def seeds() -> List[str]:
  suite = md.load('seeds_in_one_program.json')['seeds']
  rows = []
  for key, med in suite['median'].items():
    speeds = [r['steps_per_second'] for r in suite['runs'][key]]
    rows.append([
        num(med['num_seeds']), num(med['steps_per_second']),
        md.runs(speeds, num), num(med['steps_per_second_per_seed']),
        f'{_two(med.get("total_speed_vs_1_seed", 1.0))}×',
        f'{_one(med["compile_seconds"])} s', mib(med['peak_memory_mib'])])
  return md.table(['seeds in one program', 'total env steps/s (median of '
                   '3)', 'runs', 'per seed', 'vs 1 seed', 'compile',
                   'peak memory'], rows)


def devices() -> List[str]:
  suite = md.load('loop_speed_and_devices.json')['devices']
  counts = sorted(suite['reinforce']['median'],
                  key=lambda k: int(k.split('_')[1]))
  rows = []
  for agent in ('reinforce', 'ppo'):
    med, run = suite[agent]['median'], suite[agent]['runs']
    speed = [num(med[c]['steps_per_second']) + (
        f' ({_two(med[c]["speed_vs_1_device"])}×)'
        if 'speed_vs_1_device' in med[c] else '') for c in counts]
    rows.append([f'{suite[agent]["setting"]}: env steps/s (median of 3)']
                + speed)
    rows.append(['runs'] + [md.runs([r['steps_per_second'] for r in run[c]],
                                    num) for c in counts])
    rows.append(['peak memory'] + [mib(med[c]['peak_memory_mib'])
                                   for c in counts])
  return md.table(['experiment'] + [f'D = {c.split("_")[1]}'
                                    for c in counts], rows)


def sweep() -> List[str]:
  data = md.load('sweep_as_one_program.json')
  s = data['sweep']
  runs = s['configurations'] * s['seeds']
  minutes = lambda v: f'{num(v)} s ({num(v / 60, 1)} min)'
  best = ', '.join(f'{k.replace("_", " ")} {v:g}'
                   for k, v in s['best']['values'].items())
  return md.table(
      ['figure', 'value'],
      [[f'**the whole sweep, {runs} runs × {num(s["steps_per_run"] / 1e6)}M '
        'steps, one program** (compile, periodic and final evaluations '
        'included)', f'**{minutes(s["one_program_seconds"])}**'],
       ['its compile', f'{_one(s["one_program_compile_seconds"])} s'],
       ['its training throughput, all lanes',
        f'{num(s["one_program_total_steps_per_second"])} steps/s'],
       [f'one run alone, same settings (median of '
        f'{s["single_runs_timed"]} timed, compile and evaluation included)',
        f'{_one(s["single_run_seconds_median"])} s'],
       [f'the {runs} runs one by one (that median × {runs}: an estimate, '
        'not all timed)', minutes(s['one_by_one_seconds_estimate'])],
       ['**speed-up of one program**', f'**{_one(s["speedup"])}×**'],
       ['peak memory of the benchmark process',
        f'{num(data["peak_memory_mib"] / 1024, 2)} GiB'],
       ['diverged lanes', str(s['diverged_lanes'])],
       [f'best configuration (mean greedy strikes of {s["seeds"]} seeds)',
        f'{best}: {_two(s["best"]["strikes"])}']])
