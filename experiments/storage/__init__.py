"""Files that survive crashes: atomic writes, Orbax checkpoints and the
CSV / TensorBoard loggers."""
