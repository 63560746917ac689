"""The name memscope is installed under, and the install commands memscope prints.

The command and the import package are ``memscope``; the distribution on the package index
is ``memscope-triage``, because an unrelated project owns ``memscope`` there (asking pip for
``memscope`` installs that project). Every install hint memscope prints comes from
:func:`install_command`, so none can name the wrong package (tests/unit/test_distribution.py
holds it equal to pyproject.toml's ``[project] name``).
"""

from __future__ import annotations

DISTRIBUTION = "memscope-triage"
"""The distribution name pyproject.toml declares (``pip install memscope-triage``)."""


def install_command(extra: str | None = None) -> str:
    """The pip command that installs memscope, with ``extra`` (``engine``, ``plot``) if given."""
    if extra is None:
        return f"pip install {DISTRIBUTION}"
    return f"pip install '{DISTRIBUTION}[{extra}]'"
