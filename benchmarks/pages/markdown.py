"""Reading the benchmark JSON and writing its figures as Markdown tables.

Numbers are written the way the pages write them: thousands separated by
commas, a real minus sign, the runs of a figure in round (seed) order
separated by slashes.
"""

import json
import os
import statistics
from typing import Any, Callable, Iterable, List, Sequence

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
MINUS = '\u2212'


def load(name: str) -> Any:
  """The JSON of `benchmarks/<name>`."""
  with open(os.path.join(ROOT, 'benchmarks', name), encoding='utf-8') as f:
    return json.load(f)


def num(value: float, digits: int = 0, sign: bool = False) -> str:
  """`value` with `digits` decimals and thousands separators; a minus sign
  for negatives, and a plus sign for positives if `sign`."""
  text = f'{abs(value):,.{digits}f}'
  if value < 0 and float(text.replace(',', '')) != 0:
    return MINUS + text
  return ('+' + text) if sign and value > 0 else text


def trimmed(value: float, digits: int) -> str:
  """`value` with at most `digits` decimals and at least one: 1.0, 0.68."""
  text = num(value, digits)
  if '.' in text:
    text = text.rstrip('0')
    text += '0' if text.endswith('.') else ''
  return text


def short(value: float) -> str:
  """A return or score: below 10 up to two decimals (1.0, 0.68), else
  none when whole (500) and one otherwise (−159.6)."""
  if abs(value) < 10:
    return trimmed(value, 2)
  return num(value, 0 if float(value).is_integer() else 1)


def sci(value: float) -> str:
  """A small difference: 0.20 from 0.01 up, else two significant digits
  (1.4e-6, 5e-5)."""
  if value >= 0.01:
    return f'{value:.2f}'
  mantissa, exponent = f'{value:.1e}'.split('e')
  return f'{mantissa.removesuffix(".0")}e{int(exponent)}'


def steps(value: float, unit: str = 'steps') -> str:
  """A budget: 2M steps, 500k steps."""
  if value % 1_000_000 == 0:
    return f'{num(value / 1_000_000)}M {unit}'
  return f'{trimmed(value / 1000, 1).removesuffix(".0")}k {unit}'


def runs(values: Iterable[float], fmt: Callable[[float], str]) -> str:
  """Each run's figure in round order: `a / b / c`."""
  return ' / '.join(fmt(v) for v in values)


def with_runs(median: float, values: Iterable[float],
              fmt: Callable[[float], str], bold: bool = False) -> str:
  """`median (a / b / c)`, the median in bold if `bold`."""
  head = fmt(median)
  return f'{f"**{head}**" if bold else head} ({runs(values, fmt)})'


def median(values: Sequence[float]) -> float:
  return statistics.median(values)


def mib(value: float) -> str:
  return f'{num(value)} MiB'


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> List[str]:
  """A Markdown table, one string per line."""
  lines = ['| ' + ' | '.join(header) + ' |',
           '| ' + ' | '.join('---' for _ in header) + ' |']
  for row in rows:
    lines.append('| ' + ' | '.join(row) + ' |')
  return lines


def code(text: str) -> str:
  return f'`{text}`'
