// Just enough RFC 5322 / MIME reading to assert on what an SMTP server received: unfolded
// headers, RFC 2047 encoded words, and multipart bodies in quoted-printable or base64.

export interface MimePart {
  contentType: string;
  body: string;
}

export interface RawMessage {
  /** Top-level header lines as sent, unfolded, in order. */
  headerLines: string[];
  /** Values of a top-level header, encoded words decoded. */
  header(name: string): string[];
  /** Leaf parts, bodies decoded to text. */
  parts: MimePart[];
}

export function readMessage(raw: string): RawMessage {
  const { lines, body } = splitEntity(raw);
  const header = (name: string): string[] => values(lines, name).map(decodeWords);
  return { headerLines: lines, header, parts: leafParts(lines, body) };
}

function splitEntity(raw: string): { lines: string[]; body: string } {
  const end = raw.indexOf('\r\n\r\n');
  const head = end < 0 ? raw : raw.slice(0, end);
  const lines = head.replace(/\r\n(?=[ \t])/g, '').split('\r\n');
  return { lines, body: end < 0 ? '' : raw.slice(end + 4) };
}

function values(lines: string[], name: string): string[] {
  const prefix = `${name.toLowerCase()}:`;
  return lines.filter((l) => l.toLowerCase().startsWith(prefix)).map((l) => l.slice(prefix.length).trim());
}

function leafParts(lines: string[], body: string): MimePart[] {
  const contentType = values(lines, 'content-type')[0] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
  if (contentType.toLowerCase().startsWith('multipart/') && boundary) {
    const chunks = body.split(`--${boundary}`).slice(1, -1);
    return chunks.flatMap((chunk) => {
      const part = splitEntity(chunk.replace(/^\r\n/, ''));
      return leafParts(part.lines, part.body);
    });
  }
  const encoding = (values(lines, 'content-transfer-encoding')[0] ?? '7bit').toLowerCase();
  return [{ contentType: contentType.split(';')[0]!.trim().toLowerCase(), body: decodeBody(body, encoding) }];
}

function decodeBody(body: string, encoding: string): string {
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body.replace(/=\r\n/g, ''));
  return body;
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < text.length; i++) {
    const hex = text.slice(i + 1, i + 3);
    if (text[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(text[i]!, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

/** RFC 2047: "=?UTF-8?Q?...?=" and "=?UTF-8?B?...?=", whitespace between adjacent words dropped. */
function decodeWords(value: string): string {
  return value
    .replace(/(\?=)\s+(=\?)/g, '$1$2')
    .replace(/=\?([^?]+)\?([QB])\?([^?]*)\?=/gi, (_m, _charset: string, kind: string, text: string) =>
      kind.toUpperCase() === 'B'
        ? Buffer.from(text, 'base64').toString('utf8')
        : decodeQuotedPrintable(text.replace(/_/g, ' ')),
    );
}
