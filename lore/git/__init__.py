"""Git: ``info`` reads ``.git`` without running git (repository, HEAD, snapshot for
handoffs), ``run`` is the one place lore starts ``git`` (argument lists, no prompts) and
``sync`` commits, integrates and pushes a data root. Nothing else in lore runs git."""

from __future__ import annotations
