"""What the planning agents share: mctx's search, its settings, its targets.

AlphaZero (`agents.alphazero`) searches with the environment's own step as
its model, MuZero (`agents.muzero`) with one it learns; the rest is the
same and written here once:

* `SearchSettings`: the search's settings, and `PlanningSettings`: those
  and the learner's, declared once for both configs (each inherits them;
  MuZero's changes some defaults).
* `search`: mctx's search of a batch of roots with one key
  (`mctx.gumbel_muzero_policy`, or PUCT with Dirichlet noise,
  `mctx.muzero_policy`), the move it plays at each (with `random_moves`'
  exploration) and the extras the learner keeps: the search's improved
  policy and its root value. `search_each`: the same with one key per
  root, each root searched as it would be alone (AlphaZero's acting, one
  key per environment).
* `value_targets`: returns to the episode's end or n-step returns
  bootstrapped from the search's root values.
* `policy_loss`: the cross-entropy of a policy against the search's.
"""

import dataclasses
import functools
from typing import Any, Callable, Optional, Tuple

import chex
import jax
import jax.numpy as jnp
import mctx
import rlax

from agents import action_masking
from agents import agent as agent_lib
from agents import config_checks
from agents import minibatches
from agents import optimizers
from agents import returns as returns_lib

SEARCHES = ('gumbel', 'puct')
# The extras a search records per step (`search`).
SEARCH_POLICY, SEARCH_VALUE = 'search_policy', 'search_value'


@dataclasses.dataclass(frozen=True)
class SearchSettings:
  """The settings of a planning agent's search (its config inherits them).

  Attributes:
    num_simulations: search simulations per move (at least 2; Gumbel
      search improves the policy with as few as 4 to 16).
    search: 'gumbel' (Gumbel MuZero's search: sequential halving over
      sampled actions, a policy improvement target) or 'puct' (AlphaZero's
      PUCT search with Dirichlet noise at the root; the target is the
      visit counts).
    max_num_considered_actions: Gumbel search's actions sampled at the
      root.
    gumbel_scale: the scale of Gumbel search's root noise (0: none).
    dirichlet_alpha: PUCT's root noise concentration.
    dirichlet_fraction: PUCT's share of root noise in the prior.
    random_moves: the probability of playing a uniformly random legal
      move instead of the search's (exploration in self-play, whose games
      otherwise narrow to a few lines; the policy target stays the
      search's).
    value_scale: Gumbel search's c_scale (PUCT's search keeps mctx's own
      Q transform, min-max over parent and siblings): how sharply its improved
      policy follows the Q-values (σ(q) = (50 + max visits) · c_scale · q,
      `mctx.qtransform_completed_by_mix_value`).
    rescale_values: Gumbel search: min-max scale the Q-values over the
      tree before σ (mctx's default); False: σ of the Q-values as they are
      (a model that is still noise then sharpens its targets less).
  """
  num_simulations: int = 16
  search: str = 'gumbel'
  max_num_considered_actions: int = 16
  gumbel_scale: float = 1.0
  dirichlet_alpha: float = 0.3
  dirichlet_fraction: float = 0.25
  random_moves: float = 0.0
  value_scale: float = 0.1
  rescale_values: bool = True

  def check_search(self) -> None:
    """Raises ValueError naming the first bad search setting."""
    if (not isinstance(self.num_simulations, int) or
        isinstance(self.num_simulations, bool) or self.num_simulations < 2):
      raise ValueError(f'{type(self).__name__}.num_simulations must be an '
                       f'integer >= 2 (a search of one simulation only '
                       f'expands the root); got {self.num_simulations!r}.')
    config_checks.check_one_of(self, 'search', SEARCHES)
    config_checks.check_positive_integer(self, 'max_num_considered_actions')
    config_checks.check_unit_interval(self, 'dirichlet_fraction',
                                      'random_moves')
    config_checks.check_positive(self, 'dirichlet_alpha')
    config_checks.check_non_negative(self, 'gumbel_scale')
    config_checks.check_positive(self, 'value_scale')


