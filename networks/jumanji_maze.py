"""Jumanji's Maze network: the maze drawn as an image, read by convolutions.

Jumanji's A2C baseline gives each task a network of its own (its
`jumanji.training.networks`). Maze's, rebuilt here in Haiku on the vector
`jumanji:Maze-v0` observes (`environments.jumanji_adapter` flattens
Maze's `Observation` as a pytree, its fields by name, the mask last: the
agent's row and column, the step count, the target's row and column, the
G x G walls, then the four moves' legal mask):

  * the walls as a `[G, G, 1]` image, 1 on a wall, the agent's cell 2 and
    the target's 3 (Jumanji's `process_observation`);
  * 3 x 3 convolutions (32, 32 and 8 channels, ReLU, 'SAME'), flattened,
    with the step count over the time limit (G², Maze's) appended;
  * a policy MLP (64, 64) and a value MLP (128, 128), ReLU, each on a
    torso of its own: the actor and the critic share no parameters.
    `--hidden_sizes` sets the policy MLP's widths; the value MLP's are
    twice them, Jumanji's ratio on its grid tasks.

The convolutions are `conv.PatchConv2D` (`hk.Conv2D`'s parameters and
arithmetic as one matrix product: XLA on a CPU runs a convolution's
gradient tens of times slower inside a loop body than alone), the dense
layers Haiku's, as Jumanji's. The agent masks illegal moves (the
environment's `legal_actions`), where Jumanji's network does.
"""

import math
from typing import Optional, Sequence, Tuple

import haiku as hk
import jax
import jax.numpy as jnp

from networks import conv

# Where each part of the observation vector starts: the agent's (row,
# col), the step count, the target's (row, col), then the walls; the four
# moves' mask after them.
_AGENT, _STEPS, _TARGET, _WALLS = 0, 2, 3, 5
_MASK = 4
CHANNELS = (32, 32, 8)
POLICY_LAYERS = (64, 64)
AGENT, TARGET = 2.0, 3.0


def grid_size(observation_shape: Sequence[int]) -> int:
  """G of a Maze observation of `observation_shape` (`[9 + G²]`), or
  ValueError naming the shape."""
  size = observation_shape[0] if len(observation_shape) == 1 else -1
  side = math.isqrt(max(size - _WALLS - _MASK, 0))
  if size < 0 or side < 2 or side * side != size - _WALLS - _MASK:
    raise ValueError(
        'The Jumanji Maze network reads jumanji:Maze-v0\'s observation, a '
        f'vector of 9 + G² floats (109 for its 10 x 10 maze); got shape '
        f'{tuple(observation_shape)}. Pick another --network for this '
        'environment.')
  return side


def maze_image(observations: jax.Array, side: int) -> jax.Array:
  """`[N, 9 + G²]` observations -> `[N, G, G, 1]`: walls 1, the agent 2,
  the target 3."""
  n = observations.shape[0]
  walls = observations[:, _WALLS:_WALLS + side * side]
  cells = jnp.arange(side * side)

  def cell(row_col: jax.Array) -> jax.Array:
    row_col = jnp.round(row_col).astype(jnp.int32)
    return (row_col[:, 0] * side + row_col[:, 1])[:, None]

  agent = cell(observations[:, _AGENT:_AGENT + 2]) == cells
  target = cell(observations[:, _TARGET:_TARGET + 2]) == cells
  image = jnp.where(agent, AGENT, jnp.where(target, TARGET, walls))
  return image.reshape(n, side, side, 1)


def make_maze_actor_critic_network(
    num_actions: int, side: int,
    policy_layers: Optional[Sequence[int]] = None,
    channels: Sequence[int] = CHANNELS) -> hk.Transformed:
  """Jumanji's A2C network for Maze (the module docstring).

  Args:
    num_actions: 4 (Maze's moves).
    side: G, the maze's rows (and columns).
    policy_layers: the policy MLP's hidden widths, default (64, 64); the
      value MLP's are twice them.
    channels: the convolutions' output channels.

  Returns:
    `apply(params, observations [N, 9 + G²]) -> (logits [N, A], values
    [N])`.
  """
  policy_layers = tuple(policy_layers or POLICY_LAYERS)
  value_layers = tuple(2 * width for width in policy_layers)
  time_limit = float(side * side)

  def branch(observations: jax.Array, layers: Tuple[int, ...],
             outputs: int, name: str) -> jax.Array:
    x = maze_image(observations, side)
    for i, c in enumerate(channels):
      x = jax.nn.relu(conv.PatchConv2D(c, 3, 1, 'SAME',
                                       name=f'{name}_conv_{i}')(x))
    steps = observations[:, _STEPS:_STEPS + 1] / time_limit
    x = jnp.concatenate([hk.Flatten()(x), steps], axis=-1)
    return hk.nets.MLP(layers + (outputs,), name=f'{name}_mlp')(x)

  def forward(observations: jax.Array) -> Tuple[jax.Array, jax.Array]:
    observations = observations.astype(jnp.float32)
    logits = branch(observations, policy_layers, num_actions, 'policy')
    values = branch(observations, value_layers, 1, 'value')[..., 0]
    return logits, values

  return hk.without_apply_rng(hk.transform(forward))
