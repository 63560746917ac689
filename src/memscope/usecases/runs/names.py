"""How a typed run name meets the store's run ids: exactly, or as memscope printed it.

Run ids are folder names and may differ only by what a terminal does not show (``srag_v``
and ``srag_v`` + U+200B, ``café`` in NFC and NFD). memscope prints them with
``textsafe.printable_id`` (``srag_v\\u200b``); a run is named by its exact id or by that
printed form, never by a look-alike: a name that matches no id but looks like one or more
(the same after NFC and without invisible characters) is refused with those ids listed as
memscope prints them, rather than one of them picked. A name that is one run's exact id and
another's printed form (a folder literally called ``srag_v\\u200b`` beside ``srag_v`` +
U+200B) is refused too, saying how to name each.
"""

from __future__ import annotations

import difflib
from collections.abc import Collection

from memscope.errors import NotFoundError
from memscope.textsafe import lookalike_key, parse_id, printable_id


def printed_match(ref: str, ids: Collection[str]) -> str | None:
    """The run id ``ref`` is the printed form of (``srag_v\\u200b``), or None."""
    parsed = parse_id(ref)
    return parsed if parsed != ref and parsed in ids else None


def two_readings(ref: str, printed: str, where: str | None = None) -> NotFoundError:
    """The error for ``ref``, the exact id of one run and the printed form of ``printed``."""
    return NotFoundError(
        f"'{printable_id(printed)}' names two runs: one is called exactly that, and memscope"
        " prints another one so",
        where=where,
        fix=f"Name the run called exactly that as '{printable_id(ref)}'; type the other's"
        f" invisible characters themselves (in bash: $'{printable_id(printed)}').",
    )


def unknown_run(ref: str, ids: Collection[str], where: str | None = None) -> NotFoundError:
    """The error for a name that is no run id: its look-alikes, else the nearest ids.

    The name is quoted as memscope reads it (escapes read, then printed as a run id is).
    """
    looked_for = parse_id(ref)
    wanted = lookalike_key(looked_for)
    alike = sorted(run_id for run_id in ids if lookalike_key(run_id) == wanted)
    if alike:
        count = "one run looks" if len(alike) == 1 else f"{len(alike)} runs look"
        return NotFoundError(
            f"no run is named exactly '{printable_id(looked_for)}'; {count} the same",
            where=where,
            fix="Name it as memscope prints it (quoted, with its escapes): "
            + ", ".join(f"'{printable_id(run_id)}'" for run_id in alike)
            + ".",
        )
    close = difflib.get_close_matches(looked_for, list(ids), n=3, cutoff=0.4)
    hint = (
        f"Did you mean {', '.join(printable_id(run_id) for run_id in close)}?"
        if close
        else "See `memscope runs` for the ingested runs."
    )
    return NotFoundError(f"no run '{printable_id(looked_for)}' in the store", where=where, fix=hint)
