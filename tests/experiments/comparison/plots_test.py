"""Tests for experiments/comparison/plots.py and figure_style.py."""

import os
import struct

import matplotlib
from matplotlib import image
from matplotlib import pyplot
from matplotlib import text as text_lib
from matplotlib.backends import backend_agg
import numpy as np
import pytest

from experiments.comparison import figure_style
from experiments.comparison import plots
from experiments.comparison import statistics

PNG_MAGIC = b'\x89PNG\r\n\x1a\n'
I = statistics.Interval
SIX = ('reinforce', 'a2c', 'ppo', 'dqn', 'my_agent', 'other_agent')


def _png_dpi(data):
  """(x, y) dots per inch from the PNG's pHYs chunk."""
  position = len(PNG_MAGIC)
  while position < len(data):
    length, kind = struct.unpack('>I4s', data[position:position + 8])
    if kind == b'pHYs':
      x, y, unit = struct.unpack('>IIB', data[position + 8:position + 17])
      assert unit == 1  # Per metre.
      return x * 0.0254, y * 0.0254
    position += 12 + length
  raise AssertionError('no pHYs chunk')


def _check_files(written, base, width_in):
  """Both files exist and are valid; returns their bytes."""
  assert written == [base + '.png', base + '.pdf']
  with open(base + '.png', 'rb') as f:
    png = f.read()
  with open(base + '.pdf', 'rb') as f:
    pdf = f.read()
  assert png.startswith(PNG_MAGIC)
  assert _png_dpi(png) == pytest.approx((300, 300), abs=0.01)
  pixels = image.imread(base + '.png')
  assert pixels.shape[1] == round(width_in * 300)
  assert pixels.std() > 0.01  # Not a blank canvas.
  assert pdf.startswith(b'%PDF')
  assert b'CreationDate' not in pdf and b'Producer' not in pdf
  return png, pdf


def _curves(agents=('reinforce', 'ppo')):
  steps = np.arange(1, 21) * 20_000.0
  curves = {}
  for i, agent in enumerate(agents):
    mean = 15 + 30 * np.exp(-steps / (4e4 * (i + 1)))
    curves[agent] = (steps, mean, mean - 1, mean + 1)
  return curves


def _texts(fig):
  return [t for t in fig.findobj(text_lib.Text)
          if t.get_visible() and t.get_text().strip()]


def _caption(fig):
  """The caption (the legend's heading) on one line, plain spaces."""
  text = fig.legends[0].get_title().get_text()
  return text.replace('\n', ' ').replace('\N{NO-BREAK SPACE}', ' ')


def _all_text(fig):
  return '\n'.join(t.get_text() for t in _texts(fig))


def _check_layout(fig, width_in):
  """Column or page width; every text at least 9 pt; nothing drawn outside
  the figure."""
  assert fig.get_figwidth() == pytest.approx(width_in)
  for t in _texts(fig):
    assert t.get_fontsize() >= 9, t.get_text()
  fig.draw_without_rendering()
  drawn = fig.get_tightbbox()  # Inches.
  assert drawn.x0 >= -0.01 and drawn.y0 >= -0.01
  assert drawn.x1 <= fig.get_figwidth() + 0.01
  assert drawn.y1 <= fig.get_figheight() + 0.01


def _legend_below_axes(fig, ax):
  legend, = fig.legends
  fig.draw_without_rendering()
  assert legend.get_window_extent().y1 <= ax.get_window_extent().y0
  assert legend.get_window_extent().width <= fig.bbox.width
  return legend


def test_learning_curves_writes_png_and_pdf_deterministically(tmp_path):
  font_size = matplotlib.rcParams['font.size']
  base = str(tmp_path / 'curves_plane_strike')
  args = ('plane_strike', _curves(), {'reinforce': 5, 'ppo': 5})
  first = _check_files(plots.learning_curves(base + '.png', *args), base,
                       figure_style.COLUMN_WIDTH)
  second = _check_files(plots.learning_curves(base + '.png', *args), base,
                        figure_style.COLUMN_WIDTH)
  assert first == second  # Same figure, same bytes, PNG and PDF.
  assert sorted(os.listdir(tmp_path)) == ['curves_plane_strike.pdf',
                                          'curves_plane_strike.png']
  assert pyplot.get_fignums() == []  # No pyplot state left behind.
  assert matplotlib.rcParams['font.size'] == font_size  # Style not leaked.


def test_learning_curves_lower_is_better_human_names_and_caption():
  fig = plots.learning_curves_figure('plane_strike', _curves(),
                                     {'reinforce': 5, 'ppo': 5})
  ax, = fig.axes
  assert ax.get_title() == 'Plane Strike'
  assert 'strikes per game' in ax.get_ylabel()
  assert 'lower is better' in ax.get_ylabel()
  legend = _legend_below_axes(fig, ax)
  labels = [t.get_text() for t in legend.get_texts()]
  assert labels == ['REINFORCE', 'PPO', 'hunt-and-target play (20.88)',
                    'exact Bayes-greedy play (11.93)']
  caption = legend.get_title().get_text().replace('\n', ' ')
  assert 'mean over 5 seeds' in caption
  assert '95% stratified-bootstrap CI' in caption
  _check_layout(fig, figure_style.COLUMN_WIDTH)


