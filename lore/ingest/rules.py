"""The extraction rules as tables, documented in LORE_CONTRACT.md §7.12 (change both
together): which failed commands are noise, the error-type classification, how the key
error line is chosen, and which sentences become candidates. Matching code is in
``lore.ingest.shell`` (commands) and ``lore.ingest.extract``; no rule lives there.
"""

from __future__ import annotations

import re
from typing import NamedTuple

# Each pattern is compiled on its first use (``lazy``): a hook classifying one failed
# command needs a few of them, and compiling them all costs every hook process.
from lore.secrets.policy import lazy

# --- commands ----------------------------------------------------------------------------

# Prefixes that run another program; a segment's program is read after them.
WRAPPERS = lazy(
    r"^(?:(?:sudo|time|nice|nohup|exec|command|builtin|env|xargs(?: -\S+)*|timeout \S+"
    r"|uv run(?: --\S+)*|poetry run|pipenv run|pdm run|hatch run|rye run|conda run(?: -n \S+)?"
    r"|npx(?: -y)?|bunx|pnpm (?:exec|dlx)|yarn dlx|bundle exec|dotenv(?: --)?"
    r"|doppler run(?: -\S+(?: \S+)?)* --|python3? -m|op run --)\s+)+"
)
ASSIGNMENT = lazy(r"^(?:[A-Za-z_][A-Za-z0-9_]*=(?:'[^']*'|\"[^\"]*\"|\S*)\s+)+")
# Programs that set things up rather than do the work (never a segment's verdict).
SETUP = frozenset(
    {"cd", "pushd", "popd", "export", "set", "unset", "source", ".", "echo", "printf", "pwd",
     "true", "sleep", "clear", "alias", "eval", ":"}
)  # fmt: skip
# Search and listing commands: a failure with no output, or only "not there" lines, is a
# no-match (grep found nothing, ls of a glob that matched nothing), not an error.
NO_MATCH = lazy(
    r"^(?:grep|egrep|fgrep|rg|ag|ack|find|fd|ls|tree|test|\[|\[\[|which|type|whereis|stat"
    r"|diff|cmp|pgrep|compgen|git (?:grep|ls-files|diff --exit-code|rev-parse --verify)"
    r"|command -v)\b"
)
NO_MATCH_EXITS = frozenset({1, 2})
NOT_THERE = lazy(
    r"No such file or directory|cannot access|not found|No matches found|does not exist"
    r"|Not a directory|did not match any file",
    re.IGNORECASE,
)

# Command families (tried on each segment's program, after WRAPPERS).
TEST_COMMANDS = lazy(
    r"^(?:pytest|py\.test|tox|nox|unittest|(?:npm|pnpm|yarn|bun)(?: run)? test\b|vitest|jest"
    r"|mocha|ava|karma|go test|cargo (?:test|nextest)|mix test|rspec|rake (?:test|spec)"
    r"|phpunit|pest|dotnet test|mvn (?:\S+ )*test|\S*gradlew? (?:\S+ )*test|ctest|swift test"
    r"|deno test|playwright test|cypress run|bats|make (?:test|check)\b|nix flake check)"
)
LINT_COMMANDS = lazy(
    r"^(?:ruff|flake8|pylint|mypy|pyright|pyre|black --check|isort --check|pydocstyle|bandit"
    r"|eslint|tslint|prettier (?:--check|-c)|biome|tsc --noEmit|vue-tsc|svelte-check"
    r"|golangci-lint|staticcheck|go vet|cargo (?:clippy|fmt --check)|rustfmt --check|rubocop"
    r"|shellcheck|hadolint|markdownlint|stylelint|yamllint|credo|mix (?:credo|dialyzer|format"
    r" --check)|swiftlint|ktlint|detekt|pre-commit|lint-imports|(?:npm|pnpm|yarn|bun)(?: run)?"
    r" (?:lint|typecheck|type-check|check-types|format:check)\b"
    r"|make (?:lint|typecheck|check-format)\b)"
)
BUILD_COMMANDS = lazy(
    r"^(?:make\b|cmake|ninja|cargo (?:build|check)|go build|(?:npm|pnpm|yarn|bun)(?: run)? build"
    r"|tsc\b|webpack|vite build|esbuild|rollup|parcel build|turbo (?:run )?build|nx build"
    r"|\S*gradlew? (?:\S+ )*(?:build|assemble)|mvn (?:\S+ )*(?:compile|package|install)"
    r"|mix compile|dotnet build|docker (?:build|compose build)|bazel build|swift build"
    r"|xcodebuild|node \S*build\S*|pip install|uv (?:sync|pip install)|poetry install"
    r"|(?:npm|pnpm|yarn|bun) (?:install|ci|add)\b)"
)
GIT_COMMANDS = lazy(r"^(?:git|gh|hub)\b")

# --- error types ---------------------------------------------------------------------------


