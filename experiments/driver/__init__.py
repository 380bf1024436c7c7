"""The experiment driver: the one host loop over either training loop
(budgets, logging, evaluation, checkpoints, results, export) and the
workdir it writes."""
