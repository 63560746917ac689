"""The user's configuration file (TOML), validated strictly.

Located by ``memscope config path`` (``$MEMSCOPE_CONFIG``, else the platform config dir).
A missing file means defaults; an unknown section or key, or a value of the wrong type, is
a :class:`~memscope.errors.ConfigError` naming the file and the key. Only a regular file of
at most 1 MiB is read: a FIFO, a device (``/dev/zero``) or a folder is refused, saying
what the path is, and so is a larger file. Example::

    [user]
    annotator = "alice"          # default: the OS user

    [keys]                       # binding id = comma-separated keys (see the app's help)
    "question.next" = "j,ctrl+n"

    [[taxonomy.codes]]           # extra failure codes, added to the shipped taxonomy
    code = "ENC-OCR"
    name = "OCR miss"
    stage = "encode"
    definition = "text in the image was not transcribed"
    key = "0"

    [engine]
    text_model = "/models/all-MiniLM-L6-v2"
    image_model = "ViT-B-16-SigLIP2"
    device = "auto"
"""

from __future__ import annotations

import functools
import getpass
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from memscope.errors import ConfigError
from memscope.file_kinds import FileTooLargeError, NotRegularFileError, read_regular
from memscope.paths import CONFIG_ENV, config_path

MAX_CONFIG_BYTES = 1 << 20
"""A config file is refused beyond 1 MiB (a real one is a few hundred bytes)."""
CODE_FIELDS = {"code": str, "name": str, "stage": str, "definition": str, "source": str, "key": str}


@dataclass(frozen=True)
class UserSettings:
    """Who is labelling."""

    annotator: str | None = None
    """The name recorded on labels (default: the OS user)."""


@dataclass(frozen=True)
class EngineSettings:
    """Defaults for the memory engine."""

    text_model: str | None = None
    """Sentence-transformers model name or local path (default: the packaged all-MiniLM-L6-v2)."""
    image_model: str | None = None
    """open_clip model name, ``hf-hub:`` id or local checkpoint (default: SigLIP-2 base)."""
    image_pretrained: str | None = None
    """open_clip pretrained tag or checkpoint file for ``image_model``."""
    device: str = "auto"
    """``auto``, ``cpu`` or ``cuda[:N]``."""


@dataclass(frozen=True)
class Config:
    """Everything the config file can set."""

    path: Path
    user: UserSettings = field(default_factory=UserSettings)
    keys: dict[str, str] = field(default_factory=dict)
    """Key bindings by binding id, e.g. ``{"question.next": "j,ctrl+n"}``."""
    extra_codes: list[dict[str, str]] = field(default_factory=list)
    """Failure codes added to the shipped taxonomy."""
    engine: EngineSettings = field(default_factory=EngineSettings)

    @property
    def annotator(self) -> str:
        """The annotator name to record: the configured one, else the OS user."""
        if self.user.annotator:
            return self.user.annotator
        try:
            return getpass.getuser()
        except Exception:  # no user database entry (containers)
            return "unknown"


Value = TypeVar("Value")


def _check_keys(table: Mapping[str, object], allowed: set[str], where: str, path: Path) -> None:
    for key in table:
        if key not in allowed:
            raise ConfigError(
                f"unknown setting {where}{key!r}",
                where=str(path),
                fix=f"Valid here: {', '.join(sorted(allowed))}.",
            )


def _typed(value: object, expected: type[Value], key: str, path: Path) -> Value:
    if not isinstance(value, expected):
        raise ConfigError(
            f"setting {key!r} must be a {expected.__name__}, got {type(value).__name__}",
            where=str(path),
        )
    return value


def load_config(path: Path | None = None) -> Config:
    """Read and validate the config file (defaults when it does not exist).

    The parsed result is cached per path and file content, so callers on a hot path (every
    label the app saves) pay one small file read, not a parse.
    """
    path = path or config_path()
    try:
        content = read_regular(path, limit=MAX_CONFIG_BYTES)
    except FileNotFoundError:
        return Config(path=path)
    except NotRegularFileError as exc:
        raise ConfigError(
            f"the config file is {exc.kind}, not a regular file",
            where=str(path),
            fix=f"Point ${CONFIG_ENV} at a TOML file (or unset it for the default).",
        ) from None
    except FileTooLargeError as exc:
        raise ConfigError(
            f"the config file is {exc.size:,} bytes; a memscope config is at most {MAX_CONFIG_BYTES:,}",
            where=str(path),
            fix="Is this the right file? A config holds a few settings (see `memscope config show`).",
        ) from None
    except OSError as exc:
        raise ConfigError(
            f"cannot read the config file: {exc.strerror or exc}", where=str(path)
        ) from None
    return _parse_config(path, content)


@functools.lru_cache(maxsize=8)
def _parse_config(path: Path, content: bytes) -> Config:
    try:
        raw = tomllib.loads(content.decode("utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(
            f"not valid TOML: {exc}", where=str(path), fix="Fix the file or remove it."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the config file: {exc}", where=str(path)) from None
    _check_keys(raw, {"user", "keys", "taxonomy", "engine"}, "", path)
    user = _typed(raw.get("user", {}), dict, "user", path)
    _check_keys(user, {"annotator"}, "user.", path)
    keys = _typed(raw.get("keys", {}), dict, "keys", path)
    for binding, value in keys.items():
        _typed(value, str, f"keys.{binding}", path)
    taxonomy = _typed(raw.get("taxonomy", {}), dict, "taxonomy", path)
    _check_keys(taxonomy, {"codes"}, "taxonomy.", path)
    codes = _typed(taxonomy.get("codes", []), list, "taxonomy.codes", path)
    for number, code in enumerate(codes, start=1):
        _typed(code, dict, f"taxonomy.codes[{number}]", path)
        _check_keys(code, set(CODE_FIELDS), f"taxonomy.codes[{number}].", path)
        for name in ("code", "name", "stage"):
            if name not in code:
                raise ConfigError(f"taxonomy.codes[{number}] has no {name!r}", where=str(path))
        for name, value in code.items():
            _typed(value, CODE_FIELDS[name], f"taxonomy.codes[{number}].{name}", path)
    engine = _typed(raw.get("engine", {}), dict, "engine", path)
    _check_keys(
        engine, {"text_model", "image_model", "image_pretrained", "device"}, "engine.", path
    )
    for name, value in engine.items():
        _typed(value, str, f"engine.{name}", path)
    return Config(
        path=path,
        user=UserSettings(
            annotator=_typed(user["annotator"], str, "user.annotator", path)
            if "annotator" in user
            else None
        ),
        keys=dict(keys),
        extra_codes=[dict(code) for code in codes],
        engine=EngineSettings(**engine),
    )
