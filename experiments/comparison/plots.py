"""Figures of an agent comparison for a paper: learning curves and rliable's
panels, each written as a 300-dpi PNG and a PDF.

Each figure is built by a `*_figure` function (a `Figure`, to inspect or
save) and written by the function of the same name without `_figure`.
Figures use matplotlib's object API (`Figure`, never pyplot): no global
figure state to leak or close, and no display needed. Names are for people
(`environments.registry.title`, `agents.registry.title`), the axis says when
lower is better, and a caption under the legend says what the lines and
intervals are and over how many seeds. Style and output: `figure_style`
(which also says when matplotlib is imported).
"""

from __future__ import annotations

import types
from typing import List, Mapping, Optional, Sequence, Tuple
from typing import TYPE_CHECKING

import numpy as np

from environments import registry as env_registry
from experiments.comparison import figure_style as style
from experiments.comparison import statistics

if TYPE_CHECKING:
  from matplotlib import figure as figure_lib

# (steps, mean, low, high), each `[num_points]`.
Curve = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# (X, Y, P(X > Y)).
Pair = Tuple[str, str, statistics.Interval]

CURVES_AXES_HEIGHT = 2.0  # Inches.
# Panel title and whether higher is better, per aggregate.
_AGGREGATES = types.MappingProxyType({
    'mean': ('Mean', True), 'median': ('Median', True), 'iqm': ('IQM', True),
    'optimality_gap': ('Optimality gap', False)})


def _ticker():
  """`matplotlib.ticker`, imported when a figure is drawn."""
  from matplotlib import ticker  # pylint: disable=g-import-not-at-top
  return ticker


def score_label(env: str) -> str:
  """What `env`'s score counts, e.g. 'strikes per game' or 'mean return'."""
  reference = env_registry.reference_score(env)
  if reference is not None:
    return reference.label
  return env_registry.score_metric(env).replace('_', ' ')


def lower_is_better(env: str) -> bool:
  reference = env_registry.reference_score(env)
  return reference is not None and not reference.higher_is_better


def _envs_text(envs: Sequence[str]) -> str:
  names = [env_registry.title(e) for e in envs]
  if len(names) <= 2:
    return ' and '.join(names)
  return ', '.join(names[:-1]) + ' and ' + names[-1]


@style.styled
def learning_curves_figure(
    env: str, curves: Mapping[str, Curve], seeds: Mapping[str, int],
    title: Optional[str] = None, references: bool = True,
    colour_order: Sequence[str] = (),
    x_label: str = 'environment steps') -> figure_lib.Figure:
  """One line per agent (mean over seeds) with its pointwise 95% CI band.

  Args:
    env: the environment id: gives the title, the y label (and whether
      lower is better) and the reference lines.
    curves: `{agent or label: (steps, mean, low, high)}`; agents are shown
      by their titles, other labels as they are.
    seeds: `{key of curves: number of seeds}` of each curve.
    title: instead of the environment's title.
    references: whether to draw the environment's reference scores.
    colour_order: names in the order that gives their colours.
    x_label: what the curves' x values count (`steps` of `curves`).
  """
  fig = style.new_figure(style.COLUMN_WIDTH)
  ax = fig.add_subplot()
  colour = style.colours(list(curves), colour_order)
  over, each = style.seeds_caption({k: seeds[k] for k in curves})
  for key, (steps, mean, low, high) in curves.items():
    label = style.agent_label(key)
    if each:
      label += f' ({style.seeds_text(seeds[key])})'
    ax.plot(steps, mean, color=colour[key], label=label,
            marker='o' if len(steps) == 1 else None, zorder=3)
    ax.fill_between(steps, low, high, color=colour[key], alpha=0.25, lw=0,
                    zorder=2)
  reference = env_registry.reference_score(env)
  if references and reference is not None:
    for name, value, dashes in ((reference.low_name, reference.low, '--'),
                                (reference.high_name, reference.high, ':')):
      ax.axhline(value, color='0.35', lw=1, ls=dashes, zorder=1,
                 label=f'{name} ({value:g})')
  ax.set_title(style.wrap(title or env_registry.title(env),
                          style.COLUMN_WIDTH - 0.8, style.FONT_PT + 1))
  ax.set_xlabel(x_label)
  ylabel = score_label(env)
  if lower_is_better(env):
    ylabel += '\n(lower is better)'
  ax.set_ylabel(ylabel)
  ax.grid(True)
  ax.xaxis.set_major_locator(_ticker().MaxNLocator(5) if curves else
                             _ticker().NullLocator())  # No steps to mark.
  ax.xaxis.set_major_formatter(_ticker().EngFormatter(sep=''))
  caption = (f'Lines: mean {over}; shaded: {style.interval_text()} at '
             'each point.')
  if curves and max(seeds[k] for k in curves) == 1:
    caption = 'Lines: one seed each (no interval).'
  if not curves:
    caption = 'No finished run to draw.'
  style.legend_below(fig, *ax.get_legend_handles_labels(), caption)
  style.fit_axes_height(fig, ax, CURVES_AXES_HEIGHT)
  return fig


