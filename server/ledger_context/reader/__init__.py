"""Reading a ledger: finding the space, walking it, opening each file once with its identity
checked, decoding, frontmatter, parsing into documents, the warm-build cache, ``check``."""
