import type { EmailReportKind, ReportLanguage } from '@footfall/control';

/**
 * The words of an e-mail report, its chart and its unsubscribe page, in each language the
 * dashboard speaks (the person's, as they chose their reports there). Numbers, dates, money and
 * country names are written by Intl in the same language.
 */
export interface MailWords {
  /** the Intl locale of numbers, dates and country names */
  locale: string;
  visitors: string;
  visits: string;
  pageviews: string;
  bounceRate: string;
  visitDuration: string;
  revenue: string;
  topSources: string;
  topPages: string;
  topCountries: string;
  /** the report of all sites: its list of sites */
  sitesTitle: string;
  /** the report of all sites where a domain stands in a sentence ("the weekly report of …") */
  allSites: (n: number) => string;
  /** the same as a title (a subject's or the e-mail's heading) */
  allSitesTitle: (n: number) => string;
  /** a top row without a value: no referrer, no page, no country */
  direct: string;
  noPage: string;
  unknown: string;
  nothing: string;
  noChange: string;
  isNew: string;
  /** percentage points of a rate's change */
  points: string;
  yourReport: (kind: EmailReportKind) => string;
  /** the text part's first line */
  heading: (kind: EmailReportKind, domain: string, when: string) => string;
  changesOn: (kind: EmailReportKind) => string;
  subject: (domain: string, visitors: string, when: string) => string;
  openReport: string;
  stop: (kind: EmailReportKind, domain: string) => string;
  /** where else to stop it, after `stop` */
  stopInFootfall: string;
  sentBy: string;
  chartAlt: (when: string) => string;
  /** the chart card: its kicker, the word under the number, the line under that */
  chartKicker: (kind: EmailReportKind, when: string) => string;
  visitorWord: (n: number) => string;
  chartChange: (kind: EmailReportKind, up: boolean, pct: number) => string;
  perDay: string;
  /** the unsubscribe page */
  unsubscribe: {
    title: string;
    ask: (report: string, email: string) => string;
    button: string;
    done: string;
    stopped: (email: string, report: string) => string;
    again: string;
    notReceiving: (email: string, report: string) => string;
    report: (kind: EmailReportKind, domain: string) => string;
  };
}

const en: MailWords = {
  locale: 'en-GB',
  visitors: 'Visitors',
  visits: 'Visits',
  pageviews: 'Pageviews',
  bounceRate: 'Bounce rate',
  visitDuration: 'Visit duration',
  revenue: 'Revenue',
  topSources: 'Top sources',
  topPages: 'Top pages',
  topCountries: 'Top countries',
  sitesTitle: 'Sites',
  allSites: (n) => (n === 1 ? 'your one site' : `all ${n} sites`),
  allSitesTitle: (n) => (n === 1 ? 'Your one site' : `All ${n} sites`),
  direct: 'Direct / none',
  noPage: '(none)',
  unknown: 'Unknown',
  nothing: 'Nothing in this period.',
  noChange: 'no change',
  isNew: 'new',
  points: 'pts',
  yourReport: (kind) => `Your ${kind} report`,
  heading: (kind, domain, when) => `Your ${kind} report of ${domain}: ${when}`,
  changesOn: (kind) => `Changes on the ${kind === 'weekly' ? 'week' : 'month'} before.`,
  subject: (domain, visitors, when) => `${domain}: ${visitors} visitors, ${when}`,
  openReport: 'Open the report in Footfall',
  stop: (kind, domain) => `Stop these ${kind} reports of ${domain}`,
  stopInFootfall: 'in Footfall, under Account, E-mail reports.',
  sentBy: 'Sent by Footfall.',
  chartAlt: (when) => `Visitors per day, ${when}`,
  chartKicker: (kind, when) => `${kind === 'weekly' ? 'Weekly' : 'Monthly'} report · ${when}`,
  visitorWord: (n) => (n === 1 ? 'visitor' : 'visitors'),
  chartChange: (kind, up, pct) =>
    `${up ? 'up' : 'down'} ${pct}% on the ${kind === 'weekly' ? 'week' : 'month'} before`,
  perDay: 'visitors per day',
  unsubscribe: {
    title: 'Stop an e-mail report',
    ask: (report, email) => `Stop sending ${report} to ${email}?`,
    button: 'Unsubscribe',
    done: 'Unsubscribed',
    stopped: (email, report) => `${email} no longer receives ${report}.`,
    again: 'To receive it again, choose it in Footfall under Account, E-mail reports.',
    notReceiving: (email, report) => `${email} does not receive ${report}.`,
    report: (kind, domain) => `the ${kind} report of ${domain}`,
  },
};