def learning_curves(path: str, env: str, curves: Mapping[str, Curve],
                    seeds: Mapping[str, int], title: Optional[str] = None,
                    references: bool = True,
                    colour_order: Sequence[str] = (),
                    x_label: str = 'environment steps') -> List[str]:
  """Writes `learning_curves_figure` as `path` (.png) and its .pdf; returns
  the paths written."""
  return style.save(learning_curves_figure(
      env, curves, seeds, title, references, colour_order, x_label), path)


@style.styled
def seed_scores_figure(env: str, scores: Mapping[str, Sequence[float]],
                       colour_order: Sequence[str] = ()
                      ) -> figure_lib.Figure:
  """A row per agent: each seed's final score as a dot (spread up and down
  a little so that equal scores stay visible) and the mean as a bar, on
  the game's own scale, where a gap between agents is what it is.

  Args:
    env: the environment id: gives the title and the axis label.
    scores: `{agent: each finished seed's score}`.
    colour_order: agents in the order that gives their colours.
  """
  agents = [a for a in scores if len(scores[a])]
  fig = style.new_figure(style.COLUMN_WIDTH)
  ax = fig.add_subplot()
  colour = style.colours(agents, colour_order)
  rows = np.arange(len(agents))[::-1]
  spread = np.random.default_rng(0)  # The same figure every time.
  for row, agent in zip(rows, agents):
    values = np.asarray(scores[agent], np.float64)
    ax.scatter(values, row + spread.uniform(-0.15, 0.15, len(values)),
               s=14, color=colour[agent], alpha=0.8, lw=0, zorder=3)
    ax.plot([values.mean()] * 2, [row - 0.3, row + 0.3], color='0.15',
            lw=1.5, zorder=4)
  ax.set_yticks(rows, [style.agent_label(a) for a in agents])
  ax.set_ylim(-0.6, max(len(agents), 1) - 0.4)
  ax.tick_params(axis='y', length=0)
  xlabel = score_label(env)
  if lower_is_better(env):
    xlabel += ' (lower is better)'
  ax.set_xlabel(xlabel)
  ax.grid(axis='x')
  ax.set_title(style.wrap(env_registry.title(env), style.COLUMN_WIDTH - 0.8,
                          style.FONT_PT + 1))
  style.legend_below(fig, [], [], (
      'Dots: each seed\'s final score (its final evaluation); bar: their '
      'mean.' if agents else 'No finished run to draw.'))
  style.fit_axes_height(fig, ax, style.ROW_IN * max(len(agents), 1))
  return fig


def seed_scores(path: str, env: str, scores: Mapping[str, Sequence[float]],
                colour_order: Sequence[str] = ()) -> List[str]:
  """Writes `seed_scores_figure` as `path` (.png) and its .pdf; returns the
  paths written."""
  return style.save(seed_scores_figure(env, scores, colour_order), path)


def _limits(estimates: Sequence[statistics.Interval]) -> Tuple[float, float]:
  """x limits around every interval, never of zero width."""
  low = min(min(e.low, e.point) for e in estimates)
  high = max(max(e.high, e.point) for e in estimates)
  span = max(high - low, 0.1 * max(abs(low), abs(high)), 0.05)
  pad = 0.15 * span
  centre = (low + high) / 2
  return centre - span / 2 - pad, centre + span / 2 + pad


