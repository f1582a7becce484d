// Stands in for Pi's `dist/cli.js`: Pi's RpcClient always runs `node <cliPath> --mode rpc …`,
// so this file runs rho (RHO_BIN) with the same arguments and the same stdin/stdout/stderr.
import { spawn } from "node:child_process";

const bin = process.env.RHO_BIN;
if (!bin) {
  process.stderr.write("spawn_rho.mjs: RHO_BIN is not set\n");
  process.exit(2);
}
const child = spawn(bin, process.argv.slice(2), { stdio: "inherit" });
// RpcClient.stop() sends SIGTERM to this process; pass it on so rho ends too.
for (const signal of ["SIGTERM", "SIGHUP", "SIGINT"]) {
  process.on(signal, () => child.kill(signal));
}
child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
