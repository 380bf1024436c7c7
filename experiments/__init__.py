"""Loops, configuration, logging, checkpoints, export and entry points."""

import os

# TensorFlow is imported indirectly (rlax -> distrax -> TFP) and for export;
# keep its C++ INFO/WARNING lines out of experiment output unless asked for.
os.environ.setdefault('TF_CPP_MIN_LOG_LEVEL', '2')
