#!/usr/bin/env bash
# The TypeScript SDK client check (`make ts-client`; needs Node 18+ and npm, not part of CI):
# installs @modelcontextprotocol/sdk in a scratch folder and runs .ci/ts_client.mjs from there.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
(cd "$scratch" && npm init -y >/dev/null && npm install --silent --no-audit --no-fund "@modelcontextprotocol/sdk@${TS_SDK_VERSION:-1}" >&2)
cp .ci/ts_client.mjs "$scratch/"
echo "node $(node --version), @modelcontextprotocol/sdk $(node -p "require('$scratch/node_modules/@modelcontextprotocol/sdk/package.json').version")"
node "$scratch/ts_client.mjs" "${LEDGER_CONTEXT:-ledger-context}" serve --space ledger_fixtures/demo
