import type { Translation } from '../catalogue.ts';
import type en from '../en/sso.ts';

export default {
  ssoExpired: 'Diese Anmeldung wurde schon verwendet oder hat zu lange gedauert. Beginnen Sie erneut.',
  ssoOtherBrowser: 'Diese Anmeldung wurde in einem anderen Browser begonnen. Beginnen Sie hier erneut.',
  ssoProviderRefused:
    'Ihr Anmeldedienst hat Sie nicht angemeldet. Beginnen Sie erneut oder fragen Sie, wer ihn betreibt.',
  ssoTokenRefused:
    'Die Antwort Ihres Anmeldedienstes hat die Prüfungen von Footfall nicht bestanden, daher sind Sie nicht angemeldet. Sagen Sie es der Person, die Footfall betreibt.',
  ssoUnverifiedEmail:
    'Ihr Anmeldedienst hat Ihre E-Mail-Adresse nicht bestätigt, daher weiß Footfall nicht, wer Sie sind.',
  ssoNoEmail:
    'Ihr Anmeldedienst hat Ihre E-Mail-Adresse nicht übermittelt, daher weiß Footfall nicht, wer Sie sind.',
  ssoNoAccount: 'Sie haben hier noch kein Konto. Bitten Sie einen Inhaber, Ihre E-Mail-Adresse hinzuzufügen.',
  ssoUnreachable: 'Ihr Anmeldedienst hat nicht geantwortet. Versuchen Sie es gleich noch einmal.',
} satisfies Translation<typeof en>;
