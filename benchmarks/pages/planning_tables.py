"""The tables of the planning agents in docs/benchmarks/learning.md:
AlphaZero (Catch, tic-tac-toe against a perfect player, connect four
against MCTS, Plane Strike by posterior sampling) and MuZero beside PPO."""

from typing import List

from benchmarks.pages import markdown as md
from benchmarks.pages import result_tables


def _two(value: float) -> str:
  return md.num(value, 2)


def _one(value: float) -> str:
  return md.num(value, 1)


def alphazero_catch() -> List[str]:
  """AlphaZero's row of the learning grid (Catch)."""
  return result_tables.learning_grid('alphazero_catch_learning.json')


def alphazero_tic_tac_toe() -> List[str]:
  """Each seed of `benchmarks.self_play`: games against the perfect
  player and the exact audit of its policy."""
  data = md.load('alphazero_tic_tac_toe_learning.json')
  rows = []
  for seed in data['alphazero_tic_tac_toe']:
    missed = '; '.join(
        f'{_board(m["board"])}: played {m["played"]}, best '
        f'{", ".join(map(str, m["best"]))}' for m in seed['suboptimal'])
    rows.append([str(seed['seed']), f'{seed["won"]} / {seed["drawn"]} / '
                 f'**{seed["lost"]}**', str(seed['positions']),
                 f'**{len(seed["suboptimal"])}**' + (
                     f' ({missed})' if missed else '')])
  return md.table(['seed', f'won / drawn / lost of '
                   f'{data["alphazero_tic_tac_toe"][0]["games"]} games',
                   'positions met against every perfect line',
                   'suboptimal moves there'], rows)


def alphazero_connect_four() -> List[str]:
  """Each seed of `benchmarks.connect_four`: games against mcts-200 by
  search and by the network alone, and the score (won + ½ drawn)."""
  data = md.load('alphazero_connect_four_learning.json')
  seeds = data['alphazero_connect_four']
  ways = ('search', 'deep_search', 'greedy')
  rows = []
  for seed in seeds:
    rows.append([str(seed['seed'])] + [
        f'{seed[way]["won"]} / {seed[way]["drawn"]} / {seed[way]["lost"]}'
        f' — **{_score(seed[way]["score"])}**' for way in ways])
  rows.append(['median'] + [
      f'**{_score(md.median([s[way]["score"] for s in seeds]))}**'
      for way in ways])
  games = seeds[0]['search']['games']
  simulations = data['settings']['agent_config']['num_simulations']
  return md.table(['seed', f'by search, {simulations} simulations (as '
                   f'trained): won / drawn / lost of {games} games — score',
                   f'by search, {data["deep_simulations"]} simulations',
                   'greedy (the network alone, as exported)'], rows)


def _score(share: float) -> str:
  return f'{100 * share:.1f}%'


def _board(cells: List[int]) -> str:
  """A tic-tac-toe board from the mover's side, rows split by '/' (x the
  mover's marks, o the opponent's)."""
  marks = ''.join('.xo'[c] for c in cells)
  return f'`{marks[:3]}/{marks[3:6]}/{marks[6:]}`'


def alphazero_plane_strike() -> List[str]:
  """AlphaZero on Plane Strike (search over posterior planes): each seed's
  exported model and its greedy play in JAX."""
  rows = []
  for row in md.load('alphazero_plane_strike_learning.json')['results']:
    strikes = row['tflite_greedy_strikes']
    rows.append([row['agent'], row['preset'], result_tables.budget(row),
                 md.runs([r['eval_mean_episode_length']
                          for r in row['per_seed']], _two),
                 md.runs(strikes, _two), f'**{_two(md.median(strikes))}**',
                 _one(row['median']['wall_seconds'])])
  return md.table(['agent', 'preset', 'budget', 'greedy strikes in JAX '
                   '(seeds 0, 1, 2; 1000 games)', 'exported model, greedy '
                   'strikes (1000 games)', 'median (exported)',
                   'train s (the seeds\' program; compile included)'], rows)


def muzero_learning() -> List[str]:
  """MuZero beside PPO at the same budget (Catch, Breakout-MinAtar), and
  on Plane Strike; each row's agent with its preset."""
  rows = []
  for name in ('muzero_catch_learning.json',
               'muzero_breakout_minatar_learning.json',
               'muzero_plane_strike_learning.json'):
    for row, data in zip(result_tables.learning_rows(name),
                         md.load(name)['results']):
      row[1] = f'{row[1]} (`{data["preset"]}`)'
      rows.append(row)
  return md.table(['environment', 'agent (preset)', 'budget', 'target',
                   'scored by', 'median', 'per seed (0, 1, …)',
                   'train s (the seeds\' program; compile included)'], rows)
