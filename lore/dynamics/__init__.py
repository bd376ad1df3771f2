"""Memory that tends itself: staleness against the code, the activation model, archive and
pins, consolidation proposals and the conflicts a merge leaves.

Never edits or deletes silently: what it finds is derived (machine-local, rebuilt at will);
every change it makes is an appended revision a command asked for. Must not import
``lore.recall``, ``lore.sessions`` or any face (they import it).
"""
