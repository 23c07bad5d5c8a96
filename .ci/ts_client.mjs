// A real-client check with the TypeScript SDK (`make ts-client`; needs Node 18+ and npm, not
// part of CI): the SDK's Client drives `ledger-context serve` on the demo ledger over stdio.
// listTools caches each outputSchema, and callTool validates structuredContent against it
// (a mismatch throws), so every structured result below is checked by the client itself.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

const [command, ...args] = process.argv.slice(2);
const transport = new StdioClientTransport({ command, args, stderr: "ignore" });
const client = new Client({ name: "ts-check", version: "1" });
await client.connect(transport);

const { tools } = await client.listTools();
const names = tools.map((t) => t.name);
assert.ok(names.includes("get_context") && names.includes("explain_budget"), names.join(", "));
const listed = Buffer.byteLength(JSON.stringify({ tools }));

const pack = await client.callTool({ name: "get_context", arguments: {} });
const receipt = pack._meta["ledger-context/receipt"];
assert.equal(Buffer.byteLength(pack.content[0].text), receipt.bytes);
assert.ok(["starting", "running", "polling", "failed", "stopped"].includes(receipt.watcher), receipt.watcher);

const same = await client.callTool({ name: "get_context", arguments: { since: receipt.sha256 } });
assert.ok(same.content[0].text.startsWith("Unchanged:") && Buffer.byteLength(same.content[0].text) <= 200);
assert.deepEqual(same._meta["ledger-context/receipt"].since, { sha256: receipt.sha256, unchanged: true });
const other = await client.callTool({ name: "get_context", arguments: { since: "0".repeat(64) } });
assert.equal(other.content[0].text, pack.content[0].text);
const bad = await client.callTool({ name: "get_context", arguments: { since: "HEAD" } });
assert.equal(bad.isError, true);

for (const call of [{}, { detail: "full" }, { path: ".ledger/decisions/0005-tool-calling-router.md" }]) {
  const explained = await client.callTool({ name: "explain_budget", arguments: call });
  assert.ok(!explained.isError, JSON.stringify(explained.content));
  assert.ok(explained.structuredContent, JSON.stringify(call));
}
const doc = await client.callTool({ name: "read_document", arguments: { path: ".ledger/decisions/0005-tool-calling-router.md" } });
const file = readFileSync("ledger_fixtures/demo/.ledger/decisions/0005-tool-calling-router.md", "utf-8");
assert.equal(doc.content[0].text, file);
await client.close();
console.log(`typescript sdk: tools/list ${listed} bytes (${names.join(", ")}); get_context ${receipt.bytes} bytes, watcher ${receipt.watcher}`);
console.log("since: unchanged in one line; an unknown sha256 gives the pack; 'HEAD' is an error");
console.log("explain_budget brief, full and path: structuredContent validated by the client");
console.log("typescript client check passed");
