"""Comparisons of agents across environments and seeds: the plan of run
groups, launchers (local, Ray), rliable statistics, figures and the
report."""
