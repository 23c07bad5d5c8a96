"""Proof after the fact: provenance of a build (git state, digests), packs of past commits
(``--rev``) and the audit log of every call served."""
