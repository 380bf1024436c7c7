"""The paper style of the comparison's figures, and how they are written.

Figures are sized for a paper: `COLUMN_WIDTH` for one panel, `PAGE_WIDTH`
for the four aggregate panels, with 9-10 pt text at that size (`RC`, applied
by `styled` around building and saving, never globally). The legend and a
caption (what the lines and intervals are, over how many seeds) sit below
the axes, never over the data; the figure grows taller for them, so the
plot area keeps its size. `save` writes a 300-dpi PNG and a PDF (TrueType
fonts, which publishers accept) with no dates or versions in them: the same
figure gives the same bytes.

matplotlib (a third of a second to import) loads when the first figure is
built, so that commands which draw nothing never pay for it.
"""

from __future__ import annotations

import functools
import io
import os
import types
from typing import Callable, Dict, List, Mapping, Sequence, Tuple, TypeVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
  from matplotlib import figure as figure_lib
  from matplotlib import legend as legend_lib
  from matplotlib import path as path_lib
# matplotlib itself is imported where it is used (third-party imports only).
# pylint: disable=g-import-not-at-top

from agents import registry as agent_registry
from experiments.comparison import statistics
from experiments.storage import atomic_files

COLUMN_WIDTH = 3.4  # Inches: one column of a two-column paper.
PAGE_WIDTH = 7.0  # Inches: both columns.
DPI = 300
FONT_PT = 9  # Ticks, legend and caption; titles and axis labels are 10.
BAR_PT = 7.0  # Thickness of an interval bar.
MIN_BAR_PT = 5.0  # Narrowest drawn interval: a point-sized one still shows.
ROW_IN = 0.3  # Height of one interval row (bar and its value above it).
EXTENSIONS = ('png', 'pdf')

RC = types.MappingProxyType({
    'font.family': 'sans-serif',
    'font.sans-serif': ['DejaVu Sans'],  # Ships with matplotlib.
    'font.size': FONT_PT,
    'axes.titlesize': FONT_PT + 1,
    'axes.labelsize': FONT_PT + 1,
    'xtick.labelsize': FONT_PT,
    'ytick.labelsize': FONT_PT,
    'legend.fontsize': FONT_PT,
    'legend.title_fontsize': FONT_PT,
    'legend.frameon': False,
    'axes.linewidth': 0.8,
    'axes.spines.top': False,
    'axes.spines.right': False,
    'lines.linewidth': 1.6,
    'grid.linewidth': 0.5,
    'grid.alpha': 0.4,
    'pdf.fonttype': 42,  # TrueType, not Type 3.
    'savefig.dpi': DPI,
})
# Okabe & Ito's colour-blind-safe palette, yellow (unreadable on white) left
# out.
PALETTE = ('#0072B2', '#D55E00', '#009E73', '#CC79A7', '#E69F00', '#56B4E9',
           '#000000')
_METADATA = types.MappingProxyType({
    'png': {'Software': None},
    'pdf': {'Creator': None, 'Producer': None, 'CreationDate': None},
})

F = TypeVar('F', bound=Callable)


def styled(fn: F) -> F:
  """Runs `fn` under `RC` (text sizes are fixed when artists are made, font
  embedding when the figure is saved), leaving global settings alone."""
  @functools.wraps(fn)
  def wrapper(*args, **kwargs):
    import matplotlib
    with matplotlib.rc_context(dict(RC)):
      return fn(*args, **kwargs)
  return wrapper  # type: ignore[return-value]


def new_figure(width: float, height: float = 3.0) -> figure_lib.Figure:
  """A figure laid out by constrained layout (labels never clipped)."""
  from matplotlib import figure as figure_lib
  return figure_lib.Figure(figsize=(width, height), layout='constrained')


def colours(names: Sequence[str], order: Sequence[str] = ()
            ) -> Dict[str, str]:
  """A colour per name: by its place in `order` when there (so an agent
  keeps its colour in every figure of a report), else by its place here."""
  return {n: PALETTE[(list(order).index(n) if n in order else i)
                     % len(PALETTE)] for i, n in enumerate(names)}


def agent_label(name: str) -> str:
  """A registered agent's title ('PPO'); any other label as it is."""
  try:
    return agent_registry.title(name)
  except ValueError:
    return name


def seeds_text(count: int) -> str:
  return f'{count} seed' + ('' if count == 1 else 's')


def seeds_caption(seeds: Mapping[str, int]) -> Tuple[str, bool]:
  """('over 5 seeds' or 'over seeds', whether the counts differ): when they
  differ, each label says its own count."""
  counts = set(seeds.values())
  if len(counts) == 1:
    return f'over {seeds_text(counts.pop())}', False
  return 'over seeds', len(counts) > 1


def interval_text() -> str:
  return f'{statistics.CONFIDENCE:.0%} stratified-bootstrap CI'


