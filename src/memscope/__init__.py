"""memscope: diagnose why multimodal agent-memory benchmark questions fail.

Importing the package is cheap on purpose: it loads no DuckDB, Textual or torch.
"""

__version__ = "0.1.0"
