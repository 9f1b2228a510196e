"""What loaders share, from the core's public API (`oversight_bench.sources`)."""

from oversight_bench.api import LoadContext, Records, content_sha256, read_csv_bytes, read_many, read_rows

__all__ = ["LoadContext", "Records", "content_sha256", "read_csv_bytes", "read_many", "read_rows"]
