import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Umami 2.x's two tables as PostgreSQL's `COPY website_event TO ... CSV HEADER` writes them (every
 * column of the schema, times as `2026-09-10 10:00:00.123+00`), for a test that knows every visit:
 * two visitors of one website, three visits, five pageviews and a Signup; and one visitor of
 * another website, which an import of the first leaves alone.
 */
export const UMAMI_WEBSITE = '3f1e2d4c-0000-4000-8000-00000000aaaa';
const OTHER = '3f1e2d4c-0000-4000-8000-00000000bbbb';
const A = '11111111-0000-4000-8000-000000000001';
const B = '11111111-0000-4000-8000-000000000002';
const C = '11111111-0000-4000-8000-000000000003';

const EVENT_HEADER = [
  'event_id',
  'website_id',
  'session_id',
  'visit_id',
  'created_at',
  'url_path',
  'url_query',
  'utm_source',
  'utm_medium',
  'utm_campaign',
  'utm_content',
  'utm_term',
  'referrer_path',
  'referrer_query',
  'referrer_domain',
  'page_title',
  'gclid',
  'fbclid',
  'msclkid',
  'ttclid',
  'li_fat_id',
  'twclid',
  'event_type',
  'event_name',
  'tag',
  'hostname',
];

let n = 0;
const event = (
  website: string,
  session: string,
  at: string,
  path: string,
  o: Record<string, string> = {},
) => {
  n++;
  const row: Record<string, string> = {
    event_id: `22222222-0000-4000-8000-${String(n).padStart(12, '0')}`,
    website_id: website,
    session_id: session,
    visit_id: session,
    created_at: at,
    url_path: path,
    event_type: '1',
    hostname: 'shop.example',
    ...o,
  };
  return EVENT_HEADER.map((c) => row[c] ?? '').join(',');
};

export function umamiExportFiles(): Record<string, string> {
  n = 0;
  const events = [
    event(UMAMI_WEBSITE, A, '2026-09-10 10:00:00.000+00', '/', {
      referrer_domain: 'www.google.com',
      referrer_path: '/',
    }),
    event(UMAMI_WEBSITE, A, '2026-09-10 10:03:00.000+00', '/pricing'),
    event(UMAMI_WEBSITE, A, '2026-09-10 10:07:30.500+00', '/signup'),
    event(UMAMI_WEBSITE, B, '2026-09-11 08:00:00+00', '/blog', {
      url_query: 'utm_source=newsletter&utm_medium=email',
    }),
    event(UMAMI_WEBSITE, B, '2026-09-11 08:01:00+00', '/blog', { event_type: '2', event_name: 'Signup' }),
    event(UMAMI_WEBSITE, B, '2026-09-11 10:30:00+00', '/'),
    event(OTHER, C, '2026-09-10 12:00:00+00', '/elsewhere'),
  ];
  const sessions = [
    'session_id,website_id,browser,os,device,screen,language,country,region,city,distinct_id,created_at',
    `${A},${UMAMI_WEBSITE},chrome,Mac OS,laptop,1440x900,en-US,DE,DE-BE,Berlin,,2026-09-10 10:00:00+00`,
    `${B},${UMAMI_WEBSITE},ios,iOS,mobile,390x844,fr-FR,FR,FR-IDF,Paris,,2026-09-11 08:00:00+00`,
    `${C},${OTHER},firefox,Linux,desktop,1920x1080,en,US,,,,2026-09-10 12:00:00+00`,
  ];
  return {
    'website_event.csv': `${EVENT_HEADER.join(',')}\n${events.join('\n')}\n`,
    'session.csv': `${sessions.join('\n')}\n`,
  };
}

export function writeUmamiExport(dir: string, files: Record<string, string>): string {
  mkdirSync(dir, { recursive: true });
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
  return dir;
}
