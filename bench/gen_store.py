"""Generate a realistic lore store of N records, and the equivalent JSONL for ``lore import``.

Mixed kinds (decisions, observations, failures, evidence, patterns, anti-patterns,
sessions, goals) with unique, varied texts built from word lists by a seeded RNG,
written through ``lore.store.Store.add`` in one call per kind. Benchmark fixture
only: fsync is switched off while generating (durability of a throwaway store does
not matter; 8 ms per document on this disk would dominate).

    python bench/gen_store.py ROOT --n 100000 [--jsonl FILE] [--seed 7]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import sys
import time
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from lore.components.evidence import Evidence
from lore.components.failures import Failure
from lore.components.inbox import Observation
from lore.components.intent import Goal
from lore.components.journal import Decision, spec_quality
from lore.components.patterns import AntiPattern, Pattern
from lore.components.transfer import Session, summarize
from lore.model import Record
from lore.store.core import Store

# Share of each kind in a generated store. Automatic captures (observations,
# failures) dominate a store that has grown to 100k; curated kinds are rarer.
STORE_MIX: dict[str, float] = {
    "observation": 0.305,
    "failure": 0.25,
    "decision": 0.20,
    "evidence": 0.15,
    "session": 0.04,
    "pattern": 0.03,
    "anti-pattern": 0.02,
    "goal": 0.005,
}
# `lore import` takes only capture kinds (no sessions or goals): same shares, renormalised.
IMPORT_KINDS = ("decision", "pattern", "anti-pattern", "failure", "observation", "evidence")

PROJECTS = (
    "atlas", "billing", "checkout", "docsite", "edge-proxy", "forge", "gateway", "harbor",
    "ingest", "janus", "kestrel", "ledger",
)  # fmt: skip
COMPONENTS = (
    "auth service", "billing worker", "search index", "ingest pipeline", "cache layer",
    "command-line client", "job scheduler", "API gateway", "session store", "rate limiter",
    "metrics exporter", "config loader", "plugin host", "upload handler", "webhook relay",
    "report builder", "audit log", "feature flags", "email sender", "payment adapter",
    "image resizer", "notification hub", "sync daemon", "backup agent", "migration runner",
    "permission checker", "tenant router", "query planner", "event bus", "retry queue",
    "CSV exporter", "PDF renderer", "token refresher", "health prober", "log shipper",
    "schema registry", "cron runner", "diff viewer", "build cache", "test harness",
)  # fmt: skip
TECH = (
    "PostgreSQL", "SQLite", "Redis", "Kafka", "RabbitMQ", "gRPC", "GraphQL", "protobuf",
    "orjson", "msgpack", "zstd", "brotli", "nginx", "Envoy", "Terraform", "Helm", "Docker",
    "Podman", "systemd", "cgroups", "uvloop", "asyncio threads", "a process pool",
    "connection pooling", "optimistic locking", "advisory locks", "a write-ahead log",
    "content hashing", "Bloom filters", "consistent hashing", "exponential backoff",
    "circuit breakers", "idempotency keys", "feature toggles", "blue-green deploys",
    "canary releases", "structured logging", "OpenTelemetry", "Prometheus", "pydantic",
    "dataclasses", "attrs", "SQLAlchemy Core", "raw SQL", "ruff", "mypy", "pytest-xdist",
    "hypothesis", "tox", "nox", "uv", "pip-tools", "poetry", "pre-commit", "GitHub Actions",
    "a monorepo", "semantic versioning", "JSON Schema", "OpenAPI", "server-sent events",
    "WebSockets", "long polling", "S3 multipart uploads", "presigned URLs", "JWT",
    "opaque session tokens", "row-level security", "read replicas", "partitioned tables",
    "materialized views", "a job queue table", "cron", "a sidecar", "a message outbox",
)  # fmt: skip
ASPECTS = (
    "storage", "serialization", "error handling", "retries", "caching", "deployment",
    "configuration", "logging", "metrics", "testing", "packaging", "locking", "pagination",
    "authentication", "authorization", "rate limiting", "schema migrations", "backups",
    "scheduling", "batching", "compression", "streaming", "timeouts", "validation",
    "dependency pinning", "release process", "local development", "CI pipeline",
    "data retention", "secrets handling",
)  # fmt: skip
VERBS = (
    "Use", "Adopt", "Switch to", "Keep", "Standardise on", "Move to", "Prefer",
    "Replace the old approach with", "Introduce", "Pilot",
)  # fmt: skip
REASONS = (
    "it halves p99 latency in the load test", "the team already operates it",
    "it removes a whole class of race conditions", "it is merge-safe across clones",
    "the previous setup lost data on crash", "it keeps the dependency tree small",
    "it is what the platform team supports", "it makes failures visible in one place",
    "cold start time matters more than throughput here", "it survives a partial network split",
    "the vendor deprecated the old API", "reviewers can read the diff",
    "it cuts the CI bill by a third", "on-call asked for fewer moving parts",
    "it degrades gracefully under load", "the benchmark showed a 4x speedup",
    "it matches how the data is actually queried", "rollbacks become one command",
    "it avoids a schema migration this quarter", "it is easy to test without a network",
)  # fmt: skip
SYMPTOMS = (
    "times out under load", "returns stale data after a deploy", "leaks file handles",
    "double-sends messages on retry", "hangs when the disk is full", "logs secrets at debug",
    "drops the last batch on shutdown", "spikes memory on large uploads",
    "fails only on the first run after boot", "races with the nightly backup",
    "ignores the configured timeout", "retries forever on 4xx responses",
    "corrupts the cache on concurrent writes", "is slow on cold caches",
    "breaks when the clock jumps", "silently truncates long names",
)  # fmt: skip
CONDITIONS = (
    "on Mondays after the weekend batch", "when two workers start at once",
    "behind the corporate proxy", "with more than 10k tenants", "on ARM runners",
    "right after a failover", "when the queue is backed up", "in the EU region only",
    "with an empty config file", "on the first request after idle",
    "during the monthly invoice run", "when the token expires mid-request",
    "if the upstream returns HTTP 503", "when the log volume is above 1 GB",
)  # fmt: skip
TOOLS = (
    "pytest", "npm", "cargo", "go test", "docker build", "terraform", "kubectl", "git",
    "make", "ruff", "mypy", "alembic", "pip", "uv", "helm", "gh", "curl", "psql",
)  # fmt: skip
STEPS = ("install", "lint", "test", "build", "migrate", "deploy", "release", "setup", "review")
ERROR_TYPES = (
    "NonZeroExit", "Timeout", "ToolError", "LogicError", "PermissionError", "EnvironmentError",
    "UserError", "UserDeny", "HardDeny", "ImportError", "FlakyTest", "MergeConflict",
)  # fmt: skip
ERROR_DETAILS = (
    "exited with status {n}", "timed out after {n} seconds", "could not resolve host",
    "permission denied on {path}", "no such file or directory: {path}",
    "assertion failed in {path}", "module not found while importing {path}",
    "connection refused on port {n}", "out of memory after {n} MB",
    "lock held by another process for {n} s", "checksum mismatch for {path}",
    "unexpected token at line {n} of {path}", "rate limited, retry after {n} s",
)  # fmt: skip
DIRS = ("src", "lib", "app", "tests", "scripts", "deploy", "docs", "config", "internal", "pkg")
MODULES = (
    "auth", "billing", "cache", "cli", "db", "events", "export", "flags", "http", "ingest",
    "jobs", "locks", "mail", "models", "payments", "queue", "reports", "search", "storage",
    "sync", "tenants", "upload", "util", "views", "worker",
)  # fmt: skip
EXTS = ("py", "ts", "go", "rs", "yaml", "toml", "sql", "sh", "json", "md")
NOTICED = (
    "Noticed that", "It looks like", "Saw again that", "Worth checking:", "Heads-up:",
    "User reported that", "CI shows that", "While debugging found that", "Reminder:",
)  # fmt: skip
PROVENANCE = (
    "load test run #{n}", "CI job {n}", "incident report INC-{n}", "profiling session {n}",
    "benchmark notebook v{n}", "customer ticket {n}", "postmortem {n}", "design review {n}",
)  # fmt: skip
NEXT = (
    "finish the {c} migration", "add a regression test for the {c}", "profile the {c}",
    "document the {a} decision", "ask the platform team about {t}", "roll out {t} to staging",
    "clean up the {c} feature flag", "review the open PR on {a}",
)  # fmt: skip
OUTCOMES = ("boring", "twice as fast", "observable", "self-serve", "safe to retry")
CATEGORIES = ("reliability", "performance", "security", "testing", "workflow", "data", "ops")


class Words:
    """Seeded text generation; every title it hands out is unique in this generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.used: set[str] = set()

    def pick(self, seq: tuple[str, ...]) -> str:
        return seq[self.rng.randrange(len(seq))]

    def path(self) -> str:
        r = self.rng
        return f"{self.pick(DIRS)}/{self.pick(MODULES)}/{self.pick(MODULES)}_{r.randrange(1, 40)}.{self.pick(EXTS)}"  # noqa: E501

    def unique(self, make: Callable[[], str]) -> str:
        """A text from ``make`` never returned before (a short qualifier breaks a tie)."""
        for _ in range(20):
            text = make()
            if text.casefold() not in self.used:
                break
        else:
            text = f"{make()} ({self.pick(PROJECTS)} {self.rng.randrange(10**6)})"
        self.used.add(text.casefold())
        return text

    def fill(self, template: str) -> str:
        return template.format(
            n=self.rng.randrange(2, 9999),
            path=self.path(),
            c=self.pick(COMPONENTS),
            a=self.pick(ASPECTS),
            t=self.pick(TECH),
        )

    def decision(self) -> str:
        def make() -> str:
            shape = self.rng.randrange(4)
            verb, tech, comp, aspect = (
                self.pick(VERBS),
                self.pick(TECH),
                self.pick(COMPONENTS),
                self.pick(ASPECTS),
            )
            if shape == 0:
                return f"{verb} {tech} for {aspect} in the {comp}"
            if shape == 1:
                return f"{verb} {tech} in the {comp} {aspect} path ({self.path()})"
            if shape == 2:
                return f"For {aspect} of the {comp}, {verb.lower()} {tech}"
            return f"{verb} {tech} instead of {self.pick(TECH)} for the {comp} {aspect}"

        return self.unique(make)

    def observation(self) -> str:
        def make() -> str:
            return (
                f"{self.pick(NOTICED)} the {self.pick(COMPONENTS)} {self.pick(SYMPTOMS)} "
                f"{self.pick(CONDITIONS)}"
            )

        return self.unique(make)

    def failure(self) -> tuple[str, str, str, str]:
        tool, step = self.pick(TOOLS), self.pick(STEPS)
        message = self.unique(
            lambda: (
                f"{tool} {step}: {self.fill(self.pick(ERROR_DETAILS))} ({self.pick(COMPONENTS)})"
            )
        )
        return self.pick(ERROR_TYPES), message, tool, step

    def evidence(self) -> str:
        def make() -> str:
            return (
                f"Measured: {self.pick(TECH)} in the {self.pick(COMPONENTS)} "
                f"{self.pick(('cut', 'raised', 'kept', 'doubled', 'halved'))} "
                f"{self.pick(('p50', 'p99', 'error rate', 'memory', 'CPU', 'cost'))} "
                f"{self.pick(CONDITIONS)}"
            )

        return self.unique(make)

    def pattern(self) -> str:
        return self.unique(
            lambda: (
                f"{self.pick(VERBS)} {self.pick(TECH)} when the {self.pick(COMPONENTS)} "
                f"{self.pick(SYMPTOMS)}"
            )
        )

    def anti_pattern(self) -> str:
        return self.unique(
            lambda: (
                f"Relying on {self.pick(TECH)} for {self.pick(ASPECTS)} in the "
                f"{self.pick(COMPONENTS)}"
            )
        )

    def goal(self) -> str:
        return self.unique(
            lambda: f"Make the {self.pick(COMPONENTS)} {self.pick(ASPECTS)} {self.pick(OUTCOMES)}"
        )


