"""Writing the output folders: each command's build reads the runs, has `analysis` compute and
`render` draw, and writes the files (report, leaderboard)."""
