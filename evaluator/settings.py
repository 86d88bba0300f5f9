"""Every `GNNCB_*` environment variable: one table, and the only module that reads them.

Why: the variables used to be read wherever they were needed (a dozen modules, two of them
documented nowhere), so nobody could say which knobs exist, what their defaults are or who
sets them. `VARIABLES` is that list; the accessors below are the only `os.environ` reads of a
`GNNCB_` name in the package (tests/package/test_settings.py checks it, and that
docs/maintainers.md's table is `markdown_table()` as it stands). The accessors return the raw
setting parsed exactly as the readers did before; defaults that need another layer (the
checkout's folder, the bot's login) stay with the caller, which the `default` column names.

This module sits at the bottom of the package, below `paths`: it imports nothing from it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass


@dataclass(frozen=True)
class Variable:
    name: str
    type: str
    default: str
    purpose: str
    set_by: str
    used_by: str


ROOT = Variable(
    "GNNCB_ROOT", "path", "the repository found from the current folder",
    "the repository whose competitions/, keys/, leaderboard/ and templates/ the tools use "
    "(`--root` wins over it)",
    "the workflows (the job's checkout); a maintainer running gnncb outside the repository",
    "evaluator.paths")
PRIVATE_KEY = Variable(
    "GNNCB_PRIVATE_KEY", "PEM text", "none (`--private-key` files instead)",
    "the platform's private key(s) that open submissions and hidden labels; several PEM "
    "blocks may be concatenated",
    "the repository secret, in evaluate.yml, reveal.yml and llm-campaign.yml",
    "evaluator.submission.keys")
PRIVATE_KEY_PREVIOUS = Variable(
    "GNNCB_PRIVATE_KEY_PREVIOUS", "PEM text", "empty (no previous key)",
    "the key retired by a rotation, still opening envelopes sealed before it",
    "the repository secret, in evaluate.yml and reveal.yml", "evaluator.commands._options")
CODE_SEED = Variable(
    "GNNCB_CODE_SEED", "text (32+ characters)", "none (code-track cases seeded by the digest)",
    "the master secret the code track's leaderboard cases are drawn from (per board version "
    "an HMAC of it; committed in competitions/graph-coding/case-seed.json, revealed after the "
    "version closes)",
    "the repository secret, in evaluate-code.yml's seed job only (never the judge job); "
    "maintainers running `gnncb code commit-seed/reveal-seed`",
    "evaluator.codetrack.caseseed")
BOT_LOGIN = Variable(
    "GNNCB_BOT_LOGIN", "GitHub login", "github-actions[bot]",
    "the account whose PR comments carry the pipelines' answers (an answered PR is skipped)",
    "the repository variable, in evaluate.yml and evaluate-code.yml", "evaluator.commands.ci")
CACHE = Variable(
    "GNNCB_CACHE", "path", "runs/ in the repository",
    "where generated code-track case sets are cached (under codetrack/)",
    "evaluate-code.yml (the runner's temporary folder); tests", "evaluator.codetrack.cases")
SANDBOX_CGROUP = Variable(
    "GNNCB_SANDBOX_CGROUP", "path", "the judge's own cgroup v2",
    "a cgroup v2 directory prepared for the judge's per-run memory limits",
    "a maintainer whose judge runs where its own cgroup cannot be delegated",
    "evaluator.sandbox.cgroup")
SITE_URL = Variable(
    "GNNCB_SITE_URL", "URL or `none`", "the GitHub Pages address inside GitHub Actions",
    "the published site markdown boards link to; `none` for no link",
    "a maintainer rendering boards outside GitHub Actions; tests", "evaluator.render.boards")
SITE_JOBS = Variable(
    "GNNCB_SITE_JOBS", "integer", "2 on two cores or more, else 1",
    "processes drawing the site's figures (1: all in the build's own process; not a number: 1)",
    "a maintainer (`gnncb site build`)", "evaluator.render.site.parallel")
REPO_URL = Variable(
    "GNNCB_REPO_URL", "URL", "none (pages name paths)",
    "default of `gnncb site build --repo-url`: pages link files and pull requests there",
    "pages.yml", "evaluator.commands.site")

# set by gnncb for the agent command (`gnncb llm run --provider agent`), read by that command
PROMPT_FILE = Variable(
    "GNNCB_PROMPT_FILE", "path", "set on every attempt",
    "the prompt's file, relative to the agent's workspace",
    "gnncb, for the agent command", "evaluator.llm.agent")
FEEDBACK_FILE = Variable(
    "GNNCB_FEEDBACK_FILE", "path", "empty on the first attempt",
    "the previous attempt's feedback file, relative to the workspace",
    "gnncb, for the agent command", "evaluator.llm.agent")
ATTEMPT = Variable(
    "GNNCB_ATTEMPT", "integer", "set on every attempt", "this attempt's number, from 1",
    "gnncb, for the agent command", "evaluator.llm.agent")
MAX_ATTEMPTS = Variable(
    "GNNCB_MAX_ATTEMPTS", "integer", "set on every attempt", "attempts the session allows",
    "gnncb, for the agent command", "evaluator.llm.agent")
MODEL = Variable(
    "GNNCB_MODEL", "string", "set on every attempt", "the model name given to `gnncb llm run`",
    "gnncb, for the agent command", "evaluator.llm.agent")
WALL_SECONDS = Variable(
    "GNNCB_WALL_SECONDS", "number", "set on every attempt", "the attempt's wall-clock limit",
    "gnncb, for the agent command", "evaluator.llm.agent")

# read by the test suite only
ARTIFACTS = Variable(
    "GNNCB_ARTIFACTS", "path", "the test's temporary folder",
    "where the browser tests leave screenshots for CI to upload",
    ".ci/run", "tests/render/site/test_browser.py")
FUZZ_EXAMPLES = Variable(
    "GNNCB_FUZZ_EXAMPLES", "integer", "0 (a small fixed-seed budget)",
    "examples per property of the pipeline fuzz test (nightly-sized runs)",
    "ci.yml's scheduled job", "tests/pipeline/test_fuzz.py")
TEST_LLM_KEY = Variable(
    "GNNCB_TEST_LLM_KEY", "string", "unset",
    "the API key the LLM tests hand their local fake provider (`--api-key-env`)",
    "the LLM tests themselves", "tests/llm/")
ACT = Variable(
    "GNNCB_ACT", "path", "act next to the test interpreter, else on PATH",
    "the act 0.2.89 binary the workflow tests run .github/workflows/ with",
    "a developer with act elsewhere", "tests/helpers/act.py")
TEST_SHRINK_ROUNDS = Variable(
    "GNNCB_TEST_SHRINK_ROUNDS", "integer", "4",
    "sandboxed shrink rounds per mutant in the every-mutant counterexample test, used when the "
    "sandbox disagrees with the in-process search (more: smaller inputs, longer run)",
    "a developer measuring the shrinker", "tests/codetrack/test_shrink.py")
TEST_SHRINK_PROBLEMS = Variable(
    "GNNCB_TEST_SHRINK_PROBLEMS", "string", "every problem",
    "which problems the every-mutant counterexample test covers: ids separated by commas "
    "(`all` or unset: every problem)", "a developer measuring the shrinker",
    "tests/codetrack/test_shrink.py")

VARIABLES: tuple[Variable, ...] = (
    ROOT, PRIVATE_KEY, PRIVATE_KEY_PREVIOUS, CODE_SEED, BOT_LOGIN, CACHE, SANDBOX_CGROUP, SITE_URL,
    SITE_JOBS, REPO_URL, PROMPT_FILE, FEEDBACK_FILE, ATTEMPT, MAX_ATTEMPTS, MODEL, WALL_SECONDS,
    ARTIFACTS, FUZZ_EXAMPLES, TEST_LLM_KEY, ACT, TEST_SHRINK_ROUNDS,
    TEST_SHRINK_PROBLEMS,
)


def root() -> str | None:
    """$GNNCB_ROOT, None when unset or empty."""
    return os.environ.get(ROOT.name) or None


def private_key_pem() -> str:
    """$GNNCB_PRIVATE_KEY's PEM text, "" when unset."""
    return os.environ.get(PRIVATE_KEY.name, "")