def text_width_pt(text: str, size: float = FONT_PT) -> float:
  """Width of one line of `text` in points, in the figures' font."""
  import matplotlib
  from matplotlib import font_manager
  with matplotlib.rc_context(dict(RC)):
    prop = font_manager.FontProperties(size=size)
    return _measure().get_text_width_height_descent(text, prop,
                                                    ismath=False)[0]


@functools.lru_cache(maxsize=None)
def _measure():
  """A renderer whose pixels are points (72 dpi), to measure text."""
  from matplotlib.backends import backend_agg
  return backend_agg.RendererAgg(1, 1, 72)


def wrap(text: str, width_in: float, size: float = FONT_PT) -> str:
  """`text` broken at spaces into lines at most `width_in` inches wide
  (never at no-break spaces, U+00A0)."""
  lines: List[str] = []
  for word in text.split(' '):
    if lines and text_width_pt(f'{lines[-1]} {word}', size) <= width_in * 72:
      lines[-1] += ' ' + word
    else:
      lines.append(word)
  return '\n'.join(lines)


def legend_below(fig: figure_lib.Figure, handles: Sequence, labels:
                 Sequence[str], caption: str) -> legend_lib.Legend:
  """The legend below the axes, `caption` as its heading, in as many
  columns as fit the figure's width (so 1-6 agents never cover data)."""
  width = fig.get_figwidth() - 0.15
  caption = wrap(caption, width)
  ncols = max(len(labels), 1)
  while True:
    legend = fig.legend(handles, labels, loc='outside lower center',
                        ncols=ncols, title=caption, handlelength=1.8,
                        columnspacing=1.2)
    fig.draw_without_rendering()
    if ncols == 1 or legend.get_window_extent().width <= width * fig.dpi:
      return legend
    legend.remove()
    ncols -= 1


def fit_axes_height(fig: figure_lib.Figure, ax, height_in: float) -> None:
  """Sets the figure's height so that `ax`'s plot area is `height_in` tall
  whatever the title, legend and caption take."""
  for _ in range(4):
    fig.draw_without_rendering()
    error = height_in - ax.get_position().height * fig.get_figheight()
    if abs(error) < 0.005:
      return
    fig.set_figheight(max(fig.get_figheight() + error, 0.5))


def _bar_marker(width_pt: float, height_pt: float) -> path_lib.Path:
  """A filled rectangle marker of this aspect (markers keep theirs)."""
  from matplotlib import path as path_lib
  w, h = width_pt / 2, height_pt / 2
  return path_lib.Path([(-w, -h), (w, -h), (w, h), (-w, h), (-w, -h)],
                       closed=True)


def interval_row(ax, row: float, estimate: statistics.Interval, colour: str,
                 value_format: str = '{:.2f}') -> None:
  """One estimate on row `row`: its interval as a bar (at least
  `MIN_BAR_PT` wide, so a tight or point-sized one is still seen), the
  point as a black tick, and the point's value written above it.

  Call after setting the x limits (the value's alignment depends on them).
  """
  low, high = sorted((estimate.low, estimate.high))
  ax.plot([low, high], [row, row], color=colour, lw=BAR_PT,
          solid_capstyle='butt', zorder=2)
  # The minimum extent, centred on the interval; inside any wider bar.
  ax.plot([(low + high) / 2], [row], ls='none', color=colour, mew=0,
          marker=_bar_marker(MIN_BAR_PT, BAR_PT), ms=BAR_PT, zorder=2)
  ax.plot([estimate.point], [row], ls='none', marker='|', color='black',
          ms=BAR_PT + 1, mew=1.5, zorder=3)
  left, right = ax.get_xlim()
  where = (estimate.point - left) / ((right - left) or 1.0)
  align = 'left' if where < 0.2 else 'right' if where > 0.8 else 'center'
  ax.annotate(value_format.format(estimate.point), (estimate.point, row),
              xytext=(0, BAR_PT / 2 + 1), textcoords='offset points',
              ha=align, va='bottom', fontsize=FONT_PT)


@styled
def save(fig: figure_lib.Figure, path: str) -> List[str]:
  """Writes `fig` as PNG (300 dpi) and PDF beside it, atomically; the same
  figure gives the same bytes. Returns the paths written (PNG first)."""
  base = os.path.splitext(path)[0]
  written = []
  for extension in EXTENSIONS:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=extension, dpi=DPI,
                metadata=dict(_METADATA[extension]))
    atomic_files.write_bytes(f'{base}.{extension}', buffer.getvalue())
    written.append(f'{base}.{extension}')
  return written


def figure_paths(path: str) -> List[str]:
  """The files `save(fig, path)` writes, whether or not they exist."""
  base = os.path.splitext(path)[0]
  return [f'{base}.{extension}' for extension in EXTENSIONS]
