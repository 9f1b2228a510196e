"""oversight-bench: weak LLM judges, strong LLM debaters.

Kept light on purpose: importing the package loads no model backend (no torch,
transformers, vllm or llama_cpp); those are imported lazily by their adapters.
"""

__version__ = "0.1.0"

from oversight_bench.hookspecs import hookimpl

__all__ = ["__version__", "hookimpl"]