const de: MailWords = {
  locale: 'de-DE',
  visitors: 'Besucher',
  visits: 'Besuche',
  pageviews: 'Seitenaufrufe',
  bounceRate: 'Absprungrate',
  visitDuration: 'Besuchsdauer',
  revenue: 'Umsatz',
  topSources: 'Top-Quellen',
  topPages: 'Top-Seiten',
  topCountries: 'Top-Länder',
  sitesTitle: 'Websites',
  allSites: (n) => (n === 1 ? 'Ihre Website' : `alle ${n} Websites`),
  allSitesTitle: (n) => (n === 1 ? 'Ihre Website' : `Alle ${n} Websites`),
  direct: 'Direkt / keine',
  noPage: '(keine)',
  unknown: 'Unbekannt',
  nothing: 'Nichts in diesem Zeitraum.',
  noChange: 'unverändert',
  isNew: 'neu',
  points: 'Pkt.',
  yourReport: (kind) => `Ihr ${kind === 'weekly' ? 'Wochenbericht' : 'Monatsbericht'}`,
  heading: (kind, domain, when) =>
    `Ihr ${kind === 'weekly' ? 'Wochenbericht' : 'Monatsbericht'} für ${domain}: ${when}`,
  changesOn: (kind) => `Veränderung gegenüber ${kind === 'weekly' ? 'der Vorwoche' : 'dem Vormonat'}.`,
  subject: (domain, visitors, when) => `${domain}: ${visitors} Besucher, ${when}`,
  openReport: 'Bericht in Footfall öffnen',
  stop: (kind, domain) =>
    `${kind === 'weekly' ? 'Wochenberichte' : 'Monatsberichte'} für ${domain} abbestellen`,
  stopInFootfall: 'in Footfall unter Konto, E-Mail-Berichte.',
  sentBy: 'Gesendet von Footfall.',
  chartAlt: (when) => `Besucher pro Tag, ${when}`,
  chartKicker: (kind, when) => `${kind === 'weekly' ? 'Wochenbericht' : 'Monatsbericht'} · ${when}`,
  visitorWord: () => 'Besucher',
  chartChange: (kind, up, pct) =>
    `${up ? '+' : '−'}${pct} % gegenüber ${kind === 'weekly' ? 'der Vorwoche' : 'dem Vormonat'}`,
  perDay: 'Besucher pro Tag',
  unsubscribe: {
    title: 'E-Mail-Bericht abbestellen',
    ask: (report, email) => `${report} nicht mehr an ${email} senden?`,
    button: 'Abbestellen',
    done: 'Abbestellt',
    stopped: (email, report) => `${email} erhält ${report} nicht mehr.`,
    again: 'Um ihn wieder zu erhalten, wählen Sie ihn in Footfall unter Konto, E-Mail-Berichte.',
    notReceiving: (email, report) => `${email} erhält ${report} nicht.`,
    report: (kind, domain) => `den ${kind === 'weekly' ? 'Wochenbericht' : 'Monatsbericht'} für ${domain}`,
  },
};

