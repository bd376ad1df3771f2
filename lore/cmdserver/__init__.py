"""The command server: a background ``lore`` that has imported the CLI once and forks a
copy of itself for each of the frequent commands (resume, capture, recall, timeline...),
so a command pays for its work, not for importing Python's and lore's modules again.

``client`` is what the console script runs first (it imports almost nothing); ``server``
is the background process. Mercurial's ``chg`` does the same for ``hg``. See
``docs/explanation/startup.md``.
"""
