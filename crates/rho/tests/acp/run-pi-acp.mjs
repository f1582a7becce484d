#!/usr/bin/env node
// Drives the npm adapter `pi-acp` as an ACP client (@agentclientprotocol/sdk 2.x app API), with a
// Pi-compatible agent (Pi or rho) underneath it, against the loopback mock LLM, and records both
// protocols: ACP (client <-> pi-acp) and Pi RPC (pi-acp <-> agent, through rpc-tee.mjs).
//
//   node run-pi-acp.mjs --agent-cmd '["/path/to/rho"]' --out /tmp/acp-run
//   node run-pi-acp.mjs --agent-cmd '["/…/node","/…/pi-coding-agent/dist/bundle/cli.js"]'
//
// Options (each also as an env var, ACP_SMOKE_<NAME> upper-cased with _):
//   --agent-cmd JSON array | "cmd arg…"   the Pi-compatible agent (required); pi-acp appends
//                                         --mode rpc --no-themes [--session FILE]
//   --pi-acp PATH        pi-acp's dist/index.js (default: resolved from --modules)
//   --modules DIR        where node_modules lives (default: this script's folder)
//   --mock-url URL       use a running mock_llm.py (http://127.0.0.1:PORT); else one is started
//   --peers DIR          folder with mock_llm.py and scenarios/ (default /work/shared/peers)
//   --scenario NAME      scenario = model id; its prompt and files are used (default two-tools)
//   --workspace DIR      session cwd (default: a new folder in --out); scenario files written in
//   --out DIR            transcripts: acp.jsonl, rpc.jsonl, mock-requests.jsonl, summary.json
//   --timeout-ms N       whole-run limit (default 60000)
//   --no-tee             run the agent without the RPC tee
//   --no-load            skip the second step: session/load of the same session (a new agent process
//                        with --session FILE; pi-acp replays get_messages as session/update)
//   --node PATH          node used for pi-acp and the tee (default: this node)
//   --direct             no pi-acp: the agent itself is the ACP agent (`<agent-cmd> acp`, rho's
//                        native `rho acp`); the same ACP checks, none about RPC
// Exit: 0 all checks passed, 1 a check failed, 2 bad usage, 124 timed out.
import { spawn } from "node:child_process";
import { createRequire } from "node:module";
import { existsSync, openSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync, appendFileSync, chmodSync } from "node:fs";
import { dirname, join, resolve, isAbsolute } from "node:path";
import { Readable, Writable } from "node:stream";
import { fileURLToPath, pathToFileURL } from "node:url";
import { parseArgs } from "node:util";
import { tmpdir } from "node:os";

const HERE = dirname(fileURLToPath(import.meta.url));
const OPTS = {
  "agent-cmd": { type: "string" },
  "pi-acp": { type: "string" },
  modules: { type: "string" },
  "mock-url": { type: "string" },
  peers: { type: "string" },
  scenario: { type: "string" },
  workspace: { type: "string" },
  out: { type: "string" },
  "timeout-ms": { type: "string" },
  "no-tee": { type: "boolean" },
  "no-load": { type: "boolean" },
  node: { type: "string" },
  direct: { type: "boolean" },
};
const { values: cli } = parseArgs({ options: OPTS, allowPositionals: false });
const opt = (name, dflt) => cli[name] ?? process.env["ACP_SMOKE_" + name.toUpperCase().replace(/-/g, "_")] ?? dflt;

