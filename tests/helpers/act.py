"""Run the project's own `.github/workflows/` files on a real Actions engine (nektos/act).

Why: the structural tests and zizmor read the YAML, the pipeline tests call the Python the
workflows invoke; only an engine shows that the jobs, steps, expressions, artifacts and tokens
fit together. act runs in host mode (no Docker), offline: the pinned actions come from
../shared/actions (its README lists the facts this module follows), Python from a tool-cache
venv that sees this interpreter's packages (so `pip install .` builds only gnncb, and builds it
without an isolated build environment: the one harness setting that changes how a step runs,
taken because that environment was most of each job's install time), the GitHub API and git
from the fake GitHub on 127.0.0.1 (tests/helpers/fake_github.py, smart HTTP on).

Where act differs from GitHub, in one place (the structural tests in
tests/package/test_workflows.py keep checking what act cannot):
- `concurrency: ... queue: max` is not parsed by act 0.2.89: the test copy of the workflows
  drops exactly that line (`workflow_copy` asserts nothing else differs);
- `permissions:`, `concurrency:` and `environment:` are ignored: one `github.token` for every
  job of a run, so the tests run the keyed and the keyless job as separate act runs, each
  with its own secret file (see `secret_file`);
- no workflow chaining (`workflow_run`, pushes made with GITHUB_TOKEN): pages.yml's trigger is
  tested structurally (tests/package/test_workflow_pages.py), its build job directly here;
- `strategy.max-parallel` from an expression (`${{ inputs.max_parallel }}`) is not parsed (an
  error line in the log; the matrix runs anyway, at act's own concurrency);
- a matrix's jobs all log under the job's id (`[run]`), so `ActRun.finished` lists every
  job's end, `ActRun.jobs` only the last per id;
- `strategy.job-index` is empty, so matrix artifacts named from it would overwrite each other
  (llm-campaign.yml numbers its pairs in the plan instead: `matrix.pair`);
- event `types:`/`paths:` filters are ignored: each test names the event and job to run;
- `-j JOB` also runs every job JOB `needs:` (act plans the dependencies, with no flag to skip
  them), so a publishing job cannot be run alone from the file as it is. `job_alone` writes a
  workflow holding just that job, verbatim except its `needs:` (and an `if:` that only reads
  `needs.*` results and run status, whose logic the whole-workflow runs exercise), and asserts
  nothing else differs; the job finds its predecessor's artifact because every act run is run
  `RUN_ID` and the tests hand both runs the same artifact server folder (`Act.run(artifacts=)`).
"""

from __future__ import annotations

import difflib
import json
import os
import platform
import re
import shutil
import socket
import subprocess
import sys
import sysconfig
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.helpers.paths import REPO, SHARED

ACT_VERSION = "0.2.89"
ACTIONS = SHARED / "actions"
RUNNER_LABEL = "ubuntu-24.04"
# act gives every run the same `github.run_id` ($GITHUB_RUN_ID); its artifact server files
# artifacts under it, and the fake GitHub must serve this run at /actions/runs/{RUN_ID}.
RUN_ID = 1
# What act cannot parse; the test copy of the workflows drops exactly these lines.
# (a trailing comment included: llm-campaign.yml explains its line)
UNPARSED = re.compile(r"^\s*queue:\s*max\s*(?:#.*)?$")


def act_binary() -> Path | None:
    """act 0.2.89 ($GNNCB_ACT, else next to this interpreter, else on PATH), or None."""
    candidates = [os.environ.get("GNNCB_ACT", ""), str(Path(sys.executable).parent / "act"),
                  shutil.which("act") or ""]
    for candidate in filter(None, candidates):
        path = Path(candidate)
        if path.is_file() and os.access(path, os.X_OK):
            proc = subprocess.run([str(path), "--version"], capture_output=True, text=True,
                                  check=False)
            if ACT_VERSION in proc.stdout:
                return path
    return None


