"""``memscope store check``'s look at a store: can it be opened, is its schema whole, can
every table be read to the last value, can the labels be saved.

Nothing here writes to the store: the file is opened read-only and never migrated. The
expected schema is that of a new store (every migration applied to an in-memory
database), so a table or column a migration made that is missing, or one a later
migration made that exists while that migration is not recorded, is named. Each table is
read completely through Arrow (every column, every block, so DuckDB verifies every
checksum). What people made (label events with their notes, verdict events, sample plans)
can be saved on its own, as a ``--history`` style JSON lines file ``memscope import-labels``
reads, when the rest of the store is beyond use.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from memscope.errors import InputError, StoreBusyError, StoreError
from memscope.store import attached
from memscope.store.connection import Store, damage_of, foreign_file_kind

if TYPE_CHECKING:
    import duckdb

LABEL_TABLE = "label_events"
HUMAN_TABLES = {
    "label_events": "label event(s)",
    "verdict_events": "verdict event(s)",
    "sample_plans": "sample plan(s)",
    "sample_items": "sample queue item(s)",
    "verdict_sample_items": "verdict sample item(s)",
}
"""The tables holding what people made (labels with their notes, verdicts, sample plans),
each with what its rows are called: ``--save-labels`` saves every one that can be read."""
_SAVED_SELECT = {
    "label_events": "SELECT 'label' AS event_kind, * FROM label_events",
    # A verdict event as ``export-labels --history`` writes it (import-labels replays it).
    "verdict_events": "SELECT 'verdict' AS event_kind, event_id, run_id, run_hash, qid, "
    "question_key, action, verdict, note AS verdict_note, annotator, source, created_at, "
    "supersedes FROM verdict_events",
    "sample_plans": "SELECT 'sample_plan' AS event_kind, * FROM sample_plans",
    "sample_items": "SELECT 'sample_item' AS event_kind, * FROM sample_items",
    "verdict_sample_items": "SELECT 'verdict_sample_item' AS event_kind, * FROM verdict_sample_items",
}
"""Each human table as rows of the saved file, told apart by ``event_kind``: label and verdict
rows are a ``--history`` export's; the sample rows carry no annotator, so import-labels,
which reads people's events, passes over them."""
_SAVED_ORDER = {
    "label_events": "event_id",
    "verdict_events": "event_id",
    "sample_plans": "run_id",
    "sample_items": "run_id, position",
    "verdict_sample_items": "run_id, position",
}
DAMAGED = "the store is damaged: "
SIBLINGS = (".wal", ".lock", ".app.lock", ".labels-pending.jsonl")
"""Files beside the store that belong to it (DuckDB's journal, the handoff lock, the app's
lock, pending labels)."""
BATCH_ROWS = 50_000


@dataclass
class TableState:
    """One table as read: its rows, or why it could not be read."""

    name: str
    rows: int | None = None
    error: str | None = None


@dataclass
class StoreHealth:
    """What ``store check`` found (``problems`` empty: the store is sound)."""

    path: Path
    size: int
    latest_version: int
    opened: bool = False
    versions: list[int] = field(default_factory=list)
    tables: list[TableState] = field(default_factory=list)
    missing_tables: list[str] = field(default_factory=list)
    missing_columns: list[str] = field(default_factory=list)
    unrecorded_tables: list[str] = field(default_factory=list)
    label_events: int | None = None
    upgrade_unwritable: bool = False
    """The schema is older and the file cannot be written to upgrade it (read-only media)."""
    human_rows: dict[str, int | None] = field(default_factory=dict)
    """Rows of each of :data:`HUMAN_TABLES` the store has (None: it cannot be read)."""
    problems: list[str] = field(default_factory=list)

    @property
    def sound(self) -> bool:
        """Whether nothing is wrong."""
        return not self.problems

    @property
    def outdated(self) -> bool:
        """Whether the schema is whole but older than this memscope's (upgraded on first use)."""
        return bool(self.versions) and max(self.versions) < self.latest_version

    @property
    def labels_readable(self) -> bool:
        """Whether the label events can be read (and so saved)."""
        return self.label_events is not None


