"""Running the suite on several pytest-xdist workers (``-n``, set in pyproject's addopts).

- ``accept_xdist_options``: with xdist switched off (``pytest -p no:xdist``) the ``-n`` and
  ``--dist`` that pyproject's addopts pass are still understood, and ignored, so the suite
  runs in one process as before.
- ``group_wheel_modules``: the tests of one ``wheel`` module (they build memscope's wheel or a
  plugin and install them into fresh venvs, minutes of work in module-scoped fixtures) go to
  one worker (``--dist loadgroup``), so each wheel and venv is built once, not once per
  worker. Other module-scoped fixtures (an ingested store, seconds) are built once per worker
  that runs one of their users: cheaper than running their tests one after another.

- ``group_engine_tests``: the tests in ``tests/engine/`` go to one worker, in their order,
  with the other tests that load the real MiniLM (marked ``slow``).
  They share the real MiniLM and the seeded store (session fixtures, built once per worker
  that runs any of them), and their time is computing (torch), not waiting: spread over four
  workers on two cores, each worker loaded MiniLM and built the store again while the
  others did the same (minutes of setup each, measured), and tests met state in the engine's
  per-process caches in an order they never met serially.

- ``group_reference_tests``: the tests marked ``reference`` (they check a statistic against
  ppi-python, scikit-learn, scipy or statsmodels, imported on first use through
  ``tests/reference.py``) go to one worker, which imports those libraries once (about 4 s of
  CPU in each worker that would otherwise import them).

Everything a test gets is per worker by construction: each worker is its own process, with
its own session sandbox (conftest.py) and its own ``tmp_path``; the isolation watch runs in
each worker around each of its tests.
"""

from __future__ import annotations

import pytest


def xdist_loaded(pluginmanager: pytest.PytestPluginManager) -> bool:
    """Whether pytest-xdist is installed and not switched off (``-p no:xdist``)."""
    return pluginmanager.has_plugin("xdist")


def accept_xdist_options(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    """Declare ``-n``/``--numprocesses`` and ``--dist`` when xdist is not loaded."""
    if xdist_loaded(pluginmanager):
        return
    group = parser.getgroup("xdist (off)", "pytest-xdist is off: its options are ignored")
    # `_addoption`: pytest keeps lowercase short options for plugins; xdist declares -n so.
    group._addoption("-n", "--numprocesses", dest="numprocesses", default=None)
    group.addoption("--dist", dest="dist", default="no")


def group_wheel_modules(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test marked ``wheel`` with ``xdist_group(<its module>)`` (a marker xdist
    declares: without xdist, nothing to do)."""
    if not xdist_loaded(config.pluginmanager):
        return
    for item in items:
        if item.get_closest_marker("wheel") is not None:
            item.add_marker(pytest.mark.xdist_group(item.nodeid.split("::")[0]))


ENGINE_TESTS = "tests/engine/"


def group_engine_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test under ``tests/engine/``, and each other test marked ``slow`` (it loads
    the real MiniLM), with ``xdist_group("engine")``: on the engine's worker torch and the
    model library are imported already (10-15 s of CPU for any other worker)."""
    if not xdist_loaded(config.pluginmanager):
        return
    for item in items:
        if item.nodeid.startswith(ENGINE_TESTS) or item.get_closest_marker("slow") is not None:
            item.add_marker(pytest.mark.xdist_group("engine"))


REFERENCE_GROUP = "reference-libraries"


def group_reference_tests(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test marked ``reference`` and not grouped already with
    ``xdist_group(REFERENCE_GROUP)``."""
    if not xdist_loaded(config.pluginmanager):
        return
    for item in items:
        if (
            item.get_closest_marker("reference") is not None
            and item.get_closest_marker("xdist_group") is None
        ):
            item.add_marker(pytest.mark.xdist_group(REFERENCE_GROUP))
