#!/usr/bin/env python3
"""A scripted MCP server on stdio (newline-delimited JSON-RPC), for rho's tests.

Every line it receives is appended to $WIRE_LOG (when set). Behaviour by argument:
  --exit-at-start     exit before reading anything (after a line on stderr)
  --garbage           answer `initialize` with a line that is not JSON first
  --flood-stderr      write 2 MiB to stderr before answering `initialize`
  --hang-initialize   never answer `initialize`
  --no-resources      offer no resources
  --linger            ignore end of input and SIGTERM (only SIGKILL stops it)
$PID_FILE, when set, gets the process id.

Tools: echo {text}, add {a, b}, progress {steps} (progress notifications, then a result),
slow {seconds}, crash (exits mid-call), fail (isError), failtext, big {lines}, structured,
image, link, log (a logging notification), grow (adds tool `added` and says tools/list_changed),
elicit (asks the client, returns its answer), nodesc (no description, a title annotation),
env {name} (a variable of its environment, `<unset>` when absent), malformed (a line that is
not JSON, then a result whose fields have the wrong types).
"""
import json
import os
import sys
import time

ARGS = set(sys.argv[1:])
LOG = os.environ.get("WIRE_LOG")
GROWN = False

TOOLS = [
    {"name": "echo", "description": "Echo the given text back.",
     "inputSchema": {"type": "object", "properties": {"text": {"type": "string", "description": "Text to echo"}}, "required": ["text"]},
     "annotations": {"readOnlyHint": True}},
    {"name": "add", "description": "Add two numbers.",
     "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}},
    {"name": "progress", "description": "Report progress, then finish.",
     "inputSchema": {"type": "object", "properties": {"steps": {"type": "integer"}}}},
    {"name": "slow", "description": "Sleep, then answer.",
     "inputSchema": {"type": "object", "properties": {"seconds": {"type": "number"}}}},
    {"name": "crash", "description": "Exit in the middle of the call.", "inputSchema": {"type": "object"}},
    {"name": "fail", "description": "Fail without text.", "inputSchema": {"type": "object"}},
    {"name": "failtext", "description": "Fail text", "inputSchema": {"type": "object"}},
    {"name": "big", "description": "A long output.",
     "inputSchema": {"type": "object", "properties": {"lines": {"type": "integer"}}}},
    {"name": "structured", "description": "Structured content only.", "inputSchema": {"type": "object"}},
    {"name": "image", "description": "An image and audio.", "inputSchema": {"type": "object"}},
    {"name": "link", "description": "A resource link and an embedded resource.", "inputSchema": {"type": "object"}},
    {"name": "log", "description": "Send a log message.", "inputSchema": {"type": "object"}},
    {"name": "grow", "description": "Add a tool.", "inputSchema": {"type": "object"}},
    {"name": "elicit", "description": "Ask the user.", "inputSchema": {"type": "object"}},
    {"name": "nodesc", "annotations": {"title": "Titled tool"}, "inputSchema": {"properties": {}}},
    {"name": "malformed", "description": "A line that is not JSON, then a result of the wrong shape.",
     "inputSchema": {"type": "object"}},
    {"name": "env", "description": "One variable of the server's environment.",
     "inputSchema": {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
     "annotations": {"readOnlyHint": True}},
]


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def result(id_, value):
    send({"jsonrpc": "2.0", "id": id_, "result": value})


def text(value):
    return {"content": [{"type": "text", "text": value}]}


def read():
    line = sys.stdin.readline()
    if not line:
        if "--linger" in ARGS:
            while True:
                time.sleep(1)
        sys.exit(0)
    if LOG:
        with open(LOG, "a") as f:
            f.write(line)
    return json.loads(line)


def call(id_, name, args):
    global GROWN
    if name == "echo":
        return result(id_, {"content": [{"type": "text", "text": "echo: " + str(args.get("text"))}], "isError": False})
    if name == "add":
        return result(id_, text(f"The sum of {args.get('a')} and {args.get('b')} is {args.get('a') + args.get('b')}"))
    if name == "progress":
        token = CURRENT_META.get("progressToken")
        steps = int(args.get("steps", 3))
        for i in range(1, steps + 1):
            params = {"progressToken": token, "progress": i, "total": steps}
            if i == steps:
                params["message"] = "almost"
            send({"jsonrpc": "2.0", "method": "notifications/progress", "params": params})
            time.sleep(0.05)
        return result(id_, text("done"))
    if name == "slow":
        deadline = time.time() + float(args.get("seconds", 5))
        while time.time() < deadline:
            time.sleep(0.02)
        return result(id_, text("slept"))
    if name == "crash":
        sys.stderr.write("crashing on purpose\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "fail":
        return result(id_, {"content": [], "isError": True})
    if name == "failtext":
        return result(id_, {"content": [{"type": "text", "text": "bad thing"}], "isError": True, "_meta": {"x": 1}})
    if name == "big":
        lines = int(args.get("lines", 600))
        body = "".join(f"line {i:05} {'x' * 40}\n" for i in range(lines))
        return result(id_, text(body))
    if name == "structured":
        return result(id_, {"structuredContent": {"n": 5}})
    if name == "image":
        return result(id_, {"content": [
            {"type": "text", "text": "pic"},
            {"type": "image", "data": "iVBORw0KGgowMDAw", "mimeType": "image/png"},
            {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]})
    if name == "link":
        return result(id_, {"content": [
            {"type": "resource_link", "uri": "file:///x/a.txt", "name": "a.txt", "mimeType": "text/plain", "size": 2048, "description": "A file"},
            {"type": "resource", "resource": {"uri": "file:///x/e.txt", "text": "embedded text"}}]})
    if name == "log":
        send({"jsonrpc": "2.0", "method": "notifications/message",
              "params": {"level": "warning", "logger": "mylog", "data": "hello\nworld"}})
        return result(id_, text("logged"))
    if name == "grow":
        GROWN = True
        send({"jsonrpc": "2.0", "method": "notifications/tools/list_changed"})
        return result(id_, text("grown"))
    if name == "elicit":
        send({"jsonrpc": "2.0", "id": 9001, "method": "elicitation/create", "params": {
            "message": "Your name?",
            "requestedSchema": {"type": "object", "properties": {
                "name": {"type": "string", "default": "Ada"},
                "age": {"type": "integer", "default": 36}}, "required": []}}})
        while True:
            answer = read()
            if answer.get("id") == 9001 and "method" not in answer:
                return result(id_, text(json.dumps(answer.get("result"), sort_keys=True)))
            handle(answer)
    if name == "nodesc":
        return result(id_, text("ok"))
    if name == "added" and GROWN:
        return result(id_, text("added after list_changed"))
    if name == "malformed":
        sys.stdout.write("{not json at all\n")
        sys.stdout.flush()
        return result(id_, {"content": 5, "isError": "maybe"})
    if name == "env":
        return result(id_, text(os.environ.get(args.get("name", ""), "<unset>")))
    return send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32602, "message": f"Unknown tool: {name}"}})


CURRENT_META = {}


def handle(message):
    global CURRENT_META
    method = message.get("method")
    id_ = message.get("id")
    params = message.get("params") or {}
    if method == "initialize":
        if "--hang-initialize" in ARGS:
            return
        if "--flood-stderr" in ARGS:
            sys.stderr.write(("noise " * 100 + "\n") * 3500)
            sys.stderr.flush()
        if "--garbage" in ARGS:
            sys.stdout.write("this is not json\n")
            sys.stdout.flush()
        capabilities = {"tools": {"listChanged": True}, "logging": {}}
        if "--no-resources" not in ARGS:
            capabilities["resources"] = {}
        return result(id_, {"protocolVersion": params.get("protocolVersion", "2025-11-25"),
                            "capabilities": capabilities,
                            "serverInfo": {"name": "scripted", "version": "1.0.0"},
                            "instructions": "Scripted test server.\nSecond line."})
    if method == "tools/list":
        tools = TOOLS + ([{"name": "added", "description": "Added later.", "inputSchema": {"type": "object"}}] if GROWN else [])
        return result(id_, {"tools": tools})
    if method == "tools/call":
        CURRENT_META = params.get("_meta") or {}
        return call(id_, params.get("name"), params.get("arguments") or {})
    if method == "resources/list":
        return result(id_, {"resources": [
            {"uri": "file:///r/readme.md", "name": "readme", "mimeType": "text/markdown"},
            {"uri": "file:///r/img.png", "mimeType": "image/png"}]})
    if method == "resources/templates/list":
        return result(id_, {"resourceTemplates": [{"uriTemplate": "file:///r/{name}", "name": "byname"}]})
    if method == "resources/read":
        uri = params.get("uri")
        if uri == "file:///r/readme.md":
            return result(id_, {"contents": [{"uri": uri, "text": "# Readme"}, {"uri": uri + "#2", "text": "part two"}]})
        return send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32002, "message": f"Resource not found: {uri}"}})
    if method == "ping":
        return result(id_, {})
    if id_ is not None and method is not None:
        return send({"jsonrpc": "2.0", "id": id_, "error": {"code": -32601, "message": f"Method not found: {method}"}})


def main():
    if os.environ.get("PID_FILE"):
        with open(os.environ["PID_FILE"], "w") as f:
            f.write(str(os.getpid()))
    if "--linger" in ARGS:
        import signal
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if "--exit-at-start" in ARGS:
        sys.stderr.write("cannot start: no database\n")
        sys.exit(2)
    while True:
        handle(read())


main()