const fr: MailWords = {
  locale: 'fr-FR',
  visitors: 'Visiteurs',
  visits: 'Visites',
  pageviews: 'Pages vues',
  bounceRate: 'Taux de rebond',
  visitDuration: 'Durée des visites',
  revenue: 'Chiffre d’affaires',
  topSources: 'Principales sources',
  topPages: 'Principales pages',
  topCountries: 'Principaux pays',
  sitesTitle: 'Sites',
  allSites: (n) => (n === 1 ? 'votre site' : `vos ${n} sites`),
  allSitesTitle: (n) => (n === 1 ? 'Votre site' : `Vos ${n} sites`),
  direct: 'Direct / aucune',
  noPage: '(aucune)',
  unknown: 'Inconnu',
  nothing: 'Rien sur cette période.',
  noChange: 'inchangé',
  isNew: 'nouveau',
  points: 'pts',
  yourReport: (kind) => `Votre rapport ${kind === 'weekly' ? 'hebdomadaire' : 'mensuel'}`,
  heading: (kind, domain, when) =>
    `Votre rapport ${kind === 'weekly' ? 'hebdomadaire' : 'mensuel'} de ${domain} : ${when}`,
  changesOn: (kind) =>
    `Évolution par rapport ${kind === 'weekly' ? 'à la semaine précédente' : 'au mois précédent'}.`,
  subject: (domain, visitors, when) => `${domain} : ${visitors} visiteurs, ${when}`,
  openReport: 'Ouvrir le rapport dans Footfall',
  stop: (kind, domain) =>
    `Ne plus recevoir les rapports ${kind === 'weekly' ? 'hebdomadaires' : 'mensuels'} de ${domain}`,
  stopInFootfall: 'dans Footfall, sous Compte, Rapports par e-mail.',
  sentBy: 'Envoyé par Footfall.',
  chartAlt: (when) => `Visiteurs par jour, ${when}`,
  chartKicker: (kind, when) => `Rapport ${kind === 'weekly' ? 'hebdomadaire' : 'mensuel'} · ${when}`,
  visitorWord: (n) => (n <= 1 ? 'visiteur' : 'visiteurs'),
  chartChange: (kind, up, pct) =>
    `${up ? '+' : '−'}${pct} % par rapport ${kind === 'weekly' ? 'à la semaine précédente' : 'au mois précédent'}`,
  perDay: 'visiteurs par jour',
  unsubscribe: {
    title: 'Arrêter un rapport par e-mail',
    ask: (report, email) => `Ne plus envoyer ${report} à ${email} ?`,
    button: 'Se désabonner',
    done: 'Désabonné',
    stopped: (email, report) => `${email} ne reçoit plus ${report}.`,
    again: 'Pour le recevoir à nouveau, choisissez-le dans Footfall sous Compte, Rapports par e-mail.',
    notReceiving: (email, report) => `${email} ne reçoit pas ${report}.`,
    report: (kind, domain) => `le rapport ${kind === 'weekly' ? 'hebdomadaire' : 'mensuel'} de ${domain}`,
  },
};

const es: MailWords = {
  locale: 'es-ES',
  visitors: 'Visitantes',
  visits: 'Visitas',
  pageviews: 'Páginas vistas',
  bounceRate: 'Tasa de rebote',
  visitDuration: 'Duración de la visita',
  revenue: 'Ingresos',
  topSources: 'Principales fuentes',
  topPages: 'Principales páginas',
  topCountries: 'Principales países',
  sitesTitle: 'Sitios',
  allSites: (n) => (n === 1 ? 'tu sitio' : `tus ${n} sitios`),
  allSitesTitle: (n) => (n === 1 ? 'Tu sitio' : `Tus ${n} sitios`),
  direct: 'Directo / ninguna',
  noPage: '(ninguna)',
  unknown: 'Desconocido',
  nothing: 'Nada en este periodo.',
  noChange: 'sin cambios',
  isNew: 'nuevo',
  points: 'pts',
  yourReport: (kind) => `Tu informe ${kind === 'weekly' ? 'semanal' : 'mensual'}`,
  heading: (kind, domain, when) =>
    `Tu informe ${kind === 'weekly' ? 'semanal' : 'mensual'} de ${domain}: ${when}`,
  changesOn: (kind) => `Cambios respecto ${kind === 'weekly' ? 'a la semana anterior' : 'al mes anterior'}.`,
  subject: (domain, visitors, when) => `${domain}: ${visitors} visitantes, ${when}`,
  openReport: 'Abrir el informe en Footfall',
  stop: (kind, domain) =>
    `Dejar de recibir los informes ${kind === 'weekly' ? 'semanales' : 'mensuales'} de ${domain}`,
  stopInFootfall: 'en Footfall, en Cuenta, Informes por correo.',
  sentBy: 'Enviado por Footfall.',
  chartAlt: (when) => `Visitantes por día, ${when}`,
  chartKicker: (kind, when) => `Informe ${kind === 'weekly' ? 'semanal' : 'mensual'} · ${when}`,
  visitorWord: (n) => (n === 1 ? 'visitante' : 'visitantes'),
  chartChange: (kind, up, pct) =>
    `${up ? '+' : '−'}${pct} % respecto ${kind === 'weekly' ? 'a la semana anterior' : 'al mes anterior'}`,
  perDay: 'visitantes por día',
  unsubscribe: {
    title: 'Dejar de recibir un informe por correo',
    ask: (report, email) => `¿Dejar de enviar ${report} a ${email}?`,
    button: 'Darse de baja',
    done: 'Baja confirmada',
    stopped: (email, report) => `${email} ya no recibe ${report}.`,
    again: 'Para volver a recibirlo, elígelo en Footfall en Cuenta, Informes por correo.',
    notReceiving: (email, report) => `${email} no recibe ${report}.`,
    report: (kind, domain) => `el informe ${kind === 'weekly' ? 'semanal' : 'mensual'} de ${domain}`,
  },
};

export const MAIL_WORDS: Record<ReportLanguage, MailWords> = { en, de, fr, es };
