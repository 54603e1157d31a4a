/** A breakdown the API answers (docs/openapi.yaml, `GET …/report/breakdown?dim=`). */
export type BreakdownDim =
  | 'channel'
  | 'referrer'
  | 'entry_page'
  | 'exit_page'
  | 'campaign'
  | 'source'
  | 'medium'
  | 'term'
  | 'content'
  | 'country'
  | 'region'
  | 'city'
  | 'device'
  | 'browser'
  | 'os'
  | 'language'
  | 'pages'
  | 'events';

export interface Tab {
  dim: BreakdownDim;
  /** the tab's name, and the heading of its first column */
  label: string;
  column: string;
  /** the report filter a row adds (`page` for pages, `event` for events) */
  filter: string;
  /** tabs of one group show as one menu (the UTM parameters), so a panel's tabs fit one line */
  group?: string;
}

/**
 * A panel of the report: tabs over breakdowns. A later module (revenue, goals, crawlers) adds its
 * panel here with its `module` name; a module that is off leaves its panel, and so every way into
 * it, out (`visiblePanels`).
 */
export interface Panel {
  id: string;
  title: string;
  tabs: Tab[];
  module?: string;
}

const tab = (dim: BreakdownDim, label: string, column = label, filter: string = dim): Tab => ({
  dim,
  label,
  column,
  filter,
});
const utm = (dim: BreakdownDim, label: string): Tab => ({ ...tab(dim, label, `UTM ${dim}`), group: 'UTM' });

export const PANELS: readonly Panel[] = [
  {
    id: 'sources',
    title: 'Sources',
    tabs: [
      tab('channel', 'Channels', 'Channel'),
      tab('referrer', 'Referrers', 'Referrer'),
      utm('campaign', 'Campaigns'),
      utm('source', 'Sources'),
      utm('medium', 'Mediums'),
      utm('term', 'Terms'),
      utm('content', 'Contents'),
    ],
  },
  {
    id: 'pages',
    title: 'Pages',
    tabs: [
      tab('pages', 'Top pages', 'Page', 'page'),
      tab('entry_page', 'Entry pages', 'Entry page'),
      tab('exit_page', 'Exit pages', 'Exit page'),
    ],
  },
  {
    id: 'locations',
    title: 'Locations',
    tabs: [
      tab('country', 'Countries', 'Country'),
      tab('region', 'Regions', 'Region'),
      tab('city', 'Cities', 'City'),
    ],
  },
  {
    id: 'devices',
    title: 'Devices',
    tabs: [
      tab('device', 'Devices', 'Device'),
      tab('browser', 'Browsers', 'Browser'),
      tab('os', 'Operating systems', 'OS'),
      tab('language', 'Languages', 'Language'),
    ],
  },
  { id: 'events', title: 'Custom events', tabs: [tab('events', 'Events', 'Event', 'event')] },
];

/** The panels of the modules that are on (every module is on until the API says otherwise). */
export function visiblePanels(modulesOff: ReadonlySet<string> = new Set()): Panel[] {
  return PANELS.filter((p) => !p.module || !modulesOff.has(p.module));
}

/** The tab that shows a breakdown, for the full view opened from the URL (`panel=referrer`). */
export function tabOf(dim: string | undefined): Tab | undefined {
  for (const panel of PANELS) for (const t of panel.tabs) if (t.dim === dim) return t;
  return undefined;
}

/** The name a filter's dimension is shown with in its chip. */
export function filterLabel(dimension: string): string {
  if (dimension === 'goal') return 'Goal';
  if (dimension === 'prop') return 'Property';
  for (const panel of PANELS) for (const t of panel.tabs) if (t.filter === dimension) return t.column;
  return dimension;
}

const regions =
  typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : null;
const languages =
  typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'language' }) : null;

/** A value as people read it: countries and languages by name, a missing value said plainly. */
export function displayValue(dimension: string, value: string | null): string {
  if (value === null || value === '') {
    if (dimension === 'referrer') return 'Direct / none';
    return ['country', 'region', 'city'].includes(dimension) ? 'Unknown' : '(none)';
  }
  try {
    if (dimension === 'country') return regions?.of(value) ?? value;
    if (dimension === 'language') return languages?.of(value) ?? value;
    if (dimension === 'device') return value.charAt(0).toUpperCase() + value.slice(1);
  } catch {
    return value;
  }
  return value;
}
