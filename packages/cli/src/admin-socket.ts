import { request } from 'node:http';

/**
 * Asks the running query service over data/run/admin.sock (`POST path`, a JSON body when given);
 * undefined when none answers there (Footfall is stopped: the command does the work itself).
 */
export function askAdminSocket(
  socketPath: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; body: Record<string, unknown> } | undefined> {
  return new Promise((done, fail) => {
    const headers = body === undefined ? {} : { 'content-type': 'application/json' };
    const req = request({ socketPath, method: 'POST', path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          done({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
        } catch (error) {
          fail(error);
        }
      });
    });
    req.on('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ENOENT' || error.code === 'ECONNREFUSED' ? done(undefined) : fail(error),
    );
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}
