import type { Translation } from '../catalogue.ts';
import type en from '../en/allSites.ts';

export default {
  allSitesPeriod: 'Periodo',
  backToSites: 'Volver a los sitios',
  eachSite: 'Cada sitio',
  share: 'Parte',
  change: 'Cambio',
  eachSiteOwnDays: 'Cada sitio cuenta sus propios días, en su propia zona horaria.',
  revenuePerSite: 'Los ingresos y los objetivos están en el informe de cada sitio.',
} satisfies Translation<typeof en>;
