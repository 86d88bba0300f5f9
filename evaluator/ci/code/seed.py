"""Phase 0 of a code-track pull request: the keyed job derives the submission's case seed.

Why a job of its own: the leaderboard cases are drawn from an HMAC of the submission's digest
under a secret (`codetrack.caseseed`), and the judge job runs participant code, so it must
never hold that secret. This job holds `$GNNCB_CODE_SEED` and a read-only token and runs no
participant code: after the same guards and admission checks as the judge (`ci.guards`,
`ci.code.score.admit_code_pr`: author, head, path policy, files read as data, metadata,
duplicate, limits), it writes {digest, seed, case_commitment} for the PR's digest and
nothing else. A PR the judge would refuse gets no seed (so no seed is handed out for files
that will not be counted), and the secret itself never leaves this process: it is neither
printed nor written.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evaluator.ci.code.result import CodeResult
from evaluator.ci.code.score import Admitted, admit_code_pr
from evaluator.ci.event import PullEvent
from evaluator.ci.github import GitHubClient
from evaluator.ci.guards import decide_pr
from evaluator.ci.result import SKIPPED


def seed_code_pr(client: GitHubClient, number: int, *, root: Path, bot_login: str,
                 now: datetime | None = None, event: PullEvent | None = None
                 ) -> dict[str, Any]:
    """{pr, status, code, digest?, seed?, case_commitment?}: status `seeded` and the seed for
    a PR that will be judged on secret cases; otherwise the status the judge will answer with
    (rejected, skipped; or skipped with code `no-case-secret` on a board version without a
    committed secret: the judge seeds by the digest) and no seed."""
    at = now or datetime.now(UTC)
    found: dict[str, Any] = {}

    def decide(admission: Any) -> CodeResult:
        from evaluator.codetrack.caseseed import case_seed, current_commitment

        admitted = admit_code_pr(admission, Path(root), at, event)
        if isinstance(admitted, CodeResult):
            return admitted
        assert isinstance(admitted, Admitted)
        board = admitted.board
        if current_commitment(admitted.folder, board.slug, board.version) is not None:
            found.update(case_seed(admitted.folder, board.slug, board.version,
                                   admitted.digest))
        # The seed phase's own record for decide_pr's log line; never published: the
        # judge job answers the PR.
        return CodeResult(**admission.base, status=SKIPPED,
                          code="seeded" if found else "no-case-secret", slug=board.slug,
                          digest=admitted.digest,
                          reason="the judge job decides")

    verdict = decide_pr(client, number, CodeResult, root=Path(root), bot_login=bot_login,
                        verb="seed", code_track=True, decide=decide)
    return {"pr": number, "status": "seeded" if found else verdict.status,
            "code": "" if found else verdict.code, **found}


def write_case_seed(answer: dict[str, Any], path: Path) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(answer, sort_keys=True) + "\n", encoding="utf-8")


def read_case_seed(path: Path) -> dict[str, Any] | None:
    """The seed job's answer for the judge: the seed, or None when the job derived none."""
    from evaluator.errors import ConfigError

    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise ConfigError(f"{path}: unreadable case seed from the seed job: {err}") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: not a case seed (an object)")
    if "seed" not in data:
        return None
    if not (isinstance(data.get("digest"), str) and type(data.get("seed")) is int
            and isinstance(data.get("case_commitment"), str)):
        raise ConfigError(f"{path}: a case seed needs digest, seed (integer) and "
                          "case_commitment")
    return data
