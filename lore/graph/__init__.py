"""The knowledge graph: a derived NetworkX projection of every record (never a store).

``rules`` (record fields -> nodes and edges), ``snapshot`` (build, refresh, persist),
``queries``, ``export``, ``curate`` (concept and edge records), ``recall`` (graph-aware
recall). networkx is imported only inside this package, and only by functions that need it.
"""

from __future__ import annotations
