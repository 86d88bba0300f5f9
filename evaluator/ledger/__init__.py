"""The append-only ledger: the store (rows, audit lines, locking), views over it, and
ranking (a board is a pure function of the ledger)."""