def previous_private_key_pem() -> str:
    """$GNNCB_PRIVATE_KEY_PREVIOUS's PEM text, "" when unset."""
    return os.environ.get(PRIVATE_KEY_PREVIOUS.name, "")


def code_seed() -> str:
    """$GNNCB_CODE_SEED stripped, "" when unset."""
    return os.environ.get(CODE_SEED.name, "").strip()


def bot_login() -> str | None:
    """$GNNCB_BOT_LOGIN, None when unset or empty (the workflows pass an empty repository
    variable through, which means the default bot)."""
    return os.environ.get(BOT_LOGIN.name) or None


def cache() -> str | None:
    """$GNNCB_CACHE, None when unset or empty."""
    return os.environ.get(CACHE.name) or None


def sandbox_cgroup() -> str | None:
    """$GNNCB_SANDBOX_CGROUP, None when unset or empty."""
    return os.environ.get(SANDBOX_CGROUP.name) or None


def site_url() -> str:
    """$GNNCB_SITE_URL stripped, "" when unset (the caller knows what `none` and "" mean)."""
    return os.environ.get(SITE_URL.name, "").strip()


def site_jobs() -> int | None:
    """$GNNCB_SITE_JOBS as a process count of at least 1 (1 when it is not an integer), None
    when unset or blank."""
    raw = os.environ.get(SITE_JOBS.name, "").strip()
    if not raw:
        return None
    try:
        return max(1, int(raw))
    except ValueError:
        return 1


def repo_url() -> str | None:
    """$GNNCB_REPO_URL, None when unset or empty."""
    return os.environ.get(REPO_URL.name) or None


def agent_environment(*, prompt_file: str, feedback_file: str, attempt: int,
                      max_attempts: int, model: str, wall_seconds: float) -> dict[str, str]:
    """The variables an agent command of `gnncb llm agent` finds set on each attempt."""
    return {
        PROMPT_FILE.name: prompt_file,
        FEEDBACK_FILE.name: feedback_file,
        ATTEMPT.name: str(attempt),
        MAX_ATTEMPTS.name: str(max_attempts),
        MODEL.name: model,
        WALL_SECONDS.name: f"{wall_seconds:g}",
    }


def markdown_table() -> str:
    """The table docs/maintainers.md shows (tests/package/test_settings.py keeps the two equal)."""
    lines = ["| variable | type | default | what it does | set by | used by |",
             "|---|---|---|---|---|---|"]
    lines += [f"| `{v.name}` | {v.type} | {v.default} | {v.purpose} | {v.set_by} | "
              f"`{v.used_by}` |" for v in VARIABLES]
    return "\n".join(lines) + "\n"
