"""The sampled-queue options shared by ``memscope sample`` and ``memscope open --queue sample``.

Kept apart from the command modules so that ``open`` can use them without registering
``sample`` first (Typer orders the help panels by registration).
"""

from __future__ import annotations

from typing import Annotated

import typer

from memscope.cli.number_options import COUNT, SEED

SeedOption = Annotated[
    int | None,
    typer.Option(
        "--seed", **SEED, help="Seed of the random sample (default: the stored plan's, else fixed)."
    ),
]
StrataOption = Annotated[
    str | None,
    typer.Option(
        "--strata",
        help="cell (the matrix's default cell, e.g. X×Y; default), code (the suggested code) "
        "or any axis of the run's benchmark (y, reach, category …).",
    ),
]
SizeOption = Annotated[
    int | None,
    typer.Option("--sample-size", **COUNT, help="Labels to plan (default 60, or every failure)."),
]
AllocationOption = Annotated[
    str | None,
    typer.Option(
        "--allocation", help="proportional (default) or neyman (by the suggestion spread)."
    ),
]
