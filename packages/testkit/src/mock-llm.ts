/**
 * A local LLM provider for judge tests (docs/judges.md §8): real HTTP on
 * 127.0.0.1 speaking the Anthropic Messages API (POST /v1/messages) and the
 * OpenAI Chat Completions API (POST /v1/chat/completions), with scripted
 * replies: a queue, or a function of the request. A reply can be text (in
 * the provider's response shape, with token counts), an HTTP error (429 with
 * retry-after, 500, 401, ...), a body that is not JSON, or any of these after
 * a delay (to provoke timeouts). Every request is recorded, headers and
 * parsed body included, so tests can assert what the client sent.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

export type MockLlmProvider = "anthropic" | "openai";

export type MockLlmReply =
  | {
      text: string;
      /** Anthropic only: a thinking block before the text, as models with adaptive thinking send. */
      thinking?: string;
      inputTokens?: number;
      outputTokens?: number;
      stopReason?: "end" | "max_tokens";
      delayMs?: number;
    }
  | { status: number; retryAfter?: string; message?: string; delayMs?: number }
  | { rawBody: string; delayMs?: number };

export interface MockLlmRequest {
  provider: MockLlmProvider;
  path: string;
  headers: Record<string, string>;
  /** The parsed JSON body. */
  body: Record<string, unknown>;
  /** System prompt and message texts joined, in order. */
  prompt: string;
  /** ms since the server started: spacing between requests shows waits. */
  receivedAtMs: number;
}

export type MockLlmScript = (request: MockLlmRequest, n: number) => MockLlmReply;

export interface MockLlmServer {
  /** http://127.0.0.1:<port>: the Anthropic base URL. */
  url: string;
  /** `${url}/v1`: the OpenAI-compatible base URL. */
  openAiBaseUrl: string;
  readonly requests: MockLlmRequest[];
  /** Queue replies, answered in order (after the ones queued before). */
  reply(...replies: MockLlmReply[]): void;
  /** Answer every request with a function of it (replaces the queue). */
  respondWith(script: MockLlmScript): void;
  close(): Promise<void>;
}

function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (Array.isArray(content))
    return content.map((c) => (typeof c === "object" && c !== null && "text" in c ? String((c as { text: unknown }).text) : "")).join("");
  return "";
}

function promptOf(provider: MockLlmProvider, body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  const system = provider === "anthropic" ? [textOf(body.system)] : [];
  return [...system, ...messages.map((m) => textOf(m.content))].filter((t) => t !== "").join("\n");
}

const tokensOf = (text: string) => Math.ceil(text.length / 4);

function successBody(provider: MockLlmProvider, reply: Extract<MockLlmReply, { text: string }>, request: MockLlmRequest, n: number): unknown {
  const inputTokens = reply.inputTokens ?? tokensOf(request.prompt);
  const outputTokens = reply.outputTokens ?? tokensOf(reply.text);
  const cut = reply.stopReason === "max_tokens";
  if (provider === "anthropic") {
    return {
      id: `msg_mock_${n}`,
      type: "message",
      role: "assistant",
      model: request.body.model,
      content: [
        ...(reply.thinking === undefined ? [] : [{ type: "thinking", thinking: reply.thinking, signature: "mock" }]),
        { type: "text", text: reply.text },
      ],
      stop_reason: cut ? "max_tokens" : "end_turn",
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: outputTokens },
    };
  }
  return {
    id: `chatcmpl-mock-${n}`,
    object: "chat.completion",
    created: 0,
    model: request.body.model,
    choices: [{ index: 0, message: { role: "assistant", content: reply.text }, finish_reason: cut ? "length" : "stop" }],
    usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens, total_tokens: inputTokens + outputTokens },
  };
}

function errorBody(provider: MockLlmProvider, status: number, message: string): unknown {
  const type =
    status === 429
      ? "rate_limit_error"
      : status === 401
        ? "authentication_error"
        : status === 404
          ? "not_found_error"
          : status >= 500
            ? "api_error"
            : "invalid_request_error";
  return provider === "anthropic" ? { type: "error", error: { type, message } } : { error: { message, type, code: null } };
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req
      .on("data", (c: Buffer) => chunks.push(c))
      .on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
      .on("error", reject);
  });
}

export async function startMockLlmServer(script?: MockLlmReply[] | MockLlmScript): Promise<MockLlmServer> {
  const startedAt = performance.now();
  const requests: MockLlmRequest[] = [];
  const queue: MockLlmReply[] = Array.isArray(script) ? [...script] : [];
  let respond: MockLlmScript | null = typeof script === "function" ? script : null;
  const sockets = new Set<Socket>();

  const send = (res: ServerResponse, status: number, body: string, headers: Record<string, string> = {}) => {
    if (res.destroyed) return; // the client gave up (a timeout test)
    res.writeHead(status, { "content-type": "application/json", ...headers }).end(body);
  };

  const server = createServer((req, res) => {
    void (async () => {
      const path = (req.url ?? "").split("?")[0]!;
      const provider: MockLlmProvider | null = path === "/v1/messages" ? "anthropic" : path === "/v1/chat/completions" ? "openai" : null;
      if (req.method !== "POST" || provider === null) return send(res, 404, JSON.stringify({ error: { message: `mock: no route ${req.method} ${path}` } }));
      let body: Record<string, unknown>;
      try {
        body = JSON.parse(await readBody(req)) as Record<string, unknown>;
      } catch {
        return send(res, 400, JSON.stringify(errorBody(provider, 400, "mock: the request body is not JSON")));
      }
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === "string") headers[k] = v;
      const request: MockLlmRequest = { provider, path, headers, body, prompt: promptOf(provider, body), receivedAtMs: performance.now() - startedAt };
      requests.push(request);
      const n = requests.length;
      const reply = respond ? respond(request, n) : queue.shift();
      // Nothing scripted: a 4xx the clients do not retry, so the test fails on it at once.
      if (reply === undefined) return send(res, 418, JSON.stringify(errorBody(provider, 418, `mock: no scripted reply for request ${n}`)));
      if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
      if ("rawBody" in reply) return send(res, 200, reply.rawBody);
      if ("status" in reply) {
        return send(
          res,
          reply.status,
          JSON.stringify(errorBody(provider, reply.status, reply.message ?? `mock error ${reply.status}`)),
          reply.retryAfter ? { "retry-after": reply.retryAfter } : {},
        );
      }
      send(res, 200, JSON.stringify(successBody(provider, reply, request, n)));
    })().catch(() => res.destroy());
  });
  server.on("connection", (s) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("mock LLM server: no port");
  const url = `http://127.0.0.1:${address.port}`;
  return {
    url,
    openAiBaseUrl: `${url}/v1`,
    requests,
    reply: (...replies) => {
      respond = null;
      queue.push(...replies);
    },
    respondWith: (fn) => {
      respond = fn;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
