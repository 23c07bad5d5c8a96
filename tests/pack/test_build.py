"""Issue 6: the cache and every fast path give exactly the packs and explanations of a
full, uncached build — also after files are edited, added and deleted. The cache's own
rules (file identity, the recently-changed-file rule, warm builds) are in test_cache.py."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, age, examples, same_as_full_build
from ledger_context.pack.build import ContextBuilder
from ledger_context.pack.settings import make_settings
from ledger_context.reader.cache import DocumentCache
from ledger_context.reader.index import IndexOptions, index_path
from reference.ledgers import SpaceSpec, spaces, write_space

_MUTATIONS = st.lists(
    st.tuples(
        st.sampled_from(["edit", "add", "delete", "touch"]), st.integers(0, 50), st.binary(max_size=80)
    ),
    max_size=6,
)


@settings(max_examples=examples(60), deadline=None, suppress_health_check=list(HealthCheck))
@given(spec=spaces(links=False), mutations=_MUTATIONS, ceiling=st.sampled_from([None, "internal"]))
def test_cached_and_full_builds_agree_through_random_changes(
    spec: SpaceSpec, mutations: list[tuple[str, int, bytes]], ceiling: str | None
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        space = write_space(Path(tmp), spec)
        files = sorted(p for p in (space / ".ledger").rglob("*") if p.is_file() and not p.is_symlink())
        for path in files:
            age(path)
        builder = ContextBuilder(space, make_settings(300, ceiling), cache=DocumentCache(racy_ns=0))
        same_as_full_build(builder.build(), space, ceiling)
        for action, index, payload in mutations:
            files = sorted(p for p in (space / ".ledger").rglob("*.md") if p.is_file() and not p.is_symlink())
            if action == "add" or not files:
                target = space / ".ledger" / "experiments" / f"added-{index}.md"
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_bytes(
                    b"---\nupdated_at: 2026-05-0" + str(index % 9 + 1).encode() + b"\n---\n" + payload
                )
                age(target)
            else:
                target = files[index % len(files)]
                if action == "delete":
                    target.unlink()
                elif action == "edit":
                    target.write_bytes(target.read_bytes()[: len(payload)] + payload)
                    age(target)
                else:
                    age(target)
            same_as_full_build(builder.build(), space, ceiling)


def test_the_yaml_options_in_the_settings_reach_the_reader(tmp_path: Path) -> None:
    from conftest import doc, write_ledger
    from ledger_context.reader.frontmatter import YamlOptions

    space = write_ledger(tmp_path, {"harnesses/h.md": doc(status="active")})
    loaders = [
        ContextBuilder(space, make_settings(yaml=options), cache=False)
        .build()
        .ledger.documents[0]
        .yaml_loader
        for options in (YamlOptions(), YamlOptions(quick=False, pure_python=True))
    ]
    assert loaders == ["quick", "python"]


def test_a_builder_told_to_write_the_index_later_writes_it_once_when_asked(tmp_path: Path) -> None:
    space = Path(shutil.copytree(FIXTURES / "demo", tmp_path / "space"))
    settings = make_settings(index=IndexOptions(tmp_path / "cache"))
    assert settings.index is not None
    written = index_path(settings.index, space)
    builder = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0), write_index_later=True)
    first = builder.build()
    assert not written.exists() and first.index == "created (there was none)"
    assert builder.build() is first and not written.exists()  # a warm build keeps the write
    assert builder.write_index() == "created (there was none)" and written.exists()
    assert builder.write_index() is None  # once
    later = ContextBuilder(space, settings, cache=DocumentCache(racy_ns=0)).build()
    assert later.pack == first.pack and later.index is not None and later.index.startswith("used")
    now = ContextBuilder(space, make_settings(index=IndexOptions(tmp_path / "other")))
    now.build()  # the default: written by the build itself
    assert index_path(IndexOptions(tmp_path / "other"), space).exists() and now.write_index() is None
