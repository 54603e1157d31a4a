import { request } from 'node:http';
import type { Config } from '@footfall/config';
import { LIVENESS_PATH } from '@footfall/http';
import { dataPaths } from '@footfall/instance';

/**
 * `footfall live ingest|query`: exit 0 when that service answers `GET /livez` on this machine
 * within 3 seconds, 1 otherwise. The images' HEALTHCHECK runs it: the image needs no curl. The
 * gateway is asked on FOOTFALL_ADDR (loopback when it listens on every interface), the query
 * service on its socket in the data directory.
 */
export async function checkLive(service: string | undefined, config: Config): Promise<number> {
  if (service !== 'ingest' && service !== 'query') {
    console.error('usage: footfall live ingest|query');
    return 2;
  }
  const ok = await answers(service, config);
  if (!ok) console.error(`footfall: the ${service} service does not answer ${LIVENESS_PATH}`);
  return ok ? 0 : 1;
}

/** Whether a service of this data directory answers `GET /livez` within 3 seconds. */
export function answers(service: 'ingest' | 'query', config: Config): Promise<boolean> {
  const { host, port } = config.addr;
  const target =
    service === 'query'
      ? { socketPath: dataPaths(config.dataDir).querySocket }
      : { host: host === undefined || host === '0.0.0.0' ? '127.0.0.1' : host === '::' ? '::1' : host, port };
  return new Promise<boolean>((resolve) => {
    const req = request({ ...target, path: LIVENESS_PATH, timeout: 3000 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
