#!/usr/bin/env python3
"""An MCP server behind OAuth on loopback, with its own authorization server, for rho's tests.

    oauth_server.py PORT_FILE

Serves on 127.0.0.1 (a free port, written to PORT_FILE):
  /.well-known/oauth-protected-resource/mcp   RFC 9728 metadata naming this server as its AS
  /.well-known/oauth-authorization-server     RFC 8414 metadata
  POST /register                              dynamic client registration (public clients)
  GET  /authorize                             redirects at once to redirect_uri with a code
  POST /token                                 authorization_code (PKCE S256 checked) and
                                              refresh_token grants; a revoked refresh token
                                              gets invalid_grant
  POST /mcp                                   streamable HTTP MCP (JSON answers): a bearer
                                              token is required (401 with WWW-Authenticate
                                              otherwise); one tool, `whoami`, answers with the
                                              token it was called with
  POST /control/revoke                        revokes every refresh token issued so far
  GET  /control/log                           counts of what was asked (JSON)
Access tokens are at-1, at-2, ... and live for an hour; rho's tests make them expire by
editing mcp-auth.json, never by waiting.
"""
import base64
import hashlib
import json
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

LOCK = threading.Lock()
STATE = {
    "next": 1,
    "codes": {},          # code -> (challenge, redirect_uri, client_id)
    "access": set(),
    "refresh": {},        # refresh token -> revoked?
    "log": {"register": 0, "authorize": 0, "code": 0, "refresh": 0, "refresh_rejected": 0,
            "mcp_unauthorized": 0},
}


def issue():
    with LOCK:
        n = STATE["next"]
        STATE["next"] += 1
        access, refresh = f"at-{n}", f"rt-{n}"
        STATE["access"].add(access)
        STATE["refresh"][refresh] = False
    return {"access_token": access, "token_type": "Bearer", "expires_in": 3600,
            "refresh_token": refresh, "scope": "mcp"}


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def base(self):
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def send_json(self, status, value, headers=None):
        body = json.dumps(value).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        for key, val in (headers or {}).items():
            self.send_header(key, val)
        self.end_headers()
        self.wfile.write(body)

    def body(self):
        length = int(self.headers.get("content-length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self):
        url = urllib.parse.urlparse(self.path)
        base = self.base()
        if url.path == "/.well-known/oauth-protected-resource/mcp":
            return self.send_json(200, {"resource": f"{base}/mcp", "authorization_servers": [base]})
        if url.path == "/.well-known/oauth-authorization-server":
            return self.send_json(200, {
                "issuer": base,
                "authorization_endpoint": f"{base}/authorize",
                "token_endpoint": f"{base}/token",
                "registration_endpoint": f"{base}/register",
                "response_types_supported": ["code"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "code_challenge_methods_supported": ["S256"],
                "token_endpoint_auth_methods_supported": ["none"],
            })
        if url.path == "/authorize":
            query = dict(urllib.parse.parse_qsl(url.query))
            code = f"code-{len(STATE['codes']) + 1}"
            with LOCK:
                STATE["codes"][code] = (query.get("code_challenge"), query.get("redirect_uri"),
                                        query.get("client_id"))
                STATE["log"]["authorize"] += 1
            target = query["redirect_uri"] + "?" + urllib.parse.urlencode(
                {"code": code, "state": query.get("state", ""), "iss": base})
            self.send_response(302)
            self.send_header("location", target)
            self.send_header("content-length", "0")
            self.end_headers()
            return None
        if url.path == "/control/log":
            with LOCK:
                return self.send_json(200, STATE["log"])
        if url.path == "/mcp":
            self.send_response(405)
            self.send_header("content-length", "0")
            self.end_headers()
            return None
        return self.send_json(404, {"error": "not found"})

    def do_DELETE(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        url = urllib.parse.urlparse(self.path)
        raw = self.body()
        if url.path == "/register":
            request = json.loads(raw or b"{}")
            with LOCK:
                STATE["log"]["register"] += 1
                client_id = f"client-{STATE['log']['register']}"
            return self.send_json(201, {"client_id": client_id,
                                        "redirect_uris": request.get("redirect_uris", []),
                                        "token_endpoint_auth_method": "none"})
        if url.path == "/token":
            form = dict(urllib.parse.parse_qsl(raw.decode()))
            grant = form.get("grant_type")
            if grant == "authorization_code":
                with LOCK:
                    known = STATE["codes"].pop(form.get("code"), None)
                if not known:
                    return self.send_json(400, {"error": "invalid_grant"})
                challenge, _redirect, _client = known
                verifier = form.get("code_verifier", "")
                digest = base64.urlsafe_b64encode(hashlib.sha256(verifier.encode()).digest()).rstrip(b"=").decode()
                if digest != challenge:
                    return self.send_json(400, {"error": "invalid_grant", "error_description": "PKCE"})
                with LOCK:
                    STATE["log"]["code"] += 1
                return self.send_json(200, issue())
            if grant == "refresh_token":
                token = form.get("refresh_token")
                with LOCK:
                    revoked = STATE["refresh"].get(token)
                    if revoked is None or revoked:
                        STATE["log"]["refresh_rejected"] += 1
                        rejected = True
                    else:
                        STATE["refresh"][token] = True
                        STATE["log"]["refresh"] += 1
                        rejected = False
                if rejected:
                    return self.send_json(400, {"error": "invalid_grant"})
                return self.send_json(200, issue())
            return self.send_json(400, {"error": "unsupported_grant_type"})
        if url.path == "/control/revoke":
            with LOCK:
                for token in STATE["refresh"]:
                    STATE["refresh"][token] = True
            return self.send_json(200, {"revoked": True})
        if url.path == "/mcp":
            auth = self.headers.get("authorization", "")
            token = auth[len("Bearer "):] if auth.startswith("Bearer ") else ""
            if token not in STATE["access"]:
                with LOCK:
                    STATE["log"]["mcp_unauthorized"] += 1
                challenge = f'Bearer resource_metadata="{self.base()}/.well-known/oauth-protected-resource/mcp"'
                return self.send_json(401, {"error": "unauthorized"}, {"www-authenticate": challenge})
            message = json.loads(raw or b"{}")
            method, id_ = message.get("method"), message.get("id")
            if id_ is None:
                self.send_response(202)
                self.send_header("content-length", "0")
                self.end_headers()
                return None
            if method == "initialize":
                result = {"protocolVersion": message["params"]["protocolVersion"],
                          "capabilities": {"tools": {}},
                          "serverInfo": {"name": "oauth-test", "version": "1.0.0"}}
            elif method == "tools/list":
                result = {"tools": [{"name": "whoami", "description": "The token it was called with.",
                                     "inputSchema": {"type": "object"}}]}
            elif method == "tools/call":
                result = {"content": [{"type": "text", "text": f"token {token}"}]}
            else:
                return self.send_json(200, {"jsonrpc": "2.0", "id": id_,
                                            "error": {"code": -32601, "message": "Method not found"}})
            return self.send_json(200, {"jsonrpc": "2.0", "id": id_, "result": result})
        return self.send_json(404, {"error": "not found"})


def main():
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    with open(sys.argv[1], "w") as f:
        f.write(str(server.server_address[1]))
    server.serve_forever()


main()
