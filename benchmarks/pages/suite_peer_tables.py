"""The tables of docs/benchmarks/speed.md that put ours beside a JAX
suite's own baseline (Navix's PPO, Craftax_Baselines' PPO, Jumanji's
A2C, XLand-MiniGrid's recurrent PPO, POPGym Arcade's PPO): per game,
training speed per round, compile time and the return each ended with."""

import functools
from typing import Any, Dict, Iterator, List, Tuple

from benchmarks.pages import markdown as md
from benchmarks.pages import peer_tables

_two = functools.partial(md.num, digits=2)
_one = functools.partial(md.num, digits=1)


def _measured(json_name: str, suite: str) -> Iterator[Tuple[str, dict]]:
  """`(name, part)` of each measured part of `suite` in `json_name` (its
  other keys say how it was measured)."""
  for name, part in md.load(json_name)[suite].items():
    if isinstance(part, dict) and 'median' in part:
      yield name, part


def _both_arithmetics(part: dict, peer: str) -> List[str]:
  """The speed cells of a part measured with both our arithmetics beside
  `peer`: each of ours and its ratio over the peer, the peer's, and the
  compile seconds of ours and the peer's."""
  speed = functools.partial(peer_tables.speed_cell, part)
  ratio = functools.partial(peer_tables.ratio_cell, part, peer)
  med = part['median']
  return [speed('ours'), ratio('ours'), speed('ours_bootstrapping'),
          ratio('ours_bootstrapping'), speed(peer),
          f'{_one(med["ours"]["compile_seconds"])} / '
          f'{_one(med[peer]["compile_seconds"])}']


def _returns(part: dict, who: str, key: str) -> str:
  """`who`'s `key` return in each round of `part`."""
  return md.runs([r[key] for r in part['runs'][who]], _two)


def navix_ppo() -> List[str]:
  """Each Navix game: both our arithmetics and Navix's PPO, their speed
  and ours over Navix's per round, compile time, greedy returns."""
  rows = []
  for game, part in _measured('navix_ppo_peers_speed.json',
                              'peers_navix_ppo'):
    returns = functools.partial(_returns, part, key='greedy_return')
    training = md.runs([r['training_return']['mean']
                        for r in part['runs']['navix']], _two)
    rows.append([
        f'`navix:{game}`', *_both_arithmetics(part, 'navix'),
        f'ours {returns("ours")}; default {returns("ours_bootstrapping")}; '
        f'Navix {returns("navix")} (its last training episodes '
        f'{training})'])
  return md.table(['game', 'ours, time limits as ends: steps/s, median '
                   '(rounds)', 'over Navix, median (rounds)',
                   'ours, bootstrapping (default): steps/s', 'over Navix',
                   'Navix `PPO.train`: steps/s', 'compile s, ours / Navix',
                   'greedy return after training, rounds'], rows)


def _sized_speed_cells(part: Dict[str, Any], game: str, size: str,
                       peer: str) -> List[str]:
  """A game's cells at one network size: the game, the size, the steps,
  our speed, ours over `peer`'s per round, its speed, both compile
  times."""
  med = part['median']
  return [game, size, md.num(part['steps'], 0),
          peer_tables.speed_cell(part, 'ours'),
          peer_tables.ratio_cell(part, peer, 'ours'),
          peer_tables.speed_cell(part, peer),
          f'{_one(med["ours"]["compile_seconds"])} / '
          f'{_one(med[peer]["compile_seconds"])}']


def craftax_ppo(recurrent: bool = False) -> List[str]:
  """Each Craftax game and network width: ours (with Craftax_Baselines'
  arithmetic) and its PPO (`recurrent`: its recurrent PPO), their speed
  and ours over its per round, compile time, and the returns after
  training by the same protocol."""
  rows = []
  name = 'craftax_ppo_rnn' if recurrent else 'craftax_ppo'
  for _, part in _measured(f'{name}_peers_speed.json', f'peers_{name}'):
    run = part['runs']
    policy = run['ours'][0]['eval_policy']
    theirs = f'{policy}_return'
    width = ('512 (its own)' if part['width'] == 512
             else f'{part["width"]} (its `--layer_size`)')
    rows.append([
        *_sized_speed_cells(part, f'`craftax:{part["env_id"]}`', width,
                            'craftax_baselines'),
        f'ours {md.runs([r["eval_return"] for r in run["ours"]], _two)}; '
        f'theirs {md.runs([r[theirs] for r in run["craftax_baselines"]], _two)}'
        f' ({policy})'])
  layers = 'embedding, GRU, heads' if recurrent else '3 layers'
  return md.table(['game', f'width ({layers})', 'steps', 'ours: steps/s, '
                   'median (rounds)', 'over Craftax_Baselines, median '
                   '(rounds)', 'Craftax_Baselines `make_train`: steps/s',
                   'compile s, ours / theirs', 'return of 100 episodes '
                   'after training, rounds'], rows)