function usage(msg) {
  process.stderr.write(`run-pi-acp: ${msg}\n`);
  process.exit(2);
}
const agentCmdRaw = opt("agent-cmd");
if (!agentCmdRaw) usage("--agent-cmd is required");
const agentCmd = agentCmdRaw.trim().startsWith("[") ? JSON.parse(agentCmdRaw) : agentCmdRaw.trim().split(/\s+/);
const nodeBin = opt("node", process.execPath);
const peers = resolve(opt("peers", "/work/shared/peers"));
const scenarioName = opt("scenario", "two-tools");
const scenarioPath = join(peers, "scenarios", scenarioName + ".json");
if (!existsSync(scenarioPath)) usage(`no scenario ${scenarioPath}`);
const scenario = JSON.parse(readFileSync(scenarioPath, "utf8"));
const out = resolve(opt("out", mkdtempSync(join(tmpdir(), "acp-smoke-"))));
mkdirSync(out, { recursive: true });
const workspace = resolve(opt("workspace", join(out, "workspace")));
const timeoutMs = Number(opt("timeout-ms", "60000"));
const useTee = !(cli["no-tee"] || process.env.ACP_SMOKE_NO_TEE === "1");
const doLoad = !(cli["no-load"] || process.env.ACP_SMOKE_NO_LOAD === "1");
const direct = Boolean(cli.direct || process.env.ACP_SMOKE_DIRECT === "1");

// ---- modules: the SDK and pi-acp, resolved from --modules (node_modules parent) ----
const modulesBase = resolve(opt("modules", HERE));
const req = createRequire(join(modulesBase, "noop.js"));
const acp = await import(pathToFileURL(req.resolve("@agentclientprotocol/sdk")).href);
const piAcpPath = resolve(opt("pi-acp", join(dirname(req.resolve("pi-acp/package.json")), "dist", "index.js")));

// ---- files ----
const acpLog = join(out, "acp.jsonl");
const rpcLog = join(out, "rpc.jsonl");
for (const f of [acpLog, rpcLog]) writeFileSync(f, "");
const t0 = Date.now();
const logAcp = (dir, msg) => appendFileSync(acpLog, JSON.stringify({ t: Date.now() - t0, ts: Date.now(), dir, msg }) + "\n");

mkdirSync(workspace, { recursive: true });
for (const [rel, content] of Object.entries(scenario.files ?? {})) {
  const p = join(workspace, rel);
  mkdirSync(dirname(p), { recursive: true });
  writeFileSync(p, content);
}

// ---- the mock LLM ----
const children = [];
let mockUrl = opt("mock-url");
if (!mockUrl) {
  const portFile = join(out, "mock.port");
  const mock = spawn("python3", [join(peers, "mock_llm.py"), "--scenario-dir", join(peers, "scenarios"),
    "--port", "0", "--port-file", portFile, "--chunk-size", "8", "--log", join(out, "mock-requests.jsonl")],
  { stdio: ["ignore", "ignore", openSync(join(out, "mock.stderr"), "w")] });
  children.push(mock);
  for (let i = 0; i < 200 && !existsSync(portFile); i++) await new Promise((r) => setTimeout(r, 50));
  if (!existsSync(portFile)) usage("mock_llm.py did not start");
  mockUrl = `http://127.0.0.1:${readFileSync(portFile, "utf8").trim()}`;
}

// ---- homes: one agent dir serves as PI_CODING_AGENT_DIR and RHO_HOME; HOME for pi-acp's session map ----
const home = join(out, "home");
const agentDir = join(home, "agent");
mkdirSync(agentDir, { recursive: true });
writeFileSync(join(agentDir, "models.json"), JSON.stringify({
  providers: {
    "mock-chat": {
      baseUrl: mockUrl.replace(/\/$/, "") + "/v1", api: "openai-completions", apiKey: "mock-key",
      compat: { supportsDeveloperRole: false, supportsReasoningEffort: false },
      models: [{ id: scenarioName }],
    },
  },
}, null, 2));
writeFileSync(join(agentDir, "settings.json"), JSON.stringify({
  defaultProvider: "mock-chat", defaultModel: scenarioName, quietStartup: true,
}, null, 2));

// ---- PI_ACP_PI_COMMAND: one executable (pi-acp spawns it without a shell) ----
const q = (s) => `'${String(s).replace(/'/g, `'\\''`)}'`;
const wrapper = join(out, "pi-wrapper.sh");
writeFileSync(wrapper, useTee
  ? `#!/bin/sh\nexec ${q(nodeBin)} ${q(join(HERE, "rpc-tee.mjs"))} "$@"\n`
  : `#!/bin/sh\nexec ${agentCmd.map(q).join(" ")} "$@"\n`);
