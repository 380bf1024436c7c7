"""Weights & Biases behind the one `Logger` interface (the `wandb` extra).

Enabled by `ExperimentConfig.wandb_project` (`--wandb_project`). Each seed
of a run is one W&B run, with the run's settings as its config, named and
grouped by the workdir and seed (`driver.run_settings.wandb_names`), its
files under the seed's directory (`<dir>/wandb/`). The W&B run id is kept
in the seed's directory (`wandb_run_id`), so a resumed run continues the
same W&B run and curve.

`wandb` is imported here only, and only when a logger is made (or its
presence checked): the framework runs without it.
"""

import netrc
import os
import secrets
import string
import types
from typing import Any, Mapping, Optional

from experiments.storage import atomic_files

INSTALL = "pip install -e '.[wandb]'"
RUN_ID_FILE = 'wandb_run_id'
_ID_CHARACTERS = string.ascii_lowercase + string.digits


def _import() -> types.ModuleType:
  """The `wandb` module; ImportError naming the extra if it is missing."""
  try:
    import wandb  # pylint: disable=import-outside-toplevel
  except ImportError as e:
    raise ImportError(
        f'Logging to Weights & Biases (wandb_project, --wandb_project) '
        f'needs the wandb package ({e}). Install it with: {INSTALL}') from e
  return wandb


LOGIN = ('run `wandb login` (or set WANDB_API_KEY), or log offline with '
         'WANDB_MODE=offline (then `wandb sync` the run later)')
_LOCAL_MODES = ('offline', 'disabled', 'dryrun')


class WandbError(RuntimeError):
  """W&B cannot log this run (no login, a refused project, ...)."""


def _logged_in() -> bool:
  """Whether W&B has a key to log online with: WANDB_API_KEY, or the entry
  `wandb login` writes to ~/.netrc (or $NETRC)."""
  if os.environ.get('WANDB_API_KEY'):
    return True
  path = os.environ.get('NETRC') or os.path.expanduser('~/.netrc')
  try:
    hosts = netrc.netrc(path).hosts
  except (OSError, netrc.NetrcParseError):
    return False
  return any('wandb' in host for host in hosts)


def check_installed() -> None:
  """Refuses a run that asks for W&B before it trains: ImportError naming
  the extra to install unless `wandb` imports; WandbError saying how to log
  in unless W&B logs offline or has a key."""
  _import()
  if (os.environ.get('WANDB_MODE', '').lower() not in _LOCAL_MODES and
      not _logged_in()):
    raise WandbError(f'Logging to Weights & Biases (--wandb_project) needs '
                     f'a W&B login, and none was found: {LOGIN}.')


def _read_id(path: str) -> Optional[str]:
  """The run id stored at `path`, or None (no file, or not an id)."""
  try:
    with open(path, encoding='utf-8') as f:
      run_id = f.read().strip()
  except (OSError, UnicodeDecodeError):
    return None
  return run_id if run_id and all(c in _ID_CHARACTERS
                                  for c in run_id) else None


def _new_id() -> str:
  """A fresh W&B run id (8 lower-case letters and digits, as W&B's)."""
  return ''.join(secrets.choice(_ID_CHARACTERS) for _ in range(8))


class WandbLogger:
  """Writes rows to one W&B run, at `step` (environment steps).

  A fresh start (`resume` False) begins a new W&B run (a new id, stored
  atomically in `directory/wandb_run_id` before the run starts); a resumed
  one continues the stored id's run. W&B keeps a run's steps increasing:
  rows of a resumed session at steps the run already has (logged after the
  checkpoint, before the crash; the same values, as training resumes
  exactly) are left to the earlier session's points.
  """

  def __init__(self, project: str, directory: str, name: str, group: str,
               config: Mapping[str, Any], resume: bool,
               mode: Optional[str] = None):
    """`mode`: W&B's ('online', 'offline', 'disabled'); None: W&B's default
    (the WANDB_MODE environment variable, else online)."""
    wandb = _import()
    # W&B takes this framework's `agents` package for OpenAI's and offers
    # its LLM tracing (Weave): not for these runs (unless the user says).
    os.environ.setdefault('WANDB_DISABLE_WEAVE', 'true')
    os.makedirs(directory, exist_ok=True)
    id_path = os.path.join(directory, RUN_ID_FILE)
    run_id = _read_id(id_path) if resume else None
    if run_id is None:
      run_id = _new_id()
      atomic_files.write_bytes(id_path, f'{run_id}\n'.encode())
    try:
      self._run = wandb.init(
          project=project, id=run_id, name=name, group=group,
          config=dict(config), dir=directory, mode=mode, resume='allow',
          # Several seeds log side by side, each to its own run; the run's
          # console output stays in the terminal and the run's logs.
          reinit='create_new',
          settings=wandb.Settings(console='off', quiet=True))
    except wandb.errors.Error as e:
      raise WandbError(
          f'Weights & Biases refused to start the run of {directory} in '
          f'project {project!r}: {str(e).splitlines()[0]}. Fix that ({LOGIN}) '
          f'and rerun the same command: training resumes from its last '
          f'checkpoint.') from e
    self._first_step = int(self._run.step) if resume else 0

  @property
  def run_id(self) -> str:
    return self._run.id

  def write(self, values: Mapping[str, float], step: int) -> None:
    if step < self._first_step:
      return  # The run has this step (see the class docstring).
    self._run.log(dict(values), step=int(step))

  def close(self) -> None:
    self._run.finish()