def _expected_schema() -> tuple[dict[str, list[str]], dict[int, set[str]]]:
    """The tables (and their columns) of a new store, and which migration made each table."""
    from memscope.store.migrations import all_migrations

    con, give_back = attached.open_memory()
    try:
        made_by: dict[int, set[str]] = {}
        known: set[str] = set()
        con.execute(
            "CREATE TABLE schema_migrations ("
            " version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"
        )
        for migration in all_migrations():
            migration.apply(con)
            now = set(_columns(con))
            made_by[migration.version] = now - known - {"schema_migrations"}
            known = now
        return _columns(con), made_by
    finally:
        con.close()
        give_back()


def _columns(con: duckdb.DuckDBPyConnection) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for table, column in con.execute(
        "SELECT table_name, column_name FROM information_schema.columns"
        " WHERE table_catalog = current_database() AND table_schema = 'main'"
        " ORDER BY table_name, ordinal_position"
    ).fetchall():
        found.setdefault(str(table), []).append(str(column))
    return found


def _read_all(con: duckdb.DuckDBPyConnection, table: str) -> int:
    """Read every value of ``table`` (checksums verified); return its row count."""
    reader = con.sql(f'SELECT * FROM "{table}"').to_arrow_reader(BATCH_ROWS)
    return sum(batch.num_rows for batch in reader)


def _reason(error: Exception, path: Path) -> str:
    return damage_of(error, path) or str(error).splitlines()[0][:300]


def check_store(store: Store) -> StoreHealth:
    """Look at ``store`` without changing it (see the module docstring).

    Raises:
        InputError: there is no store file at the path (or it is not a regular file).
        StoreBusyError: another process holds the store for writing.
    """
    import duckdb

    from memscope.store.migrations import applied_versions, latest_version

    path = store.path
    if not path.exists():
        raise InputError("there is no store here", where=str(path), fix="Give --db PATH.")
    if not path.is_file():
        raise InputError("the store path is not a regular file", where=str(path))
    health = StoreHealth(path, path.stat().st_size, latest_version())
    kind = foreign_file_kind(path)
    if kind is not None:
        health.problems.append(f"the file is {kind}, not a memscope store")
        return health
    try:
        con = store.open_as_is()
    except StoreBusyError:
        raise
    except StoreError as error:
        health.problems.append(f"cannot be opened: {error.what.removeprefix(DAMAGED)}")
        return health
    health.opened = True
    try:
        expected, made_by = _expected_schema()
        try:
            health.versions = sorted(applied_versions(con))
            present = _columns(con)
        except duckdb.Error as error:
            health.problems.append(f"the catalog cannot be read: {_reason(error, path)}")
            return health
        _compare_schema(health, expected, made_by, present)
        _check_upgrade_writable(health, path)
        for table in sorted(present):
            state = TableState(table)
            try:
                state.rows = _read_all(con, table)
            except duckdb.Error as error:
                state.error = _reason(error, path)
                health.problems.append(f"the table {table} cannot be read: {state.error}")
            health.tables.append(state)
            if table == LABEL_TABLE:
                health.label_events = state.rows
            if table in HUMAN_TABLES:
                health.human_rows[table] = state.rows
    finally:
        store.close_connection(con)
    return health


def _check_upgrade_writable(health: StoreHealth, path: Path) -> None:
    """An older schema is upgraded on first use: a problem when the file cannot be written
    and today's reads need the missing steps (every command would fail on it)."""
    from memscope.store import connection
    from memscope.store.migrations import reads_need

    if health.problems or not health.outdated or connection.store_writable(path):
        return
    missing = [v for v in range(1, health.latest_version + 1) if v not in health.versions]
    if any(reads_need(version) for version in missing if version in _shipped()):
        health.upgrade_unwritable = True
        health.problems.append(
            f"the store was written by an earlier memscope (schema version "
            f"{max(health.versions)}) and needs an upgrade to version {health.latest_version}, "
            "but its file cannot be written here (read-only media, or no permission): copy it "
            "somewhere writable and use --db"
        )


