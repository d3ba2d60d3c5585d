import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { remedyFor } from './remedies';
import type { ServiceRefusal } from './service-refusal';

// How a tool answers the assistant. Success: one text block, a sentence and
// the JSON the tool summarised; or, for a tool whose answer is data to work
// with (query), that data as structured content beside a short text
// rendering of it. Failure: `isError: true` and one text block whose first
// line says what went wrong and what to do in words (the service's remedy,
// else the tool's own words for the code, else this server's: remedies.ts),
// followed by the service's envelope as JSON (code, message, remedy and the
// extras that help, such as `available[]` or `suggestion`), so an assistant
// can read the code exactly.

export function ok(sentence: string, data: unknown): CallToolResult {
  return { content: [{ type: 'text', text: `${sentence}\n${JSON.stringify(data, null, 2)}` }] };
}

/** Data as structured content (matching the tool's output schema) with `text`, its rendering for a reader that shows only text. */
export function structured(text: string, data: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: data };
}

export function failed(r: ServiceRefusal, toolWords?: Record<string, string>): CallToolResult {
  const { code, message, remedy: own, request_id: requestId, ...extras } = r.envelope;
  const remedy = remedyFor(code, own, toolWords);
  const what = remedy ? ` What to do: ${remedy}` : '';
  const error = { code, status: r.status, message, ...(remedy ? { remedy } : {}), ...extras, ...(requestId ? { request_id: requestId } : {}) };
  return { content: [{ type: 'text', text: `Refused (${code}): ${message}.${what}\n${JSON.stringify({ error }, null, 2)}` }], isError: true };
}