chmodSync(wrapper, 0o755);

const env = {
  ...process.env,
  HOME: home,
  PI_CODING_AGENT_DIR: agentDir,
  RHO_HOME: agentDir,
  PI_OFFLINE: "1",
  PI_SKIP_VERSION_CHECK: "1",
  PI_ACP_PI_COMMAND: wrapper,
  RPC_TEE_TARGET: JSON.stringify(agentCmd),
  RPC_TEE_LOG: rpcLog,
};

// ---- pi-acp ----
// Timing (bench/acp.py): from the agent's spawn to the initialize answer and to the first
// agent_message_chunk of the prompt.
const tSpawn = performance.now();
let firstChunkMs = null;
const piAcp = direct
  ? spawn(agentCmd[0], [...agentCmd.slice(1), "acp"], { cwd: workspace, env, stdio: ["pipe", "pipe", "pipe"] })
  : spawn(nodeBin, [piAcpPath], { cwd: workspace, env, stdio: ["pipe", "pipe", "pipe"] });
children.push(piAcp);
const piAcpStderr = join(out, "pi-acp.stderr");
writeFileSync(piAcpStderr, "");
piAcp.stderr.on("data", (c) => appendFileSync(piAcpStderr, c));
const piAcpExit = new Promise((r) => piAcp.on("exit", (code, signal) => r({ code, signal })));

const raw = acp.ndJsonStream(Writable.toWeb(piAcp.stdin), Readable.toWeb(piAcp.stdout));
const stream = {
  readable: raw.readable.pipeThrough(new TransformStream({
    transform(msg, ctl) { logAcp("agent->client", msg); ctl.enqueue(msg); },
  })),
  writable: new WritableStream({
    async write(msg) {
      logAcp("client->agent", msg);
      const w = raw.writable.getWriter();
      try { await w.write(msg); } finally { w.releaseLock(); }
    },
    close() { return raw.writable.close(); },
  }),
};

// ---- the client ----
const updates = [];
const permissions = [];
const { methods } = acp;
const app = acp.client({ name: "rho-acp-smoke" })
  .onNotification(methods.client.session.update, ({ params }) => {
    if (firstChunkMs === null && params.update.sessionUpdate === "agent_message_chunk") {
      firstChunkMs = performance.now() - tSpawn;
    }
    updates.push(params.update);
  })
  .onRequest(methods.client.session.requestPermission, ({ params }) => {
    permissions.push(params);
    const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
    return { outcome: { outcome: "selected", optionId: allow.optionId } };
  })
  .onRequest(methods.client.fs.readTextFile, ({ params }) => {
    const lines = readFileSync(params.path, "utf8").split("\n");
    const start = Math.max(0, (params.line ?? 1) - 1);
    const end = params.limit == null ? lines.length : start + params.limit;
    return { content: lines.slice(start, end).join("\n") };
  })
  .onRequest(methods.client.fs.writeTextFile, ({ params }) => {
    writeFileSync(params.path, params.content);
    return {};
  });

let timedOut = false;
const timer = setTimeout(() => {
  timedOut = true;
  for (const c of children) c.kill("SIGTERM");
}, timeoutMs);

// Wait (bounded) until an update matching pred has arrived at or after index `from`.
async function waitForUpdate(pred, from = 0, ms = 3000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (updates.slice(from).some(pred)) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return false;
}

