import { languageNames, regionNames } from '../i18n/format.ts';
import { language, locale } from '../i18n/language.ts';
import { t } from '../i18n/report.ts';

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
  | 'events'
  | 'hostname';

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
const utm = (dim: BreakdownDim, label: string, column: string): Tab => ({
  ...tab(dim, label, column),
  group: 'UTM',
});

export const PANELS: readonly Panel[] = [
  {
    id: 'sources',
    title: t('sources'),
    tabs: [
      tab('channel', t('channels'), t('channel')),
      tab('referrer', t('referrers'), t('referrer')),
      utm('campaign', t('campaigns'), t('utmCampaign')),
      utm('source', t('utmSources'), t('utmSource')),
      utm('medium', t('mediums'), t('utmMedium')),
      utm('term', t('terms'), t('utmTerm')),
      utm('content', t('contents'), t('utmContent')),
    ],
  },
  {
    id: 'pages',
    title: t('pages'),
    tabs: [
      tab('pages', t('topPages'), t('page'), 'page'),
      tab('entry_page', t('entryPages'), t('entryPage')),
      tab('exit_page', t('exitPages'), t('exitPage')),
      tab('hostname', t('hostnames'), t('hostname')),
    ],
  },
  {
    id: 'locations',
    title: t('locations'),
    tabs: [
      tab('country', t('countries'), t('country')),
      tab('region', t('regions'), t('region')),
      tab('city', t('cities'), t('city')),
    ],
  },
  {
    id: 'devices',
    title: t('devices'),
    tabs: [
      tab('device', t('devices'), t('device')),
      tab('browser', t('browsers'), t('browser')),
      tab('os', t('operatingSystems'), t('os')),
      tab('language', t('languages'), t('language')),
    ],
  },
  { id: 'events', title: t('customEvents'), tabs: [tab('events', t('events'), t('event'), 'event')] },
];

/** The panels of the modules that are on (every module is on until the API says otherwise). */
export function visiblePanels(modulesOff: ReadonlySet<string> = new Set()): Panel[] {
  return PANELS.filter((p) => !p.module || !modulesOff.has(p.module));
}

/** The tab that shows a breakdown, for the full view opened from the URL (`panel=referrer`). */
export function tabOf(dim: string | undefined): Tab | undefined {
  for (const panel of PANELS) for (const one of panel.tabs) if (one.dim === dim) return one;
  return undefined;
}

/** The name a filter's dimension is shown with in its chip. */
export function filterLabel(dimension: string): string {
  if (dimension === 'goal') return t('goal');
  if (dimension === 'prop') return t('property');
  for (const panel of PANELS) for (const one of panel.tabs) if (one.filter === dimension) return one.column;
  return dimension;
}

/**
 * A tab's or column's name inside a sentence ("All referrers"): in lower case as English always
 * wrote it; French and Spanish lower only a first capital (abbreviations stay); German nouns keep it.
 */
export function inSentence(name: string): string {
  if (language === 'en') return name.toLowerCase();
  if (language === 'de' || !/^\p{Lu}\p{Ll}/u.test(name)) return name;
  return name.charAt(0).toLocaleLowerCase(locale) + name.slice(1);
}

/** Devices by the API's value. */
const DEVICES = new Map([
  ['desktop', t('desktop')],
  ['mobile', t('mobile')],
  ['tablet', t('tablet')],
]);

/** The channels by their API value (docs/api.md), as people of the page's language name them. */
const CHANNELS: Record<string, string> = {
  Direct: t('channelDirect'),
  'Organic Search': t('channelOrganicSearch'),
  'Paid Search': t('channelPaidSearch'),
  'Organic Social': t('channelOrganicSocial'),
  'Paid Social': t('channelPaidSocial'),
  Email: t('channelEmail'),
  Referral: t('channelReferral'),
  'AI Assistant': t('channelAiAssistant'),
};

/** A value as people read it: countries and languages by name, a missing value said plainly. */
export function displayValue(dimension: string, value: string | null): string {
  if (value === null || value === '') {
    if (dimension === 'referrer') return t('directNone');
    return ['country', 'region', 'city'].includes(dimension) ? t('unknown') : t('none');
  }
  try {
    if (dimension === 'country') return regionNames?.of(value) ?? value;
    if (dimension === 'language') return languageNames?.of(value) ?? value;
    if (dimension === 'channel') return Object.hasOwn(CHANNELS, value) ? CHANNELS[value]! : value;
    if (dimension === 'device') return DEVICES.get(value) ?? value.charAt(0).toUpperCase() + value.slice(1);
  } catch {
    return value;
  }
  return value;
}
