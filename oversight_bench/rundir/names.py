"""The file names of a run folder: its store, its config and an earlier version's lock file (one
place: the store, its checks, its readers, the writer and salvage name them)."""

DB_NAME = "results.sqlite"
CONFIG_NAME = "config.json"
#: the lock file of earlier versions (the lock is now the run folder itself, `lock_directory`); an
#: old one left in a folder is no file of anyone's run
LOCK_NAME = ".lock"
