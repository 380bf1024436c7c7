"""`vmap` over the compiled loop's lanes, skipped when there is one lane.

Under `vmap`, a lane's gathers (PPO's minibatch shuffles), scans and
random-number calls gain a batch dimension, and XLA on CPU runs them
markedly slower even when that dimension has size 1 (PPO on gymnax
CartPole: about a quarter of the update's time in an ad-hoc profile). A
single lane is therefore run as itself, with its axis removed and put back:
the same function of the same values.

A loop over updates carries one lane without its axis (`loop_carry`):
taking the axis off and putting it back at every iteration made XLA copy
the whole carry at each one (a DQN replay of 100,000 transitions: about
3.5 ms per update, 60 times the update itself).

Lanes are mapped over the named axis `agents.lanes.LANES`, so that a loop
inside can agree on a trip count for all lanes (`lanes.any_lane`) rather
than run under a per-lane predicate, which makes XLA select every lane's
whole carry (episode buffers included) at every iteration.
"""

from typing import Any, Callable, Tuple

import jax

from agents import lanes


def _one_lane(tree: Any) -> bool:
  """True if every leaf of `tree` leads with a lane axis of size 1."""
  return {x.shape[0] for x in jax.tree.leaves(tree)} == {1}


def map_lanes(fn: Callable[..., Any]) -> Callable[..., Any]:
  """`fn` over the leading (lane) axis of every argument leaf."""

  def mapped(*args: Any) -> Any:
    if _one_lane(args):
      out = fn(*jax.tree.map(lambda x: x[0], args))
      return jax.tree.map(lambda x: x[None], out)
    return jax.vmap(fn, axis_name=lanes.LANES)(*args)

  return mapped


def loop_carry(tree: Any) -> Tuple[Callable[[Any], Any], Callable[[Any], Any]]:
  """`(into, out_of)`: the carry form of lane-led trees shaped as `tree`,
  and back.

  With one lane the carry drops the lane axis, so that a loop carrying it
  (`lax.while_loop` over updates) adds it back only inside its body and
  XLA can update the carry in place; with several the carry is the tree.
  """
  if not _one_lane(tree):
    return (lambda t: t), (lambda t: t)
  return (lambda t: jax.tree.map(lambda x: x[0], t),
          lambda t: jax.tree.map(lambda x: x[None], t))
