"""Keeping a data root healthy and shared: ``scan`` (stored secrets), ``doctor`` (checks
and repair beyond validate) and ``sync`` (git commit, integrate, push)."""

from __future__ import annotations