@dataclasses.dataclass(frozen=True)
class PlanningSettings(SearchSettings, minibatches.MinibatchSettings):
  """A planning agent's settings: its search's (`SearchSettings`) and its
  learner's, epochs of minibatches over each batch of sequences (the
  defaults are AlphaZero's, for small board games on a CPU).

  Attributes:
    discount: γ, of the returns and of the search's backups (1 for board
      games).
    n_step: None: value targets are the returns to the episode's end
      (bootstrapped from the network's value where the unroll cuts an
      episode); n: n-step returns bootstrapped from the search's root
      values.
    learning_rate: Adam step size.
    learning_rate_decay_updates: if set, anneal the step size linearly to
      0 over this many updates.
    anneal_learning_rate: anneal over the run's step budget (the
      framework sets `learning_rate_decay_updates`).
    value_cost: weight of the value loss.
    max_grad_norm: clip gradients to this size (`gradient_clipping` says
      how).
    unroll_length: steps per sequence (T).
    batch_size: sequences per update (B): the environments acting (in a
      two-player game, self-playing).
    num_epochs: passes over each batch.
    num_minibatches: minibatches per epoch; must divide T·B.
  """
  discount: float = 1.0
  n_step: Optional[int] = None
  learning_rate: float = 1e-3
  learning_rate_decay_updates: Optional[int] = None
  anneal_learning_rate: bool = False
  value_cost: float = 1.0
  max_grad_norm: float = 1.0
  gradient_clipping: str = optimizers.gradient_clipping_setting()
  unroll_length: int = 16
  batch_size: int = 64
  num_epochs: int = 1
  num_minibatches: int = 4
  bootstrap_time_limits: bool = returns_lib.bootstrap_time_limits_setting()

  def check_planning(self) -> None:
    """Raises ValueError naming the first bad search or learner setting."""
    self.check_search()
    config_checks.check_positive_integer(
        self, 'unroll_length', 'batch_size', 'num_epochs', 'num_minibatches')
    if self.n_step is not None:
      config_checks.check_positive_integer(self, 'n_step')
    config_checks.check_unit_interval(self, 'discount')
    config_checks.check_positive(self, 'learning_rate', 'max_grad_norm')
    config_checks.check_non_negative(self, 'value_cost')
    self.check_minibatches()
    optimizers.check_gradient_clipping(self)


def _policy(config: SearchSettings, params: Any, key: jax.Array,
            root: mctx.RootFnOutput, recurrent_fn: mctx.RecurrentFn,
            legal: Optional[jax.Array], deterministic: bool
           ) -> mctx.PolicyOutput:
  """mctx's search of every root with one key (`search`'s arguments)."""
  invalid = None if legal is None else ~legal
  if config.search == 'gumbel':
    return mctx.gumbel_muzero_policy(
        params, key, root, recurrent_fn, config.num_simulations,
        invalid_actions=invalid,
        max_num_considered_actions=config.max_num_considered_actions,
        gumbel_scale=0.0 if deterministic else config.gumbel_scale,
        qtransform=_gumbel_qtransform(config))
  noise = {'dirichlet_fraction': 0.0, 'temperature': 0.0} if (
      deterministic) else {'dirichlet_fraction': config.dirichlet_fraction}
  return mctx.muzero_policy(
      params, key, root, recurrent_fn, config.num_simulations,
      invalid_actions=invalid, dirichlet_alpha=config.dirichlet_alpha,
      **noise)


def _gumbel_qtransform(config: SearchSettings) -> Callable[..., jax.Array]:
  return functools.partial(mctx.qtransform_completed_by_mix_value,
                           value_scale=config.value_scale,
                           rescale_values=config.rescale_values)


