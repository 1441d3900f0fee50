"""Analyses that combine many engine runs: parameter sweeps (sweep.py), the overrides they apply
(overrides.py) and where the runs execute (executors.py). The sweep report is a document:
cardgen/render/documents/sweep_report.py."""
