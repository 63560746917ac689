"""Widgets the screens are built from (images, audio, timeline, tables, label bar)."""
