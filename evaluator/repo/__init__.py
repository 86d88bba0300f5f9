"""Writes into the repository: record a scored row with its ciphertext and re-rendered pages,
commit and push with retries, the reveal, audited corrections. It sits above `render` because
every write re-renders what readers see; track boards are passed in by the callers above."""
