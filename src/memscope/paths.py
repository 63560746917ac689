"""Where memscope keeps its files: the store (DuckDB) and the user's config file.

Store precedence (design.md): ``--db PATH``, else ``$MEMSCOPE_DB``, else the nearest
``.memscope/`` directory at or above the working directory, else a new
``./.memscope/memscope.duckdb``.
"""

from __future__ import annotations

import os
from pathlib import Path

STORE_DIR_NAME = ".memscope"
STORE_FILE_NAME = "memscope.duckdb"
DB_ENV = "MEMSCOPE_DB"
CONFIG_ENV = "MEMSCOPE_CONFIG"


def working_dir() -> Path | None:
    """The working directory, or None when it no longer exists (deleted or moved away)."""
    try:
        return Path.cwd()
    except FileNotFoundError:
        return None


def in_working_dir(path: Path) -> list[Path]:
    """``[cwd / path]``, or ``[]`` when the working directory no longer exists (a candidate
    location to try, not one that must be there)."""
    cwd = working_dir()
    return [cwd / path] if cwd is not None else []


def resolve_store_path(db: str | os.PathLike[str] | None = None, cwd: Path | None = None) -> Path:
    """Return the store file to use, following the documented precedence.

    Args:
        db: An explicit ``--db`` value, if given.
        cwd: The directory to search upward from (default: the working directory).

    Returns:
        An absolute path; the file may not exist yet.
    """
    if db:
        return Path(db).expanduser().resolve()
    env_value = os.environ.get(DB_ENV)
    if env_value:
        return Path(env_value).expanduser().resolve()
    start = (cwd or Path.cwd()).resolve()
    for directory in (start, *start.parents):
        candidate = directory / STORE_DIR_NAME
        if candidate.is_dir():
            return candidate / STORE_FILE_NAME
    return start / STORE_DIR_NAME / STORE_FILE_NAME


def config_path() -> Path:
    """Return the user's config file path (``$MEMSCOPE_CONFIG`` or the platform config dir)."""
    env_value = os.environ.get(CONFIG_ENV)
    if env_value:
        return Path(env_value).expanduser().resolve()
    from platformdirs import user_config_dir

    return Path(user_config_dir("memscope")) / "config.toml"
