"""Games between a run's kept checkpoints, and against the game's
opponents: what an Elo ladder is fitted to (`experiments.ladder`).

Each checkpoint plays as the run's agent acts in evaluation, by a
protocol (`loops.evaluation`): a greedy policy meets another greedy one
in the same two games every time (one per side), so a ladder's games are
sampled from the policies by default. The agent's side is drawn per game,
as in evaluation against an opponent (`environments.two_player.Versus`).
"""

import dataclasses
from typing import Any, Callable, Dict, List, Optional, Tuple

import jax
import numpy as np

from environments import two_player
from experiments.driver import run as driver
from experiments.driver import workdir as workdir_lib
from experiments.loops import evaluation
from experiments.setup import build as build_lib
from experiments.storage import checkpointing


# A player's games won, drawn and lost against another.
Outcomes = Tuple[int, int, int]


@dataclasses.dataclass(frozen=True)
class Players:
  """A run's checkpoints of one seed, ready to play.

  Attributes:
    built: the run's agent, environment spec and config.
    core: the two-player game's core (both sides' moves).
    seed_index: which of the run's seeds plays.
    params: `{step: actor params}`, one per kept checkpoint, oldest first
      (empty until `restore`).
  """
  built: build_lib.Built
  core: Any
  seed_index: int
  params: Dict[int, Any]


def checkpoint_steps(workdir: str) -> List[int]:
  """The steps of `workdir`'s checkpoints, oldest first."""
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir), max_to_keep=None)
  try:
    return checkpointer.steps()
  finally:
    checkpointer.close()


def players(workdir: str, seed: Optional[int] = None) -> Players:
  """The run in `workdir` (`seed`: which seed of a several-seed run;
  default the run's), its checkpoints not yet restored (`restore`).

  Raises:
    build_lib.ExperimentError: no run, not a two-player game, fewer than
      two checkpoints, or a seed the run lacks (each named with what to
      do).
  """
  try:
    config = workdir_lib.load_config(workdir)
  except (FileNotFoundError, ValueError) as e:  # ExperimentError included.
    raise build_lib.ExperimentError(f'--workdir: {e}') from e
  built = build_lib.build(config)
  if built.environment_spec.num_players != 2:
    raise build_lib.ExperimentError(
        f'--workdir {workdir!r} trained on {config.env}, a one-player game: '
        f'a ladder rates the checkpoints of a two-player game, which play '
        f'each other.')
  steps = checkpoint_steps(workdir)
  if len(steps) < 2:
    raise build_lib.ExperimentError(
        f'--workdir {workdir!r} keeps {len(steps)} checkpoint(s): a ladder '
        f'needs several. Train with --keep_checkpoints=0 (keep every one) '
        f'and --checkpoint_every_updates=N (one every N updates).')
  seeds = build_lib.seeds(config)
  seed = config.seed if seed is None else seed
  if seed not in seeds:
    raise build_lib.ExperimentError(
        f'--seed: {seed} is not one of this run\'s seeds {seeds}.')
  return Players(built, config.environment.core(**config.env_kwargs),
                 seeds.index(seed), {step: None for step in steps})


def restore(players_: Players, workdir: str) -> Players:
  """`players_` with every checkpoint's actor params, restored into one
  loop one after another.

  Raises:
    checkpointing.CheckpointError: a checkpoint that does not restore
      (named).
  """
  loop = build_lib.make_loop(players_.built)
  checkpointer = checkpointing.Checkpointer(
      workdir_lib.checkpoint_directory(workdir), max_to_keep=None)
  params = {}
  try:
    for step in players_.params:
      driver.restore(loop, checkpointer, step=step)
      params[step] = loop.actor_params(players_.seed_index)
  finally:
    checkpointer.close()
  return dataclasses.replace(players_, params=params)


def _mover(built: build_lib.Built, protocol: evaluation.Protocol
          ) -> Callable[[Any], Callable[[jax.Array, Any, jax.Array],
                                        jax.Array]]:
  """`params -> (key, game state, observation) -> action`: a checkpoint
  as an opponent, acting by `protocol`."""
  def mover(params):
    def move(key, state, observation):
      actions, _ = evaluation.protocol_step(
          built.agent, built.environment_spec, protocol, params,
          observation[None], key[None],
          model_states=jax.tree.map(lambda x: x[None], state))
      return actions[0]
    return move
  return mover


def _outcomes(returns: np.ndarray) -> Outcomes:
  returns = np.asarray(returns)
  return (int(np.sum(returns > 0)), int(np.sum(returns == 0)),
          int(np.sum(returns < 0)))


def play_all(players: Players, games: int, opponents: Tuple[str, ...],
             protocol: evaluation.Protocol, seed: int = 0
            ) -> Dict[Tuple[str, str], Outcomes]:
  """`games` games of every pair of checkpoints (named `step <n>`) and of
  each checkpoint against each of `opponents` (`two_player.
  check_opponent`'s names): `{(a, b): a's games won, drawn, lost}`."""
  built, core = players.built, players.core
  agent, spec = built.agent, built.environment_spec
  mover = _mover(built, protocol)

  @jax.jit
  def against_checkpoint(params, other, key):
    versus = two_player.Versus(core, 'checkpoint', mover(other))
    return evaluation.core_episodes(versus, agent, spec, params, key, games,
                                    protocol)[0]

  def against_opponent(name):
    versus = two_player.Versus(core, name)
    return jax.jit(lambda params, key: evaluation.core_episodes(
        versus, agent, spec, params, key, games, protocol)[0])

  steps = sorted(players.params)
  results = {}
  key = jax.random.PRNGKey(seed)
  for i, a in enumerate(steps):
    for b in steps[i + 1:]:
      key, match_key = jax.random.split(key)
      results[(f'step {a}', f'step {b}')] = _outcomes(against_checkpoint(
          players.params[a], players.params[b], match_key))
  for name in opponents:
    play = against_opponent(two_player.check_opponent(name, core.env_id))
    for step in steps:
      key, match_key = jax.random.split(key)
      results[(f'step {step}', name)] = _outcomes(
          play(players.params[step], match_key))
  return results