def _intervals_caption(what: str, seeds: Mapping[str, int]) -> str:
  """`what`, then what the bars, ticks and numbers are, over how many seeds
  (each agent's count when they differ)."""
  over, each = style.seeds_caption(seeds)
  caption = (f'{what} Bars: {style.interval_text()}s {over} (at least '
             f'{style.MIN_BAR_PT:g} pt wide); tick and number: point '
             'estimate.')
  if each:
    caption += ' Seeds: ' + ', '.join(
        f'{style.agent_label(a)}\N{NO-BREAK SPACE}{n}'
        for a, n in seeds.items()) + '.'
  return caption


@style.styled
def aggregate_figure(
    intervals: Mapping[str, Mapping[str, statistics.Interval]],
    seeds: Mapping[str, int], envs: Sequence[str] = (),
    colour_order: Sequence[str] = ()) -> figure_lib.Figure:
  """rliable's panels: one per aggregate, a row per agent.

  Args:
    intervals: `{agent: {aggregate: Interval}}` of normalised scores, as
      from `statistics.aggregate_intervals`; panels follow the first
      agent's keys.
    seeds: `{agent: number of seeds}`; the caption says each when they
      differ.
    envs: the environments aggregated over, named in the caption.
    colour_order: agents in the order that gives their colours.
  """
  agents = list(intervals)
  names = list(intervals[agents[0]]) if agents else list(_AGGREGATES)
  fig = style.new_figure(style.PAGE_WIDTH)
  axes = fig.subplots(1, len(names), sharey=True, squeeze=False)[0]
  colour = style.colours(agents, colour_order)
  rows = np.arange(len(agents))[::-1]
  for ax, name in zip(axes, names):
    title, higher = _AGGREGATES.get(name, (name, True))
    ax.set_title(f'{title}\n({"higher" if higher else "lower"} is better)')
    if agents:
      ax.set_xlim(*_limits([intervals[a][name] for a in agents]))
    for row, agent in zip(rows, agents):
      style.interval_row(ax, row, intervals[agent][name], colour[agent])
      ax.xaxis.set_major_locator(_ticker().MaxNLocator(4))
    ax.grid(axis='x')
    ax.tick_params(axis='y', length=0)
    ax.set_ylim(-0.5, max(len(agents), 1) - 0.3)
  axes[0].set_yticks(rows, [style.agent_label(a) for a in agents])
  where = f' over {_envs_text(envs)}' if envs else ''
  reference = (env_registry.reference_score(envs[0]) if len(envs) == 1
               else None)
  scale = ('0: each game\'s weak reference, 1: its strong one'
           if reference is None else reference.scale())
  style.legend_below(fig, [], [], _intervals_caption(
      f'Normalised scores{where} ({scale}).',
      {a: seeds[a] for a in agents}))
  style.fit_axes_height(fig, axes[0], style.ROW_IN * max(len(agents), 1))
  return fig


def aggregate_metrics(
    path: str, intervals: Mapping[str, Mapping[str, statistics.Interval]],
    seeds: Mapping[str, int], envs: Sequence[str] = (),
    colour_order: Sequence[str] = ()) -> List[str]:
  """Writes `aggregate_figure` as `path` (.png) and its .pdf; returns the
  paths written."""
  return style.save(aggregate_figure(intervals, seeds, envs, colour_order),
                    path)