def test_learning_curves_higher_is_better_says_nothing_of_lower():
  fig = plots.learning_curves_figure('catch', _curves(),
                                     {'reinforce': 3, 'ppo': 3})
  ax, = fig.axes
  assert ax.get_title() == 'Catch'
  assert ax.get_ylabel() == 'return'
  assert 'lower is better' not in _all_text(fig)
  fig = plots.learning_curves_figure('gymnax:CartPole-v1', {}, {})
  assert fig.axes[0].get_title() == 'CartPole-v1 (gymnax)'


def test_learning_curves_different_seed_counts_are_named_per_agent():
  fig = plots.learning_curves_figure('catch', _curves(('ppo', 'dqn')),
                                     {'ppo': 5, 'dqn': 3})
  legend, = fig.legends
  labels = [t.get_text() for t in legend.get_texts()]
  assert labels[:2] == ['PPO (5 seeds)', 'DQN (3 seeds)']
  assert '5 seeds' not in legend.get_title().get_text()


def test_legend_of_six_agents_stays_below_and_plot_keeps_its_height():
  two = plots.learning_curves_figure('catch', _curves(SIX[:2]),
                                     dict.fromkeys(SIX[:2], 5))
  six = plots.learning_curves_figure('catch', _curves(SIX),
                                     dict.fromkeys(SIX, 5))
  _legend_below_axes(six, six.axes[0])
  _check_layout(six, figure_style.COLUMN_WIDTH)
  for fig in (two, six):
    height = fig.axes[0].get_position().height * fig.get_figheight()
    assert height == pytest.approx(plots.CURVES_AXES_HEIGHT, abs=0.01)
  assert six.get_figheight() > two.get_figheight()  # Room for the legend.


def test_sweep_curves_keep_their_labels(tmp_path):
  curves = {'#1 learning_rate=0.001': _curves()['ppo']}
  base = str(tmp_path / 'curves')
  written = plots.learning_curves(
      base + '.png', 'catch', curves, {'#1 learning_rate=0.001': 2},
      title='PPO on Catch: best configurations', references=False)
  _check_files(written, base, figure_style.COLUMN_WIDTH)
  fig = plots.learning_curves_figure(
      'catch', curves, {'#1 learning_rate=0.001': 2}, title='PPO on Catch',
      references=False)
  legend, = fig.legends
  assert [t.get_text() for t in legend.get_texts()] == [
      '#1 learning_rate=0.001']


def test_learning_curves_edge_cases(tmp_path):
  one_point = {'dqn': (np.array([5.0]), np.array([1.0]), np.array([0.5]),
                       np.array([1.5]))}
  base = str(tmp_path / 'one')
  _check_files(plots.learning_curves(base + '.png', 'bsuite:catch/0',
                                     one_point, {'dqn': 1}), base,
               figure_style.COLUMN_WIDTH)
  base = str(tmp_path / 'none')
  _check_files(plots.learning_curves(base + '.png', 'catch', {}, {}), base,
               figure_style.COLUMN_WIDTH)


def _tight_intervals():
  point = {n: I(0.8, 0.8, 0.8) for n in statistics.AGGREGATES}
  point['optimality_gap'] = I(0.2, 0.2, 0.2)
  tight = {n: I(0.93, 0.929, 0.931) for n in statistics.AGGREGATES}
  wide = {n: I(0.5, 0.2, 0.8) for n in statistics.AGGREGATES}
  return {'reinforce': point, 'ppo': tight, 'dqn': wide}


def _colour_columns(fig, colour):
  """Per axes, how many pixel columns hold exactly `colour` (hex)."""
  canvas = backend_agg.FigureCanvasAgg(fig)
  canvas.draw()
  pixels = np.asarray(canvas.buffer_rgba())[..., :3]
  rgb = np.array(matplotlib.colors.to_rgb(colour)) * 255
  hits = np.all(np.abs(pixels.astype(float) - rgb) < 1, axis=-1)
  height = pixels.shape[0]
  counts = []
  for ax in fig.axes:
    box = ax.get_window_extent()
    inside = hits[int(height - box.y1):int(height - box.y0),
                  int(box.x0):int(box.x1)]
    counts.append(int(inside.any(axis=0).sum()))
  return counts


