#!/usr/bin/env python3
"""Drives `hone serve` with the official MCP Python SDK (`mcp` on PyPI).

Usage: serve_client.py --hone PATH/TO/hone --transport stdio|http

Builds a small library in a temporary folder, starts `hone serve` on it and,
through the SDK's ClientSession, checks: the handshake and the Skills
extension's capability; resources (list, read, the index); the extension's
methods (skills/list, skills/get, resources/directory/read); the three tools;
prompts; a list-changed notification after a file is edited on disk, and a
search that sees the edit; errors for path escapes and bad arguments. Raw
requests (no SDK) check what the SDK cannot send: malformed JSON, a foreign
Origin, a missing bearer token, an oversized body.

Exits 0 when every check passes; otherwise prints the failed check and exits 1.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Literal

import anyio
import httpx2
import mcp.types as types
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from pydantic import TypeAdapter

# No check waits on a clock tighter than this: CI machines are loaded.
PATIENCE = 30.0

ANY = TypeAdapter(dict[str, Any])


class SkillsList(types.Request[dict[str, Any] | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: dict[str, Any] | None = None


class SkillsGet(types.Request[dict[str, Any], Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: dict[str, Any]


class DirectoryRead(types.Request[dict[str, Any], Literal["resources/directory/read"]]):
    method: Literal["resources/directory/read"] = "resources/directory/read"
    params: dict[str, Any]


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def make_library(base: Path) -> Path:
    root = base / "lib"
    write(
        root / "pdf" / "SKILL.md",
        "---\nname: pdf\ndescription: Extract text and tables from PDF files and fill PDF forms. "
        "Use when the user mentions a PDF.\nargument-hint: '[file]'\n---\n"
        "# PDF\n\nOpen $0 with ${CLAUDE_SKILL_DIR}/scripts/extract.py. See [forms](refs/forms.md).\n",
    )
    write(root / "pdf" / "refs" / "forms.md", "# Forms\n\nFill fields one by one.\n")
    write(root / "pdf" / "scripts" / "extract.py", "print('extract')\n")
    write(
        root / "team" / "commit-helper" / "SKILL.md",
        "---\nname: commit\ndescription: Write git commit messages in the team's style. "
        "Use when committing changes.\n---\nWrite a commit message for: $ARGUMENTS\n",
    )
    write(
        root / "internal" / "SKILL.md",
        "---\nname: internal\ndescription: Rotate the on-call schedule. Use when rotating on-call.\n"
        "user-invocable: false\n---\nRotate.\n",
    )
    write(root / "broken" / "SKILL.md", "---\nname: broken\ndescription: [unclosed\n---\nBody.\n")
    write(base / "secret.txt", "the secret outside the library\n")
    os.symlink(base / "secret.txt", root / "pdf" / "leak.txt")
    return root


def check(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def text_of(result: types.CallToolResult) -> str:
    return "".join(getattr(block, "text", "") for block in result.content)


def structured(result: types.CallToolResult) -> dict[str, Any]:
    check(not result.is_error, f"tool failed: {text_of(result)}")
    return json.loads(text_of(result))


async def expect_mcp_error(what: str, call: Any, code: int | None = None, contains: str = "") -> None:
    try:
        await call
    except MCPError as err:
        if code is not None:
            check(err.code == code, f"{what}: expected error {code}, got {err.code} {err.message}")
        check(contains.lower() in err.message.lower(), f"{what}: error {err.message!r} lacks {contains!r}")
        return
    raise AssertionError(f"{what}: expected a JSON-RPC error, got a result")


async def exercise(session: ClientSession, root: Path, notifications: list[str], changed: anyio.Event) -> None:
    init = await session.initialize()
    caps = init.capabilities
    extensions = caps.extensions or {}
    check(
        extensions.get("io.modelcontextprotocol/skills", {}).get("directoryRead") is True,
        f"the Skills extension is not declared: {extensions}",
    )
    check(caps.resources is not None and caps.resources.list_changed, "resources.listChanged missing")
    check(caps.prompts is not None and caps.prompts.list_changed, "prompts.listChanged missing")
    check(init.server_info.name == "hone", f"server name {init.server_info.name}")

    # Resources: every file of every skill, and the index.
    listed = await session.list_resources()
    uris = {str(r.uri): r for r in listed.resources}
    for uri in [
        "skill://index.json",
        "skill://pdf/SKILL.md",
        "skill://pdf/refs/forms.md",
        "skill://pdf/scripts/extract.py",
        "skill://team/commit/SKILL.md",
    ]:
        check(uri in uris, f"{uri} not listed: {sorted(uris)}")
    pdf = uris["skill://pdf/SKILL.md"]
    check(pdf.mime_type == "text/markdown" and pdf.name == "pdf", f"SKILL.md metadata: {pdf}")
    check((pdf.description or "").startswith("Extract text"), "SKILL.md description")
    broken = uris["skill://broken/SKILL.md"]
    check(broken.meta and broken.meta.get("dev.hone/findings"), f"findings not attached: {broken}")

    read = await session.read_resource("skill://pdf/SKILL.md")
    check(read.contents[0].text.startswith("---\nname: pdf"), "SKILL.md content")
    read = await session.read_resource("skill://pdf/refs/forms.md")
    check(read.contents[0].text.startswith("# Forms"), "reference content")
    index = json.loads((await session.read_resource("skill://index.json")).contents[0].text)
    entries = {e["uri"]: e for e in index["skills"]}
    check("skill://pdf/SKILL.md" in entries, f"index entries: {sorted(entries)}")
    check(entries["skill://pdf/SKILL.md"]["frontmatter"]["argument-hint"] == "[file]", "verbatim frontmatter")

    # The extension's methods.
    listing = await session.send_request(SkillsList(), ANY)
    names = sorted(e["frontmatter"].get("name") for e in listing["skills"])
    check(names == ["broken", "commit", "internal", "pdf"], f"skills/list names: {names}")
    entry = (await session.send_request(SkillsGet(params={"uri": "skill://pdf/SKILL.md"}), ANY))["skill"]
    digests = {r["uri"]: r["digest"] for r in entry["resources"]}
    sizes = {r["uri"]: r["size"] for r in entry["resources"]}
    check(sizes.get("skill://pdf/refs/forms.md") == len("# Forms\n\nFill fields one by one.\n"), f"sizes: {sizes}")
    check(
        re.fullmatch(r"sha256:[0-9a-f]{64}", digests["skill://pdf/refs/forms.md"]) is not None,
        f"digest format: {digests}",
    )
    await expect_mcp_error(
        "skills/get of a file that is not a skill",
        session.send_request(SkillsGet(params={"uri": "skill://pdf/refs/forms.md"}), ANY),
        code=-32602,
    )
    folder = await session.send_request(DirectoryRead(params={"uri": "skill://pdf"}), ANY)
    children = {r["name"]: r["mimeType"] for r in folder["resources"]}
    check(children.get("refs") == "inode/directory", f"directory listing: {children}")
    check(children.get("SKILL.md") == "text/markdown", f"directory listing: {children}")

    # Tools.
    tools = {t.name for t in (await session.list_tools()).tools}
    check(tools == {"search_skills", "load_skill", "read_skill_resource"}, f"tools: {tools}")
    found = structured(await session.call_tool("search_skills", {"query": "fill in a PDF form", "top_k": 3}))
    check(found["ranker"] == "bm25", f"ranker: {found['ranker']}")
    top = found["matches"][0]
    check(top["name"] == "pdf" and 0.0 <= top["confidence"] <= 1.0, f"top match: {top}")
    check(top["selected"] == (top["confidence"] >= found["threshold"]), "selected follows the threshold")
    check(all(not m["selected"] for m in found["matches"][1:]), "only the top match may be selected")
    loaded = structured(await session.call_tool("load_skill", {"name": "pdf", "arguments": "report.pdf"}))
    check("Open report.pdf with " in loaded["body"], f"$0 not substituted: {loaded['body']!r}")
    check("/pdf/scripts/extract.py" in loaded["body"] and "${CLAUDE_SKILL_DIR}" not in loaded["body"], "skill dir")
    check(loaded["tokens"]["count"] > 5 and loaded["tokens"]["tokenizer"] == "o200k", f"tokens: {loaded['tokens']}")
    check({r["path"] for r in loaded["resources"]} >= {"refs/forms.md", "scripts/extract.py"}, "resource list")
    loaded = structured(await session.call_tool("load_skill", {"name": "commit", "arguments": "fix the parser"}))
    check("Write a commit message for: fix the parser" in loaded["body"], "$ARGUMENTS")
    file = await session.call_tool("read_skill_resource", {"name": "pdf", "path": "scripts/extract.py"})
    check(not file.is_error, f"read_skill_resource failed: {text_of(file)}")
    check("print('extract')" in file.content[0].resource.text, "resource content")

    # Escapes and bad input: refused with a clear message.
    for path, words in [
        ("../team/commit-helper/SKILL.md", "climbs out"),
        ("/etc/passwd", "absolute"),
        ("leak.txt", "outside the skill"),
        ("refs/../../secret.txt", "climbs out"),
        ("nothing.md", "does not exist"),
    ]:
        result = await session.call_tool("read_skill_resource", {"name": "pdf", "path": path})
        check(result.is_error and words in text_of(result), f"{path}: {text_of(result)!r}")
    for uri in ["skill://pdf/../team/commit/SKILL.md", "skill://pdf/leak.txt", "skill://pdf/%2e%2e/x", "file:///etc/passwd"]:
        await expect_mcp_error(f"resources/read {uri}", session.read_resource(uri))
    result = await session.call_tool("load_skill", {"name": "no-such-skill"})
    check(result.is_error and "no skill named" in text_of(result), f"unknown skill: {text_of(result)}")
    await expect_mcp_error(
        "top_k of the wrong type",
        session.call_tool("search_skills", {"query": "pdf", "top_k": "three"}),
        code=-32602,
        contains="top_k",
    )
    await expect_mcp_error(
        "missing query", session.call_tool("search_skills", {}), code=-32602, contains="query"
    )
    await expect_mcp_error(
        "unknown argument",
        session.call_tool("load_skill", {"name": "pdf", "bogus": 1}),
        code=-32602,
        contains="bogus",
    )
    result = await session.call_tool("search_skills", {"query": "pdf " * 5000})
    check(result.is_error and "bytes long" in text_of(result), f"oversized query: {text_of(result)}")
    result = await session.call_tool("search_skills", {"query": "pdf", "top_k": 500})
    check(result.is_error and "top_k" in text_of(result), f"top_k range: {text_of(result)}")
    await expect_mcp_error("unknown tool", session.call_tool("delete_everything", {}), contains="unknown tool")

    # Prompts: user-invocable skills only.
    prompts = {p.name: p for p in (await session.list_prompts()).prompts}
    check("pdf" in prompts and "commit" in prompts and "internal" not in prompts, f"prompts: {sorted(prompts)}")
    check(prompts["pdf"].title == "/pdf [file]", f"prompt title: {prompts['pdf'].title}")
    check(prompts["pdf"].arguments[0].description == "[file]", "argument-hint")
    got = await session.get_prompt("commit", {"arguments": "bump deps"})
    check("bump deps" in got.messages[0].content.text, "prompt substitution")
    await expect_mcp_error("prompt of a hidden skill", session.get_prompt("internal", {}), code=-32602)

    # Live: an edit on disk reaches the client, and searches see it.
    notifications.clear()
    edited = time.monotonic()
    write(
        root / "team" / "commit-helper" / "SKILL.md",
        "---\nname: commit\ndescription: Bake sourdough bread with a long cold proof. "
        "Use when baking bread.\n---\nBake: $ARGUMENTS\n",
    )
    with anyio.fail_after(PATIENCE):
        await changed.wait()
    # A figure to read, not a limit to assert (the issue asks for under a second).
    print(f"edit on disk to list_changed: {(time.monotonic() - edited) * 1000:.0f} ms", file=sys.stderr)
    check("notifications/resources/list_changed" in notifications, f"notifications: {notifications}")
    # `commit` is user-invocable: its prompt changed too.
    with anyio.fail_after(PATIENCE):
        while "notifications/prompts/list_changed" not in notifications:
            await anyio.sleep(0.05)
    found = structured(await session.call_tool("search_skills", {"query": "bake sourdough bread"}))
    check(found["matches"] and found["matches"][0]["name"] == "commit", f"search after edit: {found}")


def recorder() -> tuple[list[str], anyio.Event, Any]:
    notifications: list[str] = []
    changed = anyio.Event()

    async def handle(message: Any) -> None:
        method = getattr(message, "method", None)
        if method:
            notifications.append(method)
            if method == "notifications/resources/list_changed":
                changed.set()

    return notifications, changed, handle


async def run_stdio(hone: str, root: Path) -> None:
    notifications, changed, handle = recorder()
    params = StdioServerParameters(command=hone, args=["serve", str(root), "--ranker", "bm25"])
    async with stdio_client(params) as (read, write_stream):
        async with ClientSession(read, write_stream, message_handler=handle) as session:
            await exercise(session, root, notifications, changed)
    # Malformed JSON-RPC on stdin gets a JSON-RPC error, not silence or a crash.
    process = subprocess.Popen(
        [hone, "serve", str(root), "--ranker", "bm25"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin and process.stdout
    process.stdin.write(b"{this is not json\n")
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    check(reply.get("error", {}).get("code") == -32700 and reply.get("id") is None, f"parse error reply: {reply}")
    process.stdin.write(b'{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
                        b'"capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}\n')
    process.stdin.flush()
    reply = json.loads(process.stdout.readline())
    check(reply.get("id") == 7 and "result" in reply, f"still serving after bad input: {reply}")
    process.stdin.close()
    check(process.wait(timeout=PATIENCE) == 0, "the server did not exit cleanly when stdin closed")


class Server:
    """`hone serve --http` on a free loopback port."""

    def __init__(self, hone: str, root: Path, *extra: str) -> None:
        self.process = subprocess.Popen(
            [hone, "serve", str(root), "--ranker", "bm25", "--http", "127.0.0.1:0", *extra],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert self.process.stderr
        self.url = ""
        for line in self.process.stderr:
            match = re.search(r"at (http://127\.0\.0\.1:\d+/mcp)", line)
            if match:
                self.url = match.group(1)
                break
        check(bool(self.url), "the HTTP server never said where it listens")
        # Keep draining stderr so the server never blocks on a full pipe.
        threading.Thread(target=self.process.stderr.read, daemon=True).start()

    def __enter__(self) -> Server:
        return self

    def __exit__(self, *_: object) -> None:
        self.process.terminate()
        self.process.wait(timeout=PATIENCE)


async def run_http(hone: str, root: Path) -> None:
    notifications, changed, handle = recorder()
    with Server(hone, root) as server:
        async with streamable_http_client(server.url) as (read, write_stream):
            async with ClientSession(read, write_stream, message_handler=handle) as session:
                await exercise(session, root, notifications, changed)
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        async with httpx2.AsyncClient(timeout=PATIENCE) as raw:
            response = await raw.post(server.url, content=b"{not json", headers=headers)
            check(response.status_code == 400, f"malformed JSON: HTTP {response.status_code}")
            check(response.json()["error"]["code"] == -32700, f"malformed JSON: {response.text}")
            response = await raw.post(
                server.url, content=b"{}", headers={**headers, "Origin": "http://evil.example"}
            )
            check(response.status_code == 403, f"foreign Origin: HTTP {response.status_code}")
            big = b'{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"' + b"x" * (2 << 20) + b'"}}'
            # Refused unread, yet answered every time, and the connection
            # closed so that the next request does not use it.
            for _ in range(3):
                response = await raw.post(server.url, content=big, headers=headers)
                check(response.status_code == 413, f"oversized body: HTTP {response.status_code}")
                check(response.headers.get("connection") == "close", f"oversized body: {response.headers}")
    with Server(hone, root, "--token", "s3cret") as server:
        async with httpx2.AsyncClient(timeout=PATIENCE) as raw:
            response = await raw.post(server.url, content=b"{}", headers={"Content-Type": "application/json"})
            check(response.status_code == 401, f"missing token: HTTP {response.status_code}")
            response = await raw.post(
                server.url, content=b"{}", headers={"Content-Type": "application/json", "Authorization": "Bearer guess"}
            )
            check(response.status_code == 401, f"wrong token: HTTP {response.status_code}")
        client = create_mcp_http_client(headers={"Authorization": "Bearer s3cret"})
        async with client:
            async with streamable_http_client(server.url, http_client=client) as (read, write_stream):
                async with ClientSession(read, write_stream) as session:
                    await session.initialize()
                    found = structured(await session.call_tool("search_skills", {"query": "pdf forms"}))
                    check(found["matches"][0]["name"] == "pdf", "search with a token")
    await run_strict(hone, root)


async def run_strict(hone: str, root: Path) -> None:
    """`--strict` leaves out the skill with error-level findings, everywhere."""
    with Server(hone, root, "--strict") as server:
        async with streamable_http_client(server.url) as (read, write_stream):
            async with ClientSession(read, write_stream) as session:
                await session.initialize()
                uris = {str(r.uri) for r in (await session.list_resources()).resources}
                check("skill://pdf/SKILL.md" in uris, f"strict lists the clean skills: {sorted(uris)}")
                check("skill://broken/SKILL.md" not in uris, f"strict still lists broken: {sorted(uris)}")
                listing = await session.send_request(SkillsList(), ANY)
                names = sorted(e["frontmatter"].get("name") for e in listing["skills"])
                check("broken" not in names, f"strict skills/list: {names}")
                result = await session.call_tool("load_skill", {"name": "broken"})
                check(result.is_error, f"strict still loads broken: {text_of(result)}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hone", required=True)
    parser.add_argument("--transport", choices=["stdio", "http"], required=True)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = make_library(Path(tmp))
        runner = run_stdio if args.transport == "stdio" else run_http
        try:
            anyio.run(runner, args.hone, root)
        except AssertionError as err:
            print(f"FAILED ({args.transport}): {err}", file=sys.stderr)
            return 1
    print(f"ok: hone serve over {args.transport} passed every check with the MCP Python SDK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
