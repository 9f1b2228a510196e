"""What loaders share, from the core's public API (`oversight_bench.sources`)."""

from oversight_bench.api import LoadContext, Records, read_csv_bytes, read_rows

__all__ = ["LoadContext", "Records", "read_csv_bytes", "read_rows"]
