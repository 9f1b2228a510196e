"""One error type for everything a user can get wrong: the CLI prints it in one line, exit code 2."""


class BenchError(Exception):
    """A user-facing error: bad input, unknown name, missing data, unreachable model.

    The message names what was wrong and what was expected; the CLI prints it
    without a traceback and exits with status 2.
    """
