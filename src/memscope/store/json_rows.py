"""Serialises an Arrow table to JSON objects with DuckDB, one per row, in row order.

Building one Python dict per row costs more than everything else in ``memscope report
--format json`` on a 50,000-question run; DuckDB writes the same objects in C++.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow as pa


def json_objects(table: pa.Table) -> list[bytes]:
    """One compact JSON object per row (null for missing values), in the table's order."""
    from memscope.store.attached import scratch

    con = scratch()
    try:
        con.register("memscope_rows", table)
        return [
            row[0].encode()
            for row in con.execute("SELECT to_json(r)::VARCHAR FROM memscope_rows r").fetchall()
        ]
    finally:
        con.close()