class ErrorType(NamedTuple):
    """One row of the classification. A failure is matched in passes, each going through
    the rows in order (``lore.ingest.extract.classify``): 1. ``status`` and ``exits``;
    2. the family rows' ``output`` against the whole output; 3. the other rows' ``output``
    up to UsageError against the whole output; 4. the command's programs, last first,
    against ``family``; 5. the rows after GitError against the key error line only;
    6. NonZeroExit."""

    name: str  # one of lore.components.failures.RECOMMENDED_TYPES, which says what it means
    status: str = ""  # the call's status (timeout, interrupted, denied)
    exits: frozenset[int] = frozenset()
    output: re.Pattern[str] | None = None  # searched in the command's output
    family: re.Pattern[str] | None = None  # one of the command's programs


ERROR_TYPES: tuple[ErrorType, ...] = (
    ErrorType("Timeout", status="timeout"),
    ErrorType("Interrupted", status="interrupted"),
    ErrorType("UserDeny", status="denied"),
    ErrorType(
        "CommandNotFound",
        exits=frozenset({127}),
        output=lazy(
            r"command not found|: not found$|is not recognized as an? (?:internal|external)"
            r"|executable file not found",
            re.MULTILINE,
        ),
    ),
    ErrorType(
        "PermissionError",
        exits=frozenset({126}),
        output=lazy(
            r"[Pp]ermission denied|EACCES|[Oo]peration not permitted|403 Forbidden"
            r"|[Aa]uthentication failed|could not read Username|does not have access"
            r"|[Aa]ccess denied"
        ),
    ),
    ErrorType(
        "NetworkError",
        output=lazy(
            r"Could not resolve host|Connection refused|ECONNREFUSED|ECONNRESET|ETIMEDOUT"
            r"|Network is unreachable|getaddrinfo|Temporary failure in name resolution"
            r"|Failed to connect|Connection reset|certificate verify failed|ENOTFOUND"
        ),
    ),
    ErrorType(
        "UsageError",
        output=lazy(
            r"unknown (?:flag|option|command|shorthand flag|subcommand)|unrecognized (?:option|"
            r"arguments?)|invalid (?:option|choice)|illegal option|^usage: |no such option"
            r"|requires an argument|missing required (?:argument|flag|option)|too many arguments"
            r"|unexpected argument",
            re.IGNORECASE | re.MULTILINE,
        ),
    ),
    ErrorType(
        "TestFailure",
        family=TEST_COMMANDS,
        output=lazy(
            r"^FAILED |^=+ .*\d+ failed|^\s*\d+ failed\b|Tests?:\s+\d+ failed|^--- FAIL"
            r"|\b\d+ tests?, \d+ failures?\b|^FAIL\s",
            re.MULTILINE,
        ),
    ),
    ErrorType(
        "LintError",
        family=LINT_COMMANDS,
        output=lazy(r"error TS\d{4}|: error: .*\[[\w-]+\]$", re.MULTILINE),
    ),
    ErrorType(
        "BuildError",
        family=BUILD_COMMANDS,
        output=lazy(
            r"build failed|compilation (?:failed|error)|error\[E\d+\]|could not compile"
            r"|cannot find symbol|undefined reference|Could not resolve \"",
            re.IGNORECASE,
        ),
    ),
    ErrorType(
        "GitError",
        family=GIT_COMMANDS,
        output=lazy(r"^fatal: |not a git repository|CONFLICT \(|non-fast-forward", re.M),
    ),
    ErrorType(
        "EnvironmentError",
        output=lazy(
            r"ModuleNotFoundError|No module named|Cannot find module|ImportError"
            r"|environment variable .{0,40}(?:not set|required|missing)|is not installed"
            r"|Missing script|could not find a version",
            re.IGNORECASE,
        ),
    ),
    ErrorType(
        "MissingFile",
        output=lazy(
            r"No such file or directory|(?:[Ff]ile|[Dd]irectory|[Pp]ath)\b.{0,80} does not exist"
            r"|ENOENT|FileNotFoundError|cannot find the (?:file|path)"
        ),
    ),
    ErrorType(
        "RuntimeError",
        output=lazy(
            r"Traceback \(most recent call last\)|^panic: |Unhandled|Uncaught|Exception in "
            r"thread|Segmentation fault|core dumped|^\S+(?:Error|Exception): ",
            re.MULTILINE,
        ),
    ),
    ErrorType("NonZeroExit"),  # anything else
)

# --- the key error line --------------------------------------------------------------------

