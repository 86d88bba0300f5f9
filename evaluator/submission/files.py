"""A submission folder's file names and the one bounded read of an untrusted file.

Why here, below both the writer (`submission.seal`) and the reader (`pipeline.evaluate`): the
names are the folder format every tool relies on, and the bound on a read is what keeps
`/dev/zero`, a FIFO or a growing file from filling memory wherever a predictions or metadata
file is read.
"""

from __future__ import annotations

from pathlib import Path

from evaluator.errors import ConfigError, Rejection

ENVELOPE_NAME = "predictions.csv.enc"
METADATA_NAME = "metadata.json"


def read_limited(path: Path, limit: int, *, what: str = "file") -> bytes:
    """At most `limit` bytes of `path`, or a size Rejection; never more in memory.

    Why not `stat` + `read_bytes`: a device (`/dev/zero`), a pipe or a FIFO reports size 0 and
    never ends, and a file can grow between the two calls; reading `limit + 1` bytes is the one
    bound that holds for all of them.
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            data = fh.read(limit + 1)
    except IsADirectoryError:
        raise Rejection(f"{path} is a folder, not a {what}", code="missing-file") from None
    except FileNotFoundError:
        raise Rejection(f"{path} not found", code="missing-file") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror}") from None
    if len(data) > limit:
        raise Rejection(f"{path} is larger than the limit of {limit:,} bytes for a {what}; "
                        "stopped reading there", code="too-large")
    return data
