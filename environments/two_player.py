"""Two-player games: how their cores read, and one player's game against
an opponent (what evaluation plays).

A two-player core is a `functional.FunctionalEnvironment` in which every
step is one player's move:

  * the observation is from the side of the player to move;
  * the reward is the mover's (zero-sum: the other player's is its
    negation);
  * the discount is -1 where the turn passes to the other player, 1 where
    the same player moves again and 0 where the game ends (a time limit
    keeps the turn's sign), so that a value seen
    from the mover's side backs up through `r + γ·d·v` (negamax, as mctx's
    two-player examples back values up);
  * the core has `num_players == 2`, `current_player(state)` (int32 0 or
    1) and `legal_action_mask(state)` (bool `[num_actions]`).

Agents that learn by self-play act for whoever is to move. Evaluation
plays one side against an `opponent` (`Versus`), so that its return is
+1 won, 0 drawn, -1 lost, and the mean return of many games their
balance. Which side the agent takes is drawn per game from its reset key,
so it moves first in about half of them.
"""

import re
from typing import Any, Callable, NamedTuple, Optional, Tuple

import dm_env
from dm_env import specs
import jax
import jax.numpy as jnp
import numpy as np

from environments import board_opponents
from environments import functional

DEFAULT_OPPONENT = 'random'
_MCTS = re.compile(r'mcts-(\d+)$')


def is_two_player(core: Any) -> bool:
  """Whether `core` is a two-player game (`num_players == 2`)."""
  return getattr(core, 'num_players', 1) == 2


def check_opponent(name: str, env_id: str) -> str:
  """`name` if it names an opponent for game `env_id`, else ValueError
  listing the valid ones: `random`, `mcts-<N>` (N >= 2) and, for
  tic-tac-toe, `minimax`."""
  valid = ['random', 'mcts-<N> (N >= 2 simulations)']
  if env_id in board_opponents.PERFECT_PLAYERS:
    valid.append('minimax')
  match = _MCTS.match(name) if isinstance(name, str) else None
  if (name == 'random' or (match and int(match.group(1)) >= 2) or
      (name == 'minimax' and env_id in board_opponents.PERFECT_PLAYERS)):
    return name
  raise ValueError(f'opponent: {name!r} is not an opponent for {env_id}; '
                   f'valid: {", ".join(valid)} (e.g. '
                   f'--env_config.opponent=mcts-32).')


def opponent_policy(core: Any, name: str
                   ) -> Callable[[jax.Array, Any, jax.Array], jax.Array]:
  """`(key, state, observation) -> action` of opponent `name` (checked by
  `check_opponent`) in `core`."""
  match = _MCTS.match(name)
  if match:
    return board_opponents.mcts(core, int(match.group(1)))
  if name == 'minimax':
    return board_opponents.PERFECT_PLAYERS[core.env_id]()
  return board_opponents.random_legal(core)


class VersusState(NamedTuple):
  """The game, the agent's side and the opponent's next key."""
  game: Any
  agent_player: jax.Array  # int32 [], 0 or 1.
  key: jax.Array


class Versus:
  """One player's game against an opponent, as a one-player core.

  A step is the agent's move and then the opponent's replies until the
  agent is to move again or the game ends; its reward is the agent's
  (its own move's, less the opponent's). Observations are the agent's.
  """

  def __init__(self, core: Any, opponent: str,
               policy: Optional[Callable[[jax.Array, Any, jax.Array],
                                         jax.Array]] = None):
    """`opponent`: the opponent's name (`check_opponent`'s, or any name
    for a given `policy`, `(key, game state, observation) -> action`)."""
    self.core = core
    self.opponent = opponent
    self._policy = policy or opponent_policy(core, opponent)
    if hasattr(core, 'legal_actions'):
      self.legal_actions = core.legal_actions

  @property
  def max_episode_steps(self) -> int:
    """The game's bound (the agent makes fewer of its moves)."""
    return self.core.max_episode_steps

  def _replies(self, state: VersusState, timestep: dm_env.TimeStep,
               reward: jax.Array) -> Tuple[VersusState, dm_env.TimeStep]:
    """The opponent's moves until the agent is to move or the game ends;
    the timestep of the last move, with the agent's `reward` of them all."""

    def opponent_to_move(carry):
      state, timestep, _ = carry
      return ((timestep.step_type != functional.LAST) &
              (self.core.current_player(state.game) != state.agent_player))

    def reply(carry):
      state, timestep, reward = carry
      key, move_key = jax.random.split(state.key)
      action = self._policy(move_key, state.game, timestep.observation)
      game, timestep = self.core.step(state.game, action)
      return (VersusState(game, state.agent_player, key), timestep,
              reward - timestep.reward)

    return jax.lax.while_loop(opponent_to_move, reply,
                              (state, timestep, reward))

  def reset(self, key: jax.Array) -> Tuple[VersusState, dm_env.TimeStep]:
    game_key, side_key, opponent_key = jax.random.split(key, 3)
    game, timestep = self.core.reset(game_key)
    first = self.core.current_player(game)
    agent_player = jnp.where(jax.random.bernoulli(side_key), first,
                             1 - first).astype(jnp.int32)
    state, timestep, _ = self._replies(
        VersusState(game, agent_player, opponent_key), timestep,
        jnp.zeros((), jnp.float32))
    return state, functional.restart(timestep.observation)

  def step(self, state: VersusState,
           action: jax.Array) -> Tuple[VersusState, dm_env.TimeStep]:
    game, timestep = self.core.step(state.game, action)
    state, timestep, reward = self._replies(state._replace(game=game),
                                            timestep, timestep.reward)
    last = timestep.step_type == functional.LAST
    return state, functional.transition(
        reward, timestep.observation, last & (timestep.discount == 0),
        last & (timestep.discount != 0))

  def model_state(self, state: VersusState) -> Any:
    """The game's own state within `state` (what an agent searching with
    the game's step searches from)."""
    return state.game

  def observation_spec(self) -> specs.Array:
    return self.core.observation_spec()

  def action_spec(self) -> specs.Array:
    return self.core.action_spec()

  def reward_spec(self) -> specs.Array:
    return self.core.reward_spec()

  def discount_spec(self) -> specs.BoundedArray:
    return specs.BoundedArray((), np.float32, 0.0, 1.0, name='discount')


def evaluation_core(core: Any) -> Any:
  """What evaluation plays of `core`: a two-player game against its
  `opponent` (`core.versus()`), any other game as it is."""
  return core.versus() if is_two_player(core) else core