@pytest.mark.slow  # Over 5 s cold (docs/testing.md).
def test_aggregate_degenerate_interval_is_still_drawn(tmp_path):
  intervals = _tight_intervals()
  fig = plots.aggregate_figure(intervals, {'reinforce': 1, 'ppo': 5,
                                           'dqn': 5}, ['catch', 'plane_strike'])
  # reinforce's intervals have zero width; its colour must still show, on
  # more than half of MIN_BAR_PT (the rest is the point's tick and edges).
  colour = figure_style.colours(list(intervals))['reinforce']
  fig.set_dpi(300)
  for columns in _colour_columns(fig, colour):
    assert columns >= figure_style.MIN_BAR_PT / 2 * 300 / 72
  text = _all_text(fig)
  assert '0.80' in text and '0.20' in text and '0.93' in text  # Values.
  base = str(tmp_path / 'aggregate')
  first = _check_files(plots.aggregate_metrics(base + '.png', intervals, {
      'reinforce': 1, 'ppo': 5, 'dqn': 5}), base, figure_style.PAGE_WIDTH)
  assert _check_files(plots.aggregate_metrics(base + '.png', intervals, {
      'reinforce': 1, 'ppo': 5, 'dqn': 5}), base,
                      figure_style.PAGE_WIDTH) == first


def test_aggregate_says_direction_per_panel_names_and_seeds():
  rng = np.random.RandomState(0)
  intervals = statistics.aggregate_intervals(
      {'reinforce': rng.rand(3, 2), 'ppo': rng.rand(3, 2) + 0.3,
       'dqn': rng.rand(1, 2)}, reps=100)
  fig = plots.aggregate_figure(intervals, {'reinforce': 3, 'ppo': 3,
                                           'dqn': 1}, ['catch', 'plane_strike'])
  titles = [ax.get_title() for ax in fig.axes]
  assert titles == ['Mean\n(higher is better)', 'Median\n(higher is better)',
                    'IQM\n(higher is better)',
                    'Optimality gap\n(lower is better)']
  assert [t.get_text() for t in fig.axes[0].get_yticklabels()] == [
      'REINFORCE', 'PPO', 'DQN']
  caption = _caption(fig)
  assert 'Catch and Plane Strike' in caption
  assert 'Seeds: REINFORCE 3, PPO 3, DQN 1.' in caption
  assert '95% stratified-bootstrap CI' in caption
  _check_layout(fig, figure_style.PAGE_WIDTH)
  same = plots.aggregate_figure(intervals, dict.fromkeys(intervals, 4))
  caption = _caption(same)
  assert 'over 4 seeds' in caption and 'Seeds:' not in caption


def _pairs(agents):
  pairs = []
  for i, x in enumerate(agents):
    for j, y in enumerate(agents[i + 1:]):
      point = (i + j) % 5 / 5
      pairs.append((x, y, I(point, max(point - 0.1, 0), point)))
  return pairs


def test_probability_of_improvement_with_two_agents(tmp_path):
  pairs = [('ppo', 'reinforce', I(0.72, 0.52, 0.9))]
  fig = plots.improvement_figure(pairs, {'ppo': 5, 'reinforce': 5},
                                 ['catch', 'plane_strike'])
  ax, = fig.axes
  assert [t.get_text() for t in ax.get_yticklabels()] == [
      'P(PPO > REINFORCE)']
  assert fig.get_figheight() < 3.5  # No empty canvas around one pair.
  assert any(np.all(np.asarray(line.get_xdata()) == 0.5)
             for line in ax.get_lines())  # The 0.5 line.
  assert '0.72' in _all_text(fig)
  caption = _caption(fig)
  assert 'over 5 seeds' in caption and 'Catch and Plane Strike' in caption
  _check_layout(fig, figure_style.COLUMN_WIDTH)
  base = str(tmp_path / 'poi')
  seeds = {'ppo': 5, 'reinforce': 5}
  first = _check_files(plots.probability_of_improvement(
      base + '.png', pairs, seeds), base, figure_style.COLUMN_WIDTH)
  assert _check_files(plots.probability_of_improvement(
      base + '.png', pairs, seeds), base, figure_style.COLUMN_WIDTH) == first
  assert sorted(os.listdir(tmp_path)) == ['poi.pdf', 'poi.png']


def test_probability_of_improvement_grows_with_pairs():
  heights = {}
  for count in (2, 3, 6):
    agents = SIX[:count]
    fig = plots.improvement_figure(_pairs(agents), dict.fromkeys(agents, 5))
    heights[count] = fig.get_figheight()
    assert len(fig.axes[0].get_yticklabels()) == count * (count - 1) // 2
    _check_layout(fig, figure_style.COLUMN_WIDTH)
  # One row more per pair, whatever the caption takes.
  assert heights[2] < heights[3] < heights[6]
  assert heights[6] - heights[3] == pytest.approx(
      12 * figure_style.ROW_IN, abs=0.05)
  fig = plots.improvement_figure(_pairs(SIX[:3]), {'reinforce': 5, 'a2c': 5,
                                                   'ppo': 2})
  assert 'Seeds: REINFORCE 5, A2C 5, PPO 2.' in _caption(fig)


def test_colours_follow_the_given_order():
  colours = figure_style.colours(['ppo', 'dqn'], ['dqn', 'a2c', 'ppo'])
  assert colours == {'dqn': figure_style.PALETTE[0],
                     'ppo': figure_style.PALETTE[2]}
