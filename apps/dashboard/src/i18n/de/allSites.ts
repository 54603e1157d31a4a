import type { Translation } from '../catalogue.ts';
import type en from '../en/allSites.ts';

export default {
  allSitesPeriod: 'Zeitraum',
  backToSites: 'Zurück zu den Websites',
  eachSite: 'Jede Website',
  share: 'Anteil',
  change: 'Veränderung',
  eachSiteOwnDays: 'Jede Website zählt ihre eigenen Tage, in ihrer eigenen Zeitzone.',
  revenuePerSite: 'Umsatz und Ziele stehen im Bericht der jeweiligen Website.',
} satisfies Translation<typeof en>;
