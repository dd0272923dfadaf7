"""The tables ``show`` prints and reports reuse: the Table model with its cell formatting,
a run's result table, and the per-client spread. Below the tools, which build theirs."""