def _gumbel_policy_each(config: SearchSettings, params: Any, keys: jax.Array,
                        root: mctx.RootFnOutput,
                        recurrent_fn: mctx.RecurrentFn,
                        legal: Optional[jax.Array], deterministic: bool
                       ) -> mctx.PolicyOutput:
  """What `mctx.gumbel_muzero_policy` gives each root searched alone with
  its own key `keys[i]`, as one batched search.

  Gumbel search draws nothing but its root's Gumbel noise (its action
  selection is deterministic, and AlphaZero's model ignores the key it is
  passed), so the noise is drawn per root as a search of that root alone
  draws it, and mctx's search runs once over the batch; the action and the
  improved policy are then read off the tree as mctx's policy reads them
  (sequential halving's score among the most visited actions; the softmax
  of prior logits plus completed Q-values).
  """
  invalid = None if legal is None else ~legal
  logits = _masked_logits(root.prior_logits, invalid)
  root = root.replace(prior_logits=logits)
  search_keys, gumbel_keys = jnp.moveaxis(
      jax.vmap(jax.random.split)(keys), 1, 0)
  scale = 0.0 if deterministic else config.gumbel_scale
  # Each root's draw as its batch of one draws it.
  gumbel = scale * jax.vmap(lambda k: jax.random.gumbel(
      k, (1,) + logits.shape[1:], logits.dtype)[0])(gumbel_keys)
  qtransform = _gumbel_qtransform(config)
  tree = mctx.search(
      params, search_keys[0], root=root, recurrent_fn=recurrent_fn,
      root_action_selection_fn=functools.partial(
          mctx.gumbel_muzero_root_action_selection,
          num_simulations=config.num_simulations,
          max_num_considered_actions=config.max_num_considered_actions,
          qtransform=qtransform),
      interior_action_selection_fn=functools.partial(
          mctx.gumbel_muzero_interior_action_selection,
          qtransform=qtransform),
      num_simulations=config.num_simulations, invalid_actions=invalid,
      extra_data=mctx.GumbelMuZeroExtraData(root_gumbel=gumbel))
  visits = tree.summary().visit_counts
  completed_q = jax.vmap(qtransform, in_axes=(0, None))(tree, tree.ROOT_INDEX)
  # Sequential halving's choice: among the most visited actions, the best
  # Gumbel-perturbed logit plus Q (floored as mctx floors it).
  considered = visits == jnp.max(visits, axis=-1, keepdims=True)
  score = jnp.maximum(
      -1e9, gumbel + logits - jnp.max(logits, axis=-1, keepdims=True) +
      completed_q)
  score = jnp.where(considered, score, -jnp.inf)
  if invalid is not None:
    score = jnp.where(invalid, -jnp.inf, score)
  return mctx.PolicyOutput(
      action=jnp.argmax(score, axis=-1).astype(jnp.int32),
      action_weights=jax.nn.softmax(_masked_logits(logits + completed_q,
                                                   invalid)),
      search_tree=tree)


def _masked_logits(logits: jax.Array,
                   invalid: Optional[jax.Array]) -> jax.Array:
  """Logits shifted to a maximum of 0, the smallest float where `invalid`
  (finite, so that a softmax where every action is invalid stays finite),
  as mctx's policies mask them."""
  if invalid is None:
    return logits
  logits = logits - jnp.max(logits, axis=-1, keepdims=True)
  return jnp.where(invalid, jnp.finfo(logits.dtype).min, logits)


def _played(config: SearchSettings, action: jax.Array, weights: jax.Array,
            legal: Optional[jax.Array], explore_key: jax.Array,
            random_key: jax.Array, deterministic: bool) -> jax.Array:
  """`[n]` the moves played after a search of `n` roots that picked
  `action` with improved policy `weights`: the search's, or in self-play
  with probability `random_moves` a uniformly random legal one."""
  if deterministic:
    actions = (action if config.search == 'gumbel' else
               jnp.argmax(weights, axis=-1))
    return actions.astype(jnp.int32)
  if config.random_moves == 0:  # Nothing to draw (bernoulli(0) is False).
    return action.astype(jnp.int32)
  uniform = jax.random.categorical(
      random_key, jnp.zeros_like(weights) if legal is None else
      jnp.where(legal, 0.0, -jnp.inf))
  explore = jax.random.bernoulli(explore_key, config.random_moves,
                                 uniform.shape)
  return jnp.where(explore, uniform, action).astype(jnp.int32)


def _extras(output: mctx.PolicyOutput) -> agent_lib.Extras:
  """What the learner keeps of a search: its improved policy and root
  value."""
  return {SEARCH_POLICY: output.action_weights,
          SEARCH_VALUE: output.search_tree.summary().value}


def search(config: SearchSettings, params: Any, key: jax.Array,
           root: mctx.RootFnOutput, recurrent_fn: mctx.RecurrentFn,
           legal: Optional[jax.Array], deterministic: bool = False
          ) -> Tuple[jax.Array, agent_lib.Extras]:
  """`(actions [N], extras)`: one search per root (the model steps with
  `recurrent_fn`; `legal` bool `[N, A]` masks the root's moves, None: all
  are legal), the move it picks, or with probability
  `config.random_moves` a uniformly random legal one. The extras keep the
  search's improved policy (`SEARCH_POLICY`, `[N, A]`) and its root value
  (`SEARCH_VALUE`, `[N]`). Every root draws from the one `key`.

  `deterministic`: the search as played at evaluation (the `search`
  protocol): no root noise (Gumbel scale 0; PUCT without Dirichlet noise,
  playing its most visited move, the first of equals) and no random
  moves. Gumbel's is then independent of `key`; PUCT's tree still breaks
  ties between children by it.
  """
  key, explore_key, random_key = jax.random.split(key, 3)
  output = _policy(config, params, key, root, recurrent_fn, legal,
                   deterministic)
  return (_played(config, output.action, output.action_weights, legal,
                  explore_key, random_key, deterministic), _extras(output))


