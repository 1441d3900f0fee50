"""Analyses that combine many engine runs: parameter sweeps (sweep.py), the overrides they apply
(overrides.py), where the runs execute (executors.py) and the sweep report (sweep_report.py)."""
