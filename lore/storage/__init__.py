"""Bytes and files only: locks, atomic replacement, JSONL and YAML I/O.

Nothing here knows about record kinds; ``lore.store`` maps kinds onto these.
"""
