#!/usr/bin/env node
// Transparent tee between pi-acp and a Pi-compatible `--mode rpc` agent (Pi or rho).
//
// pi-acp spawns PI_ACP_PI_COMMAND with ["--mode", "rpc", "--no-themes", ("--session", FILE)?] and no
// shell, so the command must be one executable: the generated pi-wrapper.sh execs
//     node rpc-tee.mjs <pi-acp's args...>
// with
//     RPC_TEE_TARGET  JSON array: the real agent command, e.g. ["node","/…/cli.js"] or ["/…/rho"]
//     RPC_TEE_LOG     JSONL file to append to: {t, dir:"in"|"out"|"err"|"exit", line|code|signal, pid}
//                     "in" = pi-acp -> agent (stdin), "out" = agent -> pi-acp (stdout)
// Every byte is forwarded unchanged; lines are logged as they pass. SIGTERM/SIGINT/SIGHUP are
// forwarded to the agent, and the tee exits with the agent's code.
import { spawn } from "node:child_process";
import { appendFileSync } from "node:fs";

const target = JSON.parse(process.env.RPC_TEE_TARGET ?? "null");
if (!Array.isArray(target) || target.length === 0) {
  process.stderr.write("rpc-tee: RPC_TEE_TARGET must be a JSON array (the agent command)\n");
  process.exit(2);
}
const logPath = process.env.RPC_TEE_LOG;
const t0 = Date.now();
const log = (rec) => {
  if (!logPath) return;
  appendFileSync(logPath, JSON.stringify({ t: Date.now() - t0, ts: Date.now(), pid: process.pid, ...rec }) + "\n");
};

const args = [...target.slice(1), ...process.argv.slice(2)];
log({ dir: "spawn", argv: [target[0], ...args], cwd: process.cwd() });
const child = spawn(target[0], args, { stdio: ["pipe", "pipe", "pipe"], env: process.env });

function lineLogger(dir) {
  let buf = "";
  return {
    push(chunk) {
      buf += chunk.toString("utf8");
      let i;
      while ((i = buf.indexOf("\n")) >= 0) {
        log({ dir, line: buf.slice(0, i) });
        buf = buf.slice(i + 1);
      }
    },
    end() {
      if (buf) log({ dir, line: buf, partial: true });
      buf = "";
    },
  };
}

const inLog = lineLogger("in");
const outLog = lineLogger("out");
const errLog = lineLogger("err");

process.stdin.on("data", (c) => {
  inLog.push(c);
  child.stdin.write(c);
});
process.stdin.on("end", () => {
  inLog.end();
  log({ dir: "stdin_eof" });
  child.stdin.end();
});
child.stdin.on("error", () => {});
child.stdout.on("data", (c) => {
  outLog.push(c);
  process.stdout.write(c);
});
child.stderr.on("data", (c) => {
  errLog.push(c);
  process.stderr.write(c);
});
for (const sig of ["SIGTERM", "SIGINT", "SIGHUP"]) {
  process.on(sig, () => {
    log({ dir: "signal", signal: sig });
    child.kill(sig);
  });
}
child.on("error", (e) => {
  log({ dir: "spawn_error", message: String(e?.message ?? e) });
  process.exit(127);
});
child.on("exit", (code, signal) => {
  outLog.end();
  errLog.end();
  log({ dir: "exit", code, signal });
  process.exitCode = code ?? (signal ? 128 : 1);
  // Let stdout drain, then go.
  process.stdout.write("", () => process.exit(process.exitCode));
});
