"""Key bindings by id: the catalogue help and the command palette show, and checking the
config file's ``[keys]`` table against it.

Every binding has an id ``screen.verb`` (``question.next``); the config file remaps keys
by id (``"question.next" = "j,ctrl+n"``) and the app applies that with
``App.set_keymap``. An unknown id or an unknown key name is a ConfigError naming the
config file and the setting, raised before the app starts.

So is a key bound twice where both bindings are active: on one screen, its own bindings,
its widgets' and the app's (the app's work on every screen) - one of the two actions could
never be pressed there. Two screens may use one key for different things. A screen's
binding over an app binding is how the built-in keys work in places (``m`` on the
matrix cycles the metric, ``q`` closes help), so the pairs the built-in bindings make are
allowed; any other pair - made by ``[keys]`` or by an extra failure code's key - is
refused, naming both binding ids, the key and the screen.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from textual.binding import Binding

# _character_to_key is private; textual is pinned and tests/cli/test_private_seams.py holds it.
from textual.keys import Keys, _character_to_key, format_key, key_to_character

from memscope.errors import ConfigError

MODIFIERS = {"ctrl", "shift", "alt", "meta", "super", "hyper"}
NAMED_KEYS = {key.value for key in Keys} | {
    "space",
    "enter",
    "tab",
    "backspace",
    "delete",
    "insert",
}


@dataclass(frozen=True)
class BindingInfo:
    """One binding as help and the palette show it."""

    binding_id: str
    keys: str
    description: str
    action: str
    scope: str
    """Where it works: ``app`` or a screen name."""


def code_binding_id(code: str) -> str:
    """The binding id that toggles a failure code (``question.code.SEL-STALE``)."""
    return f"question.code.{code}"


def code_bindings(codes: Iterable[object]) -> list[Binding]:
    """Bindings toggling each failure code that has a key (the taxonomy's default keys)."""
    bindings = []
    for code in codes:
        key = getattr(code, "key", None)
        if not key:
            continue
        name = code.code
        bindings.append(
            Binding(
                _character_to_key(key) if len(key) == 1 else key,
                f"toggle_code({name!r})",
                f"{name}",
                show=False,
                id=code_binding_id(name),
            )
        )
    return bindings


def is_valid_key(key: str) -> bool:
    """Whether Textual can deliver ``key`` (``j``, ``ctrl+j``, ``question_mark``, ``f5`` …)."""
    key = key.strip()
    if not key:
        return False
    if len(key) == 1:
        return key.isprintable()
    *modifiers, base = key.split("+")
    if any(modifier not in MODIFIERS for modifier in modifiers):
        return False
    if len(base) == 1:
        return base.isprintable()
    return base in NAMED_KEYS or key_to_character(base) is not None


def validate_keymap(
    keymap: Mapping[str, str], known: Mapping[str, BindingInfo], config_path: Path
) -> dict[str, str]:
    """Check the config's ``[keys]`` and return it as a Textual keymap.

    Raises:
        ConfigError: naming the file and the ``keys.<id>`` setting that is wrong.
    """
    result = {}
    for binding_id, keys in keymap.items():
        if binding_id not in known:
            close = difflib.get_close_matches(binding_id, list(known), n=3, cutoff=0.6)
            hint = f"Did you mean {', '.join(close)}? " if close else ""
            raise ConfigError(
                f"unknown binding id in keys.{binding_id!r}",
                where=str(config_path),
                fix=f"{hint}Press ? in the app for every binding id.",
            )
        parts = [part.strip() for part in str(keys).split(",")]
        bad = [part for part in parts if not is_valid_key(part)]
        if bad:
            raise ConfigError(
                f"keys.{binding_id!r}: {bad[0]!r} is not a key name",
                where=str(config_path),
                fix="Write keys like j, ctrl+j, f5, question_mark, left_square_bracket; separate several with commas.",
            )
        # One spelling per key ("?" is question_mark), as Textual names the keys it delivers.
        result[binding_id] = ",".join(normal_key(part) for part in parts)
    return result


def normal_key(key: str) -> str:
    """A key as Textual names it (``?`` → ``question_mark``, ``j`` stays ``j``)."""
    key = key.strip()
    return _character_to_key(key) if len(key) == 1 else key


@dataclass(frozen=True)
class KeyConflict:
    """Two binding ids with one key on one screen."""

    screen: str
    key: str
    first: str
    second: str

    @property
    def pair(self) -> tuple[str, str, frozenset[str]]:
        """The conflict without its order: (screen, key, both ids)."""
        return (self.screen, self.key, frozenset((self.first, self.second)))


Screens = Iterable[tuple[str, Iterable[Binding]]]
"""Per screen, every binding active on it (the app's, the screen's, its widgets')."""


def key_conflicts(screens: Screens, keymap: Mapping[str, str]) -> list[KeyConflict]:
    """Every key that two binding ids share on one screen, with ``keymap`` applied."""
    found = []
    for screen, bindings in screens:
        owner: dict[str, str] = {}
        for binding in Binding.make_bindings(bindings):
            if not binding.id:
                continue  # not remappable, and where it lives the key is the widget's own
            remapped = keymap.get(binding.id)
            keys = [normal_key(key) for key in remapped.split(",")] if remapped else [binding.key]
            for key in keys:
                holder = owner.setdefault(key, binding.id)
                if holder != binding.id:
                    found.append(KeyConflict(screen, key, holder, binding.id))
    return found


def refuse_key_conflicts(
    screens: Screens, built_in: Screens, keymap: Mapping[str, str], config_path: Path
) -> None:
    """ConfigError for the first key two bindings share on a screen where ``built_in`` (the
    shipped bindings, no remapping) does not already share it."""
    allowed = {conflict.pair for conflict in key_conflicts(built_in, {})}
    for conflict in key_conflicts(screens, keymap):
        if conflict.pair in allowed:
            continue
        shown = format_key(conflict.key)
        key = repr(conflict.key) + (f" ({shown})" if shown != conflict.key else "")
        raise ConfigError(
            f"key {key} is bound to both {conflict.first} and {conflict.second} "
            f"on the {conflict.screen} screen; one of them could never be pressed there",
            where=str(config_path),
            fix=f'Bind one of them to another key under [keys] (e.g. "{conflict.second}" = '
            '"…"), or give an extra failure code another key; press ? in the app for every '
            "binding id and its keys.",
        )


def describe_keys(keys: str) -> str:
    """Keys as the user types them (``left_square_bracket`` → ``[``)."""
    return " / ".join(format_key(key.strip()) for key in keys.split(","))


def catalogue(
    scoped: Iterable[tuple[str, Iterable[Binding]]], keymap: Mapping[str, str]
) -> dict[str, BindingInfo]:
    """Every binding with an id, with the keys in effect after ``keymap``; ordered by scope."""
    found: dict[str, BindingInfo] = {}
    for scope, bindings in scoped:
        for binding in Binding.make_bindings(bindings):
            if not binding.id:
                continue
            if binding.id in found:
                previous = found[binding.id]
                keys = keymap.get(binding.id) or f"{previous.keys},{binding.key}"
                found[binding.id] = BindingInfo(
                    binding.id, keys, previous.description, previous.action, scope
                )
                continue
            keys = keymap.get(binding.id, binding.key)
            found[binding.id] = BindingInfo(
                binding.id,
                keys,
                binding.description or binding.tooltip or binding.action,
                binding.action,
                scope,
            )
    return found


class KeyNames:
    """The keys in effect for each binding id (the keymap is fixed per app): screens and
    dialogs name keys through this, never by reaching into the app."""

    def __init__(self, bindings: dict[str, BindingInfo]) -> None:
        self.bindings = bindings

    def keymap_keys(self, binding_id: str) -> str:
        """The keys of a binding as Textual names them (``enter``, ``left_square_bracket``)."""
        info = self.bindings.get(binding_id)
        return info.keys if info else ""

    def keys_for(self, binding_id: str) -> str:
        """The keys of a binding as a person types them (``[``)."""
        keys = self.keymap_keys(binding_id)
        return describe_keys(keys) if keys else ""
