"""``lore registry ...``: projects.yaml kept as written by hand, context bundle, validate."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from click.testing import Result

from lore.components.registry import cycles

Run = Callable[..., Result]
NOW = "2026-03-10T12:00:00.000000Z"

HAND_WRITTEN = """\
# Our projects (edited by hand)
projects:
  # the shop comes first
  webshop:
    description: The web shop   # customer facing
    owner: alice
  payments:
    path: /tmp
"""


@pytest.fixture(autouse=True)
def frozen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LORE_NOW", NOW)
    monkeypatch.delenv("LORE_PROJECT", raising=False)


def ok_json(run: Run, *args: str) -> Any:
    result = run(*args, "--json")
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)


def projects_file(data_dir: Path) -> Path:
    return data_dir / "registry" / "data" / "projects.yaml"


def hand_written(data_dir: Path) -> Path:
    path = projects_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(HAND_WRITTEN, encoding="utf-8")
    return path


def test_cycles_are_found_once_each() -> None:
    graph = {"a": ["b"], "b": ["c"], "c": ["a"], "d": ["d"], "e": ["a"], "f": []}
    assert cycles(graph) == [["a", "b", "c", "a"], ["d", "d"]]


def test_add_new_and_existing_keeps_hand_edits(run: Run, data_dir: Path) -> None:
    path = hand_written(data_dir)
    added = ok_json(
        run, "registry", "add", "docs", "--path", "/srv/docs", "--description", "The docs",
        "--tag", "web", "--depends-on", "webshop",
    )  # fmt: skip
    assert list(added) == ["ok", "id", "created", "record"]
    assert (added["id"], added["created"]) == ("docs", True)
    assert added["record"] == {
        "id": "docs",
        "timestamp": NOW,
        "name": "docs",
        "description": "The docs",
        "path": "/srv/docs",
        "repo": "",
        "status": "active",
        "depends_on": ["webshop"],
        "session_id": None,
        "project": None,
        "source": "manual",
        "tags": ["web"],
        "v": 1,
    }
    updated = ok_json(run, "registry", "add", "webshop", "--depends-on", "payments", "--tag", "a,b")
    assert (updated["created"], updated["record"]["owner"]) == (False, "alice")
    text = run("registry", "add", "webshop", "--description", "The shop")
    assert text.stdout == "project webshop updated\n"
    assert path.read_text(encoding="utf-8") == (
        "# Our projects (edited by hand)\n"
        "projects:\n"
        "  # the shop comes first\n"
        "  webshop:\n"
        "    description: The shop       # customer facing\n"
        "    owner: alice\n"
        "    tags:\n"
        "      - a\n"
        "      - b\n"
        "    depends_on:\n"
        "      - payments\n"
        "  payments:\n"
        "    path: /tmp\n"
        "  docs:\n"
        f"    timestamp: '{NOW}'\n"
        "    description: The docs\n"
        "    path: /srv/docs\n"
        "    status: active\n"
        "    depends_on:\n"
        "      - webshop\n"
        "    tags:\n"
        "      - web\n"
    )


def test_add_refusals_change_nothing(run: Run, data_dir: Path) -> None:
    path = hand_written(data_dir)
    ok_json(run, "registry", "add", "webshop", "--depends-on", "payments")
    before = path.read_bytes()
    cycle = run("registry", "add", "payments", "--depends-on", "webshop", "--json")
    assert cycle.exit_code == 4
    assert json.loads(cycle.stdout)["error"] == "dependency cycle: payments -> webshop -> payments"
    assert run("registry", "add", "solo", "--depends-on", "solo").exit_code == 4
    secret = run("registry", "add", "x", "--description", "AKIA" + "QZ7XJ4K2LMNOPQRS")
    assert secret.exit_code == 7
    assert run("registry", "add", " ").exit_code == 2
    assert path.read_bytes() == before


def test_list_show_remove(run: Run, data_dir: Path) -> None:
    path = hand_written(data_dir)
    assert run("registry").stdout == "webshop  -  The web shop\npayments  /tmp\n"
    items = ok_json(run, "registry", "list")
    assert [p["name"] for p in items] == ["webshop", "payments"]
    assert ok_json(run, "registry", "--json") == items
    assert json.loads(run("registry", "--json", "show", "webshop").stdout) == items[0]
    assert ok_json(run, "registry", "show", "webshop") == items[0]
    assert items[0]["owner"] == "alice"
    assert run("registry", "show", "nope").exit_code == 3
    ok_json(run, "registry", "add", "webshop", "--depends-on", "payments")
    removed = ok_json(run, "registry", "remove", "payments")
    assert removed == {
        "ok": True,
        "id": "payments",
        "record": {**items[1], "id": "payments"},
        "dependents": ["webshop"],
    }
    assert "payments" not in path.read_text(encoding="utf-8").split("depends_on")[0]
    assert path.read_text(encoding="utf-8").startswith(
        "# Our projects (edited by hand)\nprojects:\n  # the shop comes first\n  webshop:\n"
    )
    before = path.read_bytes()
    missing = run("registry", "remove", "payments")
    assert missing.exit_code == 3
    assert path.read_bytes() == before


def test_validate_reports_and_exits_4(run: Run, data_dir: Path) -> None:
    path = hand_written(data_dir)
    clean = ok_json(run, "registry", "validate")
    assert clean == {"ok": True, "projects": 2, "errors": 0, "warnings": 0, "issues": []}
    path.write_text(
        HAND_WRITTEN
        + "    depends_on: [webshop]\n"
        + "  ghost:\n    path: /no/such/dir\n    depends_on: [nobody]\n",
        encoding="utf-8",
    )
    path.write_text(
        path.read_text().replace("owner: alice", "owner: alice\n    depends_on: [payments]")
    )
    result = run("registry", "validate", "--json")
    assert result.exit_code == 4
    report = json.loads(result.stdout)
    assert (report["ok"], report["projects"], report["errors"]) == (False, 3, 2)
    assert report["warnings"] == 1
    assert report["issues"] == [
        {
            "severity": "error",
            "code": "unknown-dependency",
            "project": "ghost",
            "message": "depends on 'nobody', not registered",
        },
        {
            "severity": "warning",
            "code": "missing-path",
            "project": "ghost",
            "message": "path /no/such/dir does not exist on this machine",
        },
        {
            "severity": "error",
            "code": "dependency-cycle",
            "project": "payments",
            "message": "dependency cycle: payments -> webshop -> payments",
        },
    ]
    text = run("registry", "validate")
    assert text.exit_code == 4
    assert text.stdout.splitlines()[0] == (
        "error: ghost: depends on 'nobody', not registered [unknown-dependency]"
    )
    assert text.stderr == "lore: 3 projects, 2 errors, 1 warning\n"


def test_context_bundle(run: Run, data_dir: Path) -> None:
    hand_written(data_dir)
    ok_json(run, "registry", "add", "webshop", "--depends-on", "payments,auth")
    dec = ok_json(run, "remember", "Use Stripe", "-r", "fast", "--project", "webshop")["id"]
    ok_json(run, "remember", "Unrelated", "--project", "other")
    pat = ok_json(run, "learn", "Idempotency keys", "--solution", "one per charge",
                  "--project", "webshop")["id"]  # fmt: skip
    anti = ok_json(run, "patterns", "warn", "Double charge", "--symptom", "s", "--fix", "dedupe",
                   "--severity", "high", "--project", "webshop")["id"]  # fmt: skip
    goal = ok_json(run, "goal", "create", "Launch", "--project", "webshop", "--criterion", "x")
    done = ok_json(run, "goal", "create", "Old launch", "--project", "webshop")["id"]
    ok_json(run, "goal", "update", done, "--status", "completed")
    for n in range(3):
        ok_json(run, "fail", "Timeout", f"gateway timed out {n}", "--project", "webshop")
    ok_json(run, "fail", "NonZeroExit", "once", "--project", "webshop")
    doc = ok_json(run, "registry", "context", "webshop")
    assert doc["local_path"] == ""  # webshop has no path
    assert list(doc) == [
        "project", "local_path", "dependencies", "decisions", "patterns", "anti_patterns", "goals",
        "recurring_failures",
    ]  # fmt: skip
    assert doc["project"]["description"] == "The web shop"
    assert doc["dependencies"] == [
        {"name": "payments", "registered": True, "description": "", "path": "/tmp"},
        {"name": "auth", "registered": False, "description": "", "path": ""},
    ]
    assert [d["id"] for d in doc["decisions"]] == [dec]
    assert [p["id"] for p in doc["patterns"]] == [pat]
    assert [a["id"] for a in doc["anti_patterns"]] == [anti]
    assert [(g["id"], g["completion"]) for g in doc["goals"]] == [(goal["id"], "0/1")]
    assert doc["recurring_failures"] == [
        {
            "error_type": "Timeout",
            "count": 3,
            "last_seen": NOW,
            "last_message": "gateway timed out 2",
        }
    ]
    text = run("registry", "context", "webshop")
    assert text.exit_code == 0
    assert text.stdout == (
        "# Project webshop\n"
        "\n"
        "The web shop\n"
        "\n"
        "## Dependencies\n"
        "- payments\n"
        "- auth (not registered)\n"
        "\n"
        "## Recent decisions\n"
        f"- Use Stripe ({dec}, pending): fast\n"
        "\n"
        "## Patterns\n"
        f"- Idempotency keys: one per charge ({pat}, confidence 0.5)\n"
        f"- Watch for: Double charge; fix: dedupe ({anti}, high)\n"
        "\n"
        "## Open goals\n"
        f"- Launch [active, 0/1 criteria met] ({goal['id']})\n"
        "\n"
        "## Recurring failures\n"
        '- Timeout x3: last "gateway timed out 2"\n'
    )
    assert run("registry", "context", "nope").exit_code == 3


BROKEN = "projects:\n  webshop:\n    description: The web shop\n  owner: alice\n    path: /tmp\n"


def test_unparseable_registry_is_an_error_not_an_empty_one(run: Run, data_dir: Path) -> None:
    path = projects_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(BROKEN, encoding="utf-8")
    result = run("registry", "validate", "--json")
    assert result.exit_code == 4
    report = json.loads(result.stdout)
    assert (report["ok"], report["projects"], report["errors"]) == (False, 0, 1)
    [issue] = report["issues"]
    assert (issue["severity"], issue["code"], issue["project"]) == ("error", "parse", None)
    assert issue["message"].startswith(f"{path}:5: invalid YAML")
    text = run("registry", "validate")
    assert text.exit_code == 4
    assert text.stdout == f"error: {issue['message']} [parse]\n"
    assert text.stderr == "lore: 0 projects, 1 error\n"
    # A listing never passes an unreadable registry off as an empty one (exit 0).
    for args in (("registry", "list"), ("list", "projects"), ("registry", "list", "--json")):
        listing = run(*args)
        assert listing.exit_code == 4, args
        assert listing.stderr.startswith(f"lore: error: {path}:5: invalid YAML"), args
        assert "no project can be read until it is fixed" in listing.stderr
    assert path.read_text(encoding="utf-8") == BROKEN


@pytest.mark.parametrize(
    "name",
    [
        " ".join(["word"] * 20),  # 99 characters: ruamel folded it onto two lines
        "a" * 60 + " " + "b" * 60,
        "svc: " + "x " * 60,
    ],
)
def test_a_long_project_name_is_written_so_it_reads_back(
    run: Run, data_dir: Path, name: str
) -> None:
    added = ok_json(run, "registry", "add", name, "--description", "long")
    assert added["created"] is True
    ok_json(run, "registry", "add", "other", "--description", "short")
    listed = ok_json(run, "registry", "list")
    assert [p["name"] for p in listed] == [name.strip(), "other"]
    from lore.storage import yamlio

    doc = yamlio.to_plain(yamlio.load(projects_file(data_dir)))
    assert list(doc["projects"]) == [name.strip(), "other"]
    assert ok_json(run, "registry", "remove", "other")["id"] == "other"
    assert [p["name"] for p in ok_json(run, "registry", "list")] == [name.strip()]


def test_a_write_that_would_not_read_back_is_refused_and_changes_nothing(
    run: Run, data_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = hand_written(data_dir)
    from lore.storage import yamlio

    real = yamlio.dumps

    def corrupting(data: Any, width: int | None = None) -> bytes:
        return real(data, width).replace(b"projects:", b"projects: [", 1)

    monkeypatch.setattr(yamlio, "dumps", corrupting)
    result = run("registry", "add", "billing", "--description", "x")
    assert result.exit_code == 4
    assert result.stderr == (
        f"lore: error: {path}: lore would write YAML it cannot read back the same; nothing "
        "was written\n"
    )
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN


def test_remove_keeps_the_comments_that_follow_the_entry(run: Run, data_dir: Path) -> None:
    path = projects_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(
        "projects:\n  a:\n    description: A\n  # about b\n  b:\n    description: B\n# the end\n",
        encoding="utf-8",
    )
    assert run("registry", "remove", "a").exit_code == 0
    assert path.read_text(encoding="utf-8") == (
        "projects:\n  # about b\n  b:\n    description: B\n# the end\n"
    )
    assert run("registry", "remove", "b").exit_code == 0
    assert path.read_text(encoding="utf-8") == "projects: {}\n  # about b\n# the end\n"


@pytest.mark.parametrize(
    ("args", "field"),
    [
        (["x", "--tag", "ok,TOKEN"], "tags[1]"),
        (["x", "--depends-on", "TOKEN"], "depends_on[0]"),
        (["TOKEN"], "name"),
        (["webshop", "--path", "TOKEN"], "path"),
    ],
)
def test_every_new_text_passes_the_secrets_gate(
    run: Run, data_dir: Path, args: list[str], field: str
) -> None:
    path = hand_written(data_dir)
    token = "ghp_" + "aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3zA5"
    result = run("registry", "add", *[a.replace("TOKEN", token) for a in args], "--json")
    assert result.exit_code == 7
    assert json.loads(result.stdout)["field"] == field
    assert path.read_text(encoding="utf-8") == HAND_WRITTEN


def test_add_keeps_the_comments_at_the_end_of_the_file_at_the_end(run: Run, data_dir: Path) -> None:
    path = projects_file(data_dir)
    path.parent.mkdir(parents=True)
    path.write_text(
        "projects:\n  a:\n    description: A  # inline\n# the end\n# really\n", encoding="utf-8"
    )
    assert run("registry", "add", "b", "--tag", "x,y").exit_code == 0
    assert run("registry", "add", "c", "--description", "C").exit_code == 0
    assert path.read_text(encoding="utf-8") == (
        "projects:\n"
        "  a:\n    description: A  # inline\n"
        f"  b:\n    timestamp: '{NOW}'\n    status: active\n    tags:\n      - x\n      - y\n"
        f"  c:\n    timestamp: '{NOW}'\n    description: C\n    status: active\n"
        "# the end\n# really\n"
    )


def test_remove_after_an_inline_comment_keeps_its_column(run: Run, data_dir: Path) -> None:
    path = projects_file(data_dir)
    path.parent.mkdir(parents=True)
    text = "projects:\n  y:\n    depends_on:\n      - x   # dep\n  z:\n    path: /tmp\n# end\n"
    path.write_text(text, encoding="utf-8")
    assert run("registry", "remove", "z").exit_code == 0
    assert path.read_text(encoding="utf-8") == (
        "projects:\n  y:\n    depends_on:\n      - x   # dep\n# end\n"
    )


# --- project paths: stored from a documented base, read alike on every clone ----------


def test_a_relative_path_is_stored_from_the_workspace_and_validates_from_anywhere(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    workspace = tmp_path / "ws"
    (workspace / "webshop").mkdir(parents=True)
    (workspace / "other").mkdir()
    monkeypatch.setenv("LORE_WORKSPACE", str(workspace))
    monkeypatch.chdir(workspace / "other")
    assert (
        ok_json(run, "registry", "add", "webshop", "--path", "../webshop")["record"]["path"]
        == "webshop"
    )
    monkeypatch.chdir(tmp_path)  # somewhere else: the path still resolves
    assert ok_json(run, "registry", "validate")["issues"] == []
    doc = ok_json(run, "registry", "context", "webshop")
    assert doc["local_path"] == str(workspace / "webshop")
    assert (
        f"Path: webshop ({workspace / 'webshop'})\n" in run("registry", "context", "webshop").stdout
    )


def test_a_path_missing_on_this_machine_is_a_warning_not_an_error(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "mine" / "webshop").mkdir(parents=True)
    monkeypatch.setenv("LORE_WORKSPACE", str(tmp_path / "mine"))
    ok_json(run, "registry", "add", "webshop", "--path", str(tmp_path / "mine" / "webshop"))
    # A teammate keeps checkouts elsewhere and has not cloned the web shop.
    monkeypatch.setenv("LORE_WORKSPACE", str(tmp_path / "theirs"))
    result = run("registry", "validate", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout) == {
        "ok": True,
        "projects": 1,
        "errors": 0,
        "warnings": 1,
        "issues": [
            {
                "severity": "warning",
                "code": "missing-path",
                "project": "webshop",
                "message": "path webshop does not exist on this machine "
                f"({tmp_path / 'theirs' / 'webshop'})",
            }
        ],
    }
    text = run("registry", "validate")
    assert text.exit_code == 0
    assert text.stdout == (
        "warning: webshop: path webshop does not exist on this machine "
        f"({tmp_path / 'theirs' / 'webshop'}) [missing-path]\n"
    )
    assert text.stderr == "lore: 1 project, 0 errors, 1 warning\n"


def test_without_a_workspace_paths_are_relative_to_the_registrys_repository(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = tmp_path / "team"
    (repo / ".git").mkdir(parents=True)
    (repo / "services" / "billing").mkdir(parents=True)
    monkeypatch.setenv("LORE_DATA_DIR", str(repo / "lore"))
    monkeypatch.delenv("LORE_WORKSPACE", raising=False)
    monkeypatch.chdir(repo / "services")
    ok_json(run, "registry", "add", "billing", "--path", "billing")
    monkeypatch.chdir(tmp_path)
    assert ok_json(run, "registry", "show", "billing")["path"] == "services/billing"
    assert ok_json(run, "registry", "validate")["issues"] == []


@pytest.mark.parametrize(
    ("given", "stored"),
    [
        ("~/src/api", "~/src/api"),  # as written
        ("{home}/src/api", "~/src/api"),  # inside the home directory
        ("{home}", "~"),
        ("{elsewhere}/api", "{elsewhere}/api"),  # outside both: absolute
        ("{data}/../checkouts/api", "{tmp}/checkouts/api"),  # normalised
    ],
)
def test_paths_outside_the_base(
    run: Run, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, given: str, stored: str
) -> None:
    monkeypatch.delenv("LORE_WORKSPACE", raising=False)
    names = {
        "home": str(Path.home()),
        "elsewhere": "/srv/elsewhere",
        "data": str(tmp_path / "data"),
        "tmp": str(tmp_path),
    }
    record = ok_json(run, "registry", "add", "api", "--path", given.format(**names))["record"]
    assert record["path"] == stored.format(**names)