# Lines that sum a run up (the last one wins): preferred for tests and linters.
SUMMARY_LINE = lazy(
    r"^=*\s*\d+ (?:failed|errors?|failures?)\b|^=+ .*\b(?:failed|errors?)\b.* =+$"
    r"|\b\d+ tests?, \d+ failures?\b|^Tests?:\s+.*failed|^Found \d+ errors?\b|^FAIL\b"
    r"|^error: could not compile|^\d+ problems? \(\d+ errors?|^✖ \d+ problems?",
    re.MULTILINE,
)
# Lines that state an error (the first one wins): preferred for everything else.
ERROR_LINE = lazy(
    r"^(?:fatal|error|Error|ERROR|FATAL|E)(?:\[\w+\])?[:!\]]|\[ERROR\]|^✘|^npm ERR!"
    r"|command not found|[Pp]ermission denied|No such file or directory|Doppler Error:"
    r"|^\S*(?:Error|Exception): |^FAILED |does not exist|^\s*\w+Error\b",
    re.MULTILINE,
)
# The exception a traceback ends with (the last one wins).
EXCEPTION_LINE = lazy(r"^[\w.]+(?:Error|Exception|Exit|Interrupt)\b(?::.*)?$", re.M)
# Lines that never say anything about the failure.
NOISE_LINE = lazy(r"^[\s=\-_*~#.>|]*$|^hint: |^\s*at |^\s*File \"|^\s*\^+\s*$")
KEY_LINE_LIMIT = 240

# --- candidates ------------------------------------------------------------------------------


class Candidate(NamedTuple):
    """A sentence shape that may be worth keeping: ``tag`` says what it would become."""

    tag: str  # "decision", "preference" or "pattern"
    who: str  # "user", "agent" or "both"
    pattern: re.Pattern[str]
    reason: bool = False  # the agent's sentence must also give a reason (REASON)


REASON = lazy(r"\b(?:because|since|so that|instead of|rather than|over|as it|to avoid)\b", re.I)
CANDIDATES: tuple[Candidate, ...] = (
    Candidate(
        "decision",
        "both",
        lazy(
            r"\b(?:we(?:'ve| have)? (?:decided|agreed|chose|settled on)|i(?:'ve| have)? decided"
            r"|decided (?:to|on|against)|the decision (?:is|was)|going forward|decision:)",
            re.I,
        ),
    ),
    Candidate(
        "decision",
        "both",
        lazy(
            r"\b(?:let'?s|we(?:'ll| will| should)) (?:go with|use|stick with|switch to|keep)\b",
            re.I,
        ),
        reason=True,
    ),
    Candidate(
        "preference",
        "user",
        lazy(
            r"^(?:no+|nope)[,.!;]\s+\S|^no+\s+no+\b|^(?:please\s+)?(?:don'?t|do not|never|always"
            r"|stop|avoid|make sure)\b|\b(?:you|we)\s+(?:should\s+|must\s+)?(?:always|never)\b"
            r"|\b(?:from now on|going forward)\b|\bi(?:'d)? prefer\b"
            r"|\bi(?:'d| would) rather\b|\bplease (?:always|never|don'?t|do not|stop)\b",
            re.I,
        ),
    ),
    Candidate(
        "pattern",
        "both",
        lazy(
            r"\b(?:(?:the|our) convention|by convention|the rule is|as a rule|we (?:always|never)"
            r"|(?:must|should) (?:always|never)"
            r"|in this (?:repo|repository|project|codebase),? we)\b",
            re.I,
        ),
    ),
)
# Reassurance starts like a correction ("no, ...", "don't ...", "never ...") and asks for
# nothing: such a sentence is never a candidate.
REASSURANCE = lazy(
    r"^(?:(?:no+|nope|oh|ah|ok(?:ay)?)\W+)?(?:(?:please\s+)?(?:don'?t|do not) worry"
    r"|never ?mind|no (?:worries|problem)|(?:that'?s|that is|it'?s|it is) (?:fine|ok(?:ay)?"
    r"|alright|all right|good))\b",
    re.I,
)
# Short acknowledgements are never candidates, requests, or open items.
_ACK = (
    "ok okay k yes yep yeah ya y sure thanks thank you thx ty great perfect nice cool good "
    "lgtm go ahead continue please do it lets let's done commit this that push proceed keep "
    "going sounds looks fine right correct exactly agreed awesome excellent sorry oops got "
    "makes sense ship all carry on alright hmm no nope"
)
ACK_WORDS = frozenset(_ACK.split())
ACK_MAX_WORDS = 8
MIN_WORDS = 4  # a candidate sentence has at least this many words
CONTEXT_WORDS = 8  # a shorter one is kept with the sentence after it
MAX_CHARS = 400  # longer "sentences" are pasted logs or code, not statements
# Sentences that leave something open (the user's, or a "next steps" list of the agent).
DEFERRAL = lazy(
    r"\b(?:later|todo|to-do|follow[- ]up|still need(?:s)? to|we(?:'ll| will) need"
    r" to|remind me|eventually|afterwards|not yet)\b",
    re.I,
)
NEXT_HEADING = lazy(
    r"^\W*(?:next steps?|remaining(?: work| items)?|todo|follow[- ]ups?"
    r"|open (?:questions|items))\W*$",
    re.I,
)
COMMIT_LINE = lazy(r"^\[([^\]\s]+)(?: \(root-commit\))? ([0-9a-f]{7,40})\] (.+)$", re.M)