def missing() -> str | None:
    """Why the act tests cannot run here, or None."""
    if not ACTIONS.is_dir():
        return f"{ACTIONS} (the pinned actions' runtime files) is absent"
    if act_binary() is None:
        return (f"act {ACT_VERSION} not found (install the hashed pin: "
                "pip install --require-hashes -r tests/requirements-act.txt)")
    for tool in ("node", "git"):
        if shutil.which(tool) is None:
            return f"`{tool}` is not on PATH (the actions run on the host's node)"
    return None


def local_repositories() -> list[str]:
    """One `--local-repository actions/NAME@REF=DIR` per pinned action folder (+ upload v4)."""
    flags = []
    for folder in sorted(ACTIONS.iterdir()):
        if folder.is_dir() and "@" in folder.name:
            flags += ["--local-repository", f"actions/{folder.name}={folder}"]
            if folder.name.startswith("upload-artifact@"):
                flags += ["--local-repository", f"actions/upload-artifact@v4={folder}"]
    return flags


def workflow_copy(dest: Path) -> Path:
    """`.github/workflows/` minus the lines act cannot parse; asserts nothing else differs."""
    dest.mkdir(parents=True, exist_ok=True)
    for source in sorted((REPO / ".github" / "workflows").glob("*.yml")):
        lines = source.read_text().splitlines(keepends=True)
        kept = [line for line in lines if not UNPARSED.match(line)]
        diff = [d for d in difflib.ndiff(lines, kept) if d[:1] in "+-"]
        assert all(d.startswith("- ") and UNPARSED.match(d[2:]) for d in diff), diff
        (dest / source.name).write_text("".join(kept))
    return dest


# An `if:` that only gates on the predecessors' results and the run's status: `job_alone` may
# drop it (the run it replaces is the predecessor's own act run, already asserted on).
NEEDS_ONLY_IF = re.compile(r"^\$\{\{\s*(?:!cancelled\(\)|always\(\)|success\(\)|inputs\.\w+"
                           r"|needs\.[\w-]+\.result == '\w+'|\s|&&)+\}\}$")


def job_alone(workflows: Path, workflow: str, job: str) -> Path:
    """Write `<workflows>/alone/<workflow stem>.<job>.yml`: the copy's workflow with only `job`,
    minus its `needs:` (and a needs-only `if:`); returns its path. The rest of the job is the
    copy's own, so the engine runs the file's job, not a rewrite of it."""
    import yaml

    data = yaml.safe_load((workflows / workflow).read_text())
    data["on"] = data.pop(True)  # YAML 1.1 reads the bare key `on` as true
    original = data["jobs"][job]
    alone = {k: v for k, v in original.items() if k not in ("needs", "if")}
    if "if" in original:
        assert NEEDS_ONLY_IF.match(str(original["if"])), (
            f"{workflow} {job}: its if: does more than gate on needs/status: {original['if']}")
    assert not any("needs." in json.dumps(v) for v in alone.values()), (
        f"{workflow} {job} reads its needs' outputs: it cannot run alone")
    data["jobs"] = {job: alone}
    dest = workflows / "alone" / f"{Path(workflow).stem}.{job}.yml"
    dest.parent.mkdir(exist_ok=True)
    dest.write_text(yaml.safe_dump(data, sort_keys=False, width=1000))
    return dest


