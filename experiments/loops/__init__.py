"""Training loops: the Python dm_env loop and the compiled (Anakin) loop,
their building blocks (actor, learner, batchers, seed sharding, greedy
evaluation) and the `TrainingLoop` interface the driver runs them through."""