def search_each(config: SearchSettings, params: Any, keys: jax.Array,
                root: mctx.RootFnOutput, recurrent_fn: mctx.RecurrentFn,
                legal: Optional[jax.Array], deterministic: bool = False
               ) -> Tuple[jax.Array, agent_lib.Extras]:
  """`search` of each root alone, root i with its own key `keys[i]`: what
  `vmap` of `search` over batches of one root gives, so that a root's
  search and move do not depend on the other roots (an environment's
  games, not on how many environments act together). Gumbel search runs
  as one batch (`recurrent_fn` must then not draw from its key, which is
  shared); PUCT's, which draws from its key inside the tree, under
  `vmap`."""
  one = lambda tree: jax.tree.map(lambda x: x[None], tree)
  if config.search != 'gumbel':
    return jax.vmap(
        lambda key, root, legal: jax.tree.map(
            lambda x: x[0], search(config, params, key, one(root),
                                   recurrent_fn, one(legal), deterministic)),
        in_axes=(0, 0, None if legal is None else 0))(keys, root, legal)
  keys, explore_keys, random_keys = jnp.moveaxis(
      jax.vmap(lambda key: jax.random.split(key, 3))(keys), 1, 0)
  output = _gumbel_policy_each(config, params, keys, root, recurrent_fn,
                               legal, deterministic)
  # Each root's exploration as its batch of one draws it.
  actions = jax.vmap(
      lambda action, weights, legal, explore_key, random_key: _played(
          config, action[None], weights[None], one(legal), explore_key,
          random_key, deterministic)[0],
      in_axes=(0, 0, None if legal is None else 0, 0, 0))(
          output.action, output.action_weights, legal, explore_keys,
          random_keys)
  return actions, _extras(output)


def value_targets(trajectory: agent_lib.Trajectory, next_values: jax.Array,
                  discount: float, n_step: Optional[int]) -> jax.Array:
  """`[T, B]` value targets: returns to the episode's end (cut where the
  unroll ends by `next_values`' last row, the network's value there), or
  with `n_step` n-step returns bootstrapped from the search's root values
  (`extras[SEARCH_VALUE]`). A time limit bootstraps from the value of the
  observation it cut off (`returns.with_time_limit_values`); in a
  two-player game the discounts' signs turn each value to the mover's
  side."""
  rewards = returns_lib.with_time_limit_values(
      trajectory.rewards, trajectory, next_values, discount)
  discounts = returns_lib.continuation_discounts(trajectory, discount)
  if n_step is None:
    bootstrap = next_values
    per_sequence = lambda r, d, v: rlax.lambda_returns(r, d, v, 1.0)
  else:
    bootstrap = returns_lib.bootstrapped_values(
        trajectory.extras[SEARCH_VALUE], next_values[-1])
    per_sequence = lambda r, d, v: rlax.n_step_bootstrapped_returns(
        r, d, v, n_step)
  return jax.vmap(per_sequence, in_axes=1, out_axes=1)(rewards, discounts,
                                                       bootstrap)


def policy_loss(logits: jax.Array, legal: Optional[jax.Array],
                targets: jax.Array) -> Tuple[jax.Array, jax.Array]:
  """`(cross-entropy [...], the targets' entropy [...])` of policy
  `logits [..., A]` (illegal actions masked by `legal`, None: all legal)
  against the search's policy `targets [..., A]` (zero on illegal
  actions), per position."""
  chex.assert_equal_shape([logits, targets])
  log_probs = jax.nn.log_softmax(action_masking.mask_logits(logits, legal))
  cross_entropy = -jnp.sum(jnp.where(targets > 0, targets * log_probs, 0.0),
                           axis=-1)
  entropy = -jnp.sum(jnp.where(targets > 0, targets * jnp.log(
      jnp.maximum(targets, 1e-12)), 0.0), axis=-1)
  return cross_entropy, entropy