def tool_cache(folder: Path) -> Path:
    """A tool cache whose Python 3.11 setup-python adopts without downloading: a venv of this
    interpreter's base Python that also sees this interpreter's packages (a .pth line), so the
    workflows' `pip install .` resolves every dependency locally and builds only gnncb."""
    version = platform.python_version()
    target = folder / "Python" / version / "x64"
    if not (folder / "Python" / version / "x64.complete").exists():
        base = getattr(sys, "_base_executable", sys.executable)
        subprocess.run([base, "-m", "venv", str(target)], check=True)
        site = next((target / "lib").glob("python3*/site-packages"))
        (site / "gnncb-host.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
        # the venv's bundled setuptools would shadow this interpreter's (the jobs build
        # without isolation, see `Act.run`): drop it, then check what the jobs will build with
        subprocess.run([str(target / "bin" / "python"), "-m", "pip", "uninstall", "-q", "-y",
                        "setuptools"], check=True, capture_output=True)
        build_requirements_met(target / "bin" / "python")
        (folder / "Python" / version / "x64.complete").write_text("")
    return folder


def build_requirements_met(python: Path) -> None:
    """pyproject's [build-system] requires, satisfied by what `python` (the tool-cache venv)
    imports: the jobs' `pip install .` builds without isolation (see `Act.run`), with these."""
    import tomllib

    from packaging.requirements import Requirement

    requires = tomllib.loads((REPO / "pyproject.toml").read_text())["build-system"]["requires"]
    for text in requires:
        requirement = Requirement(text)
        installed = subprocess.run(
            [str(python), "-c", "import importlib.metadata as m, sys; "
             "print(m.version(sys.argv[1]))", requirement.name],
            capture_output=True, text=True, check=False).stdout.strip()
        assert installed and requirement.specifier.contains(installed, prereleases=True), (
            f"build requirement {text}: {installed or 'nothing'} in the tool-cache Python")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def secret_file(path: Path, secrets: dict[str, str]) -> Path:
    """act's dotenv secret file (a PEM's newlines written as \\n)."""
    escaped = {k: v.strip().replace("\n", "\\n") for k, v in secrets.items()}
    path.write_text("".join(f'{k}="{v}"\n' for k, v in escaped.items()))
    return path


@dataclass
class ActRun:
    returncode: int
    log: str
    seconds: float
    artifacts: Path
    jobs: dict[str, str] = field(default_factory=dict)  # job id -> "succeeded" / "failed"
    # every job's end in order: a matrix's jobs all carry the job id (act's log prefix)
    finished: list[tuple[str, str]] = field(default_factory=list)

    def artifact(self, name: str) -> dict[str, bytes]:
        """The files of artifact `name` as the artifact server stored them (zipped)."""
        import zipfile

        files: dict[str, bytes] = {}
        for stored in (self.artifacts / str(RUN_ID) / name).glob("*"):
            if zipfile.is_zipfile(stored):
                with zipfile.ZipFile(stored) as archive:
                    files.update({n: archive.read(n) for n in archive.namelist()})
            else:
                files[stored.name] = stored.read_bytes()
        return files

    def step_seconds(self) -> dict[str, float]:
        """Seconds per step as act reports them (`[job]   ✅  Success - Main X [1m2.3s]`)."""
        out: dict[str, float] = {}
        for m in STEP_DONE.finditer(self.log):
            seconds = sum(float(n) * UNITS[u] for n, u in GO_PART.findall(m.group(3)))
            out[f"{m.group(1)}: {m.group(2)[:70]}"] = round(seconds, 2)
        return out


STEP_DONE = re.compile(r"^\[([^\]]+)\]\s+(?:✅  Success|❌  Failure) - "
                       r"(?:Main|Post|Pre) (.+?) \[([0-9.hmsµn]+)\]", re.M)
GO_PART = re.compile(r"([0-9.]+)(h|ms|µs|ns|m|s)")
UNITS = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 1e-3, "µs": 1e-6, "ns": 1e-9}


