// A reader of the WHATWG event-stream format over a fetch() body, for the live view (issue 18):
// fetch sends the Authorization header, which the browser's EventSource cannot, so no token has
// to travel in a URL. Runs in browsers and in Node alike.

export interface ServerSentEvent {
  event: string;
  data: string;
  id: string | null;
}

export interface StreamFields {
  /** A `retry:` field: how long to wait before reconnecting, in ms. */
  onRetry?: (ms: number) => void;
}

/** The events of a stream as they arrive; comments (heartbeats) are skipped. Ends with the stream. */
export async function* readEventStream(
  body: ReadableStream<Uint8Array>,
  fields: StreamFields = {},
): AsyncGenerator<ServerSentEvent> {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let pending: { event: string; data: string[]; id: string | null } = { event: '', data: [], id: null };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      // A chunk ending in CR may be half of a CRLF: that CR waits for the next chunk.
      const cut = buffer.endsWith('\r') ? buffer.length - 1 : buffer.length;
      const lines = buffer.slice(0, cut).split(/\r\n|\r|\n/);
      // The last piece may be half a line: keep it for the next chunk.
      buffer = (lines.pop() ?? '') + buffer.slice(cut);
      for (const line of lines) {
        if (line === '') {
          if (pending.data.length > 0)
            yield { event: pending.event || 'message', data: pending.data.join('\n'), id: pending.id };
          pending = { event: '', data: [], id: null };
          continue;
        }
        applyField(line, pending, fields);
      }
    }
  } finally {
    reader.releaseLock();
    await body.cancel().catch(() => {});
  }
}

function applyField(
  line: string,
  pending: { event: string; data: string[]; id: string | null },
  fields: StreamFields,
): void {
  if (line.startsWith(':')) return;
  const colon = line.indexOf(':');
  const name = colon < 0 ? line : line.slice(0, colon);
  const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
  if (name === 'event') pending.event = value;
  else if (name === 'data') pending.data.push(value);
  else if (name === 'id') pending.id = value;
  else if (name === 'retry' && /^\d+$/.test(value)) fields.onRetry?.(Number(value));
}
