"""The backends' shared options: the public `oversight_bench.api.BackendOptions` (kept under this
name for the built-in adapters' imports)."""

from oversight_bench.api import BackendOptions, parse_backend_options

parse_options = parse_backend_options

__all__ = ["BackendOptions", "parse_options"]