const result = {};
let runError = null;
try {
  await Promise.race([
    app.connectWith(stream, async (agent) => {
      result.initialize = await agent.request(methods.agent.initialize, {
        protocolVersion: acp.PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: false },
        clientInfo: { name: "rho-acp-smoke", version: "0.1.0" },
      });
      result.initializeMs = performance.now() - tSpawn;
      result.newSession = await agent.request(methods.agent.session.new, { cwd: workspace, mcpServers: [] });
      result.prompt = await agent.request(methods.agent.session.prompt, {
        sessionId: result.newSession.sessionId,
        prompt: [{ type: "text", text: scenario.prompt ?? "Say hello." }],
      });
      // pi-acp sends available_commands_update from a timer after session/new: wait for it, bounded.
      await waitForUpdate((u) => u.sessionUpdate === "available_commands_update");
      if (doLoad) {
        result.loadFrom = updates.length;
        result.load = await agent.request(methods.agent.session.load, {
          sessionId: result.newSession.sessionId, cwd: workspace, mcpServers: [],
        });
        result.loadTo = updates.length; // pi-acp awaits every replayed update before it answers
        await waitForUpdate((u) => u.sessionUpdate === "available_commands_update", result.loadTo);
      }
    }),
    piAcpExit.then((e) => { throw new Error(`pi-acp exited early (code=${e.code}, signal=${e.signal})`); }),
  ]);
} catch (e) {
  runError = String(e?.stack ?? e);
}
clearTimeout(timer);
piAcp.stdin.end(); // pi-acp shuts down on stdin EOF and SIGTERMs the agent
const exit = await Promise.race([piAcpExit, new Promise((r) => setTimeout(() => r(null), 5000))]);
if (!exit) piAcp.kill("SIGKILL");
for (const c of children) if (c !== piAcp) c.kill("SIGTERM");
await new Promise((r) => setTimeout(r, 200)); // let the tee log the agent's exit

