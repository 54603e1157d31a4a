import type { Translation } from '../catalogue.ts';
import type en from '../en/connections.ts';

export default {
  save: 'Speichern',
  cancel: 'Abbrechen',
  connect: 'Verbinden',
  disconnectAsk: 'Trennen…',
  never: 'nie',
  anythingElse: 'Etwas anderes',
  anythingElseOption: 'Etwas anderes (eigener Webhook)',
  pasteStripe:
    'Fügen Sie einen eingeschränkten Schlüssel (rk_live_… oder rk_test_…) mit Lesezugriff und der Berechtigung ein, Webhook-Endpunkte zu schreiben (die Stripe-Seite der Dokumentation zeigt, wie Sie ihn erstellen).',
  pastePaddle:
    'Fügen Sie einen API-Schlüssel (pdl_live_apikey_… oder pdl_sdbx_apikey_…) ein, der Transaktionen und Anpassungen liest und Benachrichtigungseinstellungen schreibt (die Paddle-Seite der Dokumentation zeigt, wie Sie ihn erstellen).',
  pasteLemonSqueezy:
    'Fügen Sie einen im Live- oder Testmodus erstellten API-Schlüssel (Settings → API) ein (die Lemon-Squeezy-Seite der Dokumentation zeigt, wie Sie ihn erstellen).',
  pastePolar:
    'Fügen Sie ein Organization Access Token mit den Scopes orders:read, refunds:read und webhooks:write ein (die Polar-Seite der Dokumentation zeigt, wie Sie es erstellen).',
  pasteDodo:
    'Fügen Sie einen API-Schlüssel (Developer → API Keys) aus dem Live- oder Testmodus ein (die Dodo-Payments-Seite der Dokumentation zeigt, wie Sie ihn erstellen).',
  lastWebhook: 'Letzter Webhook: {when}',
  waitingForSecret: 'Warten auf das Signaturgeheimnis',
  waitingDeliveries: {
    one: 'Warten auf das Signaturgeheimnis: {count} Zustellung wurde mit „später erneut versuchen“ beantwortet, {provider} sendet sie erneut',
    other:
      'Warten auf das Signaturgeheimnis: {count} Zustellungen wurden mit „später erneut versuchen“ beantwortet, {provider} sendet sie erneut',
  },
  reconciled: 'Abgeglichen: {when}',
  reconciliationFailed: 'Abgleich fehlgeschlagen ({when}): {error}',
  signingSecretFrom: 'Signaturgeheimnis von {provider}',
  saveSecret: 'Geheimnis speichern',
  customWebhook: 'eigener Webhook',
  sandboxTest: 'Sandbox (Testzahlungen)',
  live: 'live',
  connectedWithKey: 'mit API-Schlüssel verbunden',
  setUpByHand: 'manuell eingerichtet',
  webhookUrl: 'Webhook-URL: ',
  copyUrl: 'URL kopieren',
  reconciling: 'Wird abgeglichen…',
  reconcileNow: 'Jetzt abgleichen',
  newSecretAsk: 'Neues Signaturgeheimnis…',
  pasteNewSecret: 'Neues Signaturgeheimnis einfügen',
  rotateWarning:
    'Mit dem aktuellen Geheimnis signierte Webhooks werden abgelehnt, bis der Absender das neue hat.',
  disconnectWarning:
    'Die gespeicherten Webhooks und Zahlungen dieser Verbindung werden aus jedem Bericht entfernt.',
  disconnectWarningEndpoint:
    'Die gespeicherten Webhooks und Zahlungen dieser Verbindung werden aus jedem Bericht entfernt, und der Webhook-Endpunkt bei {provider} wird gelöscht.',
  makeNewSecret: 'Neues Geheimnis erstellen',
  disconnect: 'Trennen',
  provider: 'Anbieter',
  howToConnect: 'Art der Verbindung',
  withApiKey: 'Mit API-Schlüssel',
  byHand: 'Manuell',
  providerApiKey: 'API-Schlüssel von {provider}',
  keyHint:
    '{paste} Footfall legt den Webhook selbst an, bewahrt den Schlüssel verschlüsselt auf und liest die Zahlungen alle sechs Stunden zurück; der Schlüssel bestimmt Live oder Sandbox.',
  customNote:
    'Ihr Checkout- oder Abrechnungssystem sendet jede Zahlung, Erstattung und Rückbuchung an eine Webhook-URL, signiert mit einem Geheimnis, das Footfall ausstellt. Das Format steht in der Dokumentation (payments).',
  manualNote:
    'Footfall zeigt eine Webhook-URL, die Sie bei {provider} hinzufügen; fügen Sie dann das Signaturgeheimnis ein, das {provider} anzeigt. Ohne API-Schlüssel wird nichts abgeglichen: Zahlungen kommen nur über Webhooks.',
  nameOptional: 'Name (optional)',
  sandboxOnly: 'Sandbox (nur Testzahlungen)',
  checkingKey: 'Schlüssel wird bei {provider} geprüft…',
  paymentsIntro:
    'Verbinden Sie, wo Ihre Zahlungen stattfinden; der Bericht zeigt dann, welcher Traffic zahlt, zugeordnet dem Besuch, der den jeweiligen Käufer brachte.',
  copySecret: 'Geheimnis kopieren',
  secretShownOnce:
    '{name}: Kopieren Sie das Signaturgeheimnis jetzt, es wird nicht erneut angezeigt. Webhook-URL: {url}',
  noPaymentConnection: 'Noch keine Zahlungsverbindung.',
  searchConsoleIntro:
    'Mit Search Console markiert der Bereich „KI & Suche“ die Seiten, auf die Suchmaschinen Menschen schicken, die aber kein KI-Crawler gelesen hat („Nicht gelesen“).',
  connectedTo: 'Verbunden mit {property} als {email}.',
  clicksPulled: 'Klicks abgerufen am {when}.',
  lastPullFailed: 'Der letzte Abruf ist fehlgeschlagen ({when}): {error}',
  disconnectSearchConsole: 'Trennen: Der Schlüssel und die Klicks werden gelöscht',
  connectSearchConsole: 'Search Console verbinden',
  property: 'Property',
  propertyHint: 'sc-domain:example.com oder ein URL-Präfix wie https://example.com/',
  serviceAccountKey: 'Dienstkontoschlüssel (JSON)',
  serviceAccountKeyHint:
    'Erstellen Sie in Google Cloud ein Dienstkonto, laden Sie dessen JSON-Schlüssel herunter und fügen Sie ihn hier ein; fügen Sie die Adresse des Kontos in der Search Console als Nutzer der Property hinzu. Der Schlüssel wird verschlüsselt gespeichert und nie wieder angezeigt.',
  connecting: 'Wird verbunden…',
  sharesIntro:
    'Ein Freigabelink öffnet den Bericht dieser Website schreibgeschützt für alle, die ihn haben: keine Live-Ansicht, keine einzelnen Besucher, keine Einstellungen.',
  noShareLink: 'Noch kein Freigabelink.',
  newShareLink: 'Neuer Freigabelink',
  labelOptional: 'Bezeichnung (optional)',
  labelHint: 'für Sie: für wen der Link ist',
  passwordOptional: 'Passwort (optional)',
  passwordHint: 'mindestens 6 Zeichen; es wird abgefragt, bevor sich der Bericht öffnet',
  showChartNotes: 'Notizen des Diagramms zeigen (nie, wer sie geschrieben hat)',
  createShareLink: 'Freigabelink erstellen',
  shareLink: 'Freigabelink',
  password: 'Passwort',
  noPassword: 'Kein Passwort',
  showsNotes: 'zeigt Notizen',
  noNotes: 'keine Notizen',
  made: 'erstellt am {date}',
  opened: 'geöffnet am {date}',
  notOpenedYet: 'noch nicht geöffnet',
  copyLink: 'Link kopieren',
  otherInstanceKey:
    'Der Link wurde mit einem anderen Instanzschlüssel erstellt: Widerrufen Sie ihn und erstellen Sie einen neuen.',
  showNotes: 'Notizen zeigen',
  newPasswordOf: 'Neues Passwort für {name}',
  newPassword: 'Neues Passwort',
  changePassword: 'Passwort ändern',
  changePasswordOf: 'Passwort von {name} ändern',
  addPassword: 'Passwort hinzufügen',
  addPasswordOf: 'Passwort für {name} hinzufügen',
  removePassword: 'Passwort entfernen',
  removePasswordOf: 'Passwort von {name} entfernen',
  revokeAsk: 'Widerrufen…',
  revokeName: '{name} widerrufen',
  revokeConfirm: 'Widerrufen: Der Link funktioniert nicht mehr',
  sitesSeenBy: 'Websites, die {email} sieht',
  saveSitesOf: 'Websites von {email} speichern',
  saved: 'Gespeichert.',
} satisfies Translation<typeof en>;
