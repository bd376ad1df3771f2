"""Bad input: arbitrary text round-trips exactly through capture, show, export and import;
hostile ids and names never build paths, commands or objects; YAML bombs are refused."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from lore.cli import cli

Run = Callable[..., Result]

# Any text a UTF-8 pipe can carry: every code point but lone surrogates.
TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200
).filter(lambda s: s.strip())
METACHARACTERS = st.sampled_from(
    [
        "$(touch pwned)",
        "`rm -rf /`",
        "'; DROP TABLE records;--",
        "!!python/object/apply:os.system ['touch pwned']",
        "&anchor *alias",
        "--- \n...\n",
        '{"_op": "revise", "id": "x"}',
        "\x00\x01\x1b[31m\r\n\t",
        "key: value # not a comment",
        "\u2028\u2029\ufeff",
        "%(name)s {0} ${HOME} {{ x }}",
    ]
)


def _invoke(root: str, *args: str, input: bytes | str | None = None) -> Result:
    runner = CliRunner()
    return runner.invoke(cli, ["--data-dir", root, *args], input=input, catch_exceptions=False)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(text=st.one_of(TEXT, METACHARACTERS, st.tuples(TEXT, METACHARACTERS).map("".join)))
def test_text_round_trips_through_capture_show_export_import(text: str) -> None:
    expected = text.strip()
    with tempfile.TemporaryDirectory() as first, tempfile.TemporaryDirectory() as second:
        made = _invoke(first, "observe", "--json", "-", input=text.encode("utf-8"))
        if not expected:
            assert made.exit_code == 2
            return
        assert made.exit_code == 0, made.output
        record = json.loads(made.stdout)["record"]
        assert record["content"] == expected
        shown = json.loads(_invoke(first, "show", record["id"], "--json").stdout)
        assert shown == record
        exported = _invoke(first, "export").stdout_bytes
        assert json.loads(exported) == {"kind": "observation", **record}
        dump = Path(first).parent / f"{Path(first).name}.jsonl"
        dump.write_bytes(exported)
        try:
            imported = _invoke(second, "import", str(dump), "--json")
            assert imported.exit_code == 0, imported.output
            assert _invoke(second, "export").stdout_bytes == exported
            again = json.loads(_invoke(second, "show", record["id"], "--json").stdout)
            assert again == record
        finally:
            dump.unlink()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.one_of(TEXT, METACHARACTERS))
def test_pattern_names_round_trip_through_their_yaml_document(name: str) -> None:
    with tempfile.TemporaryDirectory() as root:
        made = _invoke(root, "learn", "--json", "--force", "-", input=name.encode("utf-8"))
        if not name.strip():
            assert made.exit_code == 2
            return
        assert made.exit_code == 0, made.output
        record = json.loads(made.stdout)["record"]
        assert record["name"] == name.strip()
        shown = json.loads(_invoke(root, "show", record["id"], "--json").stdout)
        assert shown["name"] == name.strip()
        assert _invoke(root, "validate").exit_code == 0


def test_ten_megabytes_through_stdin_round_trip(run: Run, data_dir: Path) -> None:
    text = ("0123456789abcdef" * 65536 * 10)[: 10 * 1024 * 1024 - 3] + "end"
    made = run("observe", "--json", "-", input=text.encode())
    assert made.exit_code == 0
    record_id = json.loads(made.stdout)["id"]
    shown = json.loads(run("show", record_id, "--json").stdout)
    assert shown["content"] == text
    exported = run("export").stdout_bytes
    assert json.loads(exported)["content"] == text


# --- hostile ids and names --------------------------------------------------------------------

HOSTILE = [
    "../../etc/passwd",
    "/etc/passwd",
    "pat-../../../../tmp/x",
    "pat-$(touch pwned)",
    "'; DROP TABLE x;--",
    "!!python/object:os.system",
    "pat-a\x00b",
    "session-../../x",
]


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_ids_are_refused_as_not_found(run: Run, data_dir: Path, bad: str) -> None:
    for args in (["show", bad], ["retract", bad], ["resume", bad]):
        result = run(*args, "--json")
        assert result.exit_code in (2, 3), (args, result.output)
        assert json.loads(result.stdout)["ok"] is False
    assert not Path("pwned").exists()
    assert not (data_dir / "patterns").exists()  # nothing was created, not even a folder


@pytest.mark.parametrize("bad", HOSTILE)
def test_hostile_ids_in_an_import_are_invalid_lines(
    run: Run, tmp_path: Path, data_dir: Path, bad: str
) -> None:
    folder = tmp_path / "src"
    folder.mkdir()
    source = folder / "in.jsonl"
    source.write_text(json.dumps({"kind": "pattern", "id": bad, "name": "x"}) + "\n")
    result = run("import", str(source), "--json")
    assert result.exit_code == 4
    assert json.loads(result.stdout)["code"] == "invalid"
    assert list(folder.iterdir()) == [source]
    assert not (data_dir / "patterns" / "data" / "patterns").exists()


def test_hostile_text_is_stored_as_plain_text(run: Run, data_dir: Path) -> None:
    hostile = "$(touch pwned) `touch pwned2` !!python/object/apply:os.system ['touch pwned3']"
    made = run("learn", hostile, "--solution", "'; DROP TABLE x;--", "--json")
    assert made.exit_code == 0
    record = json.loads(made.stdout)["record"]
    shown = json.loads(run("show", record["id"], "--json").stdout)
    assert shown["name"] == hostile
    assert shown["solution"] == "'; DROP TABLE x;--"
    assert not any(Path(p).exists() for p in ("pwned", "pwned2", "pwned3"))


def test_python_yaml_tags_in_a_document_are_never_constructed(run: Run, data_dir: Path) -> None:
    made = json.loads(run("learn", "Plain", "--json").stdout)
    file = data_dir / "patterns" / "data" / "patterns" / f"{made['id']}.yaml"
    file.write_text(file.read_text() + "extra: !!python/object/apply:os.system ['touch pwned']\n")
    result = run("show", made["id"], "--json")
    assert not Path("pwned").exists()
    assert result.exit_code == 0
    assert json.loads(result.stdout)["extra"] == ["touch pwned"]  # plain data, tag dropped
    file.write_text(file.read_text() + "other: !!python/name:os.system\n")
    shown = json.loads(run("show", made["id"], "--json").stdout)
    assert shown["other"] == ""  # a tagged scalar is kept as its text
    assert run("retract", made["id"]).exit_code == 0
    assert "!!python/name:os.system" in file.read_text()  # the hand edit survives as text
    assert not Path("pwned").exists()


BOMB = """\
a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
h: &h [*g,*g,*g,*g,*g,*g,*g,*g,*g]
i: &i [*h,*h,*h,*h,*h,*h,*h,*h,*h]
"""


@pytest.mark.parametrize("where", ["pattern", "projects"])
def test_billion_laughs_is_refused_within_a_second(data_dir: Path, where: str) -> None:
    if where == "pattern":
        target = data_dir / "patterns" / "data" / "patterns" / "pat-000000000001.yaml"
        text = "id: pat-000000000001\nname: bomb\n" + BOMB
    else:
        target = data_dir / "registry" / "data" / "projects.yaml"
        text = "projects:\n  bomb:\n    description: x\n" + BOMB
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)
    lore = str(Path(sys.executable).parent / "lore")
    env = {**os.environ, "LORE_DATA_DIR": str(data_dir)}
    for args in (["list", "patterns", "--json"], ["list", "projects", "--json"], ["validate"]):
        # The process's own CPU time, not the wall clock: a loaded machine (the suite runs
        # on every core) stretches the second, an expanded bomb would burn minutes of CPU.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        done = subprocess.run([lore, *args], capture_output=True, env=env, timeout=60, check=False)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        spent = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
        assert spent < 1.5, (args, spent)  # a process start included
        assert done.returncode in (0, 4), done.stderr
    report = subprocess.run(
        [lore, "validate", "--json"], capture_output=True, env=env, timeout=20, check=False
    )
    issues = json.loads(report.stdout)["issues"]
    assert any(i["file"].endswith(target.name) and i["severity"] == "error" for i in issues)
