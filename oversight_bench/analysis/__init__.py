"""Analysis of run directories: statistics, Elo, open-role metrics, cost, reports, importers, leaderboard.

Everything here reads a run through its one reader, `oversight_bench.rundir.RunReader`; nothing calls a model.
"""
