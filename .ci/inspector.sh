#!/usr/bin/env bash
# A real-client check, run by hand (`make inspector`; needs Node 20+ and npx, not part of
# CI): the MCP Inspector CLI drives `ledger-context serve` on the demo ledger, and the pack
# it receives must equal `ledger-context pack` byte for byte.
set -euo pipefail
cd "$(dirname "$0")/.."
demo=ledger_fixtures/demo
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
inspect() { npx -y @modelcontextprotocol/inspector --cli ledger-context serve --space "$demo" "$@"; }

echo "node $(node --version), $(ledger-context --version)"
inspect --method tools/list >"$out/tools.json"
inspect --method tools/call --tool-name get_context >"$out/get_context.json"
inspect --method tools/call --tool-name explain_budget --tool-arg detail=brief >"$out/explain.json"
inspect --method resources/read --uri ledger://pack >"$out/pack_resource.json"
inspect --method tools/call --tool-name read_document --tool-arg path=.ledger/decisions/0005-tool-calling-router.md >"$out/read_document.json"
ledger-context pack --space "$demo" >"$out/pack.md"
sha=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["_meta"]["ledger-context/receipt"]["sha256"])' "$out/get_context.json")
inspect --method tools/call --tool-name get_context --tool-arg since="$sha" >"$out/since.json"

python3 - "$out" <<'PY'
import json, sys
from pathlib import Path

out = Path(sys.argv[1])
pack = (out / "pack.md").read_bytes()
tools = {t["name"]: t for t in json.loads((out / "tools.json").read_text())["tools"]}
assert {"explain_budget", "get_context", "read_document"} <= set(tools), tools  # not pinned: tools come and go
assert "outputSchema" not in tools["get_context"] and "outputSchema" in tools["explain_budget"]
context = json.loads((out / "get_context.json").read_text())
assert context["content"][0]["text"].encode() == pack, "get_context differs from ledger-context pack"
receipt = context["_meta"]["ledger-context/receipt"]
explain = json.loads((out / "explain.json").read_text())
assert explain["structuredContent"]["pack"]["sha256"] == receipt["sha256"]
resource = json.loads((out / "pack_resource.json").read_text())
assert resource["contents"][0]["text"].encode() == pack, "ledger://pack differs"
print(f"tools/list: {', '.join(sorted(tools))}")
print(f"get_context: {receipt['bytes']} bytes = {receipt['tokens']} tokens, sha256 {receipt['sha256'][:16]}…, equals ledger-context pack")
print(f"explain_budget: structuredContent with the same sha256; {explain['structuredContent']['pack']['dropped_blocks']} blocks dropped")
print("resources/read ledger://pack: equals ledger-context pack")
since = json.loads((out / "since.json").read_text())
line = since["content"][0]["text"]
assert line.startswith("Unchanged:") and len(line.encode()) <= 200, line
assert since["_meta"]["ledger-context/receipt"]["since"] == {"sha256": receipt["sha256"], "unchanged": True}
print(f"get_context since=<sha256>: {len(line.encode())} bytes, unchanged")
document = json.loads((out / "read_document.json").read_text())
decision = Path("ledger_fixtures/demo/.ledger/decisions/0005-tool-calling-router.md").read_bytes()
assert document["content"][0]["text"].encode() == decision, "read_document differs from the file"
print(f"read_document: {document['_meta']['ledger-context/page']['total_bytes']} bytes, equals the file")
print("inspector check passed")
PY
