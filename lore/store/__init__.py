"""The record store: ``core`` (``Store``: the on-disk layout, reading folded state,
adding and revising under locks), ``fold`` (revision lines into current state), ``documents``
(YAML/JSON documents and map files, changed in place). The only code that knows the layout;
it never imports a capability or the index."""

from __future__ import annotations
