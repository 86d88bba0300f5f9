"""Replays replay: a campaign's settings travel with its recordings, and a miss says why.

Why: a recorded exchange is found by the hash of the request, and the request depends on more
than the recordings: the decoding settings (`--max-tokens`, `--temperature`, `--seed`), the
context budget (`--context-tokens`, which decides which repair turns are dropped), the prompt
variant and repair budget, the sandbox limits and the Python and library versions that the
prompt's environment slot states. A replay that had to be given all of them again, by hand,
failed with "no recorded response ... message 1" whenever one was forgotten (the workflow never
passed `--max-tokens 768`). So every recording campaign writes its settings to
`campaign.json` in the recordings folder; a replay reads them back for every option not given
on its command line, and when a request still matches no recording, the error names the
setting or the prompt slot that differs from the closest recording.
"""

from __future__ import annotations

import json
import platform
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from evaluator.errors import ConfigError

SETTINGS_FILE = "campaign.json"
# The options a replay reads back, their defaults without a recording, and their flags.
DEFAULTS: dict[str, Any] = {
    "prompt": "frozen", "repairs": 5, "temperature": 0.0, "max_tokens": 10_000, "seed": 25,
    "context_tokens": None, "wall_seconds": None, "cpu_seconds": None, "memory_mb": None,
    "stop_on_repeat": False}
FLAGS = {"prompt": "--prompt", "repairs": "--repairs", "temperature": "--temperature",
         "max_tokens": "--max-tokens", "seed": "--seed/--no-seed",
         "context_tokens": "--context-tokens", "wall_seconds": "--wall-seconds",
         "cpu_seconds": "--cpu-seconds", "memory_mb": "--memory-mb",
         "stop_on_repeat": "--stop-on-repeat/--no-stop-on-repeat"}
REQUEST_SETTINGS = {"temperature": "--temperature", "max_tokens": "--max-tokens",
                    "seed": "--seed/--no-seed"}
_SECTION = re.compile(r"^=== \((\d+)\) (.+?) ===$", re.MULTILINE)


def settings_record(values: Mapping[str, Any], libraries: Sequence[Sequence[str]],
                    python: str | None = None, slots_commit: str | None = None
                    ) -> dict[str, Any]:
    """What campaign.json keeps: every option of DEFAULTS as used, plus the Python version and
    the libraries (name, version) the environment slot stated, and the commit the other slots
    were read from when one holds them (evaluator/llm/provenance.py)."""
    out = {key: values.get(key, DEFAULTS[key]) for key in DEFAULTS}
    out.update(python=python or platform.python_version(),
               libraries=[[str(n), str(v)] for n, v in libraries])
    if slots_commit:
        out["slots_commit"] = slots_commit
    return out


def write_settings(folder: Path, campaign: str, settings: Mapping[str, Any],
                   provider: Mapping[str, Any]) -> Path:
    """Write `folder/campaign.json` (the recordings folder): how these exchanges were made."""
    from evaluator.llm.runlog import now_iso, write_json

    path = Path(folder) / SETTINGS_FILE
    write_json(path, {"campaign": campaign, "settings": dict(settings),
                      "provider": dict(provider), "updated_at": now_iso()})
    return path


def read_settings(recordings: Path) -> dict[str, Any] | None:
    """The settings recorded beside `recordings` (None: the folder has no campaign.json)."""
    path = Path(recordings) / SETTINGS_FILE
    if not path.is_file():
        return None
    try:
        settings = json.loads(path.read_text(encoding="utf-8"))["settings"]
    except (OSError, ValueError, KeyError, TypeError) as err:
        raise ConfigError(f"{path}: not a gnncb campaign settings file ({err}); it is written "
                          "by `gnncb llm run|campaign --record DIR`") from None
    if isinstance(settings, dict):
        # recorded before the option existed, when every loop stopped at a repeated answer:
        # a replay must stop there too (the recordings hold no later turn)
        settings.setdefault("stop_on_repeat", True)
    if not isinstance(settings, dict) or not all(k in settings for k in DEFAULTS):
        missing = sorted(set(DEFAULTS) - set(settings if isinstance(settings, dict) else {}))
        raise ConfigError(f"{path}: settings lack {missing}; re-write it or pass the options")
    libraries = settings.get("libraries") or []
    if not all(isinstance(x, list) and len(x) == 2 for x in libraries):
        raise ConfigError(f"{path}: 'libraries' must be a list of [name, version] pairs")
    return settings


