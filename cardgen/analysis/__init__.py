"""Analyses that combine many engine runs: parameter sweeps (sweep.py), the overrides they apply
(overrides.py) and where the runs execute (executors.py). What a sweep found is data below
both this and render (cardgen/sweep_result.py); its report is a document that reads it:
cardgen/render/documents/sweep_report.py."""
