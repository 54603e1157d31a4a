/**
 * How the MCP tools read Footfall: `GET` on `/api/v1` with the caller's own credential, so every
 * answer, and every refusal, is exactly the API's. In the query service the calls go to its own app
 * in process; `footfall mcp` sends them over HTTP to a running Footfall.
 */
export type ApiGet = (path: string, query?: URLSearchParams) => Promise<unknown>;

/** A refusal of the API, with its status and the message it gave. */
export class FootfallApiError extends Error {
  readonly status: number;
  readonly code: string;
  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = 'FootfallApiError';
    this.status = status;
    this.code = code;
  }
}

/** An image the API answered (a card), base64 as MCP's image content carries it. */
export interface ApiImage {
  mimeType: string;
  data: string;
}

/**
 * Reads an answer of the API: its JSON (an image as an ApiImage), or a FootfallApiError with the
 * API's code and message.
 */
export async function readAnswer(res: Response): Promise<unknown> {
  const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (res.ok && type.startsWith('image/')) {
    return {
      mimeType: type,
      data: Buffer.from(await res.arrayBuffer()).toString('base64'),
    } satisfies ApiImage;
  }
  const text = await res.text();
  let body: unknown;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    body = null;
  }
  if (res.ok) return body;
  const error = (body ?? {}) as { code?: unknown; message?: unknown };
  throw new FootfallApiError(
    res.status,
    typeof error.code === 'string' ? error.code : `http_${res.status}`,
    typeof error.message === 'string' ? error.message : `Footfall answered ${res.status}`,
  );
}

/** An ApiGet over HTTP: a running Footfall at `base`, with a bearer API key. */
export function httpApi(base: string, key: string, timeoutMs = 60_000): ApiGet {
  const root = base.replace(/\/+$/, '');
  return async (path, query) => {
    const url = `${root}${path}${query && [...query].length > 0 ? `?${query}` : ''}`;
    let res: Response;
    try {
      res = await fetch(url, {
        headers: { authorization: `Bearer ${key}`, accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      throw new FootfallApiError(
        502,
        'unreachable',
        `Footfall at ${root} could not be reached (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    return readAnswer(res);
  };
}