// ---- checks ----
const rpc = readFileSync(rpcLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const rpcIn = rpc.filter((r) => r.dir === "in").map((r) => { try { return JSON.parse(r.line); } catch { return null; } }).filter(Boolean);
const rpcOut = rpc.filter((r) => r.dir === "out").map((r) => { try { return JSON.parse(r.line); } catch { return null; } }).filter(Boolean);
const answered = new Set(rpcOut.filter((m) => m.type === "response" && m.id != null).map((m) => m.id));
const unanswered = rpcIn.filter((c) => c.id != null && !answered.has(c.id)).map((c) => c.type);
const failedRpc = rpcOut.filter((m) => m.type === "response" && m.success === false).map((m) => `${m.command}: ${m.error}`);

const checks = [];
const check = (name, ok, detail) => checks.push({ name, ok: Boolean(ok), ...(ok ? {} : { detail }) });
check("no timeout", !timedOut, `nothing finished within ${timeoutMs} ms`);
check("no client error", !runError, runError);
check("initialize: protocolVersion 1", result.initialize?.protocolVersion === 1, result.initialize);
check("session/new: sessionId", typeof result.newSession?.sessionId === "string", result.newSession);
check("session/prompt: stopReason end_turn", result.prompt?.stopReason === "end_turn", result.prompt);
const expectedCalls = (scenario.turns ?? []).flat().filter((b) => b?.type === "tool_call");
// Fold tool_call + tool_call_update per toolCallId, as a client's UI does (later fields win).
const tools = new Map();
for (const u of updates) {
  if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
  const prev = tools.get(u.toolCallId) ?? { announced: false, statuses: [] };
  const next = { ...prev };
  for (const [k, v] of Object.entries(u)) if (v !== undefined && v !== null) next[k] = v;
  if (u.sessionUpdate === "tool_call") next.announced = true;
  if (u.status) next.statuses = [...prev.statuses, u.status];
  tools.set(u.toolCallId, next);
}
for (const call of expectedCalls) {
  // pi-acp titles a call by its tool's name; rho acp by what it does ("Read a.txt").
  const tc = [...tools.values()].find((t) => (direct || t.title === call.name) && t.rawInput?.path === call.arguments?.path);
  check(`tool_call ${call.name} ${call.arguments?.path}: announced, kind, location`,
    tc && tc.announced && (call.name !== "read" || tc.kind === "read")
      && tc.locations?.[0]?.path === resolve(workspace, call.arguments.path),
    tc ?? "no tool_call");
  const want = scenario.files?.[call.arguments?.path]?.split("\n")[0];
  const text = tc?.content?.map((c) => c?.content?.text ?? "").join("") ?? "";
  check(`tool_call ${call.arguments?.path}: completed with the file's text`,
    tc && tc.status === "completed" && (!want || text.includes(want)), tc ?? "no tool_call");
}
const answer = updates.filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text")
  .map((u) => u.content.text).join("");
const lastTurn = (scenario.turns ?? []).at(-1) ?? [];
const finalText = (Array.isArray(lastTurn) ? lastTurn : lastTurn.blocks ?? []).filter((b) => b.type === "text").map((b) => b.text).join("");
check("agent_message_chunk: the final answer", answer.includes(finalText), answer);
check("usage_update after the turn", updates.some((u) => u.sessionUpdate === "usage_update"), "none (get_session_stats.contextUsage?)");
check("available_commands_update", updates.some((u) => u.sessionUpdate === "available_commands_update"), "none");
if (doLoad) {
  const replay = updates.slice(result.loadFrom ?? 0, result.loadTo ?? 0);
  const said = (kind) => replay.filter((u) => u.sessionUpdate === kind && u.content?.type === "text").map((u) => u.content.text).join("\n");
  check("session/load: answered", result.load && typeof result.load === "object", result.load);
  check("session/load: replays the user prompt", said("user_message_chunk").includes(scenario.prompt ?? "Say hello."), replay);
  check("session/load: replays the final answer", said("agent_message_chunk").includes(finalText), replay);
  const firstIds = [...tools.keys()];
  const replayedIds = replay.filter((u) => u.sessionUpdate === "tool_call").map((u) => u.toolCallId);
  check("session/load: replays each tool call by id", firstIds.length > 0 && firstIds.every((id) => replayedIds.includes(id)),
    { firstIds, replayedIds });
}
if (!direct) {
  check("every RPC command answered", unanswered.length === 0, unanswered);
  check("no failed RPC response", failedRpc.length === 0, failedRpc);
}

const summary = {
  agentCmd, piAcp: piAcpPath, mockUrl, workspace, out, ms: Date.now() - t0,
  rpcCommands: rpcIn.map((c) => c.type), rpcEvents: [...new Set(rpcOut.filter((m) => m.type !== "response").map((m) => m.type))],
  updates: updates.map((u) => u.sessionUpdate), permissions: permissions.length, result, checks, runError,
  timing: { initializeMs: result.initializeMs, firstChunkMs },
};
// exchange.txt: both protocols merged in time order, one line each (long lines cut).
const acpRecs = readFileSync(acpLog, "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
const cut = (s, n = 400) => (s.length > n ? s.slice(0, n) + ` …(+${s.length - n})` : s);
const merged = [
  ...acpRecs.map((r) => ({ ts: r.ts, text: `ACP ${r.dir === "client->agent" ? "client → pi-acp" : "pi-acp → client"}  ${cut(JSON.stringify(r.msg))}` })),
  ...rpc.map((r) => ({ ts: r.ts, text: `RPC ${r.dir === "in" ? "pi-acp → agent " : r.dir === "out" ? "agent → pi-acp " : "[" + r.dir + "]"}  ${cut(r.line ?? JSON.stringify(r))}` })),
].sort((a, b) => a.ts - b.ts);
const tMin = merged[0]?.ts ?? 0;
writeFileSync(join(out, "exchange.txt"), merged.map((m) => `${String(m.ts - tMin).padStart(6)} ms  ${m.text}`).join("\n") + "\n");
writeFileSync(join(out, "summary.json"), JSON.stringify(summary, null, 2) + "\n");
let passed = 0;
for (const c of checks) {
  if (c.ok) passed++;
  console.log(`${c.ok ? "ok  " : "FAIL"} ${c.name}${c.ok ? "" : "  -- " + String(JSON.stringify(c.detail) ?? "").slice(0, 400)}`);
}
console.log(`transcripts: ${out}`);
console.log(`${passed} passed, ${checks.length - passed} failed`);
process.exit(timedOut ? 124 : passed === checks.length ? 0 : 1);
