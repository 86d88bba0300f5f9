"""Who a ledger row belongs to: a GitHub login, or a platform entrant in a reserved namespace.

Why namespaces with ':': the platform's own entrants (baselines, LLM runs, agents) used to be
named like logins (`baseline-gnn`, `llm-gpt-4o`), so a GitHub user who registered that login was
accepted as the same participant and replaced the platform's entry on the board. GitHub logins
hold only letters, digits and single hyphens, so `baseline:gnn`, `llm:gpt-4o` and
`agent:my-agent` can never be anyone's login. The entrant kind follows from the name: a login is
always `human` (a pull request cannot declare itself a baseline or an LLM), and a platform name
carries its kind in its prefix. Only the platform's own commands name platform participants.

Old rows stay as committed; `migrate_row` reads them in the new scheme (a row without a pull
request, without an account id and with a platform entrant gets its namespaced name; a row that
came from a pull request is human whatever it declared).
"""

from __future__ import annotations

import re
from typing import Any

HUMAN = "human"
# entrant kind -> namespace prefix of its participant names
NAMESPACES = {"baseline": "baseline", "llm-api": "llm", "llm-agent": "agent"}
PLATFORM_ENTRANTS = tuple(NAMESPACES)
ENTRANTS = (HUMAN, *PLATFORM_ENTRANTS)
SEPARATOR = ":"
LOGIN_RE = r"^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$"
_NAME_RE = re.compile(r"[a-z0-9](?:[a-z0-9._-]{0,62}[a-z0-9])?")
# the login-shaped names the platform used before namespaces, by entrant
_LEGACY_PREFIX = {"baseline": "baseline-", "llm-api": "llm-", "llm-agent": "agent-"}


def is_login(name: str) -> bool:
    return bool(re.fullmatch(LOGIN_RE, name))


def platform_participant(entrant: str, name: str) -> str:
    """`<namespace>:<name>` for a platform entrant; raises ValueError for a bad name."""
    if entrant not in NAMESPACES:
        raise ValueError(f"entrant {entrant!r} is not a platform entrant "
                         f"({', '.join(PLATFORM_ENTRANTS)})")
    if not _NAME_RE.fullmatch(name):
        raise ValueError(f"{name!r} is not a platform participant name (lower-case letters, "
                         "digits, '.', '_' and '-', at most 64 characters)")
    return f"{NAMESPACES[entrant]}{SEPARATOR}{name}"


def entrant_of(participant: str) -> str | None:
    """The entrant kind a participant name implies: human for a login, the namespace's kind
    for a platform name, None for a name that is neither."""
    if is_login(participant):
        return HUMAN
    prefix, sep, rest = participant.partition(SEPARATOR)
    for entrant, namespace in NAMESPACES.items():
        if sep and prefix == namespace and _NAME_RE.fullmatch(rest):
            return entrant
    return None


def check_participant(participant: str, entrant: str) -> str:
    """The participant if its name fits the entrant kind; else ValueError saying why."""
    implied = entrant_of(participant)
    if implied is None:
        raise ValueError(f"{participant!r} is neither a GitHub login (letters, digits, single "
                         "inner hyphens, at most 39 characters) nor a platform name such as "
                         "'baseline:gnn' or 'llm:model-id'")
    if implied != entrant:
        if implied == HUMAN:
            raise ValueError(f"entrant {entrant!r} is reserved for the platform's own runs; "
                             "a GitHub login always submits as 'human' (describe any LLM help "
                             "in 'method' or 'notes')")
        raise ValueError(f"participant {participant!r} is a {implied!r} name, but the "
                         f"entrant is {entrant!r}")
    return participant


def migrate_row(row: dict[str, Any]) -> dict[str, Any]:
    """A submission row read in the current identity scheme (the committed line is unchanged)."""
    if row.get("type") != "submission" or "participant" not in row:
        return row
    entrant, name = row.get("entrant", HUMAN), str(row["participant"])
    if row.get("pr") is not None:
        if entrant != HUMAN:  # a pull request is always a human, whatever it declared
            return {**row, "entrant": HUMAN, "declared_entrant": entrant}
        return row
    legacy = _LEGACY_PREFIX.get(entrant)
    body = name[len(legacy):].lower() if legacy and name.lower().startswith(legacy) else ""
    if row.get("participant_id") is None and _NAME_RE.fullmatch(body):
        return {**row, "participant": platform_participant(entrant, body),
                "legacy_participant": name}
    return row
