"""Tests of the memory engine (src/memscope/engine and the commands built on it)."""
