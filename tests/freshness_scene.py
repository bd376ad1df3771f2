"""The freshness scene the guarantee tests share: a git data root with a pattern, a decision
log and a goal, changed three ways each round (a YAML edited in place, a JSONL log appended
to by hand, a goal checked out by git), and one check per reader of what it must show.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

NOW = "2026-05-20T10:00:00.000000Z"
DAY = "2026-05-20"
PROJECT = "fresh"
WORDS = ("alpha", "bravo", "delta", "gamma", "kappa")  # each as long as "zebra"
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.com",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.com",
}


class Scene:
    """``cli(*args)`` runs lore with ``--json`` and returns the parsed document; the
    environment holds LORE_NOW=NOW and LORE_PROJECT=PROJECT."""

    def __init__(self, root: Path, cli: Callable[..., Any]) -> None:
        self.root = root
        self.cli = cli
        self.word = "zebra"
        self.versions: list[str] = []
        self.decisions: list[str] = []

    def git(self, *args: str) -> str:
        done = subprocess.run(
            ["git", "-C", str(self.root), *args],
            capture_output=True,
            text=True,
            check=True,
            env={**os.environ, **GIT_ENV},
        )
        return done.stdout.strip()

    def setup(self) -> None:
        self.cli("init", "--git")
        self.pattern = self.cli("learn", "Use zebra caching")["id"]
        self.goal = self.cli("goal", "create", "Ship zebra release")["id"]
        self.goal_file = self.root / "intent/data/goals" / f"{self.goal}.yaml"
        self.pattern_file = self.root / "patterns/data/patterns" / f"{self.pattern}.yaml"
        self.log = self.root / "journal/data/decisions.jsonl"
        self.git("add", "-A")
        self.git("commit", "-qm", "zebra")
        first = self.git("rev-parse", "HEAD")
        original = self.goal_file.read_text(encoding="utf-8")
        # The goal links to the pattern and to each round's decision (an edge waits in the
        # graph until its other end exists), so a graph query around it shows all three.
        linked = "".join(f"- {rid}\n" for rid in [self.pattern, *map(decision_id, WORDS)])
        assert "related: []\n" in original
        original = original.replace("related: []\n", "related:\n" + linked)
        for word in WORDS:  # the goal as each round will check it out
            self.goal_file.write_text(original.replace("zebra", word), encoding="utf-8")
            self.git("commit", "-qam", word)
            self.versions.append(self.git("rev-parse", "HEAD"))
        self.git("checkout", "-q", first, "--", str(self.goal_file))

    def change(self) -> str:
        """One round: the three changes, each in its own way. Returns the round's word."""
        old, word = self.word, WORDS[len(self.decisions)]
        text = self.pattern_file.read_text(encoding="utf-8")
        edited = text.replace(f"Use {old} caching", f"Use {word} caching")
        assert len(edited) == len(text) and edited != text
        inode = self.pattern_file.stat().st_ino
        with open(self.pattern_file, "r+", encoding="utf-8") as handle:  # in place
            handle.write(edited)
        assert self.pattern_file.stat().st_ino == inode
        decision = decision_id(word)
        line = {
            "id": decision,
            "timestamp": NOW,
            "decision": f"Adopt {word} queues",
            "rationale": "by hand",
            "project": PROJECT,
        }
        with open(self.log, "ab") as handle:  # a person appending a line
            handle.write(orjson.dumps(line) + b"\n")
        self.decisions.append(decision)
        self.git(
            "checkout", "-q", self.versions[len(self.decisions) - 1], "--", str(self.goal_file)
        )
        self.word = word
        return word

    # -- what each reader must show after a round ----------------------------------

    def titles(self) -> set[str]:
        w = self.word
        return {f"Use {w} caching", f"Adopt {w} queues", f"Ship {w} release"}

    def ids(self) -> set[str]:
        return {self.pattern, self.decisions[-1], self.goal}

    def check_recall(self, doc: dict[str, Any]) -> None:
        found = {r["id"]: r for r in doc["results"]}
        assert self.ids() <= found.keys(), doc
        assert found[self.pattern]["name"] == f"Use {self.word} caching"
        assert found[self.goal]["title"] == f"Ship {self.word} release"

    def check_resume(self, doc: dict[str, Any]) -> None:
        assert [p["name"] for p in doc["patterns"]] == [f"Use {self.word} caching"], doc
        assert [g["title"] for g in doc["goals"]] == [f"Ship {self.word} release"], doc
        assert self.decisions[-1] in {d["id"] for d in doc["recent_decisions"]}, doc

    def check_timeline(self, doc: dict[str, Any]) -> None:
        shown = {r["title"] for r in doc["records"]}
        assert self.titles() <= shown, doc
        assert doc["counts"]["decision"] == len(self.decisions), doc

    def check_graph(self, doc: dict[str, Any]) -> None:
        """``lore graph query WORD``: the nodes whose label holds the round's word."""
        labels = {n["id"]: n["label"] for n in doc["nodes"]}
        assert labels == dict(
            zip((self.pattern, self.decisions[-1], self.goal), self.titles_in_order())
        ), doc

    def check_neighbors(self, around_goal: dict[str, Any], around_pattern: dict[str, Any]) -> None:
        """``graph_neighbors`` of the goal (the pattern, the round's decision) and of the
        pattern (the goal), as the MCP tool answers."""
        labels = {n["id"]: n["label"] for n in around_goal["neighbors"]}
        assert labels[self.pattern] == f"Use {self.word} caching", around_goal
        assert labels[self.decisions[-1]] == f"Adopt {self.word} queues", around_goal
        labels = {n["id"]: n["label"] for n in around_pattern["neighbors"]}
        assert labels[self.goal] == f"Ship {self.word} release", around_pattern

    def titles_in_order(self) -> tuple[str, str, str]:
        w = self.word
        return (f"Use {w} caching", f"Adopt {w} queues", f"Ship {w} release")


def decision_id(word: str) -> str:
    return "dec-" + hashlib.sha1(word.encode()).hexdigest()[:12]
