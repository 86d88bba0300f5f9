"""`gnncb rehearse`: a participant's dry run of the pull-request flow, on a throwaway copy.

It stages the pull request with `evaluator.ci.rehearsal` (a temporary bare origin holding the
checkout's last commit, the local stand-in of GitHub's API on 127.0.0.1, a throwaway key pair,
stable account ids), then runs the two jobs of `.github/workflows/evaluate.yml` exactly as the
workflow runs them: `gnncb ci pr score` (the keyed job, read-only token) and then `gnncb ci pr
publish` (no key, write token), each in a process of its own through the CLI's entry point
(`python -m evaluator.cli`), with only its own token in its environment and no platform key
anywhere. It prints each job's log and the answer the bot
would post. Exit codes as `gnncb evaluate`: 0 accepted, 1 rejected, 2 the rehearsal failed.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
from pathlib import Path

from evaluator import settings
from evaluator.errors import ConfigError
from evaluator.paths import competition_arg, repo_root

STEPS = 5
# What the jobs must not see from the participant's shell: a token of their own (each job gets
# the stand-in's), and any platform key (the rehearsal needs none, and proves it).
HIDDEN_ENV = ("GITHUB_TOKEN", "GH_TOKEN", settings.PRIVATE_KEY.name,
              settings.PRIVATE_KEY_PREVIOUS.name)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "rehearse", help="dry-run your pull request through the bot's score -> publish jobs "
                         "on a local copy (no key needed)",
        description="Run the submission workflow's two jobs on a throwaway copy of this "
                    "repository's last commit, against a local stand-in of GitHub, and print "
                    "the answer the bot would post. Your checkout is not changed. The score is "
                    "computed on stand-in labels, not the hidden ones.")
    p.add_argument("--competition", type=competition_arg, required=True,
                   help="a slug (gnn-cora) or a folder (competitions/gnn-cora)")
    p.add_argument("--participant", required=True, help="your GitHub login (the PR author)")
    p.add_argument("--method", help="short description, e.g. '2-layer GCN' (written into the "
                                    "rehearsal's metadata.json; or give --metadata)")
    p.add_argument("--metadata", type=Path, metavar="FILE",
                   help="the metadata.json you will submit, sent byte for byte (instead of "
                        "--method)")
    p.add_argument("--keep", type=Path, metavar="DIR",
                   help="keep the temporary origin (a bare git repository) at DIR, to inspect "
                        "the ledger commit the bot would push; default: deleted")
    p.add_argument("predictions", type=Path, help="your predictions.csv (not encrypted: the "
                                                  "rehearsal seals it to its own throwaway key)")
    p.set_defaults(func=cmd_rehearse)


def _read(path: Path, what: str, fix: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{what} {path} does not exist; {fix}") from None
    except IsADirectoryError:
        raise ConfigError(f"{what} {path} is a folder; give the file itself") from None
    except OSError as err:
        raise ConfigError(f"cannot read {what} {path}: {err.strerror or err}") from None


def _metadata(args: argparse.Namespace) -> bytes:
    if args.metadata is not None:
        if args.method:
            raise ConfigError("give --metadata or --method, not both (--metadata is sent as is)")
        return _read(args.metadata, "--metadata", "give the path of your metadata.json "
                                                  "(gnncb encrypt writes it beside the envelope)")
    if not args.method:
        raise ConfigError("say what you submit: --method 'short description' (or --metadata "
                          "FILE with the metadata.json you will submit)")
    from pydantic import ValidationError

    from evaluator.submission.metadata import Metadata, dump_metadata

    try:
        return dump_metadata(Metadata(participant=args.participant.lower(),
                                      method=args.method)).encode()
    except ValidationError as err:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'metadata'}: "
                             f"{e['msg'].removeprefix('Value error, ')}" for e in err.errors())
        raise ConfigError(f"cannot write the rehearsal's metadata.json: {problems}") from None


class _Steps:
    def __init__(self) -> None:
        self.n = 0

    def __call__(self, message: str) -> None:
        self.n += 1
        print(f"[{self.n}/{STEPS}] {message} ...", flush=True)


def _job_env(token: str) -> dict[str, str]:
    """The environment of one job: the caller's, less any token or platform key of theirs,
    plus the job's own token; the package imported is the one running now."""
    import evaluator

    env = {k: v for k, v in os.environ.items() if k not in HIDDEN_ENV}
    package_parent = str(Path(evaluator.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_parent, env.get("PYTHONPATH"))
                                        if p)
    env["GITHUB_TOKEN"] = token
    return env


def _run_job(name: str, argv: list[str], token: str) -> None:
    """One job's command, `gnncb ...` through the real CLI entry point in a process of its
    own (as each job runs on a runner of its own), its log printed indented as it comes."""
    command = [sys.executable, "-m", "evaluator.cli", *argv]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                          stdin=subprocess.DEVNULL, env=_job_env(token), text=True,
                          errors="replace") as proc:
        assert proc.stdout is not None
        for line in proc.stdout:
            print(f"      | {line.rstrip()}", flush=True)
        code = proc.wait()
    if code != 0:
        raise ConfigError(f"the {name} job failed (exit {code}; its log is above): on GitHub "
                          "this run would fail without answering, and a maintainer would "
                          "re-run it")


def cmd_rehearse(args: argparse.Namespace) -> int:
    from evaluator.ci.fake_github import READ_TOKEN, WRITE_TOKEN
    from evaluator.ci.rehearsal import stage

    predictions = _read(args.predictions, "predictions file",
                        "give the path of your predictions.csv (the file you would encrypt)")
    metadata = _metadata(args)
    root = repo_root(args.root)
    step = _Steps()
    print(f"rehearsing a pull request by {args.participant} to {args.competition.name} "
          f"from {root}", flush=True)
    with stage(root, args.competition, predictions, metadata, args.participant,
               progress=step, keep=args.keep) as st:
        step(f"score job: `gnncb ci pr score` with the throwaway key and a read-only token "
             f"(PR #{st.pr}, account {st.account_id})")
        _run_job("score", st.score_argv(st.checkout("score"), st.tmp / "result.json"),
                 READ_TOKEN)
        step("publish job: `gnncb ci pr publish` with no key and a write token")
        _run_job("publish", st.publish_argv(st.checkout("publish"), st.tmp / "result.json"),
                 WRITE_TOKEN)
        answer = st.answer()
    print()
    if answer.comment is None:
        print("The bot posted no answer (see the jobs' logs above).")
        return 2
    label = ", ".join(f'"{name}"' for name in answer.labels) or "none"
    print(f"The bot's answer on PR #{st.pr} (label {label}; the PR is {answer.pr_state}):")
    print("-" * 72)
    print(answer.comment.rstrip())
    print("-" * 72)
    print(f"{answer.status.upper()}", end="")
    if answer.status == "accepted":
        print(": the scores above are on stand-in labels drawn for this rehearsal, not on the "
              "hidden labels; they say nothing about your model.")
        if answer.row is not None:
            print(f"The bot would commit ledger row {answer.row['digest'][:12]} to the default "
                  "branch.")
    else:
        print(": fix what the answer says and rehearse again; a rejection costs no submission.")
    print("Your repository is unchanged. ", end="")
    if args.keep is not None:
        print(f"The temporary origin is kept at {args.keep} (git --git-dir "
              f"{shlex.quote(str(args.keep))} log -p -1).")
    else:
        print("The temporary origin was deleted (--keep DIR keeps it).")
    return 0 if answer.status == "accepted" else 1