def _shipped() -> set[int]:
    from memscope.store.migrations import shipped_versions

    return shipped_versions()


def _compare_schema(
    health: StoreHealth,
    expected: dict[str, list[str]],
    made_by: dict[int, set[str]],
    present: dict[str, list[str]],
) -> None:
    done = set(health.versions)
    newer = [version for version in done if version > health.latest_version]
    if newer:
        health.problems.append(
            f"the store has schema version {max(newer)}, newer than this memscope "
            f"({health.latest_version}): upgrade memscope to check it"
        )
        return
    for version, tables in sorted(made_by.items()):
        if version in done:
            health.missing_tables += sorted(table for table in tables if table not in present)
        else:
            health.unrecorded_tables += sorted(table for table in tables if table in present)
    if done >= set(made_by):  # fully migrated: every column of today's schema is due
        for table, columns in expected.items():
            if table in present:
                health.missing_columns += [
                    f"{table}.{column}" for column in columns if column not in present[table]
                ]
    if health.missing_tables:
        health.problems.append(f"tables are missing: {', '.join(health.missing_tables)}")
    if health.missing_columns:
        health.problems.append(f"columns are missing: {', '.join(health.missing_columns)}")
    if health.unrecorded_tables:
        health.problems.append(
            "the schema is half-made: "
            f"{', '.join(health.unrecorded_tables)} exist(s) but the migration that makes "
            f"them is not recorded (recorded: {', '.join(map(str, sorted(done))) or 'none'})"
        )


def check_save_target(store: Store, out: Path) -> Path:
    """``out`` expanded, refused when it names the store (or one of its own files) or
    lies in a folder that does not exist.

    Raises:
        InputError: either of those.
    """
    target = out.expanduser()
    store_files = {store.path, *(store.path.with_name(store.path.name + end) for end in SIBLINGS)}
    if target.resolve() in {path.resolve() for path in store_files}:
        raise InputError(
            "--save-labels names the store (or one of its own files)",
            where=str(target),
            fix="Save the labels to a new file, e.g. labels.jsonl.",
        )
    if not target.resolve().parent.is_dir():
        raise InputError("the folder for --save-labels does not exist", where=str(target.parent))
    return target


def save_human_input(store: Store, tables: list[str], temp: Path) -> dict[str, int]:
    """Write the rows of ``tables`` (of :data:`HUMAN_TABLES`), read as they are, to the
    file ``temp`` as JSON lines, each row with its ``event_kind``.

    Returns:
        The rows written per table.

    Raises:
        StoreError: a table cannot be read (or ``temp`` cannot be written).
    """
    import duckdb

    con = store.open_as_is()
    try:
        counts = {
            table: int(con.execute(f'SELECT count(*) FROM "{table}"').fetchall()[0][0])
            for table in tables
        }
        parts = [
            f"SELECT {number} AS _kind_no, row_number() OVER (ORDER BY {_SAVED_ORDER[table]}) "
            f"AS _row_no, * FROM ({_SAVED_SELECT[table]})"
            for number, table in enumerate(tables)
        ]
        query = (
            "SELECT * EXCLUDE (_kind_no, _row_no) FROM ("
            + " UNION ALL BY NAME ".join(parts)
            + ") ORDER BY _kind_no, _row_no"
        )
        con.execute(f"COPY ({query}) TO ? (FORMAT json)", [str(temp)])
        return counts
    except duckdb.Error as error:
        raise StoreError(
            f"the people's labels, verdicts or sample plans cannot be read: "
            f"{_reason(error, store.path)}",
            where=str(store.path),
            fix="Restore the store from a backup; they are not recoverable from this file.",
        ) from None
    except OSError as error:
        raise StoreError(
            f"cannot write the labels: {error.strerror or error}", where=str(temp)
        ) from None
    finally:
        store.close_connection(con)
