"""`gnncb keys init | kid | reseal`: the platform's key pairs and the hidden labels' seal."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from evaluator.paths import competition_arg, default_public_key
from evaluator.submission import keys


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("keys", help="manage key pairs")
    ks = p.add_subparsers(dest="keys_command", metavar="ACTION", required=True)
    k = ks.add_parser("init", help="create private.pem (0600) and public.pem; print the kid")
    k.add_argument("--out", type=Path, required=True, help="directory to write the pair into")
    k.add_argument("--bits", type=int, default=4096)
    k.set_defaults(func=cmd_keys_init)
    k = ks.add_parser("kid", help="print the kid (RFC 7638 thumbprint) of a public key")
    k.add_argument("public_key", type=Path)
    k.set_defaults(func=cmd_keys_kid)
    k = ks.add_parser("reseal", help="re-encrypt hidden labels to a new key (rotation) or to the "
                      "current competition version, without the raw data or the build seed")
    k.add_argument("competitions", nargs="+", type=competition_arg,
                   help="slugs or folders (default key: keys/platform-public.pem)")
    k.add_argument("--private-key", type=Path, action="append",
                   help="PEM that opens the labels now (repeatable); default: $GNNCB_PRIVATE_KEY")
    k.add_argument("--public-key", type=Path, help="the new public key; default: "
                   "keys/platform-public.pem")
    k.add_argument("--dry-run", action="store_true", help="open and re-seal in memory only")
    k.set_defaults(func=cmd_keys_reseal)

def cmd_keys_init(args: argparse.Namespace) -> int:
    kid = keys.generate(args.out, bits=args.bits)
    print(f"wrote {args.out / 'private.pem'} (mode 0600, keep it secret) and "
          f"{args.out / 'public.pem'}")
    print(f"kid: {kid}")
    return 0


def cmd_keys_kid(args: argparse.Namespace) -> int:
    print(keys.thumbprint(keys.load_public_key(args.public_key.read_bytes(),
                                               source=str(args.public_key))))
    return 0


def _ledger_beside(folder: Path) -> list:
    """The rows of the ledger of the repository holding `folder` (competitions/<slug>), or
    none when it has no ledger: a version bump is checked against that repository's reveals."""
    from evaluator.ledger.store import Ledger

    path = Path(folder).resolve().parent.parent / "leaderboard" / "ledger.jsonl"
    return Ledger(path).rows() if path.is_file() else []


def cmd_keys_reseal(args: argparse.Namespace) -> int:
    from evaluator.commands._options import announce
    from evaluator.errors import ConfigError
    from evaluator.paths import ensure_inside
    from evaluator.submission.reseal import reseal_competition

    if args.public_key is None:  # sealed to the repository's key: only its own folders
        root = announce(args.root)
        for folder in args.competitions:
            ensure_inside(root, folder, "competition folder")
    private = keys.private_keys_from(args.private_key)
    public = keys.read_public_key(args.public_key or default_public_key())
    new_kid = keys.thumbprint(public)
    failed, done = [], []
    for folder in args.competitions:
        try:  # one competition that cannot be opened does not stop the others
            resealed = reseal_competition(folder, private, public, dry_run=args.dry_run,
                                          rows=_ledger_beside(folder))
        except ConfigError as err:
            failed.append(folder)
            print(f"could not re-seal {folder}: {err}", file=sys.stderr)
            continue
        done.append(folder)
        for r in resealed:
            verb = "would re-seal" if args.dry_run else "re-sealed"
            print(f"{verb} {r.path}: key {r.old_kid[:12]}... -> {r.new_kid[:12]}..., "
                  f"version {r.old_version} -> {r.new_version}")
    _still_needed(done, new_kid, dry_run=args.dry_run)
    if failed:
        print(f"{len(failed)} of {len(args.competitions)} competition(s) not re-sealed: "
              f"{', '.join(str(f) for f in failed)}", file=sys.stderr)
        return 2  # a maintainer's problem (a key), like any ConfigError
    return 0


def _still_needed(folders: list[Path], new_kid: str, *, dry_run: bool) -> None:
    """Which old keys the re-sealed competitions still need, and for what: stored envelopes
    and sealed scores stay sealed to the key of their day (their digests are the ledger's
    identities), so the old private key must stay available to `ledger rescore` and
    `competition reveal` while any exist."""
    from collections import Counter

    from evaluator.repo.keyuse import LABELS, describe_uses, key_uses

    for folder in folders:
        root, slug = Path(folder).resolve().parent.parent, Path(folder).name
        uses = key_uses(root, slug) if (root / "leaderboard").is_dir() else {}
        old = {}
        for kid, counts in uses.items():
            rest = counts - Counter({LABELS: counts[LABELS]})  # the reseal moves the labels
            if kid != new_kid and rest:
                old[kid] = rest
        for kid, counts in sorted(old.items()):
            print(f"{slug}: the old key {kid} is still needed: it opens "
                  f"{describe_uses(counts)}; keep its private key (e.g. as "
                  "$GNNCB_PRIVATE_KEY_PREVIOUS beside the new $GNNCB_PRIVATE_KEY)")
        if dry_run:
            continue
        if not old:
            print(f"{slug}: every hidden label file, stored envelope and sealed score opens "
                  f"with the new key {new_kid[:12]}...; the old key is no longer needed here")
        print(f"{slug}: commit the changed hidden/*.jwe files")
