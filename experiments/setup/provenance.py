"""What software and hardware produced a run: versions, commit, devices.

A number in a paper must say what produced it. `collect` gathers it once per
training session; the driver records every session of a run (a resumed run
may have moved to another machine or another jax) and each `result.json`
carries the list, so a report states versions, commit, hardware and
device-seconds without guessing.
"""

import datetime
import importlib.metadata
import os
import platform
import subprocess
from typing import Any, Dict, List, Mapping, Optional, Sequence

import jax

# Distributions whose versions change numbers: the core stack always, the
# suites and export tools when installed.
PACKAGES = ('jax', 'jaxlib', 'dm-haiku', 'rlax', 'optax', 'chex', 'numpy',
            'dm-env', 'gymnax', 'pgx', 'gymnasium', 'bsuite', 'tensorflow',
            'tensorflow-cpu', 'ai-edge-litert')
# What two sessions must share for their numbers to come from one setup.
SETUP_KEYS = ('python', 'packages', 'git_commit', 'git_dirty', 'cpu',
              'devices')
_SOURCE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))


def package_versions(names: Sequence[str] = PACKAGES) -> Dict[str, str]:
  """`{distribution: version}` of the installed ones among `names`."""
  versions = {}
  for name in names:
    try:
      versions[name] = importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
      pass
  return versions


def _git(*args: str) -> Optional[str]:
  try:
    done = subprocess.run(['git', '-C', _SOURCE_ROOT, *args],
                          capture_output=True, text=True, timeout=10,
                          check=False)
  except (OSError, subprocess.SubprocessError):
    return None
  return done.stdout.strip() if done.returncode == 0 else None


def git_state() -> Dict[str, Any]:
  """The framework's commit, and whether its tracked files had changes
  (None for both outside a git checkout, e.g. an installed wheel)."""
  commit = _git('rev-parse', 'HEAD')
  if commit is None:
    return {'git_commit': None, 'git_dirty': None}
  status = _git('status', '--porcelain', '--untracked-files=no')
  return {'git_commit': commit,
          'git_dirty': None if status is None else bool(status)}


def cpu_model() -> str:
  """The CPU's model name (Linux: /proc/cpuinfo), else the platform's."""
  try:
    with open('/proc/cpuinfo', encoding='utf-8') as f:
      for line in f:
        if line.startswith('model name'):
          return line.split(':', 1)[1].strip()
  except OSError:
    pass
  return platform.processor() or platform.machine()


def collect() -> Dict[str, Any]:
  """This process's software and hardware, JSON-ready."""
  devices = jax.devices()
  return {
      'started_utc': datetime.datetime.now(datetime.timezone.utc).strftime(
          '%Y-%m-%dT%H:%M:%SZ'),
      'python': platform.python_version(),
      'packages': package_versions(),
      **git_state(),
      'platform': platform.platform(),
      'cpu': cpu_model(),
      'cpu_count': os.cpu_count(),
      'backend': jax.default_backend(),
      # E.g. ['cpu x 1'] or ['NVIDIA H200 x 8'], over every process.
      'devices': [f'{kind} x {count}' for kind, count in sorted(
          _count(d.device_kind for d in devices).items())],
      'process_count': jax.process_count(),
  }


def _count(items) -> Dict[str, int]:
  counts: Dict[str, int] = {}
  for item in items:
    counts[item] = counts.get(item, 0) + 1
  return counts


def setup(record: Mapping[str, Any]) -> Dict[str, Any]:
  """The parts of a session's record that make its numbers comparable."""
  return {key: record.get(key) for key in SETUP_KEYS}


def differing_keys(sessions: Sequence[Mapping[str, Any]]) -> List[str]:
  """`SETUP_KEYS` whose values differ between `sessions` (a resumed run
  that changed machine or software); empty when they agree."""
  if not sessions:
    return []
  first = setup(sessions[0])
  return [key for key in SETUP_KEYS
          if any(setup(s)[key] != first[key] for s in sessions[1:])]
