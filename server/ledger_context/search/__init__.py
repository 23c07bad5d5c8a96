"""Search: the ledger's accepted, unwithheld documents ranked for a query (spec §10)."""
