"""Figures named but not drawn, for tests of what surrounds them.

Laying out a report's or a sweep's figure and rendering it as PNG and PDF
takes about 2 s; a comparison draws three to five. Tests of the numbers,
text and files around the figures run under `unrendered()`: each figure's
files are written with placeholder bytes, so the report still lists and
links them. The figures themselves are drawn and checked by
tests/experiments/comparison/plots_test.py and report_test.py's figure
tests.
"""

import contextlib
from typing import Iterator, List
from unittest import mock

from absl.testing import absltest

from experiments.comparison import plots

PLACEHOLDER = b'not drawn'


def _placeholder(path: str, *args, **kwargs) -> List[str]:
  del args, kwargs
  for written in plots.files(path):
    with open(written, 'wb') as f:
      f.write(PLACEHOLDER)
  return plots.files(path)


@contextlib.contextmanager
def unrendered() -> Iterator[None]:
  """Within: every figure of `experiments.comparison.plots` is a
  placeholder file."""
  with mock.patch.multiple(plots, learning_curves=_placeholder,
                           seed_scores=_placeholder,
                           aggregate_metrics=_placeholder,
                           probability_of_improvement=_placeholder,
                           performance_profile=_placeholder):
    yield


class TestCase(absltest.TestCase):
  """A test case whose every test runs `unrendered()`."""

  def setUp(self):
    super().setUp()
    self.enter_context(unrendered())
