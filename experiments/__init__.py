"""Loops, configuration, logging, checkpoints, export and entry points."""

import os

# TensorFlow is imported indirectly (rlax -> distrax -> TFP) and for export
# only; it never computes training numerics here. Its oneDNN start-up notice
# is noise in experiment output, so turn oneDNN off unless the user set it.
os.environ.setdefault('TF_ENABLE_ONEDNN_OPTS', '0')
