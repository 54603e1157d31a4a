import { bareHost, type Config } from '@footfall/config';
import { ensureSites, isSetupDoneAt, listSites } from '@footfall/control';
import { footfallVersion, publicBaseUrl, setupLink, setupToken } from '@footfall/instance';
import { openConfiguredControl } from './control.ts';

/**
 * What a person needs after a start, printed to the terminal (not the log: the setup link carries a
 * secret): the setup link while no owner exists (each start prints it again), and for each
 * FOOTFALL_SITES site its id and the exact script tag to put on its pages. The sites are created
 * here if the query service has not yet done so.
 */
export async function announceStart(
  config: Config,
  out: NodeJS.WritableStream = process.stdout,
): Promise<void> {
  const { ctl: control, instance } = openConfiguredControl(config);
  try {
    await ensureSites(control, config.sites);
    const wanted = new Set(config.sites);
    const sites = listSites(control).filter((s) => wanted.has(bareHost(s.domain)));
    const base = publicBaseUrl(config);
    const lines: string[] = ['', `  Footfall ${footfallVersion()} is running on ${base}`];
    const token = setupToken(config, instance.paths, isSetupDoneAt(instance.paths.controlDb));
    if (token !== undefined) {
      lines.push(
        '',
        '  Create the first owner account here (the link works until setup is done):',
        '',
        `    ${setupLink(config, token)}`,
      );
    }
    if (sites.length > 0) {
      lines.push('', '  Put the tag of each site on every page of it (FOOTFALL_SITES):');
      for (const site of sites) {
        lines.push('', `    ${site.domain} (site id ${site.id})`);
        lines.push(`      <script defer src="${base}/js/${site.id}.js"></script>`);
      }
    }
    lines.push('', '  First steps, and how to check that visits arrive: docs/getting-started.md', '');
    out.write(`${lines.join('\n')}\n`);
  } finally {
    await control.close();
  }
}
