"""PNG figures of an agent comparison: learning curves and rliable's panels.

Figures use matplotlib's object API (`Figure`, never pyplot): PNGs render on
the Agg canvas whatever the session's backend, with no global figure state to
leak or close, and no display needed. Fixed size and dpi; written atomically.
"""

import io
import types
from typing import Mapping, Sequence, Tuple

import matplotlib
from matplotlib import figure as figure_lib
from matplotlib import ticker
import numpy as np

from experiments.storage import atomic_files
from experiments.comparison import statistics

DPI = 120
# (steps, mean, low, high), each `[num_points]`.
Curve = Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
# (X, Y, P(X > Y)).
Pair = Tuple[str, str, statistics.Interval]

_TITLES = types.MappingProxyType({
    'mean': 'Mean', 'median': 'Median', 'iqm': 'IQM',
    'optimality_gap': 'Optimality Gap'})


def _colour(i: int):
  return matplotlib.colormaps['tab10'](i % 10)


def _save(fig: figure_lib.Figure, path: str) -> None:
  """Writes `fig` as PNG (no metadata, so same figure, same bytes)."""
  buffer = io.BytesIO()
  fig.savefig(buffer, format='png', dpi=DPI, metadata={'Software': None})
  atomic_files.write_bytes(path, buffer.getvalue())


def learning_curves(path: str, title: str, ylabel: str,
                    curves: Mapping[str, Curve],
                    references: Mapping[str, float]) -> None:
  """One line per agent (mean over seeds) with a shaded 95% CI band.

  Args:
    path: the PNG to write.
    title: the figure title, e.g. the environment name.
    ylabel: what the score counts, e.g. 'strikes per game'.
    curves: `{agent: (steps, mean, low, high)}`.
    references: `{label: score}` drawn as dashed horizontal lines.
  """
  fig = figure_lib.Figure(figsize=(7, 4.5))
  ax = fig.add_subplot()
  for i, (agent, (steps, mean, low, high)) in enumerate(curves.items()):
    ax.plot(steps, mean, color=_colour(i), label=agent, lw=2,
            marker='o' if len(steps) == 1 else None)
    ax.fill_between(steps, low, high, color=_colour(i), alpha=0.2, lw=0)
  for j, (label, value) in enumerate(references.items()):
    ax.axhline(value, color='0.3', lw=1, ls=('--', ':')[j % 2], label=label)
  ax.set_title(title)
  ax.set_xlabel('environment steps')
  ax.set_ylabel(ylabel)
  ax.grid(alpha=0.3)
  ax.xaxis.set_major_formatter(ticker.EngFormatter(sep=''))
  if curves or references:
    ax.legend(loc='best', fontsize='small')
  fig.tight_layout()
  _save(fig, path)


def aggregate_metrics(
    path: str, intervals: Mapping[str, Mapping[str, statistics.Interval]],
    xlabel: str = 'normalised score') -> None:
  """rliable's panels: one per aggregate, a point and 95% CI bar per agent.

  Args:
    path: the PNG to write.
    intervals: `{agent: {aggregate: Interval}}` as from
      `statistics.aggregate_intervals`; panels follow the first agent's keys.
    xlabel: the common x-axis label.
  """
  agents = list(intervals)
  names = list(intervals[agents[0]]) if agents else list(_TITLES)
  fig = figure_lib.Figure(figsize=(3.2 * len(names),
                                   1.6 + 0.45 * max(len(agents), 1)))
  axes = fig.subplots(1, len(names), sharey=True, squeeze=False)[0]
  rows = np.arange(len(agents))[::-1]
  for ax, name in zip(axes, names):
    for row, (i, agent) in zip(rows, enumerate(agents)):
      est = intervals[agent][name]
      ax.plot([est.low, est.high], [row, row], color=_colour(i), lw=6,
              alpha=0.6, solid_capstyle='butt')
      ax.plot([est.point], [row], marker='|', ms=14, mew=2, color='k')
    ax.set_title(_TITLES.get(name, name))
    ax.grid(axis='x', alpha=0.3)
    ax.margins(x=0.15)
    ax.set_ylim(-0.6, len(agents) - 0.4)
  axes[0].set_yticks(rows, agents)
  fig.supxlabel(xlabel)
  fig.tight_layout()
  _save(fig, path)


def probability_of_improvement(path: str, pairs: Sequence[Pair]) -> None:
  """One bar per pair: P(X > Y) with its 95% CI, and the 0.5 line."""
  fig = figure_lib.Figure(figsize=(6, 1.6 + 0.45 * max(len(pairs), 1)))
  ax = fig.add_subplot()
  rows = np.arange(len(pairs))[::-1]
  for row, (x, y, est) in zip(rows, pairs):
    ax.barh(row, est.high - est.low, left=est.low, height=0.6,
            color=_colour(0), alpha=0.6)
    ax.plot([est.point], [row], marker='|', ms=14, mew=2, color='k')
  ax.set_yticks(rows, [f'P({x} > {y})' for x, y, _ in pairs])
  ax.axvline(0.5, color='0.3', ls='--', lw=1)
  ax.set_xlim(-0.02, 1.02)
  ax.set_ylim(-0.6, len(pairs) - 0.4)
  ax.set_xlabel('probability of improvement')
  ax.grid(axis='x', alpha=0.3)
  fig.tight_layout()
  _save(fig, path)