def _counts(n: int, mix: dict[str, float]) -> dict[str, int]:
    total = sum(mix.values())
    counts = {kind: int(n * share / total) for kind, share in mix.items()}
    first = next(iter(counts))
    counts[first] += n - sum(counts.values())  # rounding remainder to the largest kind
    return counts


def _timestamps(rng: random.Random, count: int, end: datetime, days: int = 730) -> list[str]:
    """``count`` sorted times in the ``days`` before ``end`` (logs are appended in order)."""
    span = days * 86400
    seconds = sorted(rng.random() * span for _ in range(count))
    start = end - timedelta(seconds=span)
    return [(start + timedelta(seconds=s)).strftime("%Y-%m-%dT%H:%M:%S.%fZ") for s in seconds]


def make_records(n: int, *, seed: int = 7, mix: dict[str, float] | None = None) -> dict[str, list]:
    """``n`` records by kind, deterministic for a seed (ids included)."""
    words = Words(seed)
    rng = words.rng
    end = datetime(2025, 6, 1, tzinfo=timezone.utc)
    counts = _counts(n, mix or STORE_MIX)
    out: dict[str, list[Record]] = {}

    def rid(prefix: str) -> str:
        return f"{prefix}-{rng.getrandbits(48):012x}"

    def common(ts: str) -> dict[str, Any]:
        project = words.pick(PROJECTS)
        tags = [project, *rng.sample(CATEGORIES, rng.randrange(0, 3))]
        return {
            "timestamp": ts,
            "project": project,
            "tags": tags,
            "source": "hook" if rng.random() < 0.4 else "manual",
        }

    decisions: list[Record] = []
    for ts in _timestamps(rng, counts.get("decision", 0), end):
        alts = rng.sample(TECH, rng.randrange(0, 4))
        files = [words.path() for _ in range(rng.randrange(0, 3))]
        d = Decision(
            id=rid("dec"),
            decision=words.decision(),
            rationale=words.pick(REASONS) if rng.random() < 0.8 else "",
            alternatives=alts,
            type=words.pick(("architecture", "implementation", "tooling", "process", "other")),
            entities=list(files),
            files=files,
            outcome=words.pick(("pending", "pending", "successful", "successful", "revised")),
            status="superseded" if rng.random() < 0.03 else "active",
            **common(ts),
        )
        d.spec_quality = spec_quality(d)
        decisions.append(d)
    out["decision"] = decisions

    out["observation"] = [
        Observation(
            id=rid("obs"),
            content=words.observation(),
            status=words.pick(("raw", "raw", "raw", "promoted", "discarded")),
            **common(ts),
        )
        for ts in _timestamps(rng, counts.get("observation", 0), end)
    ]

    failures: list[Record] = []
    for ts in _timestamps(rng, counts.get("failure", 0), end):
        error_type, message, tool, step = words.failure()
        failures.append(
            Failure(
                id=rid("fail"),
                error_type=error_type,
                error_message=message,
                tool=tool,
                step=step,
                **common(ts),
            )
        )
    out["failure"] = failures

    supportable = [d.id for d in decisions] or ["dec-000000000000"]
    out["evidence"] = [
        Evidence(
            id=rid("evi"),
            content=words.evidence(),
            provenance=words.fill(words.pick(PROVENANCE)),
            confidence=words.pick(("preliminary", "confirmed", "confirmed", "contested")),
            supports=rng.sample(supportable, min(len(supportable), rng.randrange(1, 3))),
            **common(ts),
        )
        for ts in _timestamps(rng, counts.get("evidence", 0), end)
    ]

    out["pattern"] = [
        Pattern(
            id=rid("pat"),
            name=words.pattern(),
            context=f"{words.pick(COMPONENTS)} {words.pick(CONDITIONS)}",
            problem=f"the {words.pick(COMPONENTS)} {words.pick(SYMPTOMS)}",
            solution=f"{words.pick(VERBS).lower()} {words.pick(TECH)}; {words.pick(REASONS)}",
            category=words.pick(CATEGORIES),
            origin=words.pick(("incident", "code review", "pairing", "postmortem", "benchmark")),
            confidence=round(rng.uniform(0.3, 0.95), 2),
            validations=rng.randrange(0, 12),
            examples=[words.path() for _ in range(rng.randrange(0, 3))],
            **common(ts),
        )
        for ts in _timestamps(rng, counts.get("pattern", 0), end)
    ]

    out["anti-pattern"] = [
        AntiPattern(
            id=rid("anti"),
            name=words.anti_pattern(),
            symptom=f"the {words.pick(COMPONENTS)} {words.pick(SYMPTOMS)}",
            risk=words.pick(("data loss", "outage", "slow pages", "security hole", "flaky CI")),
            fix=f"{words.pick(VERBS).lower()} {words.pick(TECH)}",
            severity=words.pick(("low", "medium", "medium", "high", "critical")),
            category=words.pick(CATEGORIES),
            **common(ts),
        )
        for ts in _timestamps(rng, counts.get("anti-pattern", 0), end)
    ]

    sessions: list[Record] = []
    for ts in _timestamps(rng, counts.get("session", 0), end):
        started = datetime.strptime(ts, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
        ended = (started + timedelta(minutes=rng.randrange(5, 300))).strftime(
            "%Y-%m-%dT%H:%M:%S.%fZ"
        )
        message = (
            f"Worked on the {words.pick(COMPONENTS)} {words.pick(ASPECTS)}. "
            f"{words.pick(NOTICED)} it {words.pick(SYMPTOMS)}. {words.pick(REASONS).capitalize()}."
        )
        sessions.append(
            Session(
                id=rid("session"),
                status="closed",
                started_at=ts,
                ended_at=ended,
                message=message,
                summary=summarize(message),
                next_steps=[words.fill(words.pick(NEXT)) for _ in range(rng.randrange(0, 4))],
                blockers=[words.fill(words.pick(NEXT)) for _ in range(rng.randrange(0, 2))],
                questions=[],
                threads=[],
                **common(ts),
            )
        )
    out["session"] = sessions

    out["goal"] = [
        Goal(
            id=rid("goal"),
            title=words.goal(),
            description=f"{words.pick(REASONS).capitalize()}.",
            status=words.pick(("active", "active", "achieved", "paused")),
            priority=words.pick(("low", "medium", "high", "critical")),
            criteria=[
                {"text": words.fill(words.pick(NEXT)), "met": rng.random() < 0.5}
                for _ in range(rng.randrange(1, 4))
            ],
            **common(ts),
        )
        for ts in _timestamps(rng, counts.get("goal", 0), end)
    ]
    return {kind: recs for kind, recs in out.items() if recs}


@contextlib.contextmanager
def no_fsync() -> Iterator[None]:
    """Fixture generation only: skip fsync (the store is throwaway)."""
    saved = os.fsync
    os.fsync = lambda fd: None  # type: ignore[assignment]
    try:
        yield
    finally:
        os.fsync = saved


def write_store(root: Path, n: int, *, seed: int = 7) -> dict[str, int]:
    """Write ``n`` records into the data root ``root`` (one ``Store.add`` per kind)."""
    store = Store(root)
    store.init()
    by_kind = make_records(n, seed=seed)
    with no_fsync():
        for records in by_kind.values():
            store.add(records)
    return {kind: len(recs) for kind, recs in by_kind.items()}


def write_jsonl(path: Path, n: int, *, seed: int = 11) -> dict[str, int]:
    """``n`` lines of importable kinds in the shape ``lore export`` writes."""
    mix = {kind: STORE_MIX[kind] for kind in IMPORT_KINDS}
    by_kind = make_records(n, seed=seed, mix=mix)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as out:
        for kind in IMPORT_KINDS:
            for record in by_kind.get(kind, ()):
                out.write(orjson.dumps({"kind": kind, **record.to_dict()}) + b"\n")
    return {kind: len(recs) for kind, recs in by_kind.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="data root to create (must not hold records)")
    parser.add_argument("--n", type=int, default=100_000, help="number of records")
    parser.add_argument("--jsonl", type=Path, help="also write N importable records here")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    counts = write_store(args.root, args.n, seed=args.seed)
    print(f"store {args.root}: {counts} in {time.perf_counter() - started:.1f} s")
    if args.jsonl:
        started = time.perf_counter()
        counts = write_jsonl(args.jsonl, args.n, seed=args.seed + 4)
        print(f"jsonl {args.jsonl}: {counts} in {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
