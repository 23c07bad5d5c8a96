"""A context build answers every surface from what its own selection decided: which
document is at a path, whether it is withheld, what reached the pack, and where it came
from (spec §7–8)."""

from __future__ import annotations

from pathlib import Path

from conftest import doc, write_ledger
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import make_settings


def test_a_build_carries_its_settings_and_answers_for_a_path(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path,
        {
            "decisions/open.md": doc(status="accepted", data_class="internal"),
            "decisions/secret.md": doc(status="accepted", data_class="restricted"),
        },
    )
    settings = make_settings(300, "internal")
    build = ContextBuilder(space, settings, cache=False).build()
    assert (build.settings, build.ceiling) == (settings, "internal")
    secret = build.document(".ledger/decisions/secret.md")
    assert secret is not None and secret.data_class == "restricted"
    assert build.document(".ledger/decisions/none.md") is None
    assert build.is_withheld(".ledger/decisions/secret.md")
    assert not build.is_withheld(".ledger/decisions/open.md")
    assert [d.path for d in build.selection.withheld] == [".ledger/decisions/secret.md"]


def test_a_build_said_earlier_shares_what_it_holds_and_only_its_time_differs(tmp_path: Path) -> None:
    space = write_ledger(tmp_path, {"decisions/open.md": doc(status="accepted")})
    build = ContextBuilder(space, make_settings(300), cache=False).build()
    earlier = build.built_earlier(1_000.0)
    assert earlier.built_at == 1_000.0 and build.built_at > 1_000.0
    assert (earlier.ledger, earlier.selection, earlier.budgeted) == (
        build.ledger,
        build.selection,
        build.budgeted,
    )
    assert earlier.document(".ledger/decisions/open.md") is build.document(".ledger/decisions/open.md")


def test_sources_are_the_blocks_with_a_kept_byte_and_the_walk_answers_for_its_files(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path,
        {
            "decisions/a.md": doc(status="accepted", data_class="internal", updated_at="2026-05-02"),
            "decisions/b.md": doc(status="accepted", data_class="confidential", updated_at="2026-05-01"),
            "decisions/c.md": doc(status="rejected", data_class="restricted"),
        },
    )
    build = ContextBuilder(space, make_settings(300, "confidential"), cache=False).build()
    assert [(s.path, s.data_class) for s in build.sources()] == [
        (".ledger/decisions/a.md", "internal"),
        (".ledger/decisions/b.md", "confidential"),
    ]
    assert build.effective_class() == "confidential"
    assert build.withholds("restricted") and not build.withholds("confidential")
    found = build.source_file(".ledger/decisions/c.md")  # walked, though no block holds it
    assert found is not None and found.path == ".ledger/decisions/c.md"
    assert build.source_file(".ledger/decisions/none.md") is None
    assert build.in_pack(".ledger/decisions/a.md") and not build.in_pack(".ledger/decisions/c.md")


def test_what_a_build_may_serve_is_what_its_ceiling_lets_through_in_path_order(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path,
        {
            "findings/z.md": doc(status="open", data_class="public"),
            "decisions/secret.md": doc(status="rejected", data_class="restricted"),
            "decisions/open.md": doc(status="superseded"),  # selected or not, it may be served
        },
    )
    build = ContextBuilder(space, make_settings(300, "internal"), cache=False).build()
    assert [d.path for d in build.servable()] == [".ledger/decisions/open.md", ".ledger/findings/z.md"]
    unlimited = ContextBuilder(space, make_settings(300), cache=False).build()
    assert len(unlimited.servable()) == 3


def test_a_build_without_git_has_no_commit_and_its_fingerprint_skips_what_it_withholds(
    tmp_path: Path,
) -> None:
    from ledger_context.proof.provenance import fingerprint

    space = write_ledger(
        tmp_path,
        {
            "decisions/open.md": doc(status="accepted", data_class="internal"),
            "decisions/secret.md": doc(status="accepted", data_class="restricted"),
        },
    )
    build = ContextBuilder(space, make_settings(300, "internal"), provenance=False).build()
    origin = build.provenance()
    shown = [(d.path, d.sha256) for d in build.ledger.documents if d.path != ".ledger/decisions/secret.md"]
    assert (origin.commit, origin.dirty) == (None, None)
    assert origin.fingerprint == fingerprint(shown)
    assert build.provenance(refresh=False) is origin
