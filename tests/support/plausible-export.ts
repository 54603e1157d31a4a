import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { zipSync } from 'fflate';

/**
 * A Plausible CSV export as Plausible CE 3.0 writes it (the columns its own CSV importer reads),
 * made from a few numbers per day so a test knows every total. Each day: `visitors` visitors in
 * `visits` visits, 3 pageviews a visit, a third of visits bounced, 60 s a visit; sources Google
 * (2/3 of visits) and Direct; pages / and /pricing; country DE; device Desktop; browser Chrome; OS
 * Mac; a Signup event.
 */
export interface ExportDay {
  date: string;
  visitors: number;
  visits: number;
}

const csv = (header: string[], rows: (string | number)[][]) =>
  `${[header, ...rows].map((r) => r.join(',')).join('\n')}\n`;

export function plausibleExportFiles(days: readonly ExportDay[]): Record<string, string> {
  const range = `${days[0]!.date.replaceAll('-', '')}_${days.at(-1)!.date.replaceAll('-', '')}`;
  const visit = (d: ExportDay) => [
    d.visitors,
    d.visits,
    d.visits * 60,
    Math.floor(d.visits / 3),
    d.visits * 3,
  ];
  const google = (d: ExportDay) => Math.round((d.visits * 2) / 3);
  return {
    [`imported_visitors_${range}.csv`]: csv(
      ['date', 'visitors', 'pageviews', 'bounces', 'visits', 'visit_duration'],
      days.map((d) => [d.date, d.visitors, d.visits * 3, Math.floor(d.visits / 3), d.visits, d.visits * 60]),
    ),
    [`imported_sources_${range}.csv`]: csv(
      [
        'date',
        'source',
        'referrer',
        'utm_source',
        'utm_medium',
        'utm_campaign',
        'utm_content',
        'utm_term',
        'pageviews',
        'visitors',
        'visits',
        'visit_duration',
        'bounces',
      ],
      days.flatMap((d) => [
        [
          d.date,
          'Google',
          'www.google.com',
          '',
          '',
          '',
          '',
          '',
          google(d) * 3,
          google(d),
          google(d),
          google(d) * 60,
          0,
        ],
        [
          d.date,
          'Direct / None',
          '',
          '',
          '',
          '',
          '',
          '',
          (d.visits - google(d)) * 3,
          d.visitors - google(d),
          d.visits - google(d),
          (d.visits - google(d)) * 60,
          0,
        ],
      ]),
    ),
    [`imported_pages_${range}.csv`]: csv(
      ['date', 'hostname', 'page', 'visits', 'visitors', 'pageviews', 'scroll_depth', 'pageleave_visitors'],
      days.flatMap((d) => [
        [d.date, 'example.com', '/', d.visits, d.visitors, d.visits * 2, '', 0],
        [d.date, 'example.com', '/pricing', d.visits, d.visitors, d.visits, 40, d.visitors],
      ]),
    ),
    [`imported_entry_pages_${range}.csv`]: csv(
      ['date', 'entry_page', 'visitors', 'entrances', 'visit_duration', 'bounces', 'pageviews'],
      days.map((d) => [
        d.date,
        '/',
        d.visitors,
        d.visits,
        d.visits * 60,
        Math.floor(d.visits / 3),
        d.visits * 3,
      ]),
    ),
    [`imported_exit_pages_${range}.csv`]: csv(
      ['date', 'exit_page', 'visitors', 'visit_duration', 'exits', 'bounces', 'pageviews'],
      days.map((d) => [
        d.date,
        '/pricing',
        d.visitors,
        d.visits * 60,
        d.visits,
        Math.floor(d.visits / 3),
        d.visits * 3,
      ]),
    ),
    [`imported_locations_${range}.csv`]: csv(
      ['date', 'country', 'region', 'city', 'visitors', 'visits', 'visit_duration', 'bounces', 'pageviews'],
      days.map((d) => [d.date, 'DE', 'DE-BE', 2950159, ...visit(d)]),
    ),
    [`imported_devices_${range}.csv`]: csv(
      ['date', 'device', 'visitors', 'visits', 'visit_duration', 'bounces', 'pageviews'],
      days.map((d) => [d.date, 'Desktop', ...visit(d)]),
    ),
    [`imported_browsers_${range}.csv`]: csv(
      ['date', 'browser', 'browser_version', 'visitors', 'visits', 'visit_duration', 'bounces', 'pageviews'],
      days.map((d) => [d.date, 'Chrome', '120', ...visit(d)]),
    ),
    [`imported_operating_systems_${range}.csv`]: csv(
      [
        'date',
        'operating_system',
        'operating_system_version',
        'visitors',
        'visits',
        'visit_duration',
        'bounces',
        'pageviews',
      ],
      days.map((d) => [d.date, 'Mac', '14', ...visit(d)]),
    ),
    [`imported_custom_events_${range}.csv`]: csv(
      ['date', 'name', 'link_url', 'path', 'visitors', 'events'],
      days.map((d) => [d.date, 'Signup', '', '', 1, 2]),
    ),
  };
}

/** The export as Plausible downloads it: one zip. */
export function plausibleExportZip(files: Record<string, string>): Uint8Array {
  return zipSync(Object.fromEntries(Object.entries(files).map(([n, t]) => [n, new TextEncoder().encode(t)])));
}

/** The export unpacked into a folder. */
export function writePlausibleExport(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