def jumanji_a2c() -> List[str]:
  """Jumanji's Maze: both our arithmetics and Jumanji's A2C, their speed
  and ours over Jumanji's per round, compile time, greedy returns."""
  rows = []
  for env, part in _measured('jumanji_a2c_peers_speed.json',
                             'peers_jumanji_a2c'):
    ours = functools.partial(_returns, part, key='eval_return')
    rows.append([
        f'`{env}`', md.num(part['median']['jumanji']['env_steps'], 0),
        *_both_arithmetics(part, 'jumanji'),
        f'ours {ours("ours")}; default {ours("ours_bootstrapping")}; '
        f'Jumanji {_returns(part, "jumanji", "greedy_return")}'])
  return md.table(['task', 'steps', 'ours, time limits as ends: steps/s, '
                   'median (rounds)', 'over Jumanji, median (rounds)',
                   'ours, bootstrapping (default): steps/s', 'over Jumanji',
                   'Jumanji\'s A2C: steps/s', 'compile s, ours / Jumanji',
                   'greedy return of 100 episodes after training, rounds'],
                  rows)


def xminigrid_ppo(json_name: str = 'xminigrid_ppo_peers_speed.json'
                  ) -> List[str]:
  """Each XLand-MiniGrid game and GRU size in `json_name`: ours (with the
  script's arithmetic) and its recurrent PPO, their speed and ours over its
  per round, compile time, and the returns after training by its
  protocol."""
  rows = []
  for _, part in _measured(json_name, 'peers_xminigrid_ppo'):
    size = ('1,024 (its own)' if part['width'] == 1024
            else f'{part["width"]} (its `rnn_hidden_dim`)')
    game = f'`xminigrid:{part["env_id"]}`'
    if 'benchmark_id' in part:  # An XLand grid: the ruleset it played.
      game += f' (`{part["benchmark_id"]}` ruleset {part["ruleset_id"]})'
    rows.append([
        *_sized_speed_cells(part, game, size, 'xminigrid'),
        f'ours {_returns(part, "ours", "eval_return")}; theirs '
        f'{_returns(part, "xminigrid", "final_eval_return")}'])
  return md.table(['game', 'GRU', 'steps', 'ours: steps/s, median '
                   '(rounds)', 'over XLand-MiniGrid\'s, median (rounds)',
                   '`train_single_task.py`: steps/s',
                   'compile s, ours / theirs', 'return of 80 sampled '
                   'episodes after training, rounds'], rows)


def popgym_arcade_ppo() -> List[str]:
  """Each POPGym Arcade game: ours (with its arithmetic) and its PPO,
  their speed and ours over its per round, compile time, greedy returns
  after training."""
  rows = []
  for game, part in _measured('popgym_arcade_ppo_peers_speed.json',
                              'peers_popgym_arcade_ppo'):
    med = part['median']
    training = md.runs([r['training_return']['mean']
                        for r in part['runs']['popgym_arcade']], _two)
    rows.append([
        f'`popgym_arcade:{game}`', md.num(med['ours']['env_steps'], 0),
        peer_tables.speed_cell(part, 'ours'),
        peer_tables.ratio_cell(part, 'popgym_arcade', 'ours'),
        peer_tables.speed_cell(part, 'popgym_arcade'),
        f'{_one(med["ours"]["compile_seconds"])} / '
        f'{_one(med["popgym_arcade"]["compile_seconds"])}',
        f'ours {_returns(part, "ours", "eval_return")}; theirs '
        f'{_returns(part, "popgym_arcade", "greedy_return")} (its last '
        f'training episodes {training})'])
  return md.table(['game', 'steps', 'ours, time limits as ends: steps/s, '
                   'median (rounds)', 'over POPGym Arcade\'s, median '
                   '(rounds)', 'its `make_train`: steps/s',
                   'compile s, ours / theirs', 'greedy return of 32 '
                   'episodes after training, rounds'], rows)
