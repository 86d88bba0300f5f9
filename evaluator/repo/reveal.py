"""The end of a competition: unseal the private-part scores, record them, rank by them.

Why a maintainer step with the private key: until now every ledger row carried its
private-part scores only sealed to the platform key (`sealed_scores`), so neither the publish
job nor anyone reading the repository could rank by them or probe them. `reveal` opens them
all at once, appends ONE `reveal` row holding them in the clear (the audit record of what was
revealed, when and by whom) and re-renders the boards; the final standings page is then a pure
function of the ledger like every other page. The row's digest is derived from the revealed
content, so running it again on an unchanged ledger adds nothing.

Also here: the maintainer's `final-choice` row, for a participant who asks a maintainer to
choose their final submissions instead of marking them in a later metadata.json.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric import rsa

from evaluator.competition.boards import Board
from evaluator.competition.schedule import REVEAL, revealed, stamp
from evaluator.competition.spec import CompetitionSpec, load_spec
from evaluator.errors import ConfigError
from evaluator.ledger.ranking import FINAL_CHOICE, FinalEntry, counted, final_standings
from evaluator.ledger.store import Ledger, active_submissions, envelopes_beside, now_iso
from evaluator.pipeline.evaluate import load_labels
from evaluator.pipeline.paired import compare_neighbours
from evaluator.repo.gitops import Change
from evaluator.repo.keyuse import needs_key, sealed_kid
from evaluator.repo.record import ledger_path, rerender
from evaluator.repo.release import (
    INDEX,
    build_release,
    index_sha256,
    read_release,
    release_dir,
    write_release,
)
from evaluator.repo.release import commitment_problems as release_problems
from evaluator.scoring.score import PRIVATE, PUBLIC
from evaluator.submission import commit, envelope


@dataclass
class RevealReport:
    slug: str
    version: int
    row: dict[str, Any]
    written: bool
    standings: list[FinalEntry] = field(default_factory=list)
    pages: list[Path] = field(default_factory=list)
    release: dict[str, bytes] = field(default_factory=dict)  # relative path -> bytes


def _competition(root: Path, slug: str) -> tuple[Path, CompetitionSpec]:
    folder = Path(root) / "competitions" / slug
    if not (folder / "competition.yaml").is_file():
        raise ConfigError(f"{folder}: no competition.yaml; is {slug!r} the folder name?")
    return folder, load_spec(folder)


def unseal_private(spec: CompetitionSpec, rows: list[dict[str, Any]],
                   keys: Mapping[str, rsa.RSAPrivateKey]) -> dict[str, dict[str, float]]:
    """digest -> private-part scores of every submission that counts for the final standings
    (each participant's chosen or latest ones). Rows that do not count stay sealed."""
    chosen, _ = counted(spec, rows)
    mine = [r for subs in chosen.values() for r in subs]
    unsplit = [r["digest"][:12] for r in mine if r.get("scored_on") != PUBLIC
               or not r.get("sealed_scores")]
    if unsplit:
        raise ConfigError(f"{len(unsplit)} counted submission(s) of {spec.slug} were scored "
                          f"before it had a private part (e.g. {unsplit[0]}); re-score them "
                          f"first: gnncb ledger rescore {spec.slug} --private-key PEM")
    out = {}
    failed: list[str] = []  # every row that cannot be opened, not only the first
    for r in mine:
        kid = sealed_kid(r["sealed_scores"])
        if kid not in keys:
            failed.append(f"{r['digest'][:12]} ({r['participant']}): "
                          f"{needs_key(kid, keys)}")
            continue
        try:
            content = envelope.open_scores(r["sealed_scores"], keys, spec.slug, spec.version,
                                           r["digest"])
        except ConfigError as err:
            failed.append(f"{r['digest'][:12]} ({r['participant']}): {err}")
            continue
        scores = content.get(PRIVATE)
        if not isinstance(scores, dict):
            failed.append(f"{r['digest'][:12]}: its sealed scores hold no private part")
            continue
        out[r["digest"]] = {k: float(v) for k, v in scores.items()}
    if failed:
        kids = sorted({kid for r in mine if (kid := sealed_kid(r["sealed_scores"]))
                       and kid not in keys})
        need = f"; the keys needed: {', '.join(kids)}" if kids else ""
        raise ConfigError(f"cannot reveal {spec.slug}: the sealed scores of {len(failed)} of "
                          f"{len(mine)} counted submission(s) cannot be opened{need}; nothing "
                          "was written\n" + "\n".join(f"  - {f}" for f in failed))
    return out


def reveal(root: Path, slug: str, keys: Mapping[str, rsa.RSAPrivateKey], *, by: str = "",
           now: datetime | None = None, early: bool = False,
           dry_run: bool = False, boards: Sequence[Board] = (),
           with_release: bool = True) -> RevealReport:
    """Unseal, append the reveal row, write the release (`repo.release`), re-render (unless
    dry_run). The release is built unless `with_release` is False (a dry run that only prints
    the standings); the row names its index's SHA-256, so the chain covers the evidence."""
    root = Path(root)
    folder, spec = _competition(root, slug)
    if not spec.has_parts:
        raise ConfigError(f"{slug} has no private part (no public_fraction in "
                          "competition.yaml): its board already ranks on the whole split")
    now = now or datetime.now(UTC)
    if not early:
        if spec.phases and now < spec.phases[-1].end:
            raise ConfigError(f"{slug} still takes submissions until "
                              f"{stamp(spec.phases[-1].end)} (phase {spec.phases[-1].name!r}); "
                              "reveal after that, or pass --early to close it now")
        if spec.reveal_at and now < spec.reveal_at:
            raise ConfigError(f"{slug} is revealed at {stamp(spec.reveal_at)} "
                              "(reveal_at in competition.yaml); pass --early to reveal now")
    ledger = Ledger(ledger_path(root))
    rows = ledger.rows()
    private = unseal_private(spec, rows, keys)
    at = now_iso()
    row: dict[str, Any] = {
        "type": REVEAL,
        "digest": _reveal_digest(spec.slug, spec.version, private),
        "slug": spec.slug, "version": spec.version, "part": PRIVATE,
        "public_fraction": spec.public_fraction, "submissions": len(private),
        "private": private, "by": by, "at": at,
    }
    files: dict[str, bytes] = {}
    if with_release:
        files = build_release(root, spec, rows, keys, at=at)
        row["release"] = {"index": _relative(root, release_dir(root, spec.slug, spec.version)
                                             / INDEX), "sha256": index_sha256(files)}
    table = final_standings(spec, [*rows, row], private)
    # tiers of the final standings: neighbours compared on the private part, with the key
    row["paired"] = compare_neighbours(folder, spec, load_labels(folder, spec, keys),
                                       [e.row for e in table], keys,
                                       envelopes_beside(ledger.path), part=PRIVATE)
    written = False
    pages: list[Path] = []
    if not dry_run:
        written = ledger.append(row)
        if written and files:
            pages += write_release(release_dir(root, spec.slug, spec.version), files)
        pages += rerender(root, boards=boards)
    return RevealReport(spec.slug, spec.version, row, written, table, pages, files)


def _relative(root: Path, path: Path) -> str:
    return path.relative_to(root).as_posix()


def choose_final(root: Path, slug: str, participant: str, digests: list[str], *, by: str,
                 reason: str, boards: Sequence[Board] = ()) -> tuple[dict[str, Any], bool]:
    """A maintainer records which submissions of `participant` count as final."""
    if not reason.strip():
        raise ConfigError("--reason is required: the audit line says why")
    _, spec = _competition(root, slug)
    limit = spec.rules.final_submissions_per_version
    if not 1 <= len(digests) <= limit:
        raise ConfigError(f"{slug} counts 1 to {limit} final submissions per participant; "
                          f"{len(digests)} given")
    ledger = Ledger(ledger_path(root))
    shown = revealed(ledger.rows(), spec.slug, spec.version)
    if shown is not None:  # the standings are published: a choice now would rewrite them
        raise ConfigError(f"the final standings of {spec.slug} version {spec.version} were "
                          f"revealed at {shown.get('at', '?')}; a final choice recorded now "
                          "would change published standings, so none is accepted")
    mine = [r["digest"] for r in active_submissions(ledger.rows())
            if r["slug"] == spec.slug and r["version"] == spec.version and not r.get("late")
            and r["participant"].lower() == participant.lower()]
    chosen = []
    for prefix in digests:
        if len(prefix.strip()) < 8:
            raise ConfigError(f"{prefix!r} is too short; give at least 8 characters of the "
                              f"digest of one of {participant}'s accepted submissions to "
                              f"{slug} version {spec.version} (gnncb ledger list)")
        found = [d for d in mine if d.startswith(prefix.strip().lower())]
        if len(found) != 1:
            raise ConfigError(f"{prefix!r} matches {len(found)} accepted submissions of "
                              f"{participant} to {slug} version {spec.version}; give at least "
                              "8 characters of one of their digests (gnncb ledger list)")
        chosen.append(found[0])
    chosen = sorted(set(chosen))
    row = {"type": FINAL_CHOICE,
           "digest": hashlib.sha256(f"final\x00{spec.slug}\x00{spec.version}\x00"
                                    f"{participant.lower()}\x00{','.join(chosen)}\x00"
                                    f"{now_iso()}".encode()).hexdigest(),
           "slug": spec.slug, "version": spec.version, "participant": participant.lower(),
           "chosen": chosen, "reason": reason.strip(), "by": by, "at": now_iso()}
    written = ledger.append(row)
    rerender(root, boards=boards)
    return row, written


def _reveal_digest(slug: str, version: int, private: Mapping[str, Any]) -> str:
    content = json.dumps(private, sort_keys=True)
    return hashlib.sha256(f"reveal\x00{slug}\x00{version}\x00{content}".encode()).hexdigest()


def check_reveal_row(root: Path, row: object) -> CompetitionSpec:
    """Validate a reveal row made by a keyed job before a job without the key records it: the
    row is for this competition's current version, its digest matches its content, and it
    reveals exactly the submissions that count on the current ledger."""
    if not isinstance(row, Mapping) or row.get("type") != REVEAL:
        raise ConfigError("not a reveal row (type must be 'reveal')")
    slug = str(row.get("slug", ""))
    _, spec = _competition(Path(root), slug)
    private = row.get("private")
    if row.get("version") != spec.version or not isinstance(private, dict):
        raise ConfigError(f"the reveal row is for {slug} version {row.get('version')}, "
                          f"the competition is at version {spec.version}")
    if row.get("digest") != _reveal_digest(spec.slug, spec.version, private):
        raise ConfigError("the reveal row's digest does not match its content")
    chosen, _ = counted(spec, Ledger(ledger_path(root)).rows())
    want = {r["digest"] for subs in chosen.values() for r in subs}
    if set(private) != want:
        raise ConfigError(f"the reveal row opens {len(private)} submission(s) but {len(want)} "
                          "count on the current ledger; run the reveal again")
    return spec


def record_reveal(root: Path, row: dict[str, Any], *, boards: Sequence[Board] = (),
                  release: Path | None = None) -> Change | None:
    """Append a checked reveal row and re-render; the git Change to commit (None if done).
    A row that names a release needs its folder (`release`, handed over by the keyed job):
    its index must be the one the row names and every file must match its public commitment,
    checked here without any key before anything is written."""
    root = Path(root)
    spec = check_reveal_row(root, row)
    files = _checked_release(root, spec, row, release)
    ledger = Ledger(ledger_path(root))
    if not ledger.append(row):
        return None
    pages = write_release(release_dir(root, spec.slug, spec.version), files) if files else []
    pages += rerender(root, boards=boards)
    return Change(paths=[str(p.relative_to(root)) for p in [ledger.path, *pages]],
                  message=f"leaderboard: reveal the final standings of {spec.slug} "
                          f"v{spec.version}\n")


def _checked_release(root: Path, spec: CompetitionSpec, row: Mapping[str, Any],
                     folder: Path | None) -> dict[str, bytes]:
    named = row.get("release")
    if named is None:
        return {}
    if folder is None or not Path(folder).is_dir():
        raise ConfigError(f"the reveal row of {spec.slug} names a release, but no release "
                          "folder was handed over (expected beside the row file, in release/)")
    files = read_release(Path(folder))
    if not isinstance(named, Mapping) or index_sha256(files) != named.get("sha256"):
        raise ConfigError(f"{folder}/{INDEX}: is not the index the reveal row names (SHA-256 "
                          "differs); run the reveal again")
    committed = commit.read_commitments(commit.commitments_path(
        Path(root) / "competitions" / spec.slug / "hidden"))
    problems = release_problems(files, str(folder), spec, committed,
                                Ledger(ledger_path(root)).rows())
    if problems:
        raise ConfigError("the release does not match the public commitments; nothing "
                          "recorded:\n  " + "\n  ".join(problems))
    return files
