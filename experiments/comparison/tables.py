"""Report tables in three forms from one definition: Markdown, CSV, LaTeX.

The CSV is pandas' (`to_csv`). Markdown and LaTeX are written here:
pandas' `to_markdown` pads every cell to its column's width, so one wide
cell rewrites every row of a report, and its `Styler.to_latex` has no rule
between row groups with their repeated values blanked (`Table.group`).

`report.md` shows a table in Markdown; `tables/<name>.csv` (for scripts and
spreadsheets) and `tables/<name>.tex` (a booktabs `tabular` to `\\input` in
a paper) hold the same rows, so the three never disagree.

A cell is text, a number, an interval `{'point', 'low', 'high'}`, None
(blank) or `Marked(value)` (bold in Markdown and LaTeX: e.g. a setting that
differs from its default). Markdown and LaTeX format numbers with the
column's `spec` and intervals as `12.400 [12.180, 12.620]`; CSV keeps full
precision and gives an interval column three columns (`x`, `x_low`,
`x_high`), so scripts need not parse brackets.
"""

import dataclasses
import os
from typing import Any, Dict, List, Mapping, Sequence, Tuple

from experiments.storage import atomic_files

DIRECTORY = 'tables'  # Under the comparison's workdir.
_LATEX_SPECIAL = {
    '\\': r'\textbackslash{}', '&': r'\&', '%': r'\%', '$': r'\$',
    '#': r'\#', '_': r'\_', '{': r'\{', '}': r'\}', '~': r'\textasciitilde{}',
    '^': r'\textasciicircum{}', '<': r'\textless{}', '>': r'\textgreater{}',
    '|': r'\textbar{}',
    '≥': r'$\geq$', '≤': r'$\leq$', '×': r'$\times$', '—': '---',
    '–': '--', '…': r'\ldots{}'}


@dataclasses.dataclass(frozen=True)
class Column:
  """One column: `title` for people, `key` for rows and the CSV header.

  `spec` formats numbers in Markdown and LaTeX ('.3f', ',.0f'; '' for
  `str`); `align` is 'l' or 'r' (LaTeX).
  """
  title: str
  key: str
  spec: str = ''
  align: str = 'l'


@dataclasses.dataclass(frozen=True)
class Marked:
  """A cell shown in bold in Markdown and LaTeX (plain in CSV)."""
  value: Any


@dataclasses.dataclass(frozen=True)
class Table:
  """Rows (`{column key: cell}`) under `columns`; `name` is the file stem.

  `group`: column keys; LaTeX draws a rule where the first one's value
  changes and shows their values only on the first row of each group (e.g.
  the environment and its score's unit).
  """
  name: str
  columns: Tuple[Column, ...]
  rows: Tuple[Mapping[str, Any], ...]
  group: Tuple[str, ...] = ()


def is_interval(value: Any) -> bool:
  return isinstance(value, Mapping) and set(value) >= {'point', 'low', 'high'}


def text(value: Any, spec: str = '') -> str:
  """A cell as text for people: '' for None, intervals with brackets."""
  if isinstance(value, Marked):
    value = value.value
  if value is None:
    return ''
  if is_interval(value):
    return (f'{text(value["point"], spec)} [{text(value["low"], spec)}, '
            f'{text(value["high"], spec)}]')
  if isinstance(value, bool) or not isinstance(value, (int, float)):
    return str(value)
  return format(value, spec) if spec else str(value)


def _markdown_cell(value: Any, spec: str) -> str:
  cell = text(value, spec).replace('|', '\\|').replace('\n', ' ')
  return f'**{cell}**' if isinstance(value, Marked) and cell else cell


def markdown(table: Table) -> List[str]:
  """The table as Markdown lines, ending with a blank line."""
  out = ['| ' + ' | '.join(c.title for c in table.columns) + ' |',
         '|' + ''.join('---:|' if c.align == 'r' else '---|'
                       for c in table.columns)]
  for row in table.rows:
    out.append('| ' + ' | '.join(_markdown_cell(row.get(c.key), c.spec)
                                 for c in table.columns) + ' |')
  return out + ['']


def _csv_value(value: Any) -> Any:
  return value.value if isinstance(value, Marked) else value


def csv_text(table: Table) -> str:
  """The table as CSV (pandas' `to_csv`): full precision, an interval as
  three columns."""
  import pandas as pd  # pylint: disable=g-import-not-at-top  # [report].
  columns: Dict[str, List[Any]] = {}
  for column in table.columns:
    values = [_csv_value(row.get(column.key)) for row in table.rows]
    if not any(is_interval(v) for v in values):
      columns[column.key] = values
      continue
    for suffix, part in (('', 'point'), ('_low', 'low'), ('_high', 'high')):
      columns[column.key + suffix] = [
          float(v[part]) if is_interval(v) else (v if not suffix else None)
          for v in values]
  return pd.DataFrame(columns, dtype=object).to_csv(index=False,
                                                     lineterminator='\n')


def latex_escape(value: str) -> str:
  """`value` as LaTeX text: special characters escaped (`_` → `\\_`)."""
  return ''.join(_LATEX_SPECIAL.get(char, char) for char in value)


def _latex_cell(value: Any, spec: str) -> str:
  cell = latex_escape(text(value, spec))
  return f'\\textbf{{{cell}}}' if isinstance(value, Marked) and cell else cell


def latex(table: Table) -> str:
  """The table as a booktabs `tabular` (needs `\\usepackage{booktabs}`)."""
  columns = ''.join('r' if c.align == 'r' else 'l' for c in table.columns)
  out = ['% ' + f'{table.name}: written by experiments.report; needs '
         '\\usepackage{booktabs}.',
         f'\\begin{{tabular}}{{{columns}}}', '\\toprule',
         ' & '.join(latex_escape(c.title) for c in table.columns) + ' \\\\',
         '\\midrule']
  keys = [c.key for c in table.columns]
  previous = object()
  for i, row in enumerate(table.rows):
    cells = [_latex_cell(row.get(c.key), c.spec) for c in table.columns]
    if table.group:
      current = row.get(table.group[0])
      if current == previous:
        for key in table.group:
          cells[keys.index(key)] = ''
      elif i:
        out.append('\\midrule')
      previous = current
    out.append(' & '.join(cells) + ' \\\\')
  out += ['\\bottomrule', '\\end{tabular}', '']
  return '\n'.join(out)


def file_names(table: Table) -> Dict[str, str]:
  """`{'csv': ..., 'tex': ...}`: the table's files, relative to the workdir."""
  return {ext: f'{DIRECTORY}/{table.name}.{ext}' for ext in ('csv', 'tex')}


def write(tables: Sequence[Table], workdir: str) -> List[str]:
  """Writes each table's CSV and LaTeX under `workdir/tables/`, each file
  atomically, and deletes `.csv`/`.tex` files there that no table wrote (a
  stale table of an earlier report). Returns the written names."""
  directory = os.path.join(workdir, DIRECTORY)
  written = []
  for table in tables:
    names = file_names(table)
    for ext, render in (('csv', csv_text), ('tex', latex)):
      atomic_files.write_bytes(os.path.join(workdir, names[ext]),
                               render(table).encode())
      written.append(names[ext])
  if os.path.isdir(directory):
    kept = {os.path.basename(name) for name in written}
    for name in os.listdir(directory):
      if name.endswith(('.csv', '.tex')) and name not in kept:
        os.remove(os.path.join(directory, name))
  return written
