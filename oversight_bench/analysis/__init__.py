"""Analysis of run directories: statistics, Elo, open-role metrics, cost, reports, importers, leaderboard.

Everything here reads the results store through `oversight_bench.rundir.store.Store`; nothing calls a model.
"""
