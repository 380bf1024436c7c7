"""Files that survive crashes: atomic writes, Orbax checkpoints and the
loggers (CSV, TensorBoard with its HParams, optional Weights & Biases)."""
