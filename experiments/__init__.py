"""Experiments: entry points over packages with one role each.

Entry points (`python -m experiments.<name>`): train, compare, sweep,
report, export_tflite, play; `api` is the same from Python. They use:

  driver/      the one host loop over both training loops, the workdir
  setup/       settings declared once (flags and API keywords), config,
               building a run from it, the user's --imports
  loops/       the Python dm_env loop and the compiled loop
  export/      TFLite export (plain, quantised, trainable) and its checks
  comparison/  plans of runs, launchers, statistics, figures, reports
  sweeps/      search spaces, sweep plans, rankings
  presets/     the built-in presets and the sources' own settings
  storage/     atomic files, checkpoints, loggers
  cli/         shared command-line flags

Dependencies point one way: entry points → driver → setup → loops →
agents / environments / networks; export and comparison never import the
driver (the entry points hand them what they need). The benchmark
harness (`benchmarks/`, outside this package) measures all of it from
outside; nothing here imports it.
"""

import os

import environments

# TensorFlow is imported for export only (agents/distrax_without_tensorflow.py
# keeps TFP from importing it); it never computes training numerics here.
# Its oneDNN start-up notice
# is noise in experiment output, so turn oneDNN off unless the user set it;
# likewise the converter's C++ warnings (e.g. 'Ignored output_format').
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')

# The release (`environments.__version__`, setup.py's).
__version__ = environments.__version__
