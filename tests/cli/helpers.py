"""Running verbs the way a user does and keeping what they read (exit code, stdout, stderr)."""

from __future__ import annotations

from pathlib import Path

from evaluator.authoring.demo import predict_label_propagation
from evaluator.cli import main


def run(args, capsys) -> tuple[int, str, str]:
    """The verb in process: exit code (argparse errors included), stdout, stderr."""
    try:
        code = main([str(a) for a in args])
    except SystemExit as exc:  # argparse usage errors
        code = int(exc.code or 0)
    out = capsys.readouterr()
    return code, out.out, out.err


def encrypt(demo_competition, keypair, tmp_path, capsys, out: Path, *extra):
    """`gnncb encrypt` of a label-propagation answer as Alice, into `out`."""
    preds = tmp_path / "predictions.csv"
    predict_label_propagation(demo_competition).to_csv(preds, index=False)
    return run(["encrypt", "--competition", demo_competition, "--participant", "Alice",
                "--public-key", keypair["public_path"], "--method", "label prop",
                "-o", out, *extra, preds], capsys)
