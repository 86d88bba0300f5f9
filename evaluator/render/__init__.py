"""Pure functions of the ledger for readers: markdown/CSV boards (`boards`), the papers'
comparisons (`results`) and the static site (`site`). Nothing here writes the ledger."""
