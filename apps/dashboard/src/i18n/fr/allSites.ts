import type { Translation } from '../catalogue.ts';
import type en from '../en/allSites.ts';

export default {
  allSitesPeriod: 'Période',
  backToSites: 'Retour aux sites',
  eachSite: 'Chaque site',
  share: 'Part',
  change: 'Évolution',
  eachSiteOwnDays: 'Chaque site compte ses propres jours, dans son propre fuseau horaire.',
  revenuePerSite: 'Le chiffre d’affaires et les objectifs figurent dans le rapport de chaque site.',
} satisfies Translation<typeof en>;
