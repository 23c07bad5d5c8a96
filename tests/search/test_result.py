"""search(): ranked, explained, bounded hits; clear errors; hostile queries bounded."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict
from pathlib import Path

import pytest

from conftest import doc, write_ledger
from ledger_context.model.errors import InvalidArgumentError
from ledger_context.pack.build import build_context
from ledger_context.search.inverted import SearchIndex
from ledger_context.search.result import (
    EXCERPT_BYTES,
    MAX_JSON_BYTES,
    MAX_LIMIT,
    MAX_TEXT_BYTES,
    TITLE_BYTES,
    recorded_hits,
    search,
    search_json,
    search_text,
    task_search,
)


def _space(tmp_path: Path) -> Path:
    return write_ledger(
        tmp_path,
        {
            "decisions/0007-use-jwt.md": doc(
                title="Use JWT for webhooks", status="accepted", updated_at="2026-03-01"
            )
            + "We sign webhooks with JWT.\n",
            "decisions/0008-old-jwt.md": doc(
                title="Use JWT for webhooks", status="superseded", updated_at="2026-01-01"
            )
            + "We sign webhooks with JWT.\n",
            "findings/latency.md": doc(title="Latency budget", status="current", updated_at="2026-02-01")
            + "The router adds 40 ms; JWT checks are cheap.\n",
            "experiments/run-1.md": doc(status="done", updated_at="2026-02-02")
            + "# Router sweep\nno tokens here\n",
            "findings/secret.md": doc(title="JWT secret", status="current", data_class="restricted")
            + "JWT key\n",
        },
    )


def test_equal_scores_go_newest_first_then_by_path(tmp_path: Path) -> None:
    result = search(build_context(_space(tmp_path)), "use jwt webhooks")
    paths = [hit.path for hit in result.hits]
    assert paths[:2] == [".ledger/decisions/0007-use-jwt.md", ".ledger/decisions/0008-old-jwt.md"]
    assert result.hits[0].score == result.hits[1].score
    assert [hit.rank for hit in result.hits] == list(range(1, len(paths) + 1))


def test_a_hit_says_what_it_matched_where_and_whether_the_pack_holds_it(tmp_path: Path) -> None:
    result = search(build_context(_space(tmp_path)), "router sweep")
    experiment = next(hit for hit in result.hits if hit.kind == "experiment")
    assert experiment.title == "Router sweep"  # an experiment's title, though its block shows none
    assert (experiment.matched.title, experiment.matched.body) == (["router", "sweep"], ["router", "sweep"])
    assert experiment.in_pack is True and experiment.excerpt == "Body text. # Router sweep no tokens here"
    old = search(build_context(_space(tmp_path)), "jwt", kind="decision").hits
    assert [(hit.path.rsplit("/", 1)[1], hit.in_pack) for hit in old] == [
        ("0007-use-jwt.md", True),
        ("0008-old-jwt.md", False),
    ]


def test_under_a_ceiling_a_withheld_document_is_neither_found_nor_counted(tmp_path: Path) -> None:
    space = _space(tmp_path)
    open_result = search(build_context(space), "secret key")
    assert [hit.path for hit in open_result.hits] == [".ledger/findings/secret.md"]
    closed = search(build_context(space, max_data_class="internal"), "jwt secret key")
    assert ".ledger/findings/secret.md" not in search_json(closed)
    assert (closed.searched, open_result.searched) == (4, 5)
    assert "key" not in json.dumps([asdict(hit.matched) for hit in closed.hits])


@pytest.mark.parametrize(
    ("query", "kind", "limit", "message"),
    [
        ("", None, 10, "query is empty"),
        # Regression: a bug found by trying to break the product (123 read "query is empty").
        (123, None, 10, "query must be a string of words to search for, not int"),
        (["x"], None, 10, "query must be a string of words to search for, not list"),
        ("  !! ", None, 10, "no searchable term"),
        ("x" * 5000, None, 10, "at most 4096"),
        (
            " ".join(f"w{i}" for i in range(40)),
            None,
            10,
            "40 distinct terms; at most 32 are allowed: use fewer words$",
        ),
        # Found by trying to break the product: a Chinese sentence of 39 characters was
        # refused with no word on why (each pair of neighbouring characters is a term).
        (
            "我们决定使用JWT来验证帮助台的网络钩子因为它更安全而且更容易在多个服务之间共享密钥",
            None,
            10,
            "query has 38 distinct terms; at most 32 are allowed: use fewer words "
            r"\(in Chinese, Japanese, Thai and other scripts written without spaces each pair "
            r"of neighbouring characters is a term\)$",
        ),
        # ... and 4,096 letters read "use words of letters or digits"
        (
            "a" * 4096,
            None,
            10,
            "no searchable term: a word of more than 64 letters or digits is not searched",
        ),
        ("jwt", "decisions", 10, "use one of agents, harness, eval, finding, decision, experiment"),
        ("jwt", None, 0, "from 1 to 50"),
        ("jwt", None, 51, "from 1 to 50"),
        ("jwt", None, True, "from 1 to 50"),
        ("jwt", None, "3", "from 1 to 50"),
    ],
)
def test_bad_arguments_are_clear_errors(
    tmp_path: Path, query: str, kind: str | None, limit: object, message: str
) -> None:
    with pytest.raises(InvalidArgumentError, match=message):
        search(build_context(_space(tmp_path)), query, kind, limit)


@pytest.mark.parametrize(
    "query",
    [
        "jwt " * 25_000,  # 100 KB
        " ".join(["jwt"] * 10_000),
        "jwt\x00\x1b[31m\u2028router",
        "jwt \ud800 router \udfff",
    ],
)
def test_hostile_queries_end_quickly_with_an_error_or_a_clean_result(tmp_path: Path, query: str) -> None:
    build = build_context(_space(tmp_path))
    started = time.perf_counter()
    try:
        result = search(build, query)
    except InvalidArgumentError as exc:
        assert "query" in str(exc)
    else:
        search_json(result).encode("utf-8")  # no lone surrogate reaches the output
        assert result.hits and result.terms[0] == "jwt"
    assert time.perf_counter() - started < 5


def test_the_worst_case_result_stays_within_its_byte_bounds(tmp_path: Path) -> None:
    words = [f"wörd{i}" + "é" * 50 for i in range(32)]  # 32 terms of 56 characters, 2-byte letters
    query = " ".join(words)
    long_title = "𝔗" * 2000
    files = {
        f"findings/{'d' * 200}/{'n' * 180}-{i:02d}.md": doc(title=long_title, status="current")
        + " ".join(words)
        + " 𝔗" * 5000
        + "\n"
        for i in range(60)
    }
    build = build_context(write_ledger(tmp_path, files))
    result = search(build, query, limit=MAX_LIMIT)
    assert len(search_text(result).encode("utf-8")) <= MAX_TEXT_BYTES
    assert len(search_json(result).encode("utf-8")) <= MAX_JSON_BYTES
    assert result.omitted > 0 and len(result.hits) + result.omitted == MAX_LIMIT
    assert all(
        len(h.title.encode()) <= TITLE_BYTES and len((h.excerpt or "").encode()) <= EXCERPT_BYTES
        for h in result.hits
    )


def test_escaped_bidirectional_controls_stay_within_the_text_bound(tmp_path: Path) -> None:
    # Each control is 3 bytes in a title or excerpt and 6 as its escape in the text readout.
    files = {
        f"findings/f{i:02d}.md": doc(title="\u202e" * 2000, status="current")
        + "router "
        + "\u2066" * 5000
        + "\n"
        for i in range(60)
    }
    result = search(build_context(write_ledger(tmp_path, files)), "router", limit=MAX_LIMIT)
    assert len(search_text(result).encode("utf-8")) <= MAX_TEXT_BYTES
    assert result.hits and "\\u202e" in search_text(result)


def test_a_warm_index_gives_the_same_bytes_as_a_cold_one(tmp_path: Path) -> None:
    space = _space(tmp_path)
    index = SearchIndex()
    search(build_context(space), "router", index=index)
    (space / ".ledger" / "findings" / "latency.md").write_text(
        doc(title="Router latency") + "router router\n"
    )
    build = build_context(space)
    assert search_json(search(build, "router jwt", index=index)) == search_json(search(build, "router jwt"))


def test_the_task_search_takes_the_first_distinct_terms_of_any_task(tmp_path: Path) -> None:
    build = build_context(_space(tmp_path))
    found = task_search(build, "Fix the router sweep " + " ".join(f"w{i}" for i in range(100)))
    assert found is not None and found.hits[0].kind == "experiment" and len(found.terms) == 32
    assert task_search(build, "!!!") is None


def test_searched_counts_the_documents_of_the_kind_asked_for(tmp_path: Path) -> None:
    # Was the whole scope whatever the kind: "(kind agents, 301 searched …)".
    build = build_context(_space(tmp_path))
    everything = search(build, "router")
    assert search(build, "router", kind="experiment").searched == 1 < everything.searched
    assert "(kind finding, 2 searched;" in search_text(search(build, "router", kind="finding"))


def test_the_text_readout_escapes_bidirectional_controls(tmp_path: Path) -> None:
    # A title holding U+202E reordered the hit's lines in a terminal; the JSON keeps it as is.
    space = write_ledger(
        tmp_path, {"findings/f.md": doc(title="Safe \u202eevil", status="current") + "router\n"}
    )
    result = search(build_context(space), "router")
    text = search_text(result)
    assert "   Safe \\u202eevil\n" in text and "\u202e" not in text
    assert result.hits[0].title == "Safe \u202eevil"


def test_a_long_task_is_cut_at_the_end_of_a_word(tmp_path: Path) -> None:
    # Was cut at 4,096 characters mid-word: "routed " * 700 searched "routed r".
    build = build_context(_space(tmp_path))
    found = task_search(build, "router " * 700)
    assert found is not None and found.terms == ["router"]
    unbroken = task_search(build, "路由" * 2100 + " router")  # no space before the cut: cut there
    assert unbroken is not None and unbroken.terms == ["路由", "由路"]


def test_a_document_whose_name_holds_a_backslash_is_searched_like_any_other(tmp_path: Path) -> None:
    # Found by trying to break the product: such a file made every search fail.
    space = write_ledger(
        tmp_path,
        {
            "findings/a\\b.md": doc(title="Kumquat yield", status="current", updated_at="2026-02-01")
            + "Kumquats.\n",
            "findings/ok.md": doc(title="Router latency", status="current", updated_at="2026-01-01"),
        },
    )
    build = build_context(space)
    assert [hit.path for hit in search(build, "kumquat").hits] == [".ledger/findings/a\\b.md"]
    assert [hit.path for hit in search(build, "router").hits] == [".ledger/findings/ok.md"]
    found = task_search(build, "look at the kumquat yield")
    assert found is not None and found.hits[0].path == ".ledger/findings/a\\b.md"


def test_agents_md_is_searched_by_its_heading_and_body_never_by_its_frontmatter(tmp_path: Path) -> None:
    # The ranking rule says so since an independent implementation could not settle it:
    # spec §2 reads only agents.md's data_class, so its frontmatter field is empty.
    space = write_ledger(
        tmp_path,
        {
            "agents.md": "---\ndata_class: internal\nowner: zebra\n---\n# Head yak\nBody gnu.\n",
            "findings/f.md": doc(title="Latency", status="current") + "router\n",
        },
    )
    build = build_context(space)
    assert search(build, "zebra owner").matching == 0
    hit = search(build, "yak gnu").hits[0]
    assert (hit.path, hit.title) == (".ledger/agents.md", "Head yak")
    assert (hit.matched.title, hit.matched.body) == (["yak"], ["yak", "gnu"])  # a heading is body too
    (space / ".ledger" / "agents.md").write_text("", encoding="utf-8")
    empty = search(build_context(space), "agents")
    assert [(h.path, h.title) for h in empty.hits] == [(".ledger/agents.md", "agents")]
    assert empty.searched == 2


def test_a_search_is_recorded_as_each_hits_path_and_the_sha256_of_its_bytes(tmp_path: Path) -> None:
    space = write_ledger(
        tmp_path,
        {
            "decisions/0001-use-jwt.md": doc(status="accepted", title="Use JWT for sessions"),
            "findings/jwt-expiry.md": doc(status="open", title="JWT expiry is too short"),
            "findings/other.md": doc(status="open", title="Unrelated"),
        },
    )
    build = build_context(space)
    recorded = recorded_hits(build, search(build, "jwt"))
    assert sorted(entry["path"] for entry in recorded) == [
        ".ledger/decisions/0001-use-jwt.md",
        ".ledger/findings/jwt-expiry.md",
    ]
    for entry in recorded:
        assert entry["sha256"] == hashlib.sha256((space / entry["path"]).read_bytes()).hexdigest()