class Act:
    """One module's act set-up: a tool cache, the workflow copy, the fake's server URL."""

    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.binary = act_binary()
        assert self.binary is not None
        self.cache = tmp / "act-cache"
        self.workflows = workflow_copy(tmp / "workflows")
        self.runs = 0

    def run(self, *, workdir: Path, event: str, payload: dict[str, Any], api_url: str,
            secrets: dict[str, str], job: str | None = None, workflow: str,
            inputs: dict[str, str] | None = None, artifacts: Path | None = None,
            variables: dict[str, str] | None = None, extra: list[str] | None = None,
            alone: bool = False) -> ActRun:
        """`act EVENT -W <copy>/WORKFLOW [-j JOB]`, offline, host mode, under `env -i`.

        `alone=True` runs JOB without the jobs it needs (`job_alone`); pass the predecessor
        run's `artifacts` folder so it finds what they handed on."""
        tool_cache(self.cache / "tool_cache")
        self.runs += 1
        run_dir = self.tmp / f"run{self.runs}"
        run_dir.mkdir()
        (run_dir / "event.json").write_text(json.dumps(payload))
        artifacts = artifacts or run_dir / "artifacts"
        artifacts.mkdir(exist_ok=True)
        port = api_url.rsplit(":", 1)[1].rstrip("/")
        if alone:
            assert job, "alone= runs one job: name it"
            path = job_alone(self.workflows, workflow, job)
        else:
            path = self.workflows / workflow
        cmd = [str(self.binary), event, "-W", str(path),
               "-e", str(run_dir / "event.json"), "-C", str(workdir),
               "-P", f"{RUNNER_LABEL}=-self-hosted", "--action-offline-mode",
               "--log-prefix-job-id", "--no-skip-checkout", "--no-cache-server",
               "--action-cache-path", str(self.cache), "--artifact-server-path", str(artifacts),
               "--artifact-server-addr", "127.0.0.1", "--artifact-server-port",
               str(free_port()), "--secret-file",
               str(secret_file(run_dir / "secrets.env", secrets)),
               "--env", f"GITHUB_SERVER_URL=http://github.localhost:{port}",
               "--env", f"GITHUB_API_URL={api_url}",
               "--env", f"RUNNER_TOOL_CACHE={self.cache / 'tool_cache'}",
               # `pip install .` builds gnncb with the tool-cache Python's setuptools (which
               # `tool_cache` checks against pyproject's build requirement) instead of a fresh
               # isolated build environment per job: that download and install was most of
               # each job's install step (measured once by hand on 2 busy cores: 39 s -> 17 s
               # when the tool cache already holds the dependencies)
               "--env", "PIP_NO_BUILD_ISOLATION=0",
               "--var-file", "/dev/null", "--env-file", "/dev/null", "--input-file", "/dev/null",
               *local_repositories(), *(extra or [])]
        if job:
            cmd += ["-j", job]
        for key, value in (inputs or {}).items():
            cmd += ["--input", f"{key}={value}"]
        for key, value in (variables or {}).items():
            cmd += ["--var", f"{key}={value}"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(run_dir),
               "LANG": "C.UTF-8"}
        start = time.monotonic()
        proc = subprocess.run(["env", "-i", *(f"{k}={v}" for k, v in env.items()), *cmd],
                              capture_output=True, text=True, check=False, timeout=1200)
        log = proc.stdout + proc.stderr
        (run_dir / "act.log").write_text(log)  # the whole log, for a failure's post-mortem
        finished = [(m.group(1), m.group(2)) for m in re.finditer(
            r"^\[([^\]]+)\] 🏁  Job (succeeded|failed)", log, re.M)]
        return ActRun(proc.returncode, log, time.monotonic() - start, artifacts,
                      dict(finished), finished)

    def job_starts(self, workflow: str, event: str, job: str, workdir: Path) -> bool:
        """Whether act starts `job` for `event` (its `if:` evaluated by the engine).

        Runs act verbose and stops it as soon as the job's condition is decided, before any of
        its steps does work, so routing a job that runs the whole suite costs nothing."""
        self.runs += 1
        run_dir = self.tmp / f"route{self.runs}"
        run_dir.mkdir()
        (run_dir / "event.json").write_text("{}")
        cmd = [str(self.binary), event, "-v", "-W", str(self.workflows / workflow), "-j", job,
               "-e", str(run_dir / "event.json"), "-C", str(workdir),
               "-P", f"{RUNNER_LABEL}=-self-hosted", "--action-offline-mode",
               "--no-cache-server", "--action-cache-path", str(self.cache),
               "--var-file", "/dev/null", "--env-file", "/dev/null", "--secret-file", "/dev/null",
               "--input-file", "/dev/null", *local_repositories()]
        env = ["env", "-i", f"PATH={os.environ.get('PATH', '/usr/bin:/bin')}",
               f"HOME={run_dir}"]
        proc = subprocess.Popen([*env, *cmd], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, start_new_session=True)
        assert proc.stdout is not None
        decided: bool | None = None
        try:
            for line in proc.stdout:
                if "Skipping job" in line:
                    decided = False
                elif "⭐ Run " in line:  # the job's first step is starting: it was not skipped
                    decided = True
                if decided is not None:
                    break
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, 15)
            proc.wait(timeout=60)
        assert decided is not None, f"act decided nothing for {workflow} {event} {job}"
        return decided
