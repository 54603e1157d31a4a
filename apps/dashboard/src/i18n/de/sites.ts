import type { Translation } from '../catalogue.ts';
import type en from '../en/sites.ts';

export default {
  sites: 'Websites',
  arrange: 'Anordnen',
  addSite: 'Website hinzufügen',
  noSiteShared:
    'Es ist noch keine Website für Sie freigegeben. Bitten Sie einen Inhaber dieser Footfall-Instanz, eine freizugeben.',
  waitingFirstVisit: 'Warten auf den ersten Besuch',
  trackingStopped: {
    one: 'Erfassung gestoppt: seit {count} Tag kein Besuch',
    other: 'Erfassung gestoppt: seit {count} Tagen kein Besuch',
  },
  noVisitFor: { one: 'Seit {count} Tag kein Besuch', other: 'Seit {count} Tagen kein Besuch' },
  visitorsIn30Days: { one: 'Besucher in 30 Tagen', other: 'Besucher in 30 Tagen' },
  pinned: 'Angeheftet',
  otherSites: 'Weitere Websites',
  cookieless: 'Ohne Cookies',
  cookielessTitle:
    'Ohne Cookies gezählt: Ein täglicher Hash erkennt Besucher, daher wird am nächsten Tag niemand wiedererkannt',
  arrangeSites: 'Websites anordnen',
  arrangeIntro:
    'Alle, die sich anmelden, sehen diese Reihenfolge. Angeheftete Websites stehen zuerst, dann jede Gruppe.',
  site: 'Website',
  group: 'Gruppe',
  move: 'Verschieben',
  pinSite: '{domain} anheften',
  groupOf: 'Gruppe von {domain}',
  noGroup: 'Keine Gruppe',
  moveUp: '{domain} nach oben verschieben',
  moveDown: '{domain} nach unten verschieben',
  groups: 'Gruppen',
  removeGroup: 'Gruppe {name} entfernen',
  newGroupName: 'Name der neuen Gruppe',
  addGroup: 'Gruppe hinzufügen',
  save: 'Speichern',
  cancel: 'Abbrechen',
  domain: 'Domain',
  domainHint: 'Die Adresse der Website; eine eingefügte URL geht auch. www. ist optional.',
  timeZone: 'Zeitzone',
  timeZoneHint: 'Tage und Stunden in Berichten richten sich danach.',
  currency: 'Währung',
  currencyHint: 'Der Umsatz wird darin angezeigt.',
  cookielessHint:
    '– kein Cookie: Ein täglicher Hash zählt Besucher, daher ist ein Besucher jeden Tag wieder neu.',
  recordCities: 'Städte erfassen',
  recordCitiesHint: '– aus: nur Länder und Regionen.',
  keepVisitsFor: 'Besuche aufbewahren für',
  retentionKeepsAll:
    'Ältere Besuche und ihre Ereignisse werden jede Nacht gelöscht (30 bis 36.500 Tage); Zahlungen bleiben erhalten. Leer lassen, um alle Besuche zu behalten.',
  retentionFollows: {
    one: 'Ältere Besuche und ihre Ereignisse werden jede Nacht gelöscht (30 bis 36.500 Tage); Zahlungen bleiben erhalten. Ohne Angabe gilt die Vorgabe dieses Servers: {count} Tag.',
    other:
      'Ältere Besuche und ihre Ereignisse werden jede Nacht gelöscht (30 bis 36.500 Tage); Zahlungen bleiben erhalten. Ohne Angabe gilt die Vorgabe dieses Servers: {count} Tage.',
  },
  days: 'Tage',
  umamiWebsiteId: 'Umami-Website-ID',
  umamiHint:
    'Sie wechseln von Umami? Geben Sie die Website-ID ein, die Umami für diese Website anzeigt, und richten Sie das Skript auf diesen Server: Die Besuche werden hier gezählt, bis Sie das Tag ändern.',
  icon: 'Symbol',
  iconHint: 'Die Adresse eines Bildes (https) oder leer für einen Buchstaben.',
  colour: 'Farbe',
  noColour: 'Keine Farbe',
  proxyKey: 'Proxy-Schlüssel: ',
  hidden: 'verborgen',
  hideKey: 'Schlüssel verbergen',
  showKey: 'Schlüssel anzeigen',
  copyKey: 'Schlüssel kopieren',
  rotate: 'Erneuern…',
  rotateWarning: 'Server mit dem aktuellen Schlüssel werden abgewiesen, bis sie den neuen erhalten.',
  rotateKey: 'Schlüssel erneuern',
  keepIt: 'Behalten',
  ignoreIntro:
    'Öffnen Sie diesen Link einmal in jedem Browser, den Sie für Ihre Website verwenden: Dieser Browser sendet dann auf keiner Seite mehr etwas an Footfall, bis Sie {link} öffnen.',
  ignoreUnmarkLink: 'dieselbe Adresse mit =0',
  openInBrowser: 'In diesem Browser öffnen',
  copyLink: 'Link kopieren',
} satisfies Translation<typeof en>;
