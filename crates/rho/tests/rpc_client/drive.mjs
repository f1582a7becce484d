// Drives `rho --mode rpc` with Pi's own RpcClient (0.73.1 or 1.6.0) and prints what it saw as
// one JSON object. Environment: RHO_BIN (the rho binary), RHO_FAUX_SCRIPT (the faux script),
// RHO_CWD (the working directory), PI_PACKAGE_DIR (the installed pi-coding-agent package).
import { fileURLToPath, pathToFileURL } from "node:url";
import { dirname, join } from "node:path";

const here = dirname(fileURLToPath(import.meta.url));
const { RpcClient } = await import(pathToFileURL(join(process.env.PI_PACKAGE_DIR, "dist/index.js")).href);

const client = new RpcClient({
  cliPath: join(here, "spawn_rho.mjs"),
  cwd: process.env.RHO_CWD,
  args: ["--faux-script", process.env.RHO_FAUX_SCRIPT],
});
const report = {};
await client.start();
try {
  const events = [];
  client.onEvent((event) => events.push(event.type));
  const idle = client.waitForIdle(20000);
  // Pi 1.6's client answers the prompt's disposition (0.73.1's: nothing).
  report.disposition = (await client.prompt("Say hi with bash")) ?? null;
  await idle;
  // Up to `agent_end`: 0.73.1's waitForIdle resolves there, 1.6's at `agent_settled`.
  const end = events.indexOf("agent_end");
  report.eventTypes = events.slice(0, end + 1).filter((type) => type !== "message_update" && type !== "tool_execution_update");
  // `agent_settled` (rho's) follows `agent_end`; getMessages after it sees the whole run.
  report.messages = (await client.getMessages()).map((m) => ({
    role: m.role,
    stopReason: m.stopReason,
    toolName: m.toolName,
    isError: m.isError,
    text: (Array.isArray(m.content) ? m.content : [])
      .filter((b) => b.type === "text")
      .map((b) => b.text)
      .join(""),
  }));
  const state = await client.getState();
  report.state = {
    model: `${state.model.provider}/${state.model.id}`,
    thinkingLevel: state.thinkingLevel,
    isStreaming: state.isStreaming,
    messageCount: state.messageCount,
    pendingMessageCount: state.pendingMessageCount,
    steeringMode: state.steeringMode,
    followUpMode: state.followUpMode,
  };
  report.lastAssistantText = await client.getLastAssistantText();
  const stats = await client.getSessionStats();
  report.stats = {
    userMessages: stats.userMessages,
    assistantMessages: stats.assistantMessages,
    toolCalls: stats.toolCalls,
    toolResults: stats.toolResults,
    totalMessages: stats.totalMessages,
    sessionIdMatches: stats.sessionId === state.sessionId,
  };
  if (typeof client.getEntries === "function") {
    // Pi 1.6's new methods.
    report.levels = await client.getAvailableThinkingLevels();
    report.cleared = await client.clearQueue();
    const { entries, leafId } = await client.getEntries();
    report.entryTypes = entries.map((e) => (e.type === "message" ? `message:${e.message.role}` : e.type));
    report.leafIsLast = leafId === entries[entries.length - 1].id;
    const tree = await client.getTree();
    let depth = 0;
    for (let node = tree.tree[0]; node; node = node.children[0]) depth += 1;
    report.treeDepth = depth;
    report.treeLeaf = tree.leafId === leafId;
    // The rest of the 1.6 client's methods, each with what it answered.
    const m = {};
    m.steer = await client.steer("later");
    m.followUp = await client.followUp("after that");
    m.clearedQueued = await client.clearQueue();
    const models = await client.getAvailableModels();
    m.models = models.map((x) => `${x.provider}/${x.id}`);
    m.setModel = (await client.setModel("faux", "faux-1")).id;
    m.cycleModel = (await client.cycleModel()) ?? null;
    await client.setThinkingLevel("high");
    m.cycleThinkingLevel = (await client.cycleThinkingLevel()) ?? null;
    await client.setSteeringMode("all");
    await client.setFollowUpMode("all");
    await client.setAutoCompaction(false);
    await client.setAutoRetry(false);
    await client.abortRetry();
    await client.abortBash();
    await client.setSessionName("driven");
    const bash = await client.bash("echo from-bash");
    m.bash = [bash.output, bash.exitCode, bash.cancelled];
    m.commands = (await client.getCommands()).length;
    const forks = await client.getForkMessages();
    m.forkTexts = forks.map((f) => f.text);
    const html = await client.exportHtml(join(process.env.RHO_CWD, "out.html"));
    m.exported = html.path.endsWith("out.html");
    const before = (await client.getState()).sessionFile;
    const forked = await client.fork(forks[0].entryId);
    m.fork = [forked.text, forked.cancelled];
    m.clone = (await client.clone()).cancelled;
    m.newSession = (await client.newSession()).cancelled;
    m.switchSession = (await client.switchSession(before)).cancelled;
    m.backOnFirst = (await client.getState()).sessionFile === before;
    m.name = (await client.getState()).sessionName ?? null;
    const compacted = await client.compact("Keep the bash result.");
    m.compact = [compacted.summary, typeof compacted.tokensBefore, typeof compacted.firstKeptEntryId];
    await client.abort();
    report.methods = m;
  }
  // Pi answers an unknown command without its id, so the client sees the response as an event.
  const unknown = new Promise((resolve) => {
    const stop = client.onEvent((event) => {
      if (event.type === "response" && event.command === "no_such_command") {
        stop();
        resolve(event);
      }
    });
  });
  client.process.stdin.write(JSON.stringify({ id: "u1", type: "no_such_command" }) + "\n");
  report.unknownCommand = await unknown;
} finally {
  await client.stop();
}
process.stdout.write(JSON.stringify(report) + "\n");
