"""MCP interoperability check: drive linkup-suggestions' /mcp with the official MCP Python SDK.

The service's own tests use rmcp (Rust) on both ends, so a shared misreading
of the spec would pass unnoticed. This client is an independent
implementation (the `mcp` package pinned in requirements.txt) speaking MCP
Streamable HTTP to the real binary. It checks that:

- the initialize handshake succeeds (the SDK's own version negotiation, session
  id handling, JSON or SSE responses, and the closing DELETE);
- tools/list names exactly search_m365, search_posts, generate_action_hint and
  get_suggestions, each with an object inputSchema and outputSchema;
- tools/call search_posts and get_suggestions succeed with structuredContent of
  the documented shape (the SDK itself also validates it against the tool's
  outputSchema) and, for search_posts, a text content block.

Usage: python mcp_client.py <mcp_url> [search_posts query]
Env:   LINKUP_API_KEY -> X-Api-Key header; GRAPH_TOKEN -> Authorization: Bearer;
       INTEROP_TIMEOUT -> seconds per MCP request (default 60).

Progress goes to stderr; the last stdout line is one JSON object with ok=true.
On any failure the error goes to stderr and the exit code is 1.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from typing import Any

import anyio
import httpx2
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

EXPECTED_TOOLS = {"search_m365", "search_posts", "generate_action_hint", "get_suggestions"}
DEFAULT_QUERY = "deployment pipeline"


class CheckFailed(Exception):
    """An interop expectation that did not hold."""


def check(condition: object, message: str) -> None:
    if not condition:
        raise CheckFailed(message)


def log(message: str) -> None:
    print(f"interop: {message}", file=sys.stderr, flush=True)


def post_ids(posts: Any, where: str) -> list[str]:
    check(isinstance(posts, list), f"{where}: posts is not a list: {posts!r}")
    check(all(isinstance(p, dict) and isinstance(p.get("id"), str) for p in posts), f"{where}: a post has no id")
    return [p["id"] for p in posts]


async def run(url: str, query: str) -> dict[str, Any]:
    headers: dict[str, str] = {}
    if api_key := os.environ.get("LINKUP_API_KEY"):
        headers["X-Api-Key"] = api_key
    if token := os.environ.get("GRAPH_TOKEN"):
        headers["Authorization"] = f"Bearer {token}"
    timeout = float(os.environ.get("INTEROP_TIMEOUT", "60"))

    async def log_http_error(response: httpx2.Response) -> None:
        # The SDK reports a non-2xx answer without its status; say it here.
        if response.status_code >= 400:
            request = response.request
            log(f"HTTP {request.method} {request.url} -> {response.status_code} {response.headers.get('content-type')}")

    # SDK 2.x takes headers through the HTTP client it is given (httpx2).
    # trust_env=False: the server is on loopback, never behind an env proxy.
    http = httpx2.AsyncClient(
        headers=headers,
        timeout=httpx2.Timeout(timeout),
        trust_env=False,
        event_hooks={"response": [log_http_error]},
    )
    async with (
        http,
        streamable_http_client(url, http_client=http) as (read, write),
        ClientSession(read, write, read_timeout_seconds=timeout) as session,
    ):
        init = await session.initialize()
        server = init.server_info
        log(f"server {server.name} {server.version}, protocol {init.protocol_version}")

        listed = await session.list_tools()
        names = [t.name for t in listed.tools]
        check(len(names) == len(set(names)), f"duplicate tool names: {names}")
        check(set(names) == EXPECTED_TOOLS, f"tools are {sorted(names)}, want {sorted(EXPECTED_TOOLS)}")
        for tool in listed.tools:
            for kind, schema in (("inputSchema", tool.input_schema), ("outputSchema", tool.output_schema)):
                check(
                    isinstance(schema, dict) and schema.get("type") == "object",
                    f"{tool.name}: {kind} is not an object schema: {schema!r}",
                )
        log(f"tools {sorted(names)}")

        found = await session.call_tool("search_posts", {"query": query})
        check(not found.is_error, f"search_posts failed: {found.content!r}")
        sc = found.structured_content
        check(isinstance(sc, dict), f"search_posts: structuredContent is not an object: {sc!r}")
        ids = post_ids(sc.get("posts"), "search_posts")
        check(any(c.type == "text" for c in found.content), "search_posts: no text content block")
        log(f"search_posts {query!r}: {len(ids)} posts")

        suggested = await session.call_tool(
            "get_suggestions",
            {
                "postId": "interop-1",
                "text": "How do I set up a deployment pipeline for our repo?",
                "tags": ["devops"],
            },
        )
        check(not suggested.is_error, f"get_suggestions failed: {suggested.content!r}")
        sc = suggested.structured_content
        check(isinstance(sc, dict), f"get_suggestions: structuredContent is not an object: {sc!r}")
        missing = {"m365", "posts", "unavailableSources", "meta"} - sc.keys()
        check(not missing, f"get_suggestions: structuredContent lacks {sorted(missing)}: {sorted(sc)}")
        check(isinstance(sc["meta"], dict), f"get_suggestions: meta is not an object: {sc['meta']!r}")
        suggestion_ids = post_ids(sc["posts"], "get_suggestions")
        log(f"get_suggestions: {len(suggestion_ids)} posts, unavailable {sc['unavailableSources']}")

        return {
            "ok": True,
            "server": server.name,
            "serverVersion": server.version,
            "protocolVersion": init.protocol_version,
            "tools": sorted(names),
            "searchPosts": {"count": len(ids), "ids": ids},
            "getSuggestions": {
                "posts": suggestion_ids,
                "unavailableSources": sc["unavailableSources"],
                "path": sc["meta"].get("path"),
            },
        }


def first_leaf(error: BaseException) -> BaseException:
    """The first real error inside (possibly nested) task-group exception groups."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def main() -> int:
    if len(sys.argv) not in (2, 3):
        print(f"usage: {sys.argv[0]} <mcp_url> [search_posts query]", file=sys.stderr)
        return 2
    url = sys.argv[1]
    query = sys.argv[2] if len(sys.argv) == 3 else DEFAULT_QUERY
    try:
        summary = anyio.run(run, url, query)
    except Exception as error:  # noqa: BLE001 - any failure is the test's failure
        leaf = first_leaf(error)
        if not isinstance(leaf, CheckFailed):  # a failed check says it all; anything else, show where
            traceback.print_exception(leaf, file=sys.stderr)
        print(f"interop: FAILED: {type(leaf).__name__}: {leaf}", file=sys.stderr)
        return 1
    print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