def resolve(explicit: Mapping[str, Any], recorded: Mapping[str, Any] | None
            ) -> tuple[dict[str, Any], list[str]]:
    """(the values to use, the explicit options that differ from the recording's).

    `explicit` holds only the options given on the command line; everything else comes from
    the recording when there is one, else from DEFAULTS."""
    values, differs = {}, []
    for key, default in DEFAULTS.items():
        if key in explicit:
            values[key] = explicit[key]
            if recorded is not None and recorded.get(key) != explicit[key]:
                differs.append(f"{FLAGS[key]} {_show(explicit[key])} (recorded: "
                               f"{_show(recorded.get(key))})")
        else:
            values[key] = recorded.get(key, default) if recorded is not None else default
    return values, differs


def environment_notes(recorded: Mapping[str, Any], installed: Sequence[Sequence[str]]
                      ) -> list[str]:
    """How this interpreter differs from the recorded environment the replayed prompt states
    (the recorded programs run on this one: a different library can change their outcome)."""
    notes = []
    if recorded.get("python") != platform.python_version():
        notes.append(f"Python {recorded.get('python')} recorded, {platform.python_version()} "
                     "here")
    was = {n: v for n, v in recorded.get("libraries") or []}
    now = {n: v for n, v in installed}
    for name in sorted(set(was) | set(now)):
        if was.get(name) != now.get(name):
            notes.append(f"{name} {was.get(name, 'absent')} recorded, "
                         f"{now.get(name, 'absent')} here")
    return notes


def _show(value: Any) -> str:
    return "none" if value is None else str(value)


def _sections(text: str) -> dict[str, str]:
    """`=== (n) NAME ===` sections of a prompt (the five slots), keyed "(n) NAME"."""
    marks = list(_SECTION.finditer(text))
    out = {}
    for i, mark in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        out[f"({mark.group(1)}) {mark.group(2)}"] = text[mark.end():end]
    return out


def _first_line_diff(here: str, there: str) -> str:
    a, b = here.splitlines(), there.splitlines()
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else "<no line>"
        y = b[i] if i < len(b) else "<no line>"
        if x != y:
            return f"{x.strip()[:100]!r} here, {y.strip()[:100]!r} recorded"
    return "same lines, different whitespace"


def _slot_name(heading: str) -> str:
    from evaluator.llm.slots import SLOT_NAMES

    number = int(heading[1:heading.index(")")])
    name = SLOT_NAMES[number - 1] if 1 <= number <= len(SLOT_NAMES) else "?"
    return f"slot {name} ({heading})"


def _message_diff(index: int, here: str, there: str) -> str:
    mine, theirs = _sections(here), _sections(there)
    if mine and mine.keys() == theirs.keys():
        slots = [h for h in mine if mine[h] != theirs[h]]
        if slots:
            return (f"message {index}, {', '.join(_slot_name(h) for h in slots)}: "
                    f"{_first_line_diff(mine[slots[0]], theirs[slots[0]])}")
    return f"message {index}: {_first_line_diff(here, there)}"


def _closeness(body: Mapping[str, Any], record: Mapping[str, Any]) -> tuple[int, ...]:
    mine, theirs = body["messages"], record["request"].get("messages") or []
    same = 0
    while same < min(len(mine), len(theirs)) and mine[same] == theirs[same]:
        same += 1
    sections = 0
    if same < min(len(mine), len(theirs)):
        a, b = _sections(mine[same]["content"]), _sections(theirs[same]["content"])
        sections = sum(1 for k in a if a[k] == b.get(k))
    settings = sum(1 for k in REQUEST_SETTINGS if body.get(k) == record["request"].get(k))
    return (int(len(mine) == len(theirs)), same, sections, settings)


def explain_miss(body: Mapping[str, Any], records: Sequence[Mapping[str, Any]]) -> str:
    """What differs between an unmatched request and the closest recording: the decoding
    settings sent, then the first differing message, by prompt slot where it has slots."""
    same_model = [r for r in records if r["request"].get("model") == body.get("model")]
    if not same_model:
        models = sorted({str(r["request"].get("model")) for r in records})
        return f"no recording is for this model (recorded: {', '.join(models) or 'none'})"
    best = max(same_model, key=lambda r: _closeness(body, r))
    recorded = best["request"]
    parts = [f"{key} {_show(body.get(key))} sent, {_show(recorded.get(key))} recorded ({flag})"
             for key, flag in REQUEST_SETTINGS.items() if body.get(key) != recorded.get(key)]
    mine, theirs = body["messages"], recorded.get("messages") or []
    for i, (a, b) in enumerate(zip(mine, theirs, strict=False), 1):
        if a != b:
            parts.append(_message_diff(i, a["content"], b["content"]) if a["role"] == b["role"]
                         else f"message {i}: role {a['role']} here, {b['role']} recorded")
            break
    else:
        if len(mine) != len(theirs):
            parts.append(f"{len(mine)} messages sent, {len(theirs)} in the closest recording "
                         "(the conversation took another turn)")
    where = best.get("request_hash", "?")[:19]
    return f"closest recording {where}… differs in: " + ("; ".join(parts) or "nothing named")