@style.styled
def improvement_figure(pairs: Sequence[Pair], seeds: Mapping[str, int],
                       envs: Sequence[str] = ()) -> figure_lib.Figure:
  """A row per pair: P(X > Y) with its 95% CI and value, and the 0.5 line;
  one column wide, as tall as its pairs need.

  Args:
    pairs: `(X, Y, P(X > Y))` as from `statistics.probability_of_improvement`.
    seeds: `{agent: number of seeds}`.
    envs: the environments averaged over, named in the caption.
  """
  fig = style.new_figure(style.COLUMN_WIDTH)
  ax = fig.add_subplot()
  rows = np.arange(len(pairs))[::-1]
  ax.set_xlim(0, 1)
  ax.axvline(0.5, color='0.35', ls='--', lw=1, zorder=1)
  for row, (_, _, estimate) in zip(rows, pairs):
    style.interval_row(ax, row, estimate, style.PALETTE[0])
  ax.set_yticks(rows, [f'P({style.agent_label(x)} > {style.agent_label(y)})'
                       for x, y, _ in pairs])
  ax.tick_params(axis='y', length=0)
  ax.set_ylim(-0.5, max(len(pairs), 1) - 0.3)
  ax.xaxis.set_major_locator(_ticker().MultipleLocator(0.25))
  ax.xaxis.set_major_formatter(_ticker().FormatStrFormatter('%g'))
  ax.set_xlabel('P(X > Y)')
  ax.grid(axis='x')
  agents = dict.fromkeys(a for x, y, _ in pairs for a in (x, y))
  caption = _intervals_caption(
      'Probability of improvement P(X > Y): chance that a run of X beats a '
      f'run of Y, averaged over '
      f'{_envs_text(envs) if envs else "environments"}. Dashed: 0.5 (no '
      'difference).', {a: seeds[a] for a in agents})
  style.legend_below(fig, [], [], caption)
  style.fit_axes_height(fig, ax, style.ROW_IN * max(len(pairs), 1))
  return fig


def probability_of_improvement(path: str, pairs: Sequence[Pair],
                               seeds: Mapping[str, int],
                               envs: Sequence[str] = ()) -> List[str]:
  """Writes `improvement_figure` as `path` (.png) and its .pdf; returns the
  paths written."""
  return style.save(improvement_figure(pairs, seeds, envs), path)


@style.styled
def profile_figure(profiles: Mapping[str, np.ndarray], taus: np.ndarray,
                   seeds: Mapping[str, int], envs: Sequence[str] = (),
                   colour_order: Sequence[str] = ()) -> figure_lib.Figure:
  """rliable's performance profile: per agent, the fraction of runs whose
  normalised score exceeds τ, its 95% interval shaded.

  Args:
    profiles: `{agent: [3, len(taus)]}` (fraction, low, high), as from
      `statistics.performance_profiles`.
    taus: the thresholds, on the normalised scale.
    seeds: `{agent: number of seeds}`.
    envs: the environments pooled, named in the caption.
    colour_order: agents in the order that gives their colours.
  """
  agents = list(profiles)
  colour = style.colours(agents, colour_order)
  fig = style.new_figure(style.COLUMN_WIDTH)
  ax = fig.add_subplot()
  for agent in agents:
    fraction, low, high = profiles[agent]
    ax.plot(taus, fraction, color=colour[agent],
            label=style.agent_label(agent))
    ax.fill_between(taus, low, high, color=colour[agent], alpha=0.2,
                    lw=0)
  ax.set_xlabel('normalised score τ')
  ax.set_ylabel('runs with score > τ')
  ax.set_ylim(0, 1.02)
  ax.grid(True)
  where = f' on {_envs_text(envs)}' if envs else ''
  over, each = style.seeds_caption({a: seeds[a] for a in agents})
  caption = (f'Performance profile{where}: the fraction of each agent\'s '
             f'runs (seeds × environments) whose normalised score (0: weak '
             f'reference, 1: strong) exceeds τ. Shaded: '
             f'{style.interval_text()}s {over}.')
  if each:
    caption += ' Seeds: ' + ', '.join(
        f'{style.agent_label(a)}\N{NO-BREAK SPACE}{seeds[a]}'
        for a in agents) + '.'
  style.legend_below(fig, *ax.get_legend_handles_labels(), caption)
  return fig


def performance_profile(path: str, profiles: Mapping[str, np.ndarray],
                        taus: np.ndarray, seeds: Mapping[str, int],
                        envs: Sequence[str] = (),
                        colour_order: Sequence[str] = ()) -> List[str]:
  """Writes `profile_figure` as `path` (.png) and its .pdf; returns the
  paths written."""
  return style.save(profile_figure(profiles, taus, seeds, envs,
                                   colour_order), path)


def files(path: str) -> List[str]:
  """The files of a figure written as `path`: its PNG and PDF, by name."""
  return style.figure_paths(path)
